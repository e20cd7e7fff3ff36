"""A deeper model from a trained one that computes the same at its first step.

The 4x320 Chinese model has seen its corpus four and a half times and a further leg moves its
held-out figures by thousandths of a nat: it is out of room, not out of data. A deeper model
started from scratch would spend sessions of these two cores relearning what the small one knows,
so the trained layers are kept and new ones are put between them. Each new layer starts as a copy
of the trained layer below it (useful projections to start from) with the three projections that
write into the residual stream (self-attention's, the template attention's and the feed-forward's
output) set to zero: a pre-LN block whose outputs are zero passes its input through unchanged, so
the grown model's logits equal the small model's until training moves them.
"""

from __future__ import annotations

import re

# the weights through which a block adds to the residual stream (engine/model.py's Block)
WRITE_OUT = ("self_attn.o.weight", "self_attn.o.bias", "cross_attn.o.weight", "cross_attn.o.bias",
             "ff.2.weight", "ff.2.bias")

_BLOCK_KEY = re.compile(r"blocks\.(\d+)\.(.+)")


def layer_plan(old_layers: int, new_layers: int) -> list[int | None]:
    """For each layer of the grown model, the trained layer it is (an index) or None for a new
    one. Trained layers keep their order, spread evenly: 4 -> 8 gives 0, new, 1, new, 2, new, 3,
    new (each new layer sits above the trained layer it copies)."""
    if old_layers < 1 or new_layers < old_layers:
        raise ValueError(f"cannot grow {old_layers} layers to {new_layers}: the grown model keeps every trained "
                         f"layer, so it needs at least as many")
    plan: list[int | None] = [None] * new_layers
    for i in range(old_layers):
        plan[i * new_layers // old_layers] = i
    return plan


def grow_state(state: dict, old_layers: int, new_layers: int) -> dict:
    """The state dict of a model of ``new_layers`` layers (every other weight as in ``state``):
    trained layers where ``layer_plan`` puts them, each new layer a copy of the layer below it
    with its ``WRITE_OUT`` weights zero."""
    plan = layer_plan(old_layers, new_layers)
    per_layer: dict[int, dict] = {}
    out = {}
    for key, value in state.items():
        m = _BLOCK_KEY.fullmatch(key)
        if m is None:
            out[key] = value
        else:
            per_layer.setdefault(int(m.group(1)), {})[m.group(2)] = value
    if sorted(per_layer) != list(range(old_layers)):
        raise ValueError(f"the state holds layers {sorted(per_layer)}, not 0-{old_layers - 1}")
    below = None
    for pos, src in enumerate(plan):
        if src is not None:
            below = src
            layer = per_layer[src]
        else:
            layer = {name: (value.clone().zero_() if name in WRITE_OUT else value.clone())
                     for name, value in per_layer[below].items()}
        for name, value in layer.items():
            out[f"blocks.{pos}.{name}"] = value
    return out


def grow_kinds(state: dict, n_kind: int, fallback) -> dict:
    """The state dict with the kind channel's table grown to ``n_kind`` rows, each new kind's row
    a copy of the row of the kind it was part of (``fallback[i]``: encoding.KIND_FALLBACK), so that
    a new register starts out read exactly as its parent kind was."""
    import torch

    table = state["kind.weight"]
    if n_kind < table.shape[0]:
        raise ValueError(f"the model has {table.shape[0]} kinds; it cannot shrink to {n_kind}")
    rows = [table[int(fallback[i])] for i in range(table.shape[0], n_kind)]
    return {**state, "kind.weight": torch.cat([table, *(r[None] for r in rows)]) if rows else table}

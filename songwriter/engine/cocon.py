"""Content steering (CoCon, Chang et al. 2021) for the SongNet decoder: one extra block after layer
``k`` of the frozen base model. Torch only: imported by torch code alone (the torch backend, the
trainer), never by the onnxruntime path.

Shapes: B rows, T target positions, N contents, L content positions, C content keys of a row (its
contents side by side), D width, H heads, dk = D / H.

    content text    laid out as a little piece of its own (one line per keyword or phrase,
                    marks and </s> as in engine.encoding), run through the base's lower k layers
                    alone: its own memory shows only its form (characters <fill>, so the
                    states are causal), never the piece's template                    (N, L, D)
    keys/values     Kc, Vc = kv_c(LN_c(content states))  (the content's own projections)
    the block       q = W_q LN(h), Ks = W_k LN(h)    h: the sequence after layer k   (B, T, D)
                    a = softmax([q Kc^T / sqrt(dk) + tau ; q Ks^T / sqrt(dk) + causal])
                    delta = W_o (a[content] Vc)      only the content's share is written
                    g = h + delta
                    out = g + (FFN(LN_f g) - FFN(LN_f h))
    tau             added to the logits of every key of a content, one tau per content

The sequence keys take part only in the softmax: they are what the content competes with, so
tau moves a query's share of attention between its own context and the content. What the block
writes is its difference from not being there: with no content, or tau so negative that the
content's share underflows (tau = -100: e^-100 ~ 4e-44 against a sum >= 1), delta is exactly
zero, g is h, and the FFN difference is exactly zero, so the base model's output comes back
unchanged (tests/test_cocon.py checks logits to 1e-5). W_o and the FFN's last layer start at
zero: an untrained block is the base model.

Training (train/cocon.py) freezes the base and trains the block on the paper's losses.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import torch
import torch.nn as nn

from songwriter.engine import encoding as E
from songwriter.engine.content import (  # noqa: F401  (content_layout: the layout's one home, re-exported)
    CONTENT_LEN, NEG_INF, content_batch, content_layout, key_slots, scope_mask,
)
from songwriter.engine.errors import ModelLoadError
from songwriter.engine.model import causal_bias
from songwriter.engine.model_folder import COCON_CONFIG, COCON_WEIGHTS, WEIGHTS, file_sha256

COCON_FORMAT = 1


def default_layer(n_layer: int) -> int:
    """After about a third of the layers (CoCon: after 7 of 24), at least 1, at most n - 1."""
    return max(1, min(n_layer - 1, round(n_layer / 3)))


@dataclass
class CoConConfig:
    layer: int               # the block reads the hidden states after this many base layers
    d_model: int
    n_head: int
    d_ff: int
    content_len: int = CONTENT_LEN
    base_sha256: str = ""    # sha256 of the base's model.safetensors it was trained on
    format_version: int = COCON_FORMAT
    extra: dict = field(default_factory=dict)   # training facts (steps, tokens, losses)

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> "CoConConfig":
        return cls(**{k: v for k, v in d.items() if k in cls.__dataclass_fields__})

    @classmethod
    def for_base(cls, base_cfg, layer: int | None = None, content_len: int = CONTENT_LEN) -> "CoConConfig":
        layer = default_layer(base_cfg.n_layer) if layer is None else layer
        if not 1 <= layer < base_cfg.n_layer:
            raise ValueError(f"the block goes after layer 1..{base_cfg.n_layer - 1} of {base_cfg.n_layer}, "
                             f"not {layer}")
        return cls(layer=layer, d_model=base_cfg.d_model, n_head=base_cfg.n_head, d_ff=base_cfg.d_ff,
                   content_len=min(content_len, base_cfg.max_len - 1))


class CoConBlock(nn.Module):
    def __init__(self, cfg: CoConConfig):
        super().__init__()
        D = cfg.d_model
        self.cfg = cfg
        self.h, self.dk = cfg.n_head, D // cfg.n_head
        self.ln = nn.LayerNorm(D)            # the sequence
        self.ln_c = nn.LayerNorm(D)          # the content
        self.q = nn.Linear(D, D)
        self.k = nn.Linear(D, D)             # sequence keys (no values: see the module docstring)
        self.kv_c = nn.Linear(D, 2 * D)      # content keys and values
        self.o = nn.Linear(D, D, bias=False)
        self.ln_f = nn.LayerNorm(D)
        self.ff = nn.Sequential(nn.Linear(D, cfg.d_ff), nn.GELU(), nn.Linear(cfg.d_ff, D))
        for m in (self.q, self.k, self.kv_c, self.ff[0]):
            nn.init.normal_(m.weight, std=0.02)
            nn.init.zeros_(m.bias)
        nn.init.zeros_(self.o.weight)        # an untrained block writes nothing
        nn.init.zeros_(self.ff[2].weight)
        nn.init.zeros_(self.ff[2].bias)

    def split(self, x: torch.Tensor) -> torch.Tensor:  # (B, T, D) -> (B, H, T, dk)
        B, T, _ = x.shape
        return x.view(B, T, self.h, self.dk).transpose(1, 2)

    def content_kv(self, states: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Content states (B, C, D) -> keys, values (B, H, C, dk)."""
        k, v = self.kv_c(self.ln_c(states)).chunk(2, dim=-1)
        return self.split(k), self.split(v)

    def forward(self, h: torch.Tensor, ckv: tuple[torch.Tensor, torch.Tensor], cbias: torch.Tensor,
                cache: dict | None = None, extra_bias: torch.Tensor | None = None) -> torch.Tensor:
        """h (B, T, D) after layer k; ckv content keys/values (B or 1, H, C, dk); cbias (B or 1, 1,
        1, C): tau of each key's content, -inf at padding; ``extra_bias`` (B, 1, T, C) masks keys
        per query (training's same-token mask). ``cache`` (decode): sequence keys of earlier steps."""
        B, T, D = h.shape
        x = self.ln(h)
        q = self.split(self.q(x)) * (self.dk ** -0.5)
        ks = self.split(self.k(x))
        if cache is not None:
            if "k" in cache:
                ks = torch.cat([cache["k"], ks], dim=2)
            cache["k"] = ks
        kc, vc = ckv
        C = kc.shape[2]
        acc = torch.promote_types(q.dtype, torch.float32)
        sc = torch.matmul(q, kc.transpose(-1, -2)).to(acc) + cbias                 # (B, H, T, C)
        if extra_bias is not None:
            sc = sc + extra_bias
        ss = torch.matmul(q, ks.transpose(-1, -2)).to(acc)                         # (B, H, T, S)
        if T > 1:
            ss = ss + causal_bias(T, ks.shape[2], h.device)
        a = torch.softmax(torch.cat([sc, ss], dim=-1), dim=-1)[..., :C]
        y = torch.matmul(a.to(vc.dtype), vc)                                        # (B, H, T, dk)
        g = h + self.o(y.transpose(1, 2).reshape(B, T, D))
        return g + (self.ff(self.ln_f(g)) - self.ff(self.ln_f(h)))   # exactly g when g is h


def encode_content(model, layer: int, emb: torch.Tensor, t: dict[str, torch.Tensor]) -> torch.Tensor:
    """The base's lower ``layer`` layers over contents alone: ``emb`` (N, L+1, D) input token
    embeddings (rows of tok.weight, or soft tokens: probabilities @ tok.weight), ``t`` their form
    (content_batch) -> the states of the L content tokens (N, L, D)."""
    mem_kv, mem_bias = model.encode_memory(t)
    pos = torch.arange(emb.shape[1], device=emb.device)
    x = emb + model.template_embedding(t) + model.pos(pos)
    for blk, kv in zip(model.blocks[:layer], mem_kv[:layer]):
        x = blk(x, kv, mem_bias)
    return x[:, 1:]


def gather_rows(states: torch.Tensor, keep: torch.Tensor, owner: list[int], tau: list[float], rows: int,
                src: list[np.ndarray] | None = None):
    """Per-content states (N, L, D) -> each row's keys side by side: (rows, C, D), the additive
    bias (rows, 1, 1, C) (tau of the key's content; -inf at padding) and, with ``src`` (the
    target position each content token came from, -1 for none), the key sources (rows, C)."""
    ci, ji, bias_np, filled = key_slots(keep.cpu().numpy(), owner, tau, rows)
    where = np.full(ci.shape, -1, dtype=np.int64)
    if src is not None:
        where[filled] = [int(src[c][j]) for c, j in zip(ci[filled], ji[filled])]
    ci, ji, bias = torch.as_tensor(ci), torch.as_tensor(ji), torch.as_tensor(bias_np)
    dev = states.device
    keys = states[ci.to(dev), ji.to(dev)]                                           # (rows, C, D)
    return keys, bias.to(dev)[:, None, None, :], torch.as_tensor(where, device=dev)


def same_token_bias(src: torch.Tensor, T: int) -> torch.Tensor:
    """(B, C) key sources -> (B, 1, T, C) additive mask: the query that predicts position p does
    not see the content key that holds the token of position p (CoCon's self-reconstruction)."""
    pos = torch.arange(T, device=src.device)
    hit = src[:, None, :] == pos[None, :, None]                                      # (B, T, C)
    return torch.zeros(hit.shape, device=src.device).masked_fill(hit, NEG_INF)[:, None]


# ---------------------------------------------------------------------------------------------
# Use at decode time

class Steering:
    """One request's steering: the contents' keys/values (computed once) and the hook that runs
    the block after layer k, for a whole sequence (``features``) or one decode step (``step``).
    ``mask`` (P + 1, C), when some content is scoped to some positions (a line's content):
    the additive per-query mask of ``content.scope_mask``, given to the block as ``extra_bias``."""

    def __init__(self, block: CoConBlock, ckv, cbias, mask: torch.Tensor | None = None):
        self.block, self.ckv, self.cbias, self.mask = block, ckv, cbias, mask
        self.layer = block.cfg.layer
        self.cache: dict = {}

    def fresh(self) -> "Steering":
        """The same contents with an empty key cache (one per request)."""
        return Steering(self.block, self.ckv, self.cbias, self.mask)

    def _mask_at(self, positions: torch.Tensor) -> torch.Tensor | None:
        if self.mask is None:
            return None
        return self.mask[positions.clamp(max=self.mask.shape[0] - 1)][None, None]      # (1, 1, T, C)

    def hook(self, i: int, x: torch.Tensor) -> torch.Tensor:
        if i != self.layer - 1:
            return x
        return self.block(x, self.ckv, self.cbias, extra_bias=self._mask_at(torch.arange(x.shape[1], device=x.device)))

    def step_hook(self, i: int, x: torch.Tensor, position: int = 0) -> torch.Tensor:
        if i != self.layer - 1:
            return x
        return self.block(x, self.ckv, self.cbias, cache=self.cache,
                          extra_bias=self._mask_at(torch.tensor([position], device=x.device)))

    def select(self, rows: torch.Tensor) -> "Steering":
        s = Steering(self.block, tuple(t if t.shape[0] == 1 else t[rows] for t in self.ckv),
                     self.cbias if self.cbias.shape[0] == 1 else self.cbias[rows], self.mask)
        s.cache = {k: v[rows] for k, v in self.cache.items()}
        return s


@torch.inference_mode()
def make_steering(model, block: CoConBlock, vocab, texts: list[str], strengths: list[float],
                  scopes: list[np.ndarray | None] | None = None) -> Steering | None:
    """Contents and their strengths -> a Steering for one row (broadcast to every row), or None
    when no content has a character in the vocabulary (the base model runs unchanged).
    ``scopes[c]``: None (every position sees content c) or a boolean array over the template's
    positions: only those queries see it (``content.scope_mask``; a line's content)."""
    layouts, tau, kept = [], [], []
    for c, (text, s) in enumerate(zip(texts, strengths)):
        lay = content_layout(text, vocab, block.cfg.content_len)
        if lay is not None:
            layouts.append(lay)
            tau.append(float(s))
            kept.append(scopes[c] if scopes else None)
    if not layouts:
        return None
    dev = next(model.parameters()).device
    b = content_batch(layouts, vocab)
    t = {k: torch.as_tensor(b[k], device=dev) for k in (*E.CHANNELS, "given")}
    states = encode_content(model, block.cfg.layer, model.tok(torch.as_tensor(b["inputs"], device=dev)), t)
    keys, bias, _ = gather_rows(states, torch.as_tensor(b["keep"]), [0] * len(layouts), tau, 1)
    ci, _, _, filled = key_slots(b["keep"], [0] * len(layouts), tau, 1)
    mask = scope_mask(ci[0], filled[0], kept)
    return Steering(block, block.content_kv(keys), bias,
                    None if mask is None else torch.as_tensor(mask, device=dev))


# ---------------------------------------------------------------------------------------------
# The block's files in a model folder (cocon.safetensors, cocon.json)

def save_block(block: CoConBlock, out: str | Path, dtype: torch.dtype = torch.float16) -> Path:
    from safetensors.torch import save_file

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    state = {k: v.detach().to("cpu", dtype).contiguous() for k, v in block.state_dict().items()}
    tmp = out / (COCON_WEIGHTS + ".tmp")
    save_file(state, str(tmp), metadata={"format_version": str(COCON_FORMAT)})
    tmp.replace(out / COCON_WEIGHTS)
    (out / COCON_CONFIG).write_text(json.dumps(block.cfg.to_dict(), ensure_ascii=False, indent=1),
                                    encoding="utf-8")
    return out


def retrain_hint(model_dir: Path) -> str:
    return (f"retrain it for this model: python -m songwriter.train train-cocon --base {model_dir} "
            f"--out runs/cocon --install {model_dir} (docs/cocon.md), or remove {COCON_WEIGHTS} and "
            f"{COCON_CONFIG} to run without content steering")


def load_block(model_dir: str | Path, base_cfg, any_base: bool = False) -> CoConBlock | None:
    """The folder's content-steering block, or None when it has none. ModelLoadError when its
    files are incomplete or damaged, do not fit the base model, or were trained on another base
    (the sha256 of model.safetensors it recorded is not this folder's). ``any_base`` skips that
    last check: only for training, where a block of an earlier base is a warm start for the next."""
    from songwriter.engine.torch_backend import load_weights_checked
    from songwriter.validate import parse_json

    d = Path(model_dir)
    wpath, cpath = d / COCON_WEIGHTS, d / COCON_CONFIG
    if not wpath.exists() and not cpath.exists():
        return None
    if not (wpath.is_file() and cpath.is_file()):
        missing = COCON_CONFIG if wpath.is_file() else COCON_WEIGHTS
        raise ModelLoadError(f"{d}: the content-steering block is incomplete: {missing} is missing")
    try:
        cfg = CoConConfig.from_dict(parse_json(cpath.read_bytes()[:1_000_001], str(cpath), 1_000_000,
                                               ModelLoadError))
    except (TypeError, ValueError) as e:
        raise ModelLoadError(f"{cpath} is not valid: {e}") from None
    if cfg.format_version != COCON_FORMAT:
        raise ModelLoadError(f"{cpath}: block format {cfg.format_version!r}, this app reads {COCON_FORMAT}")
    base = file_sha256(d / WEIGHTS) if not any_base else cfg.base_sha256
    if cfg.base_sha256 != base:
        raise ModelLoadError(
            f"{d}: the content-steering block ({COCON_WEIGHTS}) was trained on another base model "
            f"(sha256 {cfg.base_sha256[:12] or 'not recorded'}…), not this folder's {WEIGHTS} "
            f"({base[:12]}…); {retrain_hint(d)}")
    if (cfg.d_model, cfg.n_head, cfg.d_ff) != (base_cfg.d_model, base_cfg.n_head, base_cfg.d_ff) \
            or not 1 <= cfg.layer < base_cfg.n_layer:
        raise ModelLoadError(f"{cpath}: the block (layer {cfg.layer}, width {cfg.d_model}) does not fit "
                             f"the model ({base_cfg.n_layer} layers, width {base_cfg.d_model})")
    try:
        from safetensors.torch import load_file

        state = {k: v.float() for k, v in load_file(str(wpath)).items()}
    except Exception as e:  # safetensors raises several types for a damaged file
        raise ModelLoadError(f"{wpath} cannot be read ({type(e).__name__}: {e})") from None
    block = CoConBlock(cfg)
    load_weights_checked(block, state, str(wpath), "the block")
    return block.eval()


__all__ = ["CoConBlock", "CoConConfig", "Steering", "content_batch", "content_layout", "default_layer",
           "encode_content", "gather_rows", "load_block", "make_steering", "same_token_bias", "save_block"]

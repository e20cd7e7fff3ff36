"""The training step's loss, built for a CPU: the tied output projection and the cross-entropy
fused and computed in chunks of positions, only where there are targets.

A batch's logits (about 4k positions x 9.7k vocabulary) never exist whole, in fp32 or at all:
each chunk of positions gets its logits from one bf16 matrix product, its log-sum-exp and
softmax in fp32, and the softmax minus the target straight away becomes the gradients of the
hidden states and of the tied embedding (two more bf16 products, summed in fp32). The backward
pass then only scales what the forward left. Profiled on the old step, the fp32 log-softmax
and its backward over the whole logits took about a quarter of a step (docs/performance.md).
"""

from __future__ import annotations

import torch

from songwriter.engine import encoding as E
from songwriter.engine.vocab import FILL, SPECIALS

CHUNK = 512   # positions per chunk: a (512, 9.7k) fp32 block is 20 MB, inside a 32 MB L3
GPU_CHUNK = 8192   # on a GPU: fewer, larger products (a (8192, 16k) fp32 block is 0.5 GB)
FILL_ID = SPECIALS.index(FILL)   # the same id in both languages' vocabularies
LOSS_ON = ("all", "hidden")


class TiedCrossEntropy(torch.autograd.Function):
    """Mean cross-entropy of ``hidden @ weight.T`` against ``targets``, with its gradients
    computed in the forward pass (the logits are not kept for the backward)."""

    @staticmethod
    def forward(ctx, hidden: torch.Tensor, weight: torch.Tensor, targets: torch.Tensor,
                label_smoothing: float = 0.0, compute_dtype: torch.dtype = torch.bfloat16,
                chunk: int = CHUNK) -> torch.Tensor:
        n, vocab = hidden.shape[0], weight.shape[0]
        h, w = hidden.to(compute_dtype), weight.to(compute_dtype)
        grad_h = torch.empty_like(h)
        acc = torch.promote_types(compute_dtype, torch.float32)   # softmax and sums: fp32 at least
        grad_w = torch.zeros(weight.shape, dtype=acc, device=weight.device)
        total = torch.zeros((), dtype=acc, device=hidden.device)
        scale = 1.0 / max(1, n)
        rows = torch.arange(min(chunk, n), device=hidden.device)
        for a in range(0, n, chunk):
            hc, tc = h[a:a + chunk], targets[a:a + chunk]
            at = rows[:len(tc)]
            z = hc @ w.t()                                             # (C, V) logits, bf16
            # one row-wise kernel reads the bf16 logits and writes fp32 probabilities: a row
            # (9.7k values) stays in cache for its max, sum and scaling, where separate
            # whole-block passes (cast, max, exp, sum, divide) each stream 20 MB
            p = torch.softmax(z, dim=1, dtype=acc)
            nll = -p[at, tc].clamp_min(torch.finfo(acc).tiny).log()
            if label_smoothing:
                # -mean(log p) = lse - mean(z), lse = z_t - log p_t
                mean_z = z.sum(dim=1, dtype=acc) / vocab
                nll = (1 - label_smoothing) * nll + label_smoothing * (z[at, tc].to(acc) + nll - mean_z)
                p -= label_smoothing / vocab
            total += nll.sum()
            # n * d(mean loss)/dz = softmax - smoothed one-hot; the 1/n is applied to the products
            p[at, tc] -= 1 - label_smoothing
            g = p.to(compute_dtype)
            grad_h[a:a + chunk] = g @ w
            grad_w += g.t() @ hc
        grad_h *= scale
        grad_w *= scale
        ctx.save_for_backward(grad_h, grad_w)
        ctx.dtypes = (hidden.dtype, weight.dtype)
        return total * scale

    @staticmethod
    def backward(ctx, grad_out):
        grad_h, grad_w = ctx.saved_tensors
        h_dtype, w_dtype = ctx.dtypes
        return (grad_h.to(h_dtype) * grad_out, (grad_w * grad_out).to(w_dtype), None, None, None, None)


def to_tensors(batch: dict, device) -> tuple[torch.Tensor, torch.Tensor, dict]:
    """A collated batch (numpy) -> inputs, targets and the template channels as tensors."""
    from songwriter.engine.model import FIELDS

    b = {k: torch.as_tensor(v, device=device) for k, v in batch.items()}
    return b["inputs"], b["targets"], {k: b[k] for k in (*FIELDS, "given")}


def loss_positions(t: dict, loss_on: str = "all") -> torch.Tensor:
    """Flat indices of the positions the loss counts. ``all``: every non-pad position.
    ``hidden``: only those the template leaves open (memory ``given`` is ``<fill>``): what the
    decoder chooses. A mark, a line end or a given word is copied at decode time, and its target
    is predictable from the memory alone; the output layer and softmax there buy nothing."""
    keep = t["fmt"] != E.F_PAD
    if loss_on == "hidden":
        keep = keep & (t["given"] == FILL_ID)
    elif loss_on != "all":
        raise ValueError(f"loss_on must be one of {LOSS_ON}, not {loss_on!r}")
    return torch.nonzero(keep.reshape(-1)).squeeze(1)


def fused_loss(model, batch: dict, device, autocast_dtype=None, label_smoothing: float = 0.0,
               loss_on: str = "all"):
    """Mean next-token loss over a batch's loss positions (``loss_positions``) and the count of
    its non-pad positions (what a step processed, the trainer's tokens/s), the new step's way:
    hidden states under autocast, then the chunked tied projection + cross-entropy."""
    inputs, targets, t = to_tensors(batch, device)
    with torch.autocast(device.type, dtype=autocast_dtype, enabled=autocast_dtype is not None):
        hidden = model(inputs, t, logits=False)
    raw = model.module if hasattr(model, "module") else model
    at = loss_positions(t, loss_on)
    h = hidden.reshape(-1, hidden.shape[-1]).index_select(0, at)
    loss = TiedCrossEntropy.apply(h, raw.tok.weight, targets.reshape(-1).index_select(0, at),
                                  label_smoothing, autocast_dtype or hidden.dtype,
                                  GPU_CHUNK if hidden.is_cuda else CHUNK)
    return loss, int((t["fmt"] != E.F_PAD).sum())


def reference_loss(model, batch: dict, device, autocast_dtype=None, label_smoothing: float = 0.0,
                   loss_on: str = "all"):
    """The step as it was (kept to measure against, bench/train_step.py): full logits of every
    position, cast to fp32, and the library cross-entropy over the loss positions."""
    inputs, targets, t = to_tensors(batch, device)
    with torch.autocast(device.type, dtype=autocast_dtype, enabled=autocast_dtype is not None):
        logits = model(inputs, t)
    tg = torch.full_like(targets, -100).view(-1)
    at = loss_positions(t, loss_on)
    tg[at] = targets.reshape(-1)[at]
    loss = torch.nn.functional.cross_entropy(logits.float().view(-1, logits.shape[-1]), tg,
                                             ignore_index=-100, label_smoothing=label_smoothing)
    return loss, int((t["fmt"] != E.F_PAD).sum())


def keep_freed_memory() -> bool:
    """Ask glibc's allocator to keep freed memory for reuse instead of handing it back to the
    system: a step allocates and frees blocks of tens of MB (activations of varying lengths), and
    memory handed back comes back zero-filled, page by page, on its next use (about 30k page
    faults a step at 4x320 before; none after the first steps). Returns whether it applied."""
    import ctypes
    import ctypes.util

    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name) if name else None
        mallopt = libc.mallopt if libc is not None else None
    except (OSError, AttributeError):
        return False
    if mallopt is None:
        return False
    m_trim_threshold, m_mmap_threshold = -1, -3
    return bool(mallopt(m_mmap_threshold, 1 << 30)) and bool(mallopt(m_trim_threshold, 1 << 30))

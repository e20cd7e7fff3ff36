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

CHUNK = 512   # positions per chunk: a (512, 9.7k) fp32 block is 20 MB, inside a 32 MB L3


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
        grad_w = torch.zeros(weight.shape, dtype=torch.float32, device=weight.device)
        total = torch.zeros((), dtype=torch.float32, device=hidden.device)
        scale = 1.0 / max(1, n)
        for a in range(0, n, chunk):
            hc, tc = h[a:a + chunk], targets[a:a + chunk]
            z = (hc @ w.t()).float()                                   # (C, V) logits
            lse = torch.logsumexp(z, dim=1)
            nll = lse - z.gather(1, tc[:, None])[:, 0]
            if label_smoothing:
                nll = (1 - label_smoothing) * nll + label_smoothing * (lse - z.mean(dim=1))
            total += nll.sum()
            # d(mean loss)/dz = (softmax - smoothed one-hot) / n, computed in z's own memory
            g = z.sub_(lse[:, None]).exp_()
            g[torch.arange(len(tc), device=g.device), tc] -= 1 - label_smoothing
            if label_smoothing:
                g -= label_smoothing / vocab
            g = g.mul_(scale).to(compute_dtype)
            grad_h[a:a + chunk] = g @ w
            grad_w += g.t() @ hc
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


def fused_loss(model, batch: dict, device, autocast_dtype=None, label_smoothing: float = 0.0):
    """Mean next-token loss over a batch's non-pad positions and their count, the new step's way:
    hidden states under autocast, then the chunked tied projection + cross-entropy."""
    inputs, targets, t = to_tensors(batch, device)
    with torch.autocast(device.type, dtype=autocast_dtype, enabled=autocast_dtype is not None):
        hidden = model(inputs, t, logits=False)
    raw = model.module if hasattr(model, "module") else model
    at = torch.nonzero((t["fmt"] != E.F_PAD).reshape(-1)).squeeze(1)
    h = hidden.reshape(-1, hidden.shape[-1]).index_select(0, at)
    loss = TiedCrossEntropy.apply(h, raw.tok.weight, targets.reshape(-1).index_select(0, at),
                                  label_smoothing, autocast_dtype or torch.float32)
    return loss, int(at.numel())


def reference_loss(model, batch: dict, device, autocast_dtype=None, label_smoothing: float = 0.0):
    """The step as it was (kept to measure against, bench/train_step.py): full logits of every
    position, cast to fp32, and the library cross-entropy over the non-pad ones."""
    inputs, targets, t = to_tensors(batch, device)
    with torch.autocast(device.type, dtype=autocast_dtype, enabled=autocast_dtype is not None):
        logits = model(inputs, t)
    tg = targets.masked_fill(t["fmt"] == E.F_PAD, -100)
    loss = torch.nn.functional.cross_entropy(logits.float().view(-1, logits.shape[-1]), tg.view(-1),
                                             ignore_index=-100, label_smoothing=label_smoothing)
    return loss, int((tg != -100).sum())

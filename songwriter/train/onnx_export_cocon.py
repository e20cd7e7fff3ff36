"""The content-steering (CoCon) path of the ONNX export (needs torch): written by ``export-onnx``
when the model folder has a block (cocon.safetensors, cocon.json; engine/cocon.py, docs/cocon.md).

    cocon_content.onnx      contents -> the block's content keys/values (run once per request)
    cocon_content.int8.onnx the same with its weight MatMuls and embedding lookups in int8 (5 MB
                            instead of 21 at 4 x 320: mostly the token table), run with the int8 step
    step.cocon.onnx         the step of onnx_export with the block after layer k, fp32
    step.cocon.int8.onnx    the same with the base's weight MatMuls in int8 (as step.int8.onnx);
                            the block's own stay fp32

and a ``cocon`` entry in onnx.json: the files, the sha256 of the block they were made from (the
backend refuses graphs of another block), the layer, the content width and the int8 check.

Content graph (N contents, W = content_len + 1 positions, fixed: padding changes no real key)::

    inputs fmt bpos line given   int64 (N, W)   engine.content.content_batch(..., length=W - 1)
    -> content_k, content_v      float (N, H, W - 1, k)   kv_c(LN_c(lower k layers' states)),
                                 the key of input token j at position j + 1, as the block reads it

Steered step: the plain step's inputs and outputs, and (Bc: 1, shared by all B rows, or B)::

    content_k, content_v  float (Bc, H, C, k)   a row's content keys side by side (key_slots)
    content_bias          float (Bc, 1, 1, C)   tau of each key's content, -inf at padding
    cache_block_k         float (B, H, T, k)    the block's sequence keys of earlier positions,
                                                bound and grown like the self-attention caches
    -> new_block_k        float (B, D)          this position's block key (heads in order), which
                                                the caller writes into cache_block_k at position

The block's arithmetic is engine/cocon.py's ``CoConBlock.forward`` for one position, laid out as
the plain step lays out attention (rows 2-D, queries pre-scaled, keys multiplied transposed).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import torch
import torch.nn as nn

from songwriter.engine import encoding as E
from songwriter.engine.cocon import CoConBlock, encode_content
from songwriter.engine.content import CONTENT_INPUTS, STEERING_INPUTS
from songwriter.engine.model import SongNet
from songwriter.engine.model_folder import (
    COCON_CONTENT, COCON_CONTENT_INT8, COCON_WEIGHTS, STEP_COCON, STEP_COCON_INT8, file_sha256,
)
from songwriter.train.onnx_export import _Encoder, _export, _Step, quantize_graph, step_io



class _ContentEncoder(nn.Module):
    def __init__(self, model: SongNet, block: CoConBlock):
        super().__init__()
        self.m, self.block, self.layer = model, block, block.cfg.layer

    def forward(self, inputs, fmt, bpos, line, given):
        zero = torch.zeros_like(fmt)
        t = {"fmt": fmt, "bpos": bpos, "line": line, "tone": zero, "label": zero, "group": zero,
             "kind": zero, "given": given}
        states = encode_content(self.m, self.layer, self.m.tok(inputs), t)     # (N, W - 1, D)
        return self.block.content_kv(states)


class _SteeredStep(nn.Module):
    def __init__(self, model: SongNet, block: CoConBlock):
        super().__init__()
        self.step, self.block = _Step(model), block   # "step.": the base's weights (int8 takes those)
        self.layer = block.cfg.layer
        self.h, self.dk = block.h, block.dk
        scale = 1.0 / math.sqrt(self.dk)

        def param(t: torch.Tensor) -> nn.Parameter:
            return nn.Parameter(t.detach().contiguous(), requires_grad=False)

        # (in, out) weights as in _Step: x @ W + b (int8 quantisation takes these MatMuls)
        self.wq, self.bq = param(block.q.weight.t() * scale), param(block.q.bias * scale)
        self.wk, self.bk = param(block.k.weight.t()), param(block.k.bias)
        self.wo = param(block.o.weight.t())
        self.w1, self.b1 = param(block.ff[0].weight.t()), param(block.ff[0].bias)
        self.w2, self.b2 = param(block.ff[2].weight.t()), param(block.ff[2].bias)

    def ffn(self, x):
        return self.block.ff[1](self.block.ln_f(x) @ self.w1 + self.b1) @ self.w2 + self.b2

    def run_block(self, h, content_k, content_v, content_bias, cache_k, self_bias):
        """h (B, D) after layer k -> the rows the next layer reads, and this position's key."""
        H, dk = self.h, self.dk
        D = H * dk
        Bc, C = content_k.shape[0], content_k.shape[2]
        x = self.block.ln(h)
        q = x @ self.wq + self.bq                                                   # (B, D), scaled
        kn = x @ self.wk + self.bk                                                  # (B, D)
        # content logits with the rows sharing one content row stacked (as the cross-attention)
        qc = q.reshape(Bc, -1, H, dk).transpose(1, 2)                               # (Bc, H, R, k)
        sc = qc @ content_k.transpose(-1, -2) + content_bias                       # (Bc, H, R, C)
        sc = sc.transpose(1, 2).reshape(-1, H, 1, C)                                # (B, H, 1, C)
        qs = q.reshape(-1, H, 1, dk)
        s_old = qs @ cache_k.transpose(-1, -2) + self_bias                         # (B, H, 1, T)
        s_new = (qs * kn.reshape(-1, H, 1, dk)).sum(-1, keepdim=True)               # (B, H, 1, 1)
        a = torch.softmax(torch.cat([sc, s_old, s_new], dim=-1), dim=-1)[..., :C]   # the content's share
        a = a.reshape(Bc, -1, H, C).transpose(1, 2)                                 # (Bc, H, R, C)
        y = (a @ content_v).transpose(1, 2).reshape(-1, D)                          # (B, D)
        g = h + y @ self.wo
        return g + (self.ffn(g) - self.ffn(h)), kn

    def forward(self, prev, position, tmpl, mem_bias, *rest):
        n = 4 * self.step.L
        kv, (content_k, content_v, content_bias, cache_k) = rest[:n], rest[n:]
        new_block_k = []

        def after_layer(li, x, self_bias):
            if li != self.layer - 1:
                return x
            x, kn = self.run_block(x, content_k, content_v, content_bias, cache_k, self_bias)
            new_block_k.append(kn)
            return x

        logp, new_kv = self.step.layers(prev, position, tmpl, mem_bias, kv, after_layer)
        return logp, new_kv, new_block_k[0]


def export_cocon_graphs(model: SongNet, block: CoConBlock, out: str | Path) -> dict[str, Path]:
    """Write the content graph and the fp32 steered step for ``model`` with ``block``."""
    out = Path(out)
    model, block = model.float().eval(), block.float().eval()
    cfg = model.cfg
    H, dk = cfg.n_head, cfg.d_model // cfg.n_head
    W = block.cfg.content_len + 1
    N, B, M, C = 2, 2, 5, 3
    with torch.no_grad():
        content = {k: torch.zeros(N, W, dtype=torch.long) for k in CONTENT_INPUTS}
        content["fmt"][:, :4] = E.F_CHAR
        axes = {k: {0: "contents"} for k in (*CONTENT_INPUTS, "content_k", "content_v")}
        _export(_ContentEncoder(model, block), tuple(content[k] for k in CONTENT_INPUTS), out / COCON_CONTENT,
                list(CONTENT_INPUTS), ["content_k", "content_v"], axes)

        channels = _Encoder(model).names
        fields = {k: torch.zeros(B, M, dtype=torch.long) for k in (*channels, "given")}
        fields["fmt"][:] = E.F_CHAR
        mem = _Encoder(model)(*(fields[k] for k in (*channels, "given")))
        args, names, axes = step_io(model, mem, B, M)
        steering = (torch.randn(1, H, C, dk), torch.randn(1, H, C, dk), torch.zeros(1, 1, 1, C),
                    torch.zeros(B, H, M, dk))
        axes.update({"content_k": {0: "cbatch", 2: "ckeys"}, "content_v": {0: "cbatch", 2: "ckeys"},
                     "content_bias": {0: "cbatch", 3: "ckeys"}, "cache_block_k": {0: "batch", 2: "tlen"},
                     "new_block_k": {0: "batch"}})
        _export(_SteeredStep(model, block), (*args, *steering), out / STEP_COCON, [*names, *STEERING_INPUTS],
                ["logp", "new_kv", "new_block_k"], axes)
    return {"content": out / COCON_CONTENT, "step": out / STEP_COCON}


def export_cocon(model_dir: Path, model: SongNet, cfg, int8: bool, log=print, weight_bits: int = 7) -> dict | None:
    """The folder's block exported next to the plain graphs: onnx.json's ``cocon`` entry, or
    None when the folder has no block. A block that cannot be used (trained on another base,
    damaged) is left out with a note: the plain graphs stay good without it, and the torch
    loader says what is wrong with the block."""
    from songwriter.engine.cocon import load_block
    from songwriter.engine.errors import ModelLoadError

    stale = [model_dir / f for f in (COCON_CONTENT, COCON_CONTENT_INT8, STEP_COCON, STEP_COCON_INT8)]
    try:
        block = load_block(model_dir, cfg)
    except ModelLoadError as e:
        block = None
        log(f"note: no content-steering graphs: {e}")
    if block is None:
        for f in stale:            # graphs of an earlier block must not outlive it
            f.unlink(missing_ok=True)
        return None
    paths = export_cocon_graphs(model, block, model_dir)
    files = {"content": COCON_CONTENT, "fp32": STEP_COCON}
    if int8:
        # the base's weights in int8 as in step.int8.onnx; the block's own stay fp32: quantised
        # too, the steered log-probs moved about twice as far from fp32 as the plain step's
        # (tiny test model, random block), with it fp32 about 1.2 times (docs/cocon.md)
        # with the plain int8 step's weight bits: the same int8 weights, so a plain request
        # stepped through this graph (no content key) gives step.int8.onnx's log-probs
        quantize_graph(paths["step"], model_dir / STEP_COCON_INT8, weights_prefix="step.", weight_bits=weight_bits)
        quantize_graph(paths["content"], model_dir / COCON_CONTENT_INT8, lookups=True)
        files["int8"], files["content_int8"] = STEP_COCON_INT8, COCON_CONTENT_INT8
    else:
        (model_dir / STEP_COCON_INT8).unlink(missing_ok=True)
        (model_dir / COCON_CONTENT_INT8).unlink(missing_ok=True)
    info = {"files": files, "block_sha256": file_sha256(model_dir / COCON_WEIGHTS),
            "base_sha256": block.cfg.base_sha256, "layer": block.cfg.layer,
            "content_len": block.cfg.content_len}
    return info


def steered_int8_check(model_dir: Path, log=print) -> dict:
    """How far the int8 steered step's log-probs are from the fp32 one's, beside the same figure
    for the plain steps, over a 七绝 with random previous characters and two contents at tau 0
    and 2 (a Chinese model; others are not checked). The int8 steered step is used when its
    mean absolute difference is at most 1.5 times the plain int8 step's (the block adds no
    quantisation error of its own beyond that)."""
    from songwriter.engine.onnx_backend import OnnxBackend
    from songwriter.forms import named_form

    fp32 = OnnxBackend(model_dir, "fp32", "cpu", check_weights=False)
    if getattr(fp32.vocab, "language", "zh") != "zh":
        return {"checked": False, "int8_ok": False, "why": "not a Chinese model"}
    int8 = OnnxBackend(model_dir, "int8", "cpu", check_weights=False)
    enc = E.encode_template(named_form("七绝"), fp32.vocab)
    rng = np.random.default_rng(0)
    prev = rng.integers(fp32.vocab.first_char, len(fp32.vocab), (4, len(enc)))
    prev[:, 0] = fp32.vocab.bos
    content, tau = ["明月 故乡", "春风"], [0.0, 2.0]

    def stepped(be) -> np.ndarray:
        state = be.start(enc.arrays(), len(prev))
        return np.stack([be.step(state, prev[:, p], p).copy() for p in range(len(enc))], 1)

    plain = float(np.abs(stepped(int8) - stepped(fp32)).mean())
    steered = float(np.abs(stepped(int8.steered(content, tau, int8.vocab))
                           - stepped(fp32.steered(content, tau, fp32.vocab))).mean())
    ok = steered <= 1.5 * plain
    log(f"  steered int8 vs fp32: mean |dlogp| {steered:.4f} (plain steps {plain:.4f}) -> "
        f"{'int8' if ok else 'fp32'} for content steering")
    return {"checked": True, "plain_mean_abs": plain, "steered_mean_abs": steered, "int8_ok": bool(ok)}

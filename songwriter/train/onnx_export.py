"""Export a model folder's SongNet to ONNX graphs for the onnxruntime backend (needs torch).

    songwriter export-onnx models/zh            # writes, next to model.safetensors:

    encoder.onnx            template arrays (B, M) -> what every decode step reads (run once)
    step.onnx               one decode step with a KV cache, fp32, log-probs out
    step.int8.onnx          the same step with its weight MatMuls quantised to int8 (dynamic)
    encoder.int8.onnx       the encoder with its embedding tables and weight MatMuls in int8, read
                            with the int8 step (a quarter of the size; it runs once a request)
    onnx.json               what was exported from what: weights and vocab hashes, dims, opset,
                            the int8 quality check and the variant ``auto`` should load

and, for a folder with a content-steering block (cocon.safetensors), its graphs
(cocon_content.onnx, step.cocon.onnx, step.cocon.int8.onnx: ``onnx_export_cocon``).

The graphs are traced from the one model definition (``model.SongNet``): the wrappers below call
its own modules (embeddings, layer norms, linear layers) and only re-arrange the attention
arithmetic for a decoder that reads a preallocated cache instead of concatenating one.

Encoder (dims: B rows, M memory positions, D width, H heads, k = D / H)::

    fmt bpos line tone label group [kind] given   int64 (B, M)   (kind: models with the channel)
    -> tmpl      float (B, M, D)     template embedding + position embedding (the step's input)
       mem_bias  float (B, 1, 1, M)  0 where the memory has a position, -inf at padding
       mem_k{l}  float (B, H, M, k)  cross-attention keys of layer l
       mem_v{l}  float (B, H, M, k)  cross-attention values of layer l

Step (B rows; the memory may have 1 row, broadcast to all, or B rows; T cache length >= M)::

    prev int64 (B,)  position int64 ()  tmpl mem_bias mem_k{l} mem_v{l}  (from the encoder)
    cache_k{l} float (B, H, T, k)   cache_v{l} float (B, H, T, k)   self-attention keys/values of
                                    positions < ``position`` (later slots are masked, never read)
    -> logp    float (B, V)          log-softmax of the next-token logits (fused in the graph)
       new_kv  float (B, L * 2 * D)  this position's self-attention keys and values, per layer
                                    [k | v] with heads in order; the caller writes them into the
                                    caches at ``position``

The caches never cross the graph boundary by value: the backend binds them once per request and
only writes one row per step, so a step reads the weights once and copies nothing big. Keys are
multiplied transposed (onnxruntime fuses that into FusedMatMul: no copy), so writing a step's key
is as contiguous as writing its value.
"""

from __future__ import annotations

import json
import math
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn as nn

from songwriter.engine import encoding as E
from songwriter.engine.model import FIELDS, SongNet, model_channels
from songwriter.engine.model_folder import (
    ENCODER, ENCODER_INT8, MANIFEST, ONNX_MANIFEST, STEP, STEP_INT8, VOCAB, WEIGHTS, file_sha256,
)

OPSET = 17
ONNX_FORMAT = 1


class _Encoder(nn.Module):
    def __init__(self, model: SongNet):
        super().__init__()
        self.m = model
        self.names = model_channels(model.cfg)

    def forward(self, *arrays):
        """arrays: the model's channels (``model_channels``), then ``given``."""
        m = self.m
        t = dict(zip(self.names, arrays))
        fmt, given = t["fmt"], arrays[-1]
        pos = m.pos(torch.arange(fmt.shape[1], device=fmt.device))               # (M, D)
        temb = m.template_embedding(t)                                              # (B, M, D)
        mem = m.mem_ln(temb + m.tok(given) + pos)
        zero = torch.zeros((), dtype=torch.float32)
        bias = torch.where(fmt != E.F_PAD, zero, torch.full((), float("-inf")))[:, None, None, :]
        outs = [temb + pos, bias]
        for blk in m.blocks:
            k, v = blk.cross_attn.project_kv(mem)                                  # (B, H, M, k)
            outs += [k, v]
        return tuple(outs)


class _Step(nn.Module):
    """One decode step, written for few graph nodes: rows are 2-D (B, D) so every linear layer
    is one Gemm after onnxruntime's MatMul+Add fusion, head splits are plain reshapes (no
    transposes), the attention scale is folded into the query weights."""

    def __init__(self, model: SongNet):
        super().__init__()
        self.m = model
        self.h = model.blocks[0].self_attn.h
        self.dk = model.blocks[0].self_attn.dk
        scale = 1.0 / math.sqrt(self.dk)
        # One copy of the tied embedding, stored as the logits' (D, V) operand; the input
        # lookup gathers its columns.
        self.wT = nn.Parameter(model.tok.weight.detach().t().contiguous(), requires_grad=False)
        self.w = nn.ParameterList()
        for blk in model.blocks:   # (in, out) weights: x @ W + b; queries pre-scaled
            for lin, sc in ((blk.self_attn.q, scale), (blk.self_attn.kv, 1.0), (blk.self_attn.o, 1.0),
                            (blk.cross_attn.q, scale), (blk.cross_attn.o, 1.0),
                            (blk.ff[0], 1.0), (blk.ff[2], 1.0)):
                self.w.append(nn.Parameter((lin.weight.detach().t() * sc).contiguous(), requires_grad=False))
                self.w.append(nn.Parameter((lin.bias.detach() * sc).contiguous(), requires_grad=False))
        self.L = len(model.blocks)

    def forward(self, prev, position, tmpl, mem_bias, *kv):
        return self.layers(prev, position, tmpl, mem_bias, kv)

    def layers(self, prev, position, tmpl, mem_bias, kv, after_layer=None):
        """The step's arithmetic; ``after_layer(li, x, self_bias)``, when given, returns the rows
        (B, D) the next layer reads (the content-steering block of onnx_export_cocon sits there)."""
        m, L, H, dk = self.m, self.L, self.h, self.dk
        D = H * dk
        mem_k, mem_v = kv[0:2 * L:2], kv[1:2 * L:2]
        cache_k, cache_v = kv[2 * L:4 * L:2], kv[2 * L + 1:4 * L:2]
        x = torch.index_select(self.wT, 1, prev).t() + tmpl[:, position]           # (B, D)
        T = cache_k[0].shape[2]
        Bm = mem_k[0].shape[0]
        self_bias = torch.where(torch.arange(T) < position, torch.zeros(()), torch.full((), float("-inf")))
        new = []
        for li, blk in enumerate(m.blocks):
            wq, bq, wkv, bkv, wo, bo, wq2, bq2, wo2, bo2, w1, b1, w2, b2 = self.w[14 * li:14 * li + 14]
            # self-attention over the cache (positions < position) plus this position
            h = blk.ln1(x)
            q = (h @ wq + bq).reshape(-1, H, 1, dk)                                  # (B, H, 1, k)
            kvn = h @ wkv + bkv                                                     # (B, 2D) = [k | v]
            new.append(kvn)
            kn = kvn[:, :D].reshape(-1, H, 1, dk)
            vn = kvn[:, D:].reshape(-1, H, 1, dk)
            s_old = q @ cache_k[li].transpose(-1, -2) + self_bias                   # (B, H, 1, T)
            s_new = (q * kn).sum(-1, keepdim=True)                                  # (B, H, 1, 1)
            p = torch.softmax(torch.cat([s_old, s_new], dim=-1), dim=-1)
            y = p[..., :-1] @ cache_v[li] + p[..., -1:] * vn                        # (B, H, 1, k)
            x = x + (y.reshape(-1, D) @ wo + bo)                                    # bias first: one Gemm
            # cross-attention to the template memory (no mask but padding). The memory has Bm
            # rows (1: shared by all B rows, or B); rows sharing one memory row are stacked so
            # that each head is one (R, k) x (k, M) product instead of R vector products.
            q = (blk.ln2(x) @ wq2 + bq2).reshape(Bm, -1, H, dk).transpose(1, 2)     # (Bm, H, R, k)
            p = torch.softmax(q @ mem_k[li].transpose(-1, -2) + mem_bias, dim=-1)   # (Bm, H, R, M)
            y = (p @ mem_v[li]).transpose(1, 2).reshape(-1, D)                      # (B, D)
            x = x + (y @ wo2 + bo2)
            x = x + (blk.ff[1](blk.ln3(x) @ w1 + b1) @ w2 + b2)
            if after_layer is not None:
                x = after_layer(li, x, self_bias)
        logits = m.ln_f(x) @ self.wT                                                # (B, V)
        return torch.log_softmax(logits, dim=-1), torch.cat(new, dim=1)


def _names(L: int) -> tuple[list[str], list[str], list[str]]:
    mem = [n for i in range(L) for n in (f"mem_k{i}", f"mem_v{i}")]
    cache = [n for i in range(L) for n in (f"cache_k{i}", f"cache_v{i}")]
    return mem, cache, ["tmpl", "mem_bias", *mem]


def _export(module, args, path: Path, inputs, outputs, axes) -> None:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(module, args, str(path), input_names=inputs, output_names=outputs,
                          dynamic_axes=axes, opset_version=OPSET, dynamo=False, do_constant_folding=True)


def export_graphs(model: SongNet, out: str | Path) -> dict[str, Path]:
    """Write encoder.onnx and step.onnx for ``model`` into ``out``."""
    out = Path(out)
    model = model.float().eval()
    cfg = model.cfg
    L = cfg.n_layer
    _, _, enc_out = _names(L)
    M, B = 5, 2
    inputs = [*model_channels(cfg), "given"]
    fields = {k: torch.zeros(B, M, dtype=torch.long) for k in inputs}
    fields["fmt"][:] = E.F_CHAR
    with torch.no_grad():
        enc = _Encoder(model)
        axes = {k: {0: "mbatch", 1: "mlen"} for k in inputs}
        axes.update({"tmpl": {0: "mbatch", 1: "mlen"}, "mem_bias": {0: "mbatch", 3: "mlen"}})
        for i in range(L):
            axes[f"mem_k{i}"] = {0: "mbatch", 2: "mlen"}
            axes[f"mem_v{i}"] = {0: "mbatch", 2: "mlen"}
        _export(enc, tuple(fields[k] for k in inputs), out / ENCODER, inputs, enc_out, axes)

        args, names, axes = step_io(model, enc(*(fields[k] for k in inputs)), B, M)
        _export(_Step(model), args, out / STEP, names, ["logp", "new_kv"], axes)
    return {"encoder": out / ENCODER, "step": out / STEP}


def step_io(model: SongNet, mem: tuple, B: int, M: int) -> tuple[tuple, list[str], dict]:
    """The step graph's example inputs for tracing (``mem``: the encoder's outputs for B rows of
    M positions, empty caches of M positions), their names and their dynamic axes (with those of
    the outputs ``logp`` and ``new_kv``)."""
    cfg = model.cfg
    L, H = cfg.n_layer, cfg.n_head
    dk = cfg.d_model // H
    _, cache_names, enc_out = _names(L)
    caches = []
    for _ in range(L):
        caches += [torch.zeros(B, H, M, dk), torch.zeros(B, H, M, dk)]
    args = (torch.zeros(B, dtype=torch.long), torch.tensor(1, dtype=torch.long), *mem, *caches)
    axes = {"prev": {0: "batch"}, "tmpl": {0: "mbatch", 1: "mlen"}, "mem_bias": {0: "mbatch", 3: "mlen"},
            "logp": {0: "batch"}, "new_kv": {0: "batch"}}
    for i in range(L):
        axes[f"mem_k{i}"] = {0: "mbatch", 2: "mlen"}
        axes[f"mem_v{i}"] = {0: "mbatch", 2: "mlen"}
        axes[f"cache_k{i}"] = {0: "batch", 2: "tlen"}
        axes[f"cache_v{i}"] = {0: "batch", 2: "tlen"}
    return args, ["prev", "position", *enc_out, *cache_names], axes


def quantize_graph(src: str | Path, dst: str | Path, per_channel: bool = False, weights_prefix: str = "",
                  lookups: bool = False, weight_bits: int = 7) -> Path:
    """Dynamic int8 quantisation of the MatMuls that multiply by a weight (activations x
    activations, i.e. attention, stay fp32); everything else stays fp32. ``weights_prefix``:
    only weights whose names start with it (the steered step keeps its block in fp32).
    ``lookups``: the embedding tables' Gathers too (the content graph, mostly its token table)."""
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    g = onnx.load(str(src)).graph
    weights = {i.name for i in g.initializer if i.name.startswith(weights_prefix)}
    nodes = [n.name for n in g.node if (n.op_type == "MatMul" and n.input[1] in weights)
             or (lookups and n.op_type == "Gather" and n.input[0] in weights)]
    quantize_dynamic(str(src), str(dst), op_types_to_quantize=["MatMul", "Gather"] if lookups else ["MatMul"],
                     nodes_to_quantize=nodes, weight_type=QuantType.QInt8, per_channel=per_channel,
                     # 7-bit weights: a CPU without VNNI (AVX2 only) multiplies u8 x s8 pairs into
                     # a saturating int16; with full-range weights a tiny model's log-probs moved by
                     # 1.09 there (0.04 with 7 bits). A trained model may not saturate and lose more
                     # to the lost bit (models/zh: +0.25 % NLL with 8 bits, +0.83 % with 7, on that
                     # CPU): export-onnx --int8-weight-bits says which, measured per model
                     reduce_range=weight_bits == 7)
    lookups_from_int8_weights(dst)
    return Path(dst)


def lookups_from_int8_weights(path: str | Path) -> bool:
    """A Gather that reads an fp32 weight the int8 MatMuls read too (the step's tied embedding:
    the input lookup and the logits) reads the int8 copy instead and dequantizes the rows it
    gathers; the fp32 copy, then unused, goes (the English step graph 37 MB -> 17 MB). Only a
    weight quantized per tensor (one scale). Returns whether the graph changed."""
    import onnx
    from onnx import helper

    model = onnx.load(str(path))
    g = model.graph
    inits = {i.name: i for i in g.initializer}
    nodes = []
    for k, node in enumerate(g.node):
        nodes.append(node)
        w = node.input[0] if node.op_type == "Gather" else ""
        q, scale, zero = w + "_quantized", w + "_scale", w + "_zero_point"
        if w not in inits or not all(x in inits for x in (q, scale, zero)) or len(inits[scale].dims) > 0:
            continue
        rows = node.output[0]
        node.input[0], node.output[0] = q, rows + "_int8"
        nodes.append(helper.make_node("DequantizeLinear", [rows + "_int8", scale, zero], [rows],
                                      name=(node.name or f"gather{k}") + "_dequantize"))
    changed = len(nodes) > len(g.node)
    if changed:
        del g.node[:]
        g.node.extend(nodes)
        used = {x for n in g.node for x in n.input} | {i.name for i in g.input}
        keep = [i for i in g.initializer if i.name in used]
        del g.initializer[:]
        g.initializer.extend(keep)
        onnx.checker.check_model(model)
        onnx.save(model, str(path))
    return changed


def export_model_dir(model_dir: str | Path, int8: bool = True, check: dict | None = None, log=print,
                     int8_weight_bits: int = 7) -> dict:
    """Read a model folder (with every check of the torch loader), write its ONNX files next to
    the weights and a manifest ``onnx.json``. Returns the manifest."""
    from songwriter.engine.torch_backend import build_model, read_model_dir

    model_dir = Path(model_dir)
    t0 = time.perf_counter()
    cfg, vocab, manifest, state = read_model_dir(model_dir)
    model = build_model(cfg, state, str(model_dir))
    paths = export_graphs(model, model_dir)
    files = {"encoder": ENCODER, "fp32": STEP}
    if int8:
        quantize_graph(paths["step"], model_dir / STEP_INT8, weight_bits=int8_weight_bits)
        # the encoder runs once a request, so its size matters, not its speed: its tables (the
        # given-token table is most of it) and the memory's key/value projections in int8 too
        quantize_graph(paths["encoder"], model_dir / ENCODER_INT8, lookups=True, weight_bits=int8_weight_bits)
        files["int8"] = STEP_INT8
        files["encoder_int8"] = ENCODER_INT8
    else:
        for name in (STEP_INT8, ENCODER_INT8):
            (model_dir / name).unlink(missing_ok=True)
    info = {
        "onnx_format": ONNX_FORMAT, "opset": OPSET, "files": files,
        "weights_sha256": file_sha256(model_dir / WEIGHTS), "vocab_sha256": vocab.sha256,
        "model_version": manifest.get("version"), "manifest_sha256": file_sha256(model_dir / MANIFEST),
        "n_layer": cfg.n_layer, "n_head": cfg.n_head, "d_model": cfg.d_model, "vocab_size": cfg.vocab_size,
        "max_len": cfg.max_len, "default": "int8" if int8 and (check or {}).get("int8_ok") else "fp32",
        "int8_check": check or {}, "int8_weight_bits": int8_weight_bits if int8 else None,
        "torch": torch.__version__,
    }
    (model_dir / ONNX_MANIFEST).write_text(json.dumps(info, indent=1), encoding="utf-8")
    sizes = {k: (model_dir / v).stat().st_size for k, v in files.items()}
    log(f"exported {', '.join(f'{files[k]} ({s / 1e6:.1f} MB)' for k, s in sizes.items())} to {model_dir} "
        f"in {time.perf_counter() - t0:.1f}s")
    _export_content_path(model_dir, model, cfg, info, int8, log, int8_weight_bits)
    return info


def _export_content_path(model_dir: Path, model: SongNet, cfg, info: dict, int8: bool, log,
                         int8_weight_bits: int = 7) -> None:
    """The content-steering graphs when the folder has a block (onnx_export_cocon), recorded in
    ``info["cocon"]`` and onnx.json; the plain graphs above are complete without them."""
    from songwriter.train.onnx_export_cocon import export_cocon, steered_int8_check

    t0 = time.perf_counter()
    cocon = export_cocon(model_dir, model, cfg, int8, log, weight_bits=int8_weight_bits)
    if cocon is None:
        return
    info["cocon"] = cocon
    (model_dir / ONNX_MANIFEST).write_text(json.dumps(info, indent=1), encoding="utf-8")
    if int8:     # the backend reads the graphs through onnx.json, so the check comes after it
        cocon["int8_check"] = steered_int8_check(model_dir, log)
        (model_dir / ONNX_MANIFEST).write_text(json.dumps(info, indent=1), encoding="utf-8")
    log(f"exported the content-steering path ({', '.join(cocon['files'].values())}) in "
        f"{time.perf_counter() - t0:.1f}s")


def heldout_nll(backend, vocab, pieces: list[dict], max_len: int, batch: int = 16) -> dict:
    """Token and character NLL (nats) of gold held-out pieces under their gold templates (no given
    characters), teacher-forced through any backend's ``score`` — the same measure as the
    evaluation's perplexity, so fp32 and int8 graphs can be compared without torch."""
    from songwriter.train.dataset import PieceStore, collate, make_example

    if getattr(vocab, "language", "zh") == "en":      # English pieces are laid out in syllables
        from songwriter.train.dataset_en import EnglishPieceStore

        store = EnglishPieceStore(pieces, vocab, max_len=max_len)
    else:
        store = PieceStore(pieces, vocab, max_len=max_len)
    rng = np.random.default_rng(0)
    tot = n_tot = ch = n_ch = 0.0
    order = sorted(range(len(store)), key=store.length)   # similar lengths batch together
    for a in range(0, len(order), batch):
        ex = [make_example(store.piece(i), vocab, rng, train=False) for i in order[a:a + batch]]
        b = collate(ex, vocab.pad)
        lp = backend.score({k: b[k] for k in (*FIELDS, "given")}, b["targets"], vocab.bos)
        valid = b["fmt"] != E.F_PAD
        # character (English: word) positions; a word's further syllables (<fill>) are not counted
        chars = ((b["fmt"] == E.F_CHAR) | (b["fmt"] == E.F_RHYME)) & (b["targets"] != vocab.fill)
        tot -= float(lp[valid].sum())
        n_tot += int(valid.sum())
        ch -= float(lp[chars].sum())
        n_ch += int(chars.sum())
    return {"pieces": len(store), "tokens": int(n_tot), "nll": tot / n_tot, "ppl": math.exp(tot / n_tot),
            "char_nll": ch / n_ch, "char_ppl": math.exp(ch / n_ch)}


def int8_check(model_dir: str | Path, corpus: str | Path, pieces: int = 150, max_rise: float = 0.01,
               log=print) -> dict:
    """Held-out ci NLL with the fp32 and the int8 step graphs; int8 is kept as the default when
    its NLL is at most ``max_rise`` (relative) above fp32's."""
    from songwriter.engine.onnx_backend import OnnxBackend
    from songwriter.train import corpus as C

    corpus = Path(corpus)
    ids = set(C.load_split(corpus)["test"])
    from songwriter.engine.vocab_en import load_vocab

    english = getattr(load_vocab(Path(model_dir) / VOCAB), "language", "zh") == "en"
    kinds = ("sonnet", "hymn") if english else ("ci",)    # English: the held-out sonnets and hymns
    ci = [p for p in C.load_pieces(corpus) if p["id"] in ids and p["kind"] in kinds]
    rng = np.random.default_rng(0)
    ci = [ci[i] for i in sorted(rng.permutation(len(ci))[:pieces])]
    out = {"pieces": len(ci), "split": "test", "kind": "+".join(kinds), "max_rise": max_rise}
    for variant in ("fp32", "int8"):
        be = OnnxBackend(model_dir, variant, "cpu", check_weights=False)
        t0 = time.perf_counter()
        out[variant] = heldout_nll(be, be.vocab, ci, be.max_len)
        log(f"  {variant}: held-out {out['kind']} NLL {out[variant]['nll']:.4f} (PPL {out[variant]['ppl']:.2f}), "
            f"char NLL {out[variant]['char_nll']:.4f}  ({time.perf_counter() - t0:.0f}s)")
    rise = out["int8"]["nll"] / out["fp32"]["nll"] - 1
    out["nll_rise"] = rise
    out["int8_ok"] = bool(rise <= max_rise)
    return out


def run(args) -> int:
    """``songwriter export-onnx MODEL_DIR``."""
    import sys

    from songwriter.engine.errors import ModelLoadError

    model_dir = Path(args.model_dir)
    try:
        info = export_model_dir(model_dir, int8=args.int8 != "no",
                                int8_weight_bits=getattr(args, "int8_weight_bits", 7))
    except ModelLoadError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    corpus = Path(args.corpus) if args.corpus else None
    if args.int8 == "auto" and corpus is not None and (corpus / "split.json").exists() and args.check_pieces:
        print(f"int8 check on {args.check_pieces} held-out ci from {corpus}:")
        check = int8_check(model_dir, corpus, args.check_pieces)
        info["int8_check"] = check
        info["default"] = "int8" if check["int8_ok"] else "fp32"
        print(f"  int8 NLL {100 * check['nll_rise']:+.2f}% -> default {info['default']}")
        (model_dir / ONNX_MANIFEST).write_text(json.dumps(info, indent=1), encoding="utf-8")
    elif args.int8 == "auto" and args.check_pieces:
        print(f"no held-out corpus at {corpus} to check int8 against: the default stays {info['default']}")
    if args.default:
        info["default"] = args.default
        (model_dir / ONNX_MANIFEST).write_text(json.dumps(info, indent=1), encoding="utf-8")
    print(f"default variant: {info['default']}")
    if getattr(args, "only_default", False):
        dropped = keep_only_default(model_dir, info)
        if dropped:
            print(f"removed {dropped} (--only-default: the folder keeps the graphs the app loads)")
    return 0


def keep_only_default(model_dir: str | Path, info: dict) -> str | None:
    """Remove the graphs the app does not load and rewrite ``onnx.json`` without them; the names
    removed, or None. The models budget holds what the app loads, and the rest is rebuilt from
    the weights by ``export-onnx`` whenever someone wants it.

    Without a content-steering block: the encoder and step graph of the variant ``auto`` loads (the
    int8 variant's encoder is ``encoder.int8.onnx``, where the export wrote one). With one: the
    steered step of that variant and its content graph, and no plain step at all, since the app
    steps plain requests through the steered graph with no content key (its output is then the
    plain step's: docs/cocon.md). Where the int8 steered step failed its own check (the app
    steers in fp32) while int8 is the default, the plain int8 step stays beside the fp32 steered
    one, so plain requests keep the default's speed."""
    model_dir = Path(model_dir)
    files = info.get("files", {})
    default = info.get("default", "fp32")
    other = "int8" if default == "fp32" else "fp32"
    dropped = [files.pop(other)] if other in files else []
    # the encoder of the default variant (int8 reads the int8 encoder where there is one)
    unused_encoder = "encoder" if default == "int8" and "encoder_int8" in files else "encoder_int8"
    if unused_encoder in files:
        dropped.append(files.pop(unused_encoder))
    cocon = info.get("cocon", {})
    steered_files = cocon.get("files", {})
    # the steered step the app loads: the default's variant, fp32 when int8 failed its own check
    steered = "int8" if default == "int8" and cocon.get("int8_check", {}).get("int8_ok") else "fp32"
    for used, unused in ((steered, "fp32" if steered == "int8" else "int8"),
                         (("content_int8", "content") if steered == "int8" else ("content", "content_int8"))):
        if used in steered_files and unused in steered_files:
            dropped.append(steered_files.pop(unused))
    if steered == default and steered in steered_files and default in files:
        dropped.append(files.pop(default))      # plain requests run through the steered step
    if not dropped:
        return None
    (model_dir / ONNX_MANIFEST).write_text(json.dumps(info, indent=1), encoding="utf-8")
    for name in dropped:
        (model_dir / name).unlink(missing_ok=True)
    return ", ".join(dropped)

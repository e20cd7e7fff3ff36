"""Training-step throughput on this machine: the step as it was against the step the trainer uses.

    python bench/train_step.py                       # 4x320, 6x320, 8x512; corpus batches if built
    python bench/train_step.py --sizes 4x320 --rounds 5 --json out.json

Both steps run in bf16 autocast where the CPU has bf16 instructions (AMX or avx512_bf16) and in
fp32 where it has not (an AVX2-only host: bf16 products there take a scalar path), as the trainer
chooses (``--precision`` to force one). Prints which CPU it ran on (AMX or not), the host's own
matrix-multiply rate in that precision measured in the same run (shapes of the step: 4096x320 @ 320x1280 and 2048^3; the best of a few tries is the
"peak"), and for each model size:

- tokens/s (non-pad target positions a second; forward, backward, clipping and AdamW) of
  - ``old``: the CPU flash-attention kernel, full fp32 logits and cross-entropy;
  - ``new``: the trainer's step (``songwriter.train.step``): matmul-softmax attention with masks
    made once, the tied projection and the loss fused in chunks over target positions only;
- the FLOPs a token costs (from the shapes: every projection, the attention products at each
  batch's length, the output layer; training = 3x the forward), the TFLOP/s achieved and its
  share of the peak.

Rounds alternate old and new on the same batches, so a neighbour's load hits both; medians and
the best round are printed, with the load of other processes and the hypervisor's steal over the
run. Pause long jobs first (``kill -STOP``; ``kill -CONT`` after). Batches come from the built
corpus (``runs/corpus/zh``; ``--corpus``) when it is there, else from synthetic pieces of the
corpus's shapes. Benchmarks print figures; no test asserts a time.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import torch  # noqa: E402

from bench.machine import LoadMeter, cpu_info  # noqa: E402
from songwriter.engine import encoding as E  # noqa: E402
from songwriter.engine import model as M  # noqa: E402
from songwriter.engine.vocab import Vocab  # noqa: E402
from songwriter.train import step as S  # noqa: E402
from songwriter.train.args import DEFAULT_CORPUS  # noqa: E402
from songwriter.train.dataset import PieceStore, Sampler  # noqa: E402
from songwriter.train.trainer import DEFAULT_WEIGHTS  # noqa: E402


def matmul_peak(repeats: int = 5, bf16_fast: bool = True) -> dict[str, float]:
    """bf16 and fp32 TFLOP/s of matrix products of the step's shapes; the best of ``repeats``.
    Without bf16 instructions only the step's shape is tried in bf16, once: it runs on a
    scalar path (about 1 GFLOP/s), and 2048^3 would take a minute."""
    out = {}
    for dtype in (torch.bfloat16, torch.float32):
        for m, k, n in ((4096, 320, 1280), (2048, 2048, 2048)):
            slow = dtype == torch.bfloat16 and not bf16_fast
            if slow and m == 2048:
                continue
            a, b = torch.randn(m, k, dtype=dtype), torch.randn(k, n, dtype=dtype)
            if not slow:
                a @ b
            best = float("inf")
            for _ in range(1 if slow else repeats):
                t0 = time.perf_counter()
                a @ b
                best = min(best, time.perf_counter() - t0)
            out[f"{str(dtype).split('.')[-1]} {m}x{k}@{k}x{n}"] = 2 * m * k * n / best / 1e12
    return out


def corpus_batches(corpus: Path, vocab: Vocab, n: int, seed: int, batch_tokens: int) -> list[dict]:
    lines = (corpus / "pieces.jsonl").read_text(encoding="utf-8").splitlines()
    pieces = [json.loads(x) for x in random.Random(seed).sample(lines, min(len(lines), 20000))]
    sampler = Sampler(PieceStore(pieces, vocab, 320), DEFAULT_WEIGHTS, batch_tokens, seed=seed)
    return [sampler.next() for _ in range(n)]


def synthetic_batches(vocab: Vocab, n: int, seed: int, batch_tokens: int) -> list[dict]:
    """Pieces shaped like the corpus's (quatrains and octaves of 5 or 7, ci of 40-200 characters,
    modern sentences) of random characters: the cost of a step depends on shapes, not words."""
    rng = random.Random(seed)
    chars = [t for i, t in enumerate(vocab.tokens) if vocab.is_char(i)]
    pieces = []
    for i in range(4000):
        kind = rng.choices(["shi", "ci", "modern"], [0.55, 0.25, 0.2])[0]
        if kind == "shi":
            w, k = rng.choice((5, 7)), rng.choice((4, 8))
            lens = [w] * k
        elif kind == "ci":
            lens = [rng.randint(3, 9) for _ in range(rng.randint(8, 22))]
        else:
            lens = [rng.randint(4, 14) for _ in range(rng.randint(2, 5))]
        lines = ["".join(rng.choice(chars) for _ in range(n)) + "，。"[j % 2] for j, n in enumerate(lens)]
        pieces.append({"id": f"{kind}:{i}", "kind": kind, "lines": lines})
    sampler = Sampler(PieceStore(pieces, vocab, 320), {"shi": 0.55, "ci": 0.25, "modern": 0.2},
                      batch_tokens, seed=seed)
    return [sampler.next() for _ in range(n)]


def flops_per_token(cfg: M.ModelConfig, seq_len: float) -> float:
    """Training FLOPs of one target position: 3x the forward's multiply-adds x 2.

    Per layer: self-attention q, k, v, o (4 D^2), cross-attention q, o (2 D^2) and its keys and
    values over the template memory, one memory position per target position (2 D^2), the FFN
    (2 D d_ff); the attention products QK^T and PV over ``seq_len`` keys, self and cross
    (4 D seq_len); then the tied output layer (D V)."""
    D, L = cfg.d_model, cfg.n_layer
    per_layer = 8 * D * D + 2 * D * cfg.d_ff + 4 * D * seq_len
    return 3 * 2 * (L * per_layer + D * cfg.vocab_size)


def time_step(kind: str, model, opt, batch: dict, amp) -> tuple[float, int]:
    M.CPU_ATTENTION = "sdpa" if kind == "old" else "matmul"
    loss_of = S.reference_loss if kind == "old" else S.fused_loss
    t0 = time.perf_counter()
    loss, n = loss_of(model, batch, torch.device("cpu"), amp)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    return time.perf_counter() - t0, n


def measure(size: str, vocab: Vocab, batches: list[dict], rounds: int, amp=torch.bfloat16) -> dict:
    layers, width = (int(x) for x in size.split("x"))
    cfg = M.ModelConfig(vocab_size=len(vocab), n_layer=layers, n_head=width // 64, d_model=width,
                        dropout=0.0, n_kind=E.N_KINDS)
    torch.manual_seed(0)
    model = M.SongNet(cfg)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-5)
    tokens = sum(int((b["fmt"] != E.F_PAD).sum()) for b in batches)
    seq = sum(int((b["fmt"] != E.F_PAD).sum()) * b["fmt"].shape[1] for b in batches) / tokens
    for kind in ("old", "new"):       # warm-up: allocator, kernels, caches
        for b in batches[:2]:
            time_step(kind, model, opt, b, amp)
    rates: dict[str, list[float]] = {"old": [], "new": []}
    for _ in range(rounds):
        for kind in ("old", "new"):
            secs = sum(time_step(kind, model, opt, b, amp)[0] for b in batches)
            rates[kind].append(tokens / secs)
    M.CPU_ATTENTION = "matmul"
    fpt = flops_per_token(cfg, seq)
    res = {"params_M": model.num_params() / 1e6, "flops_per_token_M": fpt / 1e6, "mean_keys": seq}
    for kind, r in rates.items():
        res[kind] = {"tok_s_median": statistics.median(r), "tok_s_best": max(r),
                     "tflops_median": statistics.median(r) * fpt / 1e12}
    res["speedup_median"] = res["new"]["tok_s_median"] / res["old"]["tok_s_median"]
    return res


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="4x320,6x320,8x512", help="LAYERSxWIDTH,... (heads of 64)")
    ap.add_argument("--corpus", default=str(DEFAULT_CORPUS))
    ap.add_argument("--vocab", default=str(ROOT / "models" / "zh" / "vocab.json"))
    ap.add_argument("--batches", type=int, default=6, help="batches per round")
    ap.add_argument("--batch-tokens", type=int, default=4096)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--threads", type=int, default=0, help="torch threads (0: one per core)")
    ap.add_argument("--precision", choices=("auto", "bf16", "fp32"), default="auto",
                    help="auto: bf16 autocast where the CPU has bf16 instructions (AMX or avx512_bf16), "
                         "else fp32, as the trainer chooses")
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    torch.set_num_threads(args.threads or torch.get_num_threads())
    S.keep_freed_memory()   # as the trainer does; a process setting, so both steps run with it
    info = cpu_info()
    print(f"CPU: {info['model']}, {info['cores']} cores, torch threads {torch.get_num_threads()}; "
          f"AMX: {', '.join(info['amx']) or 'no'}; avx512_bf16: {'yes' if info['avx512_bf16'] else 'no'}")
    has_bf16 = bool(info["amx"]) or bool(info["avx512_bf16"])
    precision = args.precision if args.precision != "auto" else ("bf16" if has_bf16 else "fp32")
    amp = torch.bfloat16 if precision == "bf16" else None
    load = LoadMeter()
    peak = matmul_peak(bf16_fast=has_bf16)
    prefix = "bfloat16" if precision == "bf16" else "float32"
    bf16_peak = max(v for k, v in peak.items() if k.startswith(prefix))
    print("matrix multiply: " + ", ".join(f"{k} {v:.3f}" for k, v in peak.items()) + " TFLOP/s"
          + f"; peak ({precision}, the steps' precision) {bf16_peak:.3f}")
    vocab = Vocab.load(args.vocab)
    corpus = Path(args.corpus)
    if (corpus / "pieces.jsonl").exists():
        batches, source = corpus_batches(corpus, vocab, args.batches, 0, args.batch_tokens), str(corpus)
    else:
        batches, source = synthetic_batches(vocab, args.batches, 0, args.batch_tokens), "synthetic pieces"
    print(f"batches: {args.batches} of about {args.batch_tokens} padded tokens from {source}; "
          f"{args.rounds} rounds, old and new alternating")
    out = {"cpu": info, "precision": precision, "matmul_tflops": peak, "peak_tflops": bf16_peak, "sizes": {}}
    print(f"{'size':>6} {'params':>7} {'MFLOP/tok':>9} | {'old tok/s':>9} {'TFLOP/s':>7} {'of peak':>7} | "
          f"{'new tok/s':>9} {'TFLOP/s':>7} {'of peak':>7} | {'new/old':>7}")
    for size in args.sizes.split(","):
        r = measure(size.strip(), vocab, batches, args.rounds, amp)
        out["sizes"][size] = r
        o, n = r["old"], r["new"]
        print(f"{size:>6} {r['params_M']:6.1f}M {r['flops_per_token_M']:9.1f} | "
              f"{o['tok_s_median']:9,.0f} {o['tflops_median']:7.3f} {o['tflops_median'] / bf16_peak:7.0%} | "
              f"{n['tok_s_median']:9,.0f} {n['tflops_median']:7.3f} {n['tflops_median'] / bf16_peak:7.0%} | "
              f"{r['speedup_median']:6.2f}x   (best old {o['tok_s_best']:,.0f}, new {n['tok_s_best']:,.0f})",
              flush=True)
    out["load"] = load.stop()
    print(f"other processes used {out['load']['other_load_cores']:.2f} cores, the hypervisor took (steal) "
          f"{out['load']['steal_cores']:.2f} cores on average over {out['load']['wall_s']:.0f} s"
          + ("  <- a busy host: figures vary" if out['load']['other_load_cores'] + out['load']['steal_cores'] > 0.1 else ""))
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

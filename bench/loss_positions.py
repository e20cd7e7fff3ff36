"""Training-step throughput with the loss on every position against the loss on hidden positions
only (``--loss-on all`` / ``hidden``, ``songwriter.train.step.loss_positions``).

    python bench/loss_positions.py --lang en                 # runs/corpus/en, models/en's size
    python bench/loss_positions.py --lang zh --rounds 5 --json out.json

A hidden position is one the template leaves open (the decoder chooses it); marks, line ends and
given words are copied at decode time, so the output layer and softmax there are work the
decoder never uses. Real batches of the built corpus (the trainer's sampler, its masks and the
default mix), the trainer's step (forward, backward, clipping, AdamW; bf16 autocast where the CPU
has bf16 instructions, else fp32), a model of the shipped folder's size with its weights. Rounds
alternate the two on the same batches, so a neighbour's load hits both; prints the share of
positions that are hidden, tokens/s (non-pad positions a second, both ways) as medians and the
best round, and the load of other processes over the run. Pause long jobs first (``kill
-STOP``; ``kill -CONT`` after). Benchmarks print figures; no test asserts a time.
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
from songwriter.engine.model import SongNet  # noqa: E402
from songwriter.engine.torch_backend import read_model_dir  # noqa: E402
from songwriter.train import step as S  # noqa: E402
from songwriter.train import trainer as T  # noqa: E402
from songwriter.train.dataset import Sampler  # noqa: E402


def real_batches(lang: str, corpus: Path, vocab, n: int, seed: int, batch_tokens: int) -> list[dict]:
    lines = (corpus / "pieces.jsonl").read_text(encoding="utf-8").splitlines()
    pieces = [json.loads(x) for x in random.Random(seed).sample(lines, min(len(lines), 3000))]
    pieces = [p for p in pieces if p.get("kind") != "sonnet"]          # test-only material
    store = T._store(pieces, vocab, 320)
    weights = {"poem": 0.6, "song": 0.3, "hymn": 0.1} if lang == "en" else dict(T.DEFAULT_WEIGHTS)
    weights = {k: w for k, w in weights.items() if k in set(store.kinds.tolist())}
    sampler = Sampler(store, weights, batch_tokens, seed=seed)
    return [sampler.next() for _ in range(n)]


def time_step(model, opt, batch: dict, amp, loss_on: str) -> float:
    t0 = time.perf_counter()
    loss, _ = S.fused_loss(model, batch, torch.device("cpu"), amp, loss_on=loss_on)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    return time.perf_counter() - t0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--lang", choices=("zh", "en"), default="en")
    ap.add_argument("--corpus", default=None, help="default runs/corpus/<lang>")
    ap.add_argument("--model", default=None, help="default models/<lang>")
    ap.add_argument("--batches", type=int, default=6, help="batches per round")
    ap.add_argument("--batch-tokens", type=int, default=4096)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    corpus = Path(args.corpus or ROOT / "runs" / "corpus" / args.lang)
    model_dir = Path(args.model or ROOT / "models" / args.lang)
    if not (corpus / "pieces.jsonl").exists():
        print(f"no corpus at {corpus}: build it first (python -m songwriter.train build-corpus"
              f"{'-en' if args.lang == 'en' else ''})", file=sys.stderr)
        return 2
    S.keep_freed_memory()
    mcfg, vocab, _, state = read_model_dir(model_dir)
    mcfg.dropout = 0.0
    model = SongNet(mcfg)
    model.load_state_dict({k: v.float() for k, v in state.items()}, strict=False)
    model.train()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-6)
    amp = torch.bfloat16 if T.bf16_supported_cpu() else None
    batches = real_batches(args.lang, corpus, vocab, args.batches, args.seed, args.batch_tokens)
    tokens = sum(int((b["fmt"] != E.F_PAD).sum()) for b in batches)
    hidden = sum(int(((b["fmt"] != E.F_PAD) & (b["given"] == S.FILL_ID)).sum()) for b in batches)
    meter = LoadMeter()
    for loss_on in S.LOSS_ON:      # warm-up: allocator, kernels, caches
        for b in batches[:2]:
            time_step(model, opt, b, amp, loss_on)
    rates: dict[str, list[float]] = {k: [] for k in S.LOSS_ON}
    for _ in range(args.rounds):
        for loss_on in S.LOSS_ON:
            rates[loss_on].append(tokens / sum(time_step(model, opt, b, amp, loss_on) for b in batches))
    load = meter.stop()
    res = {"cpu": cpu_info(), "lang": args.lang, "model": str(model_dir), "precision": "bf16" if amp else "fp32",
           "positions": tokens, "hidden_share": hidden / tokens, "load": load,
           **{k: {"tok_s_median": statistics.median(r), "tok_s_best": max(r), "rounds": r} for k, r in rates.items()}}
    res["speedup_median"] = res["hidden"]["tok_s_median"] / res["all"]["tok_s_median"]
    print(f"{res['cpu']}")
    print(f"{args.lang} {model_dir.name}: {tokens:,} positions in {len(batches)} batches, "
          f"{100 * hidden / tokens:.1f} % hidden ({res['precision']})")
    for k in S.LOSS_ON:
        print(f"  loss on {k:6s}: median {res[k]['tok_s_median']:,.0f} tok/s, best {res[k]['tok_s_best']:,.0f}")
    print(f"  hidden/all (median): {res['speedup_median']:.2f}x; load of other processes {load}")
    if args.json:
        Path(args.json).write_text(json.dumps(res, indent=1, default=float))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

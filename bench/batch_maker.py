"""How fast the trainer's batch maker is (train/dataset.py: Sampler.next -> make_example ->
collate), on the real corpus, in tokens per second of CPU, and where its time goes.

    python bench/batch_maker.py                                  # every 8th training piece, 4k and 32k batches
    python bench/batch_maker.py --every 1 --batch-tokens 32768 --batches 60 --profile 20
    python bench/batch_maker.py --workers 0,2 --batch-tokens 32768   # also batches from worker processes

The figures are CPU time of this process (``time.process_time``), not wall time, so a shared
machine's other work does not enter them (it still slows the caches and the clock a little):

- ``padded tok/s/core``: batch rows x longest row, the tensor the step gets, per CPU second;
- ``target tok/s/core``: the non-pad positions (what the trainer's tok/s counts), per CPU second;
- ``ms/batch``: CPU milliseconds a batch.

``--profile N`` runs cProfile over N batches and prints the functions with the most own time.
``--workers`` (with ``train/prefetch.py``) makes batches in that many background processes and
prints the CPU seconds of the workers and of this process per batch, and the wall time: on a
machine with cores to spare the wall rate is what a GPU would be fed. The pieces are a sample
(``--every``: each n-th training piece) of the corpus; the store's tokenisation is timed apart.
Benchmarks print figures; no test asserts a time.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from bench.machine import cpu_info  # noqa: E402
from songwriter.engine.vocab import Vocab  # noqa: E402
from songwriter.train import corpus as C  # noqa: E402
from songwriter.train.args import DEFAULT_CORPUS, parse_mix  # noqa: E402
from songwriter.train.dataset import PieceStore, Sampler  # noqa: E402
from songwriter.train.trainer import DEFAULT_WEIGHTS  # noqa: E402


def load_store(corpus: Path, vocab: Vocab, every: int, train_len: int = 320) -> tuple[PieceStore, float]:
    split = C.load_split(corpus)
    held = set(split["dev"]) | set(split["test"])
    pieces = [p for p in C.load_pieces(corpus) if p["id"] not in held]
    pieces = pieces[::every]
    t0 = time.process_time()
    store = PieceStore(pieces, vocab, train_len)
    return store, time.process_time() - t0


def batch_figures(batches_cpu: list[tuple[dict, float]]) -> dict:
    padded = sum(int(b["targets"].size) for b, _ in batches_cpu)
    target = sum(int((b["fmt"] != 0).sum()) for b, _ in batches_cpu)
    cpu = sum(t for _, t in batches_cpu)
    n = len(batches_cpu)
    return {"batches": n, "rows_per_batch": sum(b["targets"].shape[0] for b, _ in batches_cpu) / n,
            "padded_per_batch": padded / n, "target_per_batch": target / n, "cpu_ms_per_batch": 1000 * cpu / n,
            "padded_tok_s_core": padded / cpu, "target_tok_s_core": target / cpu}


def serial(store: PieceStore, weights: dict, tokens: int, n: int, seed: int) -> dict:
    sampler = Sampler(store, weights, tokens, seed=seed)
    for _ in range(3):             # the first refill and the caches
        sampler.next()
    out = []
    for _ in range(n):
        t0 = time.process_time()
        b = sampler.next()
        out.append((b, time.process_time() - t0))
    return batch_figures(out)


def profile(store: PieceStore, weights: dict, tokens: int, n: int, seed: int, top: int = 18) -> str:
    sampler = Sampler(store, weights, tokens, seed=seed)
    sampler.next()
    prof = cProfile.Profile(time.process_time)
    prof.enable()
    for _ in range(n):
        sampler.next()
    prof.disable()
    s = io.StringIO()
    pstats.Stats(prof, stream=s).sort_stats("tottime").print_stats(top)
    lines = s.getvalue().splitlines()
    start = next((i for i, x in enumerate(lines) if "ncalls" in x), 0)
    head = [x for x in lines[:start] if "function calls" in x]
    return "\n".join(head + lines[start:])


def _proc_cpu(pid: int) -> float:
    """User + system CPU seconds of a live process (/proc/PID/stat)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            parts = f.read().rsplit(")", 1)[1].split()
        return (int(parts[11]) + int(parts[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


def with_workers(store: PieceStore, weights: dict, tokens: int, n: int, seed: int, workers: int) -> dict:
    from songwriter.train.prefetch import BatchPrefetcher

    sampler = Sampler(store, weights, tokens, seed=seed)
    pf = BatchPrefetcher(sampler, workers=workers)
    try:
        for _ in range(3):
            pf.next()
        w0 = [_proc_cpu(p) for p in pf.worker_pids()]
        c0, t0 = time.process_time(), time.perf_counter()
        out = [pf.next() for _ in range(n)]
        wall = time.perf_counter() - t0
        own = time.process_time() - c0
        per = [_proc_cpu(p) - a for p, a in zip(pf.worker_pids(), w0)]
        wcpu = sum(per)
    finally:
        pf.close()
    padded = sum(int(b["targets"].size) for b in out)
    target = sum(int((b["fmt"] != 0).sum()) for b in out)
    return {"workers": workers, "batches": n, "wall_s": wall, "padded_tok_s_wall": padded / wall,
            "target_tok_s_wall": target / wall, "main_cpu_ms_per_batch": 1000 * own / n,
            "worker_cpu_ms_per_batch": 1000 * wcpu / n, "planner_cpu_ms_per_batch": 1000 * per[0] / n,
            "maker_cpu_ms_per_batch": [1000 * x / n for x in per[1:]],
            "target_tok_s_per_worker_core": target / wcpu if wcpu else float("nan")}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", default=str(DEFAULT_CORPUS))
    ap.add_argument("--vocab", default=str(ROOT / "models" / "zh" / "vocab.json"))
    ap.add_argument("--every", type=int, default=8, help="each n-th training piece (1: all, ~54 s of tokenising)")
    ap.add_argument("--batch-tokens", default="4096,32768")
    ap.add_argument("--batches", type=int, default=40)
    ap.add_argument("--mix", default="", help="as train --mix (default: the trainer's default weights)")
    ap.add_argument("--profile", type=int, default=10, help="batches under cProfile (0: none)")
    ap.add_argument("--workers", default="", help="comma-separated worker counts to measure (train/prefetch.py)")
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--json", default="")
    args = ap.parse_args(argv)

    corpus = Path(args.corpus)
    if not (corpus / "pieces.jsonl").exists():
        print(f"error: no corpus at {corpus}; run build-corpus first", file=sys.stderr)
        return 2
    vocab = Vocab.load(args.vocab)
    weights = parse_mix(args.mix, "zh") if args.mix else dict(DEFAULT_WEIGHTS)
    info = cpu_info()
    print(f"CPU: {info['model']}, {info['cores']} cores; numpy {np.__version__}")
    store, tok_s = load_store(corpus, vocab, args.every)
    print(f"store: every {args.every}th training piece: {len(store):,} pieces, {int(store.offsets[-1]):,} tokens, "
          f"tokenised in {tok_s:.1f} s CPU")
    result = {"cpu": info, "pieces": len(store), "tokens": int(store.offsets[-1]), "tokenise_cpu_s": tok_s,
              "weights": weights, "serial": {}, "workers": {}}
    for tokens in (int(x) for x in args.batch_tokens.split(",")):
        r = serial(store, weights, tokens, args.batches, args.seed)
        result["serial"][tokens] = r
        print(f"\n{tokens} tokens a batch, one process: {r['batches']} batches of {r['rows_per_batch']:.0f} rows, "
              f"{r['padded_per_batch']:,.0f} padded / {r['target_per_batch']:,.0f} target tokens; "
              f"{r['cpu_ms_per_batch']:.1f} ms CPU a batch; {r['padded_tok_s_core']:,.0f} padded and "
              f"{r['target_tok_s_core']:,.0f} target tok/s per core")
        if args.profile:
            print(f"cProfile, {args.profile} batches (own CPU time):")
            print(profile(store, weights, tokens, args.profile, args.seed))
        for w in (int(x) for x in args.workers.split(",") if x.strip()):
            r = with_workers(store, weights, tokens, args.batches, args.seed, w)
            result["workers"][f"{tokens}/{w}"] = r
            print(f"{tokens} tokens a batch, {w} worker processes: {r['target_tok_s_wall']:,.0f} target tok/s wall "
                  f"({r['wall_s']:.1f} s for {r['batches']}); CPU a batch: main {r['main_cpu_ms_per_batch']:.1f} ms, "
                  f"background {r['worker_cpu_ms_per_batch']:.1f} ms (planner {r['planner_cpu_ms_per_batch']:.1f}, makers "
                  f"{', '.join(f'{x:.1f}' for x in r['maker_cpu_ms_per_batch']) or '-'}); "
                  f"{r['target_tok_s_per_worker_core']:,.0f} target tok/s per background CPU second")
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The Chinese training layout (train/dataset.lay_out_zh) in one process and in several:
seconds for a share of the corpus, and whether the columns are the same.

    python bench/layout_zh.py [--corpus runs/corpus/zh] [--every 10] [--workers 2]

Pause a training run beside it (SIGSTOP) for figures worth keeping: docs/performance.md.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main() -> int:
    from songwriter.engine.vocab import Vocab
    from songwriter.train.dataset import ZH_COLS, PieceStore

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", default=str(ROOT / "runs" / "corpus" / "zh"))
    ap.add_argument("--vocab", default=str(ROOT / "models" / "zh" / "vocab.json"))
    ap.add_argument("--every", type=int, default=10, help="every n-th piece of the corpus")
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()
    with open(Path(args.corpus) / "pieces.jsonl", encoding="utf-8") as f:
        pieces = [json.loads(line) for i, line in enumerate(f) if i % args.every == 0]
    vocab = Vocab.load(args.vocab)
    t0 = time.time()
    one = PieceStore(pieces, vocab, 320, workers=1)
    t1 = time.time() - t0
    t0 = time.time()
    many = PieceStore(pieces, vocab, 320, workers=args.workers)
    tn = time.time() - t0
    same = (one.offsets.tolist() == many.offsets.tolist() and one.ids == many.ids
            and all(np.array_equal(one.cols[k], many.cols[k]) for k in ZH_COLS))
    print(f"{len(pieces)} pieces ({one.offsets[-1]:,} tokens): 1 process {t1:.1f} s, "
          f"{args.workers} processes {tn:.1f} s ({t1 / tn:.2f}x); the same columns: {same}")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())

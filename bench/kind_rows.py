"""Held-out pieces of one report group under each row of the kind channel, the same model.

    python bench/kind_rows.py runs/zh15-model models/zh                 # the held-out modern poems
    python bench/kind_rows.py MODEL --group modern --kinds modern,speech --split test

Does a register's row (``encoding.KIND_IDS``: poem, speech, modern) help the pieces it stands
for, or has it learnt the training pieces? Prints the token-weighted NLL (all positions) and the
character NLL of the group's held-out pieces with every piece shown as each kind in turn. A model
of fewer kinds reads the newer registers as their parent kind (``encoding.kinds_known_to``), so
its rows print alike. Needs the built corpus (``build-corpus``); a measurement, not a test.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("models", nargs="+", help="model folders")
    ap.add_argument("--corpus", default=str(ROOT / "runs" / "corpus" / "zh"))
    ap.add_argument("--group", default="poem", help="report group of the held-out pieces (corpus.report_group)")
    ap.add_argument("--kinds", default="poem,modern", help="the kind rows to show them as")
    ap.add_argument("--split", choices=("dev", "test"), default="dev")
    args = ap.parse_args()

    import numpy as np
    import torch

    from songwriter.engine import encoding as E
    from songwriter.engine.torch_backend import build_model, read_model_dir
    from songwriter.train import corpus as C
    from songwriter.train import trainer as T

    corpus = Path(args.corpus)
    held = set(C.load_split(corpus)[args.split])
    pieces = [p for p in C.load_pieces(corpus) if p["id"] in held and C.report_group(p) == args.group]
    kinds = args.kinds.split(",")
    unknown = [k for k in kinds if k not in E.KIND_IDS]
    if unknown or not pieces:
        print(f"error: {'no such kind: ' + ', '.join(unknown) if unknown else 'no held-out pieces in ' + args.group}",
              file=sys.stderr)
        return 2
    amp = torch.bfloat16 if T.bf16_supported_cpu() else None
    print(f"{len(pieces)} {args.split} pieces of {args.group}")
    for model_dir in args.models:
        mcfg, vocab, _, state = read_model_dir(Path(model_dir))
        model = build_model(mcfg, state, model_dir)
        store = T._store(pieces, vocab, mcfg.max_len)
        for kind in kinds:
            store.__dict__["kind_ids"] = np.full(len(store), E.KIND_IDS[kind], dtype=np.int64)   # the cached property
            r = T.evaluate_store(model, store, torch.device("cpu"), amp)
            print(f"{model_dir} ({mcfg.n_kind} kinds) as {kind}: NLL {r['nll']:.4f}, character NLL {r['char_nll']:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

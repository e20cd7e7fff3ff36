"""What stepping plain requests through the steered step graph costs (docs/cocon.md, "ONNX").

    python bench/cocon_step.py --model DIR          # DIR: export-onnx of a folder with a block,
                                                    # every graph (not --only-default)

A folder shipped with ``export-onnx --only-default`` and a content-steering block holds only the
steered step; the app runs plain requests through it with one content key masked by -inf. Per
variant (fp32, int8) and batch (1, 8) this prints the CPU time of one step of a 七绝 through the
plain step, through the steered step with no content key, and with two contents, and how far the
log-probs of the masked steered step are from the plain step's on real poems, teacher-forced.

CPU time (``time.process_time``) of a one-thread session that does not spin, medians over the
repeats, so the figures mean something on a machine busy with other work. Prints figures; no
test asserts a time.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from songwriter.engine import encoding as E  # noqa: E402
from songwriter.engine.onnx_backend import ContentKeys, OnnxBackend  # noqa: E402
from songwriter.forms import named_form  # noqa: E402

POEMS = ["月落乌啼霜满天，江枫渔火对愁眠。姑苏城外寒山寺，夜半钟声到客船。",
         "朝辞白帝彩云间，千里江陵一日还。两岸猿声啼不住，轻舟已过万重山。",
         "故人西辞黄鹤楼，烟花三月下扬州。孤帆远影碧空尽，唯见长江天际流。",
         "独在异乡为异客，每逢佳节倍思亲。遥知兄弟登高处，遍插茱萸少一人。",
         "渭城朝雨浥轻尘，客舍青青柳色新。劝君更尽一杯酒，西出阳关无故人。",
         "烟笼寒水月笼沙，夜泊秦淮近酒家。商女不知亡国恨，隔江犹唱后庭花。",
         "千里莺啼绿映红，水村山郭酒旗风。南朝四百八十寺，多少楼台烟雨中。",
         "清明时节雨纷纷，路上行人欲断魂。借问酒家何处有，牧童遥指杏花村。"]


def poem_prev(vocab, enc) -> np.ndarray:
    """The poems as teacher-forced previous tokens (n, T): <bos> then each position's token."""
    rows = []
    for p in POEMS:
        tg = enc.given.copy()
        tg[tg == vocab.fill] = [vocab.id(c) for c in p if c not in "，。"]
        rows.append(np.concatenate([[vocab.bos], tg[:-1]]))
    return np.asarray(rows)


def run(be: OnnxBackend, enc, prev: np.ndarray, steering=None) -> tuple[np.ndarray, float]:
    """Log-probs (n, T, V) of every step and the median CPU time of a step (ms)."""
    state = be.start(enc.arrays(), len(prev), steering=steering)
    out, times = [], []
    for p in range(len(enc)):
        t0 = time.process_time()
        lp = be.step(state, prev[:, p], p)
        times.append(time.process_time() - t0)
        out.append(lp.copy())
    return np.stack(out, 1), statistics.median(times) * 1e3


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", required=True)
    ap.add_argument("--repeats", type=int, default=7)
    args = ap.parse_args(argv)
    for variant in ("fp32", "int8"):
        be = OnnxBackend(args.model, variant, "cpu", threads=1, spinning=False)
        if be.plain_steered or not be.supports_content or be.steered_variant != variant:
            print(f"{variant}: the folder needs both the plain and the {variant} steered step (and the block)")
            continue
        vocab = be.vocab
        enc = E.encode_template(named_form("七绝"), vocab)
        none = ContentKeys.none(be.n_head, be.dk)
        two = be.content_keys(["明月 故乡", "春风"], [0.0, 2.0], vocab)
        prev = poem_prev(vocab, enc)
        plain, _ = run(be, enc, prev)
        masked, _ = run(be, enc, prev, none)
        d = np.abs(plain - masked)
        print(f"{variant}: plain rows via the steered step vs the plain step, {len(prev)} poems teacher-forced: "
              f"max |dlogp| {d.max():.3g}, mean {d.mean():.3g}")
        for batch in (1, 8):
            rows = np.resize(prev, (batch, prev.shape[1]))
            med = {}
            for name, steering in (("plain step", None), ("steered, no content", none), ("steered, 2 contents", two)):
                med[name] = statistics.median(run(be, enc, rows, steering)[1] for _ in range(args.repeats))
            base = med["plain step"]
            print(f"  batch {batch}: " + ", ".join(f"{k} {v:.2f} ms ({v - base:+.2f})" for k, v in med.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())

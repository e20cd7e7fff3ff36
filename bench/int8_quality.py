"""Does the int8 step graph keep quality? fp32 vs int8 (and torch) on the held-out test ci.

    python bench/int8_quality.py --model models/zh [--pieces 300 --gen-pieces 100]

- held-out NLL / perplexity: teacher-forced through each backend's step graph on gold test ci with
  their gold templates (the measure of `songwriter eval`, computed with the backend itself, since
  the evaluation's own perplexity runs the torch model);
- Format and Rhyme micro/macro F1, Distinct-2 and the check() pass rate on generations for the
  gold templates of ``--gen-pieces`` test ci (songwriter.train.evaluate's setup: lengths,
  punctuation, rhyme labels; one candidate each, same seeds for every backend);
- top-1 agreement: fed the gold text, how often int8's most likely next token is fp32's.

Prints a Markdown section for docs/results.md (``--markdown FILE`` appends it there).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def teacher_forced_argmax(backend, vocab, pieces: list[dict], max_len: int, batch: int = 16) -> np.ndarray:
    """The top-1 token at every valid position of the gold pieces, fed the gold prefix."""
    from songwriter.engine import encoding as E
    from songwriter.train.dataset import PieceStore, collate, make_example

    store = PieceStore(pieces, vocab, max_len=max_len)
    rng = np.random.default_rng(0)
    out = []
    for a in range(0, len(store), batch):
        ex = [make_example(store.piece(i), vocab, rng, train=False) for i in range(a, min(a + batch, len(store)))]
        b = collate(ex, vocab.pad)
        arrays = {k: b[k] for k in (*E.CHANNELS, "given")}
        state = backend.start(arrays, len(ex))
        prev = np.full(len(ex), vocab.bos, dtype=np.int64)
        top = np.zeros(b["targets"].shape, dtype=np.int64)
        for p in range(b["targets"].shape[1]):
            top[:, p] = backend.step(state, prev, p).argmax(-1)
            prev = b["targets"][:, p]
        out.append(top[b["fmt"] != E.F_PAD])
    return np.concatenate(out)


def main(argv=None) -> int:
    from songwriter import metrics
    from songwriter.train.onnx_export import heldout_nll
    from songwriter.engine.service import Engine
    from songwriter.train import evaluate as EV
    from songwriter.train.args import DEFAULT_CORPUS

    ap = argparse.ArgumentParser(prog="bench/int8_quality.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", default=str(ROOT / "models" / "zh"))
    ap.add_argument("--corpus", default=str(DEFAULT_CORPUS))
    ap.add_argument("--pieces", type=int, default=300, help="held-out ci for the NLL (0: all)")
    ap.add_argument("--gen-pieces", type=int, default=100)
    ap.add_argument("--backends", default="onnx-fp32,onnx-int8", help="add torch-cpu for the reference")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--seeds", type=int, default=3, help="generation runs with different seeds (spread)")
    ap.add_argument("--json")
    ap.add_argument("--markdown", help="append the Markdown section to this file")
    args = ap.parse_args(argv)

    pieces = EV.test_pieces(Path(args.corpus), "test")
    rng = np.random.default_rng(args.seed)
    nll_pieces = pieces if not args.pieces else [pieces[i] for i in sorted(rng.permutation(len(pieces))[:args.pieces])]
    gp = [pieces[i] for i in sorted(np.random.default_rng(args.seed + 1).permutation(len(pieces))[:args.gen_pieces])]
    out: dict = {"model": args.model, "nll_pieces": len(nll_pieces), "gen_pieces": len(gp), "backends": {}}
    try:
        out["model_version"] = json.loads((Path(args.model) / "manifest.json").read_text())["version"]
    except (OSError, ValueError, KeyError):
        pass
    top1: dict[str, list[str]] = {}
    for name in args.backends.split(","):
        eng = Engine.load(args.model, backend=name)
        be = eng.backend
        t0 = time.perf_counter()
        nll = heldout_nll(be, eng.vocab, nll_pieces, be.max_len)
        t1 = time.perf_counter()
        runs = []
        for k in range(args.seeds):
            gen, gold, tmpls, ok = EV.generate_all(eng, gp, 1, args.seed + 7919 * k, None, log=lambda *a: None)
            runs.append({"format": metrics.format_scores(gen, gold), "rhyme": metrics.rhyme_scores(gen, gold),
                         "distinct": metrics.distinct_scores(gen), "check_pass": 100 * float(np.mean(ok))})
        t2 = time.perf_counter()
        top1[name] = teacher_forced_argmax(be, eng.vocab, gp, be.max_len)

        def stat(f):
            v = [f(r) for r in runs]
            return {"mean": float(np.mean(v)), "min": float(min(v)), "max": float(max(v))}

        r = {"backend_name": eng.backend_name, "perplexity": nll, "runs": runs,
             "format_micro_f1": stat(lambda r: r["format"]["micro_f1"]),
             "rhyme_micro_f1": stat(lambda r: r["rhyme"]["micro_f1"]),
             "rhyme_macro_f1": stat(lambda r: r["rhyme"]["macro_f1"]),
             "distinct_2": stat(lambda r: r["distinct"]["micro_d2"]),
             "check_pass": stat(lambda r: r["check_pass"]),
             "seconds_nll": t1 - t0, "seconds_gen": t2 - t1}
        out["backends"][name] = r
        print(f"{eng.backend_name}: NLL {nll['nll']:.4f} (PPL {nll['ppl']:.2f}, char PPL {nll['char_ppl']:.2f}) | "
              f"Format micro-F1 {r['format_micro_f1']['mean']:.2f} | Rhyme micro-F1 {fmt(r['rhyme_micro_f1'])} "
              f"macro-F1 {fmt(r['rhyme_macro_f1'])} | Distinct-2 {fmt(r['distinct_2'])} | "
              f"check() {r['check_pass']['mean']:.0f}%  ({t1 - t0:.0f}s + {t2 - t1:.0f}s)", flush=True)
    if "onnx-fp32" in top1 and "onnx-int8" in top1:
        out["top1_agreement_fp32_int8"] = float(np.mean(top1["onnx-fp32"] == top1["onnx-int8"]))
        out["top1_positions"] = int(len(top1["onnx-fp32"]))
    md = markdown(out)
    print()
    print(md)
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1, ensure_ascii=False), encoding="utf-8")
    if args.markdown:
        with open(args.markdown, "a", encoding="utf-8") as f:
            f.write("\n" + md)
    return 0


def fmt(st: dict) -> str:
    return f"{st['mean']:.2f} ({st['min']:.2f}-{st['max']:.2f})" if st["max"] > st["min"] else f"{st['mean']:.2f}"


def markdown(out: dict) -> str:
    B = out["backends"]
    seeds = len(next(iter(B.values()))["runs"]) if B else 0
    lines = ["## onnxruntime int8 vs fp32", "",
             "Written by `python bench/int8_quality.py --model models/zh --markdown docs/results.md`. The int8 "
             "step graph quantises the weight MatMuls (projections and logits) with onnxruntime's dynamic "
             "quantisation; the encoder and the attention products stay fp32.", "",
             f"Model `{out['model']}` ({out.get('model_version', '')}); NLL on {out['nll_pieces']} held-out test ci "
             f"(teacher-forced through each backend's own step graph); generation measures on {out['gen_pieces']} "
             f"test ci templates, one candidate each, {seeds} runs with different seeds: mean (min-max).", "",
             "| backend | NLL (nats/token) | PPL | char PPL | Format micro-F1 | Rhyme micro-F1 | Rhyme macro-F1 "
             "| Distinct-2 | check() pass |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in B.values():
        p = r["perplexity"]
        lines.append(f"| {r['backend_name']} | {p['nll']:.4f} | {p['ppl']:.2f} | {p['char_ppl']:.2f} | "
                     f"{r['format_micro_f1']['mean']:.2f} | {fmt(r['rhyme_micro_f1'])} | {fmt(r['rhyme_macro_f1'])} | "
                     f"{fmt(r['distinct_2'])} | {r['check_pass']['mean']:.0f}% |")
    if "onnx-fp32" in B and "onnx-int8" in B:
        a, b = B["onnx-fp32"]["perplexity"]["nll"], B["onnx-int8"]["perplexity"]["nll"]
        lines += ["", f"int8 vs fp32: NLL {100 * (b / a - 1):+.2f} %"]
        if "top1_agreement_fp32_int8" in out:
            lines[-1] += (f"; fed the gold text, int8's most likely next token is fp32's at "
                          f"{100 * out['top1_agreement_fp32_int8']:.1f} % of {out['top1_positions']:,} positions")
        lines[-1] += "."
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())

"""Does the int8 step graph keep quality? fp32 vs int8 (and torch) on the held-out test ci.

    python bench/int8_quality.py --model models/zh [--pieces 300 --gen-pieces 100]

- held-out NLL / perplexity: teacher-forced through each backend's step graph on gold test ci with
  their gold templates (the measure of `songwriter eval`, computed with the backend itself, since
  the evaluation's own perplexity runs the torch model);
- Format and Rhyme micro/macro F1, Distinct-2 and the check() pass rate on generations for the
  gold templates of ``--gen-pieces`` test ci (songwriter.train.evaluate's setup: lengths,
  punctuation, rhyme labels; one candidate each, same seeds for every backend);
- greedy agreement: share of characters where fp32 and int8 greedy decoding choose the same.

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


def main(argv=None) -> int:
    from songwriter import metrics
    from songwriter.engine.onnx_export import heldout_nll
    from songwriter.engine.service import Engine, GenerationRequest
    from songwriter.train import evaluate as EV
    from songwriter.train.args import DEFAULT_CORPUS

    ap = argparse.ArgumentParser(prog="bench/int8_quality.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", default=str(ROOT / "models" / "zh"))
    ap.add_argument("--corpus", default=str(DEFAULT_CORPUS))
    ap.add_argument("--pieces", type=int, default=300, help="held-out ci for the NLL (0: all)")
    ap.add_argument("--gen-pieces", type=int, default=100)
    ap.add_argument("--backends", default="onnx-fp32,onnx-int8", help="add torch-cpu for the reference")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json")
    ap.add_argument("--markdown", help="append the Markdown section to this file")
    args = ap.parse_args(argv)

    pieces = EV.test_pieces(Path(args.corpus), "test")
    rng = np.random.default_rng(args.seed)
    nll_pieces = pieces if not args.pieces else [pieces[i] for i in sorted(rng.permutation(len(pieces))[:args.pieces])]
    gp = [pieces[i] for i in sorted(np.random.default_rng(args.seed + 1).permutation(len(pieces))[:args.gen_pieces])]
    out: dict = {"model": args.model, "nll_pieces": len(nll_pieces), "gen_pieces": len(gp), "backends": {}}
    greedy: dict[str, list[str]] = {}
    for name in args.backends.split(","):
        eng = Engine.load(args.model, backend=name)
        be = eng.backend
        t0 = time.perf_counter()
        nll = heldout_nll(be, eng.vocab, nll_pieces, be.max_len)
        t1 = time.perf_counter()
        gen, gold, tmpls, ok = EV.generate_all(eng, gp, 1, args.seed, None, log=lambda *a: None)
        t2 = time.perf_counter()
        greedy[name] = ["".join(eng.generate(GenerationRequest(template=EV.gold_template(p), n=1, seed=0,
                                                               temperature=0))[0].lines) for p in gp[:30]]
        r = {"backend_name": eng.backend_name, "perplexity": nll,
             "format": metrics.format_scores(gen, gold), "rhyme": metrics.rhyme_scores(gen, gold),
             "distinct": metrics.distinct_scores(gen), "check_pass": 100 * float(np.mean(ok)),
             "seconds_nll": t1 - t0, "seconds_gen": t2 - t1}
        out["backends"][name] = r
        print(f"{eng.backend_name}: NLL {nll['nll']:.4f} (PPL {nll['ppl']:.2f}, char PPL {nll['char_ppl']:.2f}) | "
              f"Format micro-F1 {r['format']['micro_f1']:.2f} | Rhyme micro-F1 {r['rhyme']['micro_f1']:.2f} "
              f"macro-F1 {r['rhyme']['macro_f1']:.2f} | Distinct-2 {r['distinct']['micro_d2']:.2f} | "
              f"check() {r['check_pass']:.0f}%  ({t1 - t0:.0f}s + {t2 - t1:.0f}s)", flush=True)
    if "onnx-fp32" in greedy and "onnx-int8" in greedy:
        a, b = greedy["onnx-fp32"], greedy["onnx-int8"]
        same = sum(x == y for s, t in zip(a, b) for x, y in zip(s, t))
        total = sum(len(s) for s in a)
        out["greedy_char_agreement_fp32_int8"] = same / total
        out["greedy_pieces_identical_fp32_int8"] = sum(s == t for s, t in zip(a, b)) / len(a)
    md = markdown(out)
    print()
    print(md)
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1, ensure_ascii=False), encoding="utf-8")
    if args.markdown:
        with open(args.markdown, "a", encoding="utf-8") as f:
            f.write("\n" + md)
    return 0


def markdown(out: dict) -> str:
    B = out["backends"]
    lines = ["## onnxruntime int8 vs fp32", "",
             "Written by `python bench/int8_quality.py --model models/zh --markdown docs/results.md`. The int8 "
             "step graph quantises the weight MatMuls (projections and logits) with onnxruntime's dynamic "
             "quantisation; the encoder and the attention products stay fp32.", "",
             f"Model `{out['model']}`; NLL on {out['nll_pieces']} held-out test ci (teacher-forced through "
             f"each backend's own step), generation measures on {out['gen_pieces']} test ci templates "
             "(one candidate each, same seeds).", "",
             "| backend | NLL (nats/token) | PPL | char PPL | Format micro-F1 | Rhyme micro-F1 | Rhyme macro-F1 "
             "| Distinct-2 | check() pass |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in B.values():
        p = r["perplexity"]
        lines.append(f"| {r['backend_name']} | {p['nll']:.4f} | {p['ppl']:.2f} | {p['char_ppl']:.2f} | "
                     f"{r['format']['micro_f1']:.2f} | {r['rhyme']['micro_f1']:.2f} | {r['rhyme']['macro_f1']:.2f} | "
                     f"{r['distinct']['micro_d2']:.2f} | {r['check_pass']:.0f}% |")
    if "onnx-fp32" in B and "onnx-int8" in B:
        a, b = B["onnx-fp32"]["perplexity"]["nll"], B["onnx-int8"]["perplexity"]["nll"]
        lines += ["", f"int8 vs fp32: NLL {100 * (b / a - 1):+.2f} %"]
        if "greedy_char_agreement_fp32_int8" in out:
            lines[-1] += (f"; greedy decoding picks the same character at {100 * out['greedy_char_agreement_fp32_int8']:.1f} % "
                          f"of positions ({100 * out['greedy_pieces_identical_fp32_int8']:.0f} % of 30 pieces identical)")
        lines[-1] += "."
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())

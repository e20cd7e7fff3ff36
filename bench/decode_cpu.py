"""CPU time of a generation, split into model steps and the decoder's Python.

    python bench/decode_cpu.py --model models/zh                 # 七绝 and 念奴娇, 8 candidates
    python bench/decode_cpu.py --forms 七绝 --repeats 10 --json out.json

CPU time (``time.process_time``), not wall time, so the figures mean something on a machine that
is busy with other work (a training run): the onnxruntime session runs on one thread that does
not spin (``threads=1, spinning=False``), so the process's CPU time is this request's work and
nothing else. "steps" is the CPU time inside the backend's ``start`` (the template memory) and ``step`` calls; "decoder" is the rest
of ``decode.decode`` (masks, sampling, bookkeeping, line ends heard in their line); "checks" is
``checks.check`` of each candidate; "other" the rest of ``Engine.generate`` (template encoding,
rhyme planning outside ``decode``, ranking). Medians over the repeats (min in brackets), after a first request that fills caches.
Wall-clock figures on a quiet machine come from ``bench/latency.py``. Prints figures; no test
asserts a time.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from songwriter import checks  # noqa: E402
from songwriter.engine import decode as decode_module  # noqa: E402
from songwriter.engine.onnx_backend import OnnxBackend  # noqa: E402
from songwriter.engine.service import Engine, GenerationRequest  # noqa: E402
from songwriter.forms import named_form  # noqa: E402


def single_thread_engine(model: str, variant: str) -> Engine:
    be, vocab, manifest = OnnxBackend.from_dir(model, variant, "cpu", threads=1, spinning=False)
    return Engine(be, vocab, manifest, Path(model))


def cpu_split(engine: Engine, form: str, n: int, repeats: int) -> dict:
    """CPU ms of ``repeats`` requests for n candidates of ``form``: total, in steps, the rest."""
    be = engine.backend
    step = be.step
    in_steps = [0.0]

    def timed_step(*a, **k):
        t0 = time.process_time()
        try:
            return step(*a, **k)
        finally:
            in_steps[0] += time.process_time() - t0

    def timed(fn, spent):
        def call(*a, **k):
            t0 = time.process_time()
            try:
                return fn(*a, **k)
            finally:
                spent[0] += time.process_time() - t0
        return call

    in_decode, in_checks = [0.0], [0.0]
    be.step = timed_step
    be.start = timed(be.start, in_steps)    # the template memory, once per request: model time too
    decode, check = decode_module.decode, checks.check
    decode_module.decode, checks.check = timed(decode, in_decode), timed(check, in_checks)
    parts: dict[str, list[float]] = {"total": [], "steps": [], "decoder": [], "checks": [], "other": []}
    try:
        for r in range(repeats + 1):
            in_steps[0] = in_decode[0] = in_checks[0] = 0.0
            t0 = time.process_time()
            cands = engine.generate(GenerationRequest(template=named_form(form), n=n, seed=r))
            total = time.process_time() - t0
            assert cands and all(c.check.ok for c in cands)
            if r:    # the first request fills caches
                parts["total"].append(total)
                parts["steps"].append(in_steps[0])
                parts["decoder"].append(in_decode[0] - in_steps[0])
                parts["checks"].append(in_checks[0])
                parts["other"].append(total - in_decode[0] - in_checks[0])
    finally:
        del be.step, be.start
        decode_module.decode, checks.check = decode, check
    out = {}
    for name, xs in parts.items():
        out[f"{name}_ms"], out[f"{name}_min_ms"] = statistics.median(xs) * 1000, min(xs) * 1000
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="bench/decode_cpu.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", default=str(ROOT / "models" / "zh"))
    ap.add_argument("--variant", default="int8", help="onnx variant: int8, fp32 or auto")
    ap.add_argument("--forms", default="七绝,念奴娇")
    ap.add_argument("-n", type=int, default=8)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--json", help="write the figures here")
    args = ap.parse_args(argv)
    engine = single_thread_engine(args.model, args.variant)
    res = {"model": args.model, "backend": engine.backend_name, "n": args.n, "forms": {}}
    print(f"{engine.backend_name}, 1 thread; CPU ms per request of {args.n} candidates, "
          f"median of {args.repeats} (min)")
    cols = ("total", "steps", "decoder", "checks", "other")
    print("form | " + " | ".join(cols))
    print(" | ".join(["---"] * (len(cols) + 1)))
    for form in args.forms.split(","):
        r = cpu_split(engine, form.strip(), args.n, args.repeats)
        res["forms"][form] = r
        print(f"{form} | " + " | ".join(f"{r[c + '_ms']:.0f} ({r[c + '_min_ms']:.0f})" for c in cols), flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(res, indent=1, ensure_ascii=False), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

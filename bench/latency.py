"""Decode latency of every backend on one model, in one run.

    python bench/latency.py --model models/zh            # or: songwriter bench --model models/zh
    python bench/latency.py --model DIR --json out.json --backends onnx-fp32,onnx-int8,torch

Prints, for onnxruntime fp32, onnxruntime int8 and torch (those that are there):

- model load time (Engine.load in this process; the cold process start is printed apart);
- per-step decode latency and tokens/s at batch 1 and 8 (the backend's step alone, over every
  position of a 念奴娇 template, memory encoded once), and the onnxruntime/torch ratio;
- time to generate 8 candidates of a 七绝 and of 念奴娇 (100 characters) through the facade,
  constraints and sampling included (the first request apart: it warms caches);
- the memory-bandwidth floor of one step: the bytes of the weights a step reads (from the step
  graph's initialisers; the fp32 figure is the floor) divided by the bandwidth of a large numpy
  copy measured in the same run, and each backend's ratio to it.

It also prints how busy the rest of the machine was during the run: figures taken while another
process computes are not worth much (pause long jobs first, e.g. `kill -STOP`, then `kill -CONT`).
Benchmarks print figures; no test asserts a time.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.machine import cpu_busy  # noqa: E402
from songwriter.engine import encoding as E  # noqa: E402
from songwriter.engine.service import Engine, GenerationRequest  # noqa: E402
from songwriter.forms import named_form  # noqa: E402


def bandwidth(mb: int = 512, repeats: int = 5) -> float:
    """Bytes per second of a large numpy copy, counting the read and the write (STREAM Copy)."""
    src = np.ones(mb * (1 << 20) // 8)
    dst = np.empty_like(src)
    best = 1e9
    for _ in range(repeats):
        t0 = time.perf_counter()
        np.copyto(dst, src)
        best = min(best, time.perf_counter() - t0)
    return 2 * src.nbytes / best


def step_weight_bytes(path: Path) -> int:
    """Bytes of the initialisers a step reads in full: all of them except those only gathered
    from (the token embedding's input lookup touches B columns, not the table)."""
    try:
        import onnx
    except ImportError:            # a runtime-only install: the file is nearly all weights
        return Path(path).stat().st_size
    g = onnx.load(str(path), load_external_data=False).graph
    users: dict[str, set[str]] = {}
    for n in g.node:
        for i in n.input:
            users.setdefault(i, set()).add(n.op_type)
    total = 0
    for init in g.initializer:
        if users.get(init.name, set()) <= {"Gather"}:
            continue
        total += len(init.raw_data) if init.raw_data else onnx.numpy_helper.to_array(init).nbytes
    return total


def torch_step_weight_bytes(model) -> int:
    """The torch step reads every parameter except the template embeddings and the memory's
    keys/values projections (used once per request)."""
    skip = ("pos.", "fmt.", "bpos.", "line.", "tone.", "label.", "group.", "mem_ln.", "cross_attn.kv.")
    return sum(p.numel() * p.element_size() for n, p in model.named_parameters()
               if not any(n.startswith(s) or f".{s}" in n for s in skip))


def time_steps(backend, enc, batch: int, repeats: int) -> float:
    """(median, min) over repeats of the mean seconds per step over all positions of ``enc``."""
    T = len(enc)
    times = []
    ids = np.arange(batch) + 100
    for _ in range(repeats):
        state = backend.start(enc.arrays(), batch)
        prev = np.full(batch, 2, dtype=np.int64)
        t0 = time.perf_counter()
        for p in range(T):
            backend.step(state, prev, p)
            prev = ids
        times.append((time.perf_counter() - t0) / T)
    return statistics.median(times), min(times)


def time_generate(engine, form: str, n: int, repeats: int) -> tuple[float, float, float]:
    """(first request, median and min of the next ``repeats``) seconds for n candidates of
    ``form`` through the facade (template preparation, masks, sampling, checks included)."""
    t = named_form(form)
    out, in_steps = [], []
    be = engine.backend
    step = be.step
    spent = [0.0]

    def timed_step(*a, **k):
        t0 = time.perf_counter()
        try:
            return step(*a, **k)
        finally:
            spent[0] += time.perf_counter() - t0

    be.step = timed_step
    try:
        for r in range(repeats + 1):
            spent[0] = 0.0
            t0 = time.perf_counter()
            cands = engine.generate(GenerationRequest(template=t, n=n, seed=r))
            out.append(time.perf_counter() - t0)
            in_steps.append(spent[0])
            assert len(cands) >= 1 and all(c.check.ok for c in cands)
    finally:
        del be.step
    time_generate.step_share = statistics.median(in_steps[1:])
    return out[0], statistics.median(out[1:]), min(out[1:])


def cold_start(model: str, backend: str) -> float | None:
    """Seconds for a fresh Python process to import the engine and load the model."""
    code = ("import time; t=time.perf_counter(); from songwriter.engine.service import Engine; "
            f"Engine.load({model!r}, backend={backend!r}); print(time.perf_counter()-t)")
    try:
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                           cwd=str(ROOT))
        return float(r.stdout.strip().splitlines()[-1])
    except Exception:
        return None


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="bench/latency.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", default=str(ROOT / "models" / "zh"))
    ap.add_argument("--backends", default="onnx-fp32,onnx-int8,torch")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--ci", default="念奴娇", help="the ~100-character ci")
    ap.add_argument("--no-cold", action="store_true", help="skip the cold process-start timing")
    ap.add_argument("--json", help="write the figures here")
    args = ap.parse_args(argv)
    model = args.model
    busy0, own0, steal0 = cpu_busy()
    wall0 = time.perf_counter()
    bw = bandwidth()
    res: dict = {"model": model, "bandwidth_GBps": bw / 1e9, "backends": {}, "cpus": os.cpu_count()}
    print(f"model {model}; {os.cpu_count()} CPUs; numpy copy bandwidth {bw / 1e9:.1f} GB/s")
    ci = named_form(args.ci)
    warm = None
    for name in args.backends.split(","):
        name = name.strip()
        kind = "torch-cpu" if name == "torch" else name
        t0 = time.perf_counter()
        try:
            engine = Engine.load(model, backend=kind)
        except Exception as e:
            print(f"{name}: not available ({e})")
            continue
        load = time.perf_counter() - t0
        if warm is None:   # once per process: prosody tables, first imports of the decoder
            t0 = time.perf_counter()
            engine.generate(GenerationRequest(template=named_form("五绝"), n=1, seed=0))
            warm = time.perf_counter() - t0
            res["process_first_request_s"] = warm
        be = engine.backend
        enc = E.encode_template(ci, engine.vocab)
        if name.startswith("onnx"):
            wbytes = step_weight_bytes(be.model_dir / be.step_file)
        else:

            wbytes = torch_step_weight_bytes(be.model)
        r = {"backend_name": engine.backend_name, "load_s": load, "step_weight_MB": wbytes / 1e6,
             "template_positions": len(enc)}
        for b in (1, 8):
            med, best = time_steps(be, enc, b, args.repeats)
            r[f"step_ms_b{b}"], r[f"step_ms_b{b}_min"] = med * 1000, best * 1000
            r[f"tok_s_b{b}"] = b / med
        r["gen_qijue_first_s"], r["gen_qijue_s"], r["gen_qijue_min_s"] = time_generate(engine, "七绝", 8, args.repeats)
        r["gen_qijue_steps_s"] = time_generate.step_share
        r["gen_ci_first_s"], r["gen_ci_s"], r["gen_ci_min_s"] = time_generate(engine, args.ci, 8, args.repeats)
        r["gen_ci_steps_s"] = time_generate.step_share
        if not args.no_cold:
            r["cold_load_s"] = cold_start(model, kind)
        res["backends"][name] = r
        print(f"{engine.backend_name}: loaded in {load * 1000:.0f} ms; step {r['step_ms_b1']:.2f} ms at batch 1 "
              f"({r['tok_s_b1']:.0f} tok/s), {r['step_ms_b8']:.2f} ms at batch 8 ({r['tok_s_b8']:.0f} tok/s)",
              flush=True)
        del engine, be
    B = res["backends"]
    floor_bytes = None
    if "onnx-fp32" in B:
        floor_bytes = B["onnx-fp32"]["step_weight_MB"] * 1e6
    elif (Path(model) / "step.onnx").is_file():
        floor_bytes = step_weight_bytes(Path(model) / "step.onnx")
    elif "torch" in B:
        floor_bytes = B["torch"]["step_weight_MB"] * 1e6
    floor_ms = floor_bytes / bw * 1000 if floor_bytes else float("nan")
    res["floor_ms"] = floor_ms
    busy1, own1, steal1 = cpu_busy()
    wall = time.perf_counter() - wall0
    other = max(0.0, (busy1 - busy0) - (own1 - own0)) / wall
    res["other_load_cores"] = other
    res["steal_cores"] = (steal1 - steal0) / wall
    res["wall_s"] = wall

    print()
    print(f"memory-bandwidth floor of one step: {floor_bytes / 1e6 if floor_bytes else float('nan'):.1f} MB "
          f"of fp32 weights / {bw / 1e9:.1f} GB/s = {floor_ms:.2f} ms")
    print(f"steps over all {next(iter(B.values()))['template_positions'] if B else 0} "
          f"positions of {args.ci}; median of {args.repeats} runs (min in brackets); generation = 8 "
          f"candidates through the facade (it decodes 10 rows), after a first request")
    cols = ["backend", "load ms", "cold start ms", "b1 ms/step", "b1 tok/s", "b8 ms/step", "b8 tok/s",
            "b1 / floor", "七绝x8 ms", f"{args.ci}x8 ms", "first 七绝 ms"]
    print(" | ".join(cols))
    print(" | ".join("---" for _ in cols))
    for name, r in B.items():
        cold = r.get("cold_load_s")
        r["floor_ratio_b1"] = r["step_ms_b1"] / floor_ms
        r["floor_ratio_b1_min"] = r["step_ms_b1_min"] / floor_ms
        own_floor = r["step_weight_MB"] * 1e6 / bw * 1000
        r["own_floor_ms"] = own_floor
        print(" | ".join([
            r["backend_name"], f"{r['load_s'] * 1000:.0f}", f"{cold * 1000:.0f}" if cold else "-",
            f"{r['step_ms_b1']:.2f} ({r['step_ms_b1_min']:.2f})", f"{r['tok_s_b1']:.0f}",
            f"{r['step_ms_b8']:.2f} ({r['step_ms_b8_min']:.2f})", f"{r['tok_s_b8']:.0f}",
            f"{r['floor_ratio_b1']:.2f}x ({r['floor_ratio_b1_min']:.2f}x)",
            f"{r['gen_qijue_s'] * 1000:.0f} ({r['gen_qijue_min_s'] * 1000:.0f})",
            f"{r['gen_ci_s'] * 1000:.0f} ({r['gen_ci_min_s'] * 1000:.0f})",
            f"{r['gen_qijue_first_s'] * 1000:.0f}"]))
    for name, r in B.items():
        print(f"{name}: of the generation time, model steps take {r['gen_qijue_steps_s'] * 1000:.0f} ms (七绝) and "
              f"{r['gen_ci_steps_s'] * 1000:.0f} ms ({args.ci}); the rest is decoding in Python (masks, sampling) "
              "and the checks")
    if "process_first_request_s" in res:
        print(f"first request of the process (prosody tables etc.): {res['process_first_request_s'] * 1000:.0f} ms")
    if "torch" in B:
        for name in ("onnx-fp32", "onnx-int8"):
            if name in B:
                ratios = [B[name][f"step_ms_b{b}"] / B["torch"][f"step_ms_b{b}"] for b in (1, 8)]
                res["backends"][name]["torch_ratio"] = ratios
                print(f"{name} / torch step time: {ratios[0]:.2f} at batch 1, {ratios[1]:.2f} at batch 8")
    for name, r in B.items():
        print(f"{name}: step weights {r['step_weight_MB']:.1f} MB -> its own floor {r['own_floor_ms']:.2f} ms "
              f"(batch 1 at {r['step_ms_b1'] / r['own_floor_ms']:.2f}x)")
    print(f"other processes used {other:.2f} cores on average during this {wall:.0f} s run"
          + ("  <- figures disturbed" if other > 0.15 else ""))
    print(f"the hypervisor took (steal) {res['steal_cores']:.2f} cores on average"
          + ("  <- a busy host: figures vary" if res["steal_cores"] > 0.1 else ""))
    if args.json:
        Path(args.json).write_text(json.dumps(res, indent=1, ensure_ascii=False), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The benchmark runs end to end on the tiny model (figures are printed, never asserted)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("onnxruntime")
pytest.importorskip("onnx")           # the exporter (train extra)

from helpers.tiny_model import make_tiny_model  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def test_bench_latency_smoke(tmp_path):
    from songwriter.train.onnx_export import export_model_dir

    d = make_tiny_model(tmp_path)
    export_model_dir(d, log=lambda *a: None)
    out = tmp_path / "bench.json"
    r = subprocess.run([sys.executable, str(ROOT / "bench" / "latency.py"), "--model", str(d), "--repeats", "1",
                        "--no-cold", "--backends", "onnx-fp32,onnx-int8", "--ci", "七绝", "--json", str(out)],
                       capture_output=True, text=True, timeout=600, cwd=str(ROOT))
    assert r.returncode == 0, r.stderr
    assert "memory-bandwidth floor" in r.stdout
    res = json.loads(out.read_text())
    assert set(res["backends"]) == {"onnx-fp32", "onnx-int8"}
    for b in res["backends"].values():
        assert b["step_ms_b1"] > 0 and b["tok_s_b8"] > 0 and b["gen_qijue_s"] > 0
    assert res["bandwidth_GBps"] > 0 and res["floor_ms"] > 0

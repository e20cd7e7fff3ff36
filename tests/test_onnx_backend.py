"""The onnxruntime backend against the torch one on the tiny model (golden tests), backend
choice, stale-file checks, cancellation, and generation in a process where torch cannot load."""

import json
import os
import shutil
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("onnxruntime")
pytest.importorskip("onnx")           # the exporter (train extra)

from helpers.tiny_model import make_tiny_model  # noqa: E402

from songwriter.engine import encoding as E  # noqa: E402
from songwriter.engine.onnx_backend import OnnxBackend  # noqa: E402
from songwriter.train.onnx_export import export_model_dir  # noqa: E402
from songwriter.engine.service import (  # noqa: E402
    Engine, GenerationCancelled, GenerationRequest, ModelLoadError,
)
from songwriter.engine.torch_backend import TorchBackend  # noqa: E402
from songwriter.forms import named_form  # noqa: E402
from songwriter.template import parse_notation  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def plain_dir(tmp_path_factory):
    """The tiny model without ONNX files."""
    return make_tiny_model(tmp_path_factory.mktemp("plain"))


@pytest.fixture(scope="module")
def model_dir(plain_dir, tmp_path_factory):
    d = tmp_path_factory.mktemp("onnx") / "tiny-zh"
    shutil.copytree(plain_dir, d)
    export_model_dir(d, int8=True, log=lambda *a: None)
    return d


@pytest.fixture(scope="module")
def engines(model_dir):
    return {name: Engine.load(model_dir, backend=name) for name in ("torch-cpu", "onnx-fp32", "onnx-int8")}


def test_files_and_manifest(model_dir):
    info = json.loads((model_dir / "onnx.json").read_text())
    assert info["opset"] >= 17
    assert info["files"] == {"encoder": "encoder.onnx", "fp32": "step.onnx", "int8": "step.int8.onnx",
                             "encoder_int8": "encoder.int8.onnx"}
    assert info["default"] == "fp32"          # int8 is the default only after a passed quality check
    import onnx

    for f in info["files"].values():
        m = onnx.load(str(model_dir / f))
        onnx.checker.check_model(m)
        assert any(o.version >= 17 for o in m.opset_import if o.domain in ("", "ai.onnx"))
    int8 = onnx.load(str(model_dir / "step.int8.onnx"))
    ops = {n.op_type for n in int8.graph.node}
    assert "MatMulInteger" in ops and "ConvInteger" not in ops
    # the int8 encoder: its tables are int8 (looked up, then scaled), a quarter of the fp32 one
    enc8 = onnx.load(str(model_dir / "encoder.int8.onnx"))
    assert "DequantizeLinear" in {n.op_type for n in enc8.graph.node}
    assert (model_dir / "encoder.int8.onnx").stat().st_size < 0.5 * (model_dir / "encoder.onnx").stat().st_size


def test_int8_variant_reads_the_int8_encoder_and_stays_close(model_dir):
    """The int8 variant reads encoder.int8.onnx; its memory is the fp32 encoder's up to int8
    rounding, so teacher-forced log-probs stay as close to fp32 as the int8 step alone keeps them."""
    be8, be32 = OnnxBackend(model_dir, "int8"), OnnxBackend(model_dir, "fp32")
    assert be8.encoder_file == "encoder.int8.onnx" and be32.encoder_file == "encoder.onnx"
    enc = E.encode_template(named_form("七绝"), be8.vocab)
    arrays = {k: v[None] for k, v in enc.arrays().items()}
    rng = np.random.default_rng(0)
    chars = np.arange(be8.vocab.first_char, len(be8.vocab))
    targets = np.where(enc.given == be8.vocab.fill, rng.choice(chars, size=enc.given.shape), enc.given)[None]
    m32, m8 = be32.encode(arrays), be8.encode(arrays)
    assert all(np.abs(a - b).max() < 0.1 * (np.abs(a).max() + 1e-6) for a, b in zip(m32, m8)
               if np.isfinite(a).all())
    lp32 = be32.score(arrays, targets, be8.vocab.bos)[0]
    lp8 = be8.score(arrays, targets, be8.vocab.bos)[0]
    assert np.abs(lp32 - lp8).mean() < 0.05


def test_backend_names(engines):
    assert engines["torch-cpu"].backend_name == "torch-cpu"
    assert engines["onnx-fp32"].backend_name == "onnxruntime-cpu (fp32)"
    assert engines["onnx-int8"].backend_name == "onnxruntime-cpu (int8)"


def _stepped(backend, enc, n, rows_prev):
    state = backend.start(enc.arrays(), n)
    out = []
    for p in range(len(enc)):
        out.append(backend.step(state, rows_prev[:, p], p).copy())
    return np.stack(out, 1)                      # (n, T, V)


@pytest.mark.parametrize("form", ["五绝", "鹧鸪天"])
def test_logprobs_match_torch(model_dir, form):
    tb, vocab, _ = TorchBackend.from_dir(model_dir, "cpu")
    ob = OnnxBackend(model_dir, "fp32", "cpu")
    enc = E.encode_template(named_form(form), vocab)
    rng = np.random.default_rng(0)
    n = 3
    prev = rng.integers(vocab.first_char, len(vocab), (n, len(enc)))
    prev[:, 0] = vocab.bos
    a = _stepped(tb, enc, n, prev)
    b = _stepped(ob, enc, n, prev)
    assert a.shape == b.shape == (n, len(enc), len(vocab))
    assert np.abs(a - b).max() < 1e-4
    assert np.allclose(np.exp(b).sum(-1), 1, atol=1e-4)      # log-softmax fused in the graph
    # int8: close, not equal
    c = _stepped(OnnxBackend(model_dir, "int8", "cpu"), enc, n, prev)
    assert np.abs(a - c).max() < 0.5 and np.abs(a - c).mean() < 0.05


def test_teacher_forced_score_matches_torch_with_padding(model_dir):
    """Rows of different templates in one batch (per-row memory, padding masked)."""
    tb, vocab, _ = TorchBackend.from_dir(model_dir, "cpu")
    ob = OnnxBackend(model_dir, "fp32", "cpu")
    encs = [E.encode_template(named_form(f), vocab) for f in ("五绝", "七绝")]
    T = max(len(e) for e in encs)
    arrays = {k: np.zeros((2, T), np.int64) for k in encs[0].arrays()}
    targets = np.zeros((2, T), np.int64)
    rng = np.random.default_rng(1)
    for r, e in enumerate(encs):
        for k, v in e.arrays().items():
            arrays[k][r, :len(e)] = v
        targets[r, :len(e)] = np.where(e.given == vocab.fill, rng.integers(vocab.first_char, len(vocab), len(e)),
                                       e.given)
    a = tb.score(arrays, targets, vocab.bos)
    b = ob.score(arrays, targets, vocab.bos)
    valid = arrays["fmt"] != E.F_PAD
    assert np.abs(a[valid] - b[valid]).max() < 1e-4


def test_select_keeps_rows(model_dir):
    ob = OnnxBackend(model_dir, "fp32", "cpu")
    enc = E.encode_template(named_form("五绝"), ob.vocab)
    prev = np.array([ob.vocab.bos] * 4)
    s = ob.start(enc.arrays(), 4)
    for p in range(3):
        ob.step(s, prev, p)
        prev = np.array([10, 11, 12, 13])
    s2 = ob.select(s, np.array([3, 1]))
    full = ob.step(s, prev, 3)
    part = ob.step(s2, prev[[3, 1]], 3)
    assert np.allclose(full[[3, 1]], part, atol=1e-6)


def test_select_of_as_many_rows_takes_over_other_rows_in_place(model_dir):
    """Each row going on from another (rows 2, 2, 0, 1): the next step gives each row what its
    source row would have got, as a state that never had the select does."""
    ob = OnnxBackend(model_dir, "fp32", "cpu")
    enc = E.encode_template(named_form("五绝"), ob.vocab)
    rows = np.array([2, 2, 0, 1])
    states = [ob.start(enc.arrays(), 4) for _ in range(2)]
    for s in states:
        prev = np.array([ob.vocab.bos] * 4)
        for p in range(3):
            ob.step(s, prev, p)
            prev = np.array([10, 11, 12, 13]) + p
    moved = ob.select(states[1], rows)
    assert moved is states[1]
    want = ob.step(states[0], prev, 3)[rows]
    got = ob.step(moved, prev[rows], 3)
    assert np.allclose(want, got, atol=1e-6)


@pytest.mark.parametrize("template", ["七绝", "春____，\n__风__。@A\n____月，\n____花。@A"])
def test_greedy_candidates_are_the_same(engines, template):
    t = named_form(template) if "\n" not in template else parse_notation(template)
    got = {}
    for name, eng in engines.items():
        cands = eng.generate(GenerationRequest(template=t, n=3, seed=0, temperature=0))
        assert all(c.check.ok for c in cands)
        got[name] = [(c.text, round(c.score, 3)) for c in cands]
    assert got["onnx-fp32"] == got["torch-cpu"]


@pytest.mark.parametrize("name", ["torch-cpu", "onnx-fp32", "onnx-int8"])
def test_sampling_is_deterministic_per_seed(engines, name):
    eng = engines[name]
    t = named_form("七绝")

    def run(seed):
        return [c.text for c in eng.generate(GenerationRequest(template=t, n=4, seed=seed))]

    a, b, other = run(5), run(5), run(6)
    assert a == b
    assert a != other


def test_sampling_same_across_fp32_and_torch(engines):
    """Same seed, same model: the fp32 graph samples what torch samples (log-probs agree to
    ~1e-6, far below what would move a sample on this model)."""
    t = named_form("五绝")
    a = [c.text for c in engines["torch-cpu"].generate(GenerationRequest(template=t, n=4, seed=3))]
    b = [c.text for c in engines["onnx-fp32"].generate(GenerationRequest(template=t, n=4, seed=3))]
    assert a == b


def test_cancel_mid_way(engines):
    eng = engines["onnx-fp32"]
    ev = threading.Event()
    seen = []

    def progress(done, total):
        seen.append(done)
        if done == 5:
            ev.set()

    with pytest.raises(GenerationCancelled):
        eng.generate(GenerationRequest(template=named_form("七绝"), n=4, seed=0), progress=progress, cancel=ev)
    assert seen[-1] == 5


def test_generate_in_a_worker_thread(engines):
    eng = engines["onnx-int8"]
    out = {}
    th = threading.Thread(target=lambda: out.setdefault("c", eng.generate(
        GenerationRequest(template=named_form("五律"), n=2, seed=1))))
    th.start()
    th.join(60)
    assert out["c"] and all(c.check.ok for c in out["c"])


def test_auto_prefers_onnx_and_notes_torch_fallback(model_dir, plain_dir):
    eng = Engine.load(model_dir)
    assert eng.backend_name == "onnxruntime-cpu (fp32)" and eng.backend_note == ""
    eng = Engine.load(plain_dir)
    assert eng.backend_name == "torch-cpu"
    assert "export-onnx" in eng.backend_note


def test_default_variant_from_manifest(model_dir, tmp_path):
    d = tmp_path / "m"
    shutil.copytree(model_dir, d)
    info = json.loads((d / "onnx.json").read_text())
    info["default"] = "int8"
    (d / "onnx.json").write_text(json.dumps(info))
    assert Engine.load(d, backend="onnx").backend_name == "onnxruntime-cpu (int8)"
    assert Engine.load(d).backend_name == "onnxruntime-cpu (int8)"


def test_stale_onnx_files_are_refused(model_dir, tmp_path):
    from safetensors.torch import load_file, save_file

    d = tmp_path / "m"
    shutil.copytree(model_dir, d)
    state = load_file(str(d / "model.safetensors"))
    k = next(iter(state))
    state[k] = state[k] * 0.5
    save_file(state, str(d / "model.safetensors"), metadata={"format_version": "1"})
    with pytest.raises(ModelLoadError, match="other weights.*export-onnx"):
        Engine.load(d, backend="onnx")
    eng = Engine.load(d)                     # auto: falls back to torch and says why
    assert eng.backend_name == "torch-cpu" and "other weights" in eng.backend_note


def test_missing_or_broken_graph(model_dir, tmp_path):
    d = tmp_path / "m"
    shutil.copytree(model_dir, d)
    (d / "step.int8.onnx").unlink()
    with pytest.raises(ModelLoadError, match="no int8"):
        Engine.load(d, backend="onnx-int8")
    (d / "step.onnx").write_bytes(b"not a graph")
    with pytest.raises(ModelLoadError, match="cannot load the ONNX graphs"):
        Engine.load(d, backend="onnx-fp32")
    with pytest.raises(ModelLoadError, match="unknown backend"):
        Engine.load(d, backend="tensorflow")


BLOCK_TORCH = textwrap.dedent("""
    import importlib.abc, sys

    class _NoTorch(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name == "torch" or name.startswith("torch."):
                raise ImportError("torch is blocked in this test")
            return None

    sys.meta_path.insert(0, _NoTorch())
""")


def _run_without_torch(code: str, tmp_path: Path) -> subprocess.CompletedProcess:
    site = tmp_path / "site"
    site.mkdir(exist_ok=True)
    (site / "sitecustomize.py").write_text(BLOCK_TORCH)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(site), str(ROOT)])
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                          timeout=300, cwd=str(ROOT))


def test_generation_without_torch(model_dir, tmp_path):
    code = textwrap.dedent(f"""
        import sys
        try:
            import torch
            print("TORCH IMPORTED"); sys.exit(3)
        except ImportError:
            pass
        from songwriter.engine.service import Engine, GenerationRequest
        from songwriter.forms import named_form
        eng = Engine.load({str(model_dir)!r})
        cands = eng.generate(GenerationRequest(template=named_form("七绝"), n=3, seed=1))
        assert cands and all(c.check.ok for c in cands), [c.text for c in cands]
        assert not any(m == "torch" or m.startswith("torch.") for m in sys.modules)
        print(eng.backend_name)
        print(cands[0].text)
    """)
    r = _run_without_torch(code, tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.splitlines()[0] == "onnxruntime-cpu (fp32)"


def test_cli_without_torch_json(model_dir, tmp_path):
    code = ("import sys; from songwriter.cli import main; sys.exit(main(['generate', '--form', '五绝', "
            f"'--model', {str(model_dir)!r}, '-n', '2', '--seed', '1', '--json']))")
    r = _run_without_torch(code, tmp_path)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["backend"] == "onnxruntime-cpu (fp32)"
    assert isinstance(out["elapsed_ms"], float) and out["elapsed_ms"] > 0
    assert len(out["candidates"]) == 2 and "backend_note" not in out


def test_no_onnx_and_no_torch_says_what_to_do(plain_dir, tmp_path):
    code = ("from songwriter.engine.service import Engine\n"
            f"try:\n    Engine.load({str(plain_dir)!r})\nexcept Exception as e:\n    print(type(e).__name__, e)\n")
    r = _run_without_torch(code, tmp_path)
    assert "ModelLoadError" in r.stdout and "export-onnx" in r.stdout and "torch" in r.stdout, r.stdout + r.stderr


def test_cli_export_onnx(plain_dir, tmp_path):
    from songwriter.cli import main

    d = tmp_path / "m"
    shutil.copytree(plain_dir, d)
    assert main(["export-onnx", str(d), "--int8", "no"]) == 0
    assert (d / "encoder.onnx").is_file() and (d / "step.onnx").is_file()
    assert not (d / "step.int8.onnx").exists()
    assert Engine.load(d).backend_name == "onnxruntime-cpu (fp32)"
    assert main(["export-onnx", str(tmp_path / "nowhere")]) == 2


def test_only_default_keeps_the_graph_the_app_loads(plain_dir, tmp_path):
    from songwriter.cli import main

    d = tmp_path / "m"
    shutil.copytree(plain_dir, d)
    assert main(["export-onnx", str(d), "--int8", "yes", "--default", "int8", "--check-pieces", "0",
                 "--only-default"]) == 0
    assert (d / "step.int8.onnx").is_file() and not (d / "step.onnx").exists()
    assert (d / "encoder.int8.onnx").is_file() and not (d / "encoder.onnx").exists()
    info = json.loads((d / "onnx.json").read_text())
    assert "fp32" not in info["files"] and "encoder" not in info["files"] and info["int8_weight_bits"] == 7
    eng = Engine.load(d)
    assert eng.backend_name == "onnxruntime-cpu (int8)"
    cands = eng.generate(GenerationRequest(template=named_form("五绝"), n=1, seed=1))
    assert cands and all(c.check.ok for c in cands)
    with pytest.raises(ModelLoadError, match="no fp32 step graph.*only the int8.*export-onnx"):
        Engine.load(d, backend="onnx-fp32")


def _with_random_kind_embedding(model_dir: Path) -> None:
    """Give the tiny model a kind embedding far from its zero start (60 steps on shi barely move it)."""
    from safetensors.torch import load_file, save_file

    path = model_dir / "model.safetensors"
    state = load_file(str(path))
    g = torch.Generator().manual_seed(0)
    state["kind.weight"] = (torch.randn(state["kind.weight"].shape, generator=g) * 0.5).to(state["kind.weight"].dtype)
    save_file(state, str(path), metadata={"format_version": "1"})


def test_kind_channel_changes_the_output_alike_in_both_backends(tmp_path):
    d = make_tiny_model(tmp_path, steps=5)
    _with_random_kind_embedding(d)
    export_model_dir(d, int8=False, log=lambda *a: None)
    tb, vocab, _ = TorchBackend.from_dir(d, "cpu")
    ob = OnnxBackend(d, "fp32", "cpu")
    shi = named_form("五绝")
    lyric = parse_notation("\n".join(["_____，", "_____。"] * 2))   # the same form, kind lyric
    assert shi.kind == "shi" and lyric.kind == "lyric"
    encs = [E.encode_template(t, vocab) for t in (shi, lyric)]
    assert len(encs[0]) == len(encs[1]) and set(encs[0].kind) == {E.KIND_IDS["shi"]}
    assert set(encs[1].kind) == {E.KIND_IDS["modern"]}
    prev = np.random.default_rng(0).integers(vocab.first_char, len(vocab), (2, len(encs[0])))
    prev[:, 0] = vocab.bos
    got = [(_stepped(tb, e, 2, prev), _stepped(ob, e, 2, prev)) for e in encs]
    for a, b in got:
        assert np.abs(a - b).max() < 1e-4
    assert np.abs(got[0][0] - got[1][0]).max() > 1e-3


def test_a_model_from_before_the_modern_registers_reads_them_as_modern(tmp_path):
    """Models trained with five kinds (no poem or speech register) are shipped and saved by users:
    the newer registers reach them as the modern kind, in both backends."""
    from dataclasses import replace

    from safetensors.torch import load_file, save_file

    d = make_tiny_model(tmp_path, steps=5)
    _with_random_kind_embedding(d)
    state = load_file(str(d / "model.safetensors"))
    state["kind.weight"] = state["kind.weight"][:E.KIND_IDS["modern"] + 1].clone()
    save_file(state, str(d / "model.safetensors"), metadata={"format_version": "1"})
    config = json.loads((d / "config.json").read_text())
    (d / "config.json").write_text(json.dumps({**config, "n_kind": E.KIND_IDS["modern"] + 1}))
    export_model_dir(d, int8=False, log=lambda *a: None)
    tb, vocab, _ = TorchBackend.from_dir(d, "cpu")
    ob = OnnxBackend(d, "fp32", "cpu")
    modern = E.encode_template(parse_notation("\n".join(["_____，", "_____。"] * 2)), vocab)
    assert set(modern.kind) == {E.KIND_IDS["modern"]}
    shi = replace(modern, kind=np.full_like(modern.kind, E.KIND_IDS["shi"]))
    prev = np.random.default_rng(0).integers(vocab.first_char, len(vocab), (2, len(modern)))
    prev[:, 0] = vocab.bos
    for register in ("poem", "speech"):
        newer = replace(modern, kind=np.full_like(modern.kind, E.KIND_IDS[register]))
        for backend in (tb, ob):
            assert np.abs(_stepped(backend, newer, 2, prev) - _stepped(backend, modern, 2, prev)).max() < 1e-6
            assert np.abs(_stepped(backend, newer, 2, prev) - _stepped(backend, shi, 2, prev)).max() > 1e-3


def test_model_without_kind_channel_still_runs(tmp_path):
    d = make_tiny_model(tmp_path, steps=5, kind_channel=False)
    export_model_dir(d, int8=False, log=lambda *a: None)
    assert "kind" not in {i.name for i in OnnxBackend(d, "fp32", "cpu").encoder.get_inputs()}
    t = named_form("七绝")
    got = {}
    for name in ("torch-cpu", "onnx-fp32"):
        cands = Engine.load(d, backend=name).generate(GenerationRequest(template=t, n=2, seed=0, temperature=0))
        assert all(c.check.ok for c in cands)
        got[name] = [c.text for c in cands]
    assert got["onnx-fp32"] == got["torch-cpu"]

"""Content steering on onnxruntime (train/onnx_export_cocon.py, engine/onnx_backend.py) against
the torch block (engine/cocon.py) on the tiny model with a random non-zero block: fp32 log-probs
equal torch's SteeredBackend to 1e-4 (measured: 1e-6) for several contents and strengths; int8
close; no content is the plain step; tau -100 is the base; generation with content without torch;
graphs of another block are refused; export of a folder whose block does not fit the base still
writes the plain graphs."""

import json
import shutil
import textwrap

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("onnxruntime")
pytest.importorskip("onnx")           # the exporter (train extra)

from helpers.tiny_model import make_tiny_model  # noqa: E402
from test_cocon import random_block  # noqa: E402
from test_onnx_backend import _run_without_torch  # noqa: E402

from songwriter.engine import encoding as E  # noqa: E402
from songwriter.engine.cocon import save_block  # noqa: E402
from songwriter.engine.onnx_backend import OnnxBackend, SteeredOnnxBackend  # noqa: E402
from songwriter.engine.service import Engine, GenerationRequest, ModelLoadError  # noqa: E402
from songwriter.engine.torch_backend import TorchBackend  # noqa: E402
from songwriter.forms import named_form  # noqa: E402
from songwriter.train.onnx_export import export_model_dir  # noqa: E402

TOL = 1e-4        # fp32 graphs against torch (the plain step's tolerance in test_onnx_backend)
BASE_TOL = 1e-5   # tau -100 against the base (test_cocon's tolerance)
CONTENTS = [(["明月 故乡"], [0.0]), (["明月 故乡", "春风"], [2.0, -1.0]),
            (["床前明月光，疑是地上霜。"], [5.0]), (["孤舟", "寒江雪", "千山"], [1.0, 0.5, 3.0])]


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    d = make_tiny_model(tmp_path_factory.mktemp("cocon-onnx"), steps=15)
    save_block(random_block(d), d, dtype=torch.float32)
    export_model_dir(d, int8=True, log=lambda *a: None)
    return d


@pytest.fixture(scope="module")
def int8_dir(model_dir, tmp_path_factory):
    """The folder with its int8 steered step marked as passing its check, so int8 loads it."""
    d = tmp_path_factory.mktemp("cocon-int8") / "m"
    shutil.copytree(model_dir, d)
    info = json.loads((d / "onnx.json").read_text())
    info["cocon"]["int8_check"]["int8_ok"] = True
    (d / "onnx.json").write_text(json.dumps(info))
    return d


def _stepped(backend, enc, prev):
    state = backend.start(enc.arrays(), len(prev))
    return np.stack([backend.step(state, prev[:, p], p).copy() for p in range(len(enc))], 1)   # (n, T, V)


def _prev(vocab, enc, n=3, seed=0):
    prev = np.random.default_rng(seed).integers(vocab.first_char, len(vocab), (n, len(enc)))
    prev[:, 0] = vocab.bos
    return prev


def test_files_and_manifest(model_dir):
    import onnx

    from songwriter.engine.model_folder import file_sha256

    info = json.loads((model_dir / "onnx.json").read_text())
    c = info["cocon"]
    assert c["files"] == {"content": "cocon_content.onnx", "content_int8": "cocon_content.int8.onnx",
                          "fp32": "step.cocon.onnx", "int8": "step.cocon.int8.onnx"}
    assert c["block_sha256"] == file_sha256(model_dir / "cocon.safetensors")
    assert c["layer"] == 1 and c["content_len"] == 128 and c["int8_check"]["checked"]
    for f in c["files"].values():
        onnx.checker.check_model(onnx.load(str(model_dir / f)))
    int8 = onnx.load(str(model_dir / "step.cocon.int8.onnx")).graph
    assert "MatMulInteger" in {n.op_type for n in int8.node}
    # the block's own weights stay fp32 (quantised, the steered step drifted twice as far)
    fp32_weights = {i.name for i in int8.initializer if i.data_type == onnx.TensorProto.FLOAT}
    assert {"wq", "wk", "wo", "w1", "w2"} <= fp32_weights
    assert "step.w.0" not in fp32_weights
    content8 = onnx.load(str(model_dir / "cocon_content.int8.onnx")).graph
    assert "m.tok.weight" not in {i.name for i in content8.initializer}    # the token table is int8


@pytest.mark.parametrize("form", ["七绝", "鹧鸪天"])
def test_steered_logprobs_match_torch(model_dir, form):
    tb, vocab, _ = TorchBackend.from_dir(model_dir, "cpu")
    ob = OnnxBackend(model_dir, "fp32", "cpu")
    assert ob.supports_content and ob.steered_variant == "fp32"
    enc = E.encode_template(named_form(form), vocab)
    prev = _prev(vocab, enc)
    base = _stepped(tb, enc, prev)
    for content, tau in CONTENTS:
        a = _stepped(tb.steered(content, tau, vocab), enc, prev)
        sb = ob.steered(content, tau, vocab)
        assert isinstance(sb, SteeredOnnxBackend)
        b = _stepped(sb, enc, prev)
        assert np.abs(a - b).max() < TOL, (content, tau, np.abs(a - b).max())
        assert np.abs(b - base).max() > 1e-2            # the block does steer
        assert np.allclose(np.exp(b).sum(-1), 1, atol=1e-4)


def test_int8_steered_is_close(int8_dir):
    tb, vocab, _ = TorchBackend.from_dir(int8_dir, "cpu")
    ob = OnnxBackend(int8_dir, "int8", "cpu")
    assert ob.steered_variant == "int8" and ob.content_file == "cocon_content.int8.onnx"
    enc = E.encode_template(named_form("七绝"), vocab)
    prev = _prev(vocab, enc)
    for content, tau in CONTENTS[:2]:
        a = _stepped(tb.steered(content, tau, vocab), enc, prev)
        c = _stepped(ob.steered(content, tau, vocab), enc, prev)
        assert np.abs(a - c).max() < 0.5 and np.abs(a - c).mean() < 0.05     # as the plain int8 step


def test_int8_that_failed_its_check_steers_in_fp32(model_dir):
    info = json.loads((model_dir / "onnx.json").read_text())
    ob = OnnxBackend(model_dir, "int8", "cpu")
    assert ob.steered_variant == ("int8" if info["cocon"]["int8_check"]["int8_ok"] else "fp32")


def test_no_content_is_the_plain_step_and_tau_minus_100_the_base(model_dir):
    tb, vocab, _ = TorchBackend.from_dir(model_dir, "cpu")
    ob = OnnxBackend(model_dir, "fp32", "cpu")
    assert ob.steered([], [], vocab) is ob
    assert ob.steered(["abc 123"], [5.0], vocab) is ob        # nothing of it in the vocabulary
    enc = E.encode_template(named_form("五绝"), vocab)
    prev = _prev(vocab, enc)
    plain = _stepped(ob, enc, prev)
    assert np.abs(plain - _stepped(tb, enc, prev)).max() < TOL
    far = _stepped(ob.steered(["明月 故乡", "春风"], [-100.0, -100.0], vocab), enc, prev)
    assert np.abs(far - plain).max() <= BASE_TOL


def test_teacher_forced_score_and_select(model_dir):
    tb, vocab, _ = TorchBackend.from_dir(model_dir, "cpu")
    ob = OnnxBackend(model_dir, "fp32", "cpu")
    content, tau = ["明月 故乡", "春风"], [0.0, 3.0]
    enc = E.encode_template(named_form("五绝"), vocab)
    targets = np.where(enc.given == vocab.fill, vocab.id("山"), enc.given)[None]
    arrays = {k: v[None] for k, v in enc.arrays().items()}
    a = tb.steered(content, tau, vocab).score(arrays, targets, vocab.bos)
    b = ob.steered(content, tau, vocab).score(arrays, targets, vocab.bos)
    assert np.abs(a - b).max() < TOL
    # dropping rows keeps the block's key cache of the rows kept
    sb = ob.steered(content, tau, vocab)
    prev = np.array([vocab.bos] * 4)
    s = sb.start(E.encode_template(named_form("鹧鸪天"), vocab).arrays(), 4)
    for p in range(40):             # past the first block of 32 cache positions
        sb.step(s, prev, p)
        prev = np.array([10, 11, 12, 13]) + p % 3
    s2 = sb.select(s, np.array([3, 1]))
    assert np.allclose(sb.step(s, prev, 40)[[3, 1]], sb.step(s2, prev[[3, 1]], 40), atol=1e-6)


def test_engine_runs_content_on_onnx(model_dir):
    onnx_engine = Engine.load(model_dir)                       # auto: onnxruntime on this CPU
    assert onnx_engine.backend_name == "onnxruntime-cpu (fp32)" and onnx_engine.supports_content
    torch_engine = Engine.load(model_dir, backend="torch-cpu")
    req = dict(template=named_form("七绝"), n=3, seed=3, content=["明月", "故乡"], strengths=[2.0, 1.0])
    a = onnx_engine.generate(GenerationRequest(**req))
    b = torch_engine.generate(GenerationRequest(**req))
    assert a and all(c.check.ok for c in a)
    assert [c.text for c in a] == [c.text for c in b]           # log-probs agree to 1e-6
    plain = onnx_engine.generate(GenerationRequest(template=named_form("七绝"), n=3, seed=3))
    assert [c.text for c in plain] != [c.text for c in a]


def test_generation_with_content_without_torch(model_dir, tmp_path):
    code = textwrap.dedent(f"""
        import json, sys
        from songwriter.engine.service import Engine, GenerationRequest
        from songwriter.forms import named_form
        eng = Engine.load({str(model_dir)!r})
        req = GenerationRequest(template=named_form("七绝"), n=3, seed=3, content=["明月", "故乡"],
                                strengths=[2.0, 1.0])
        cands = eng.generate(req)
        assert cands and all(c.check.ok for c in cands), [c.text for c in cands]
        assert not any(m == "torch" or m.startswith("torch.") for m in sys.modules)
        print(json.dumps({{"backend": eng.backend_name, "content": eng.supports_content,
                          "texts": [c.text for c in cands]}}, ensure_ascii=False))
    """)
    r = _run_without_torch(code, tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    out = json.loads(r.stdout.splitlines()[-1])
    assert out["backend"] == "onnxruntime-cpu (fp32)" and out["content"]
    want = Engine.load(model_dir, backend="torch-cpu").generate(GenerationRequest(
        template=named_form("七绝"), n=3, seed=3, content=["明月", "故乡"], strengths=[2.0, 1.0]))
    assert out["texts"] == [c.text for c in want]


def test_cli_content_runs_on_onnx(model_dir, capsys):
    from songwriter.cli import main

    assert main(["generate", "--form", "五绝", "--model", str(model_dir), "-n", "2", "--seed", "1",
                 "--content", "明月", "--strength", "2", "--json"]) == 0
    out = capsys.readouterr()
    assert json.loads(out.out)["backend"] == "onnxruntime-cpu (fp32)" and "ignored" not in out.err


def test_graphs_of_another_block_are_refused(model_dir, tmp_path):
    d = tmp_path / "m"
    shutil.copytree(model_dir, d)
    save_block(random_block(d, seed=1), d, dtype=torch.float32)     # retrained: the graphs are stale
    with pytest.raises(ModelLoadError, match="another block than cocon.safetensors.*export-onnx"):
        Engine.load(d, backend="onnx")
    eng = Engine.load(d)                     # auto: torch runs the new block, and says why
    assert eng.backend_name == "torch-cpu" and "another block" in eng.backend_note
    export_model_dir(d, int8=False, log=lambda *a: None)
    eng = Engine.load(d, backend="onnx")
    assert eng.supports_content and not (d / "step.cocon.int8.onnx").exists()


def test_without_the_block_there_is_no_content_path(model_dir, tmp_path):
    d = tmp_path / "m"
    shutil.copytree(model_dir, d)
    (d / "cocon.safetensors").unlink()
    (d / "cocon.json").unlink()
    eng = Engine.load(d, backend="onnx")     # the way to turn steering off (docs/cocon.md)
    assert not eng.supports_content


def test_export_leaves_out_a_block_of_another_base(model_dir, tmp_path):
    d = tmp_path / "m"
    shutil.copytree(model_dir, d)
    info = json.loads((d / "cocon.json").read_text())
    info["base_sha256"] = "0" * 64
    (d / "cocon.json").write_text(json.dumps(info))
    notes = []
    export_model_dir(d, int8=True, log=notes.append)
    assert any("trained on another base" in n for n in notes)
    assert "cocon" not in json.loads((d / "onnx.json").read_text())
    assert not any((d / f).exists() for f in ("cocon_content.onnx", "cocon_content.int8.onnx", "step.cocon.onnx",
                                              "step.cocon.int8.onnx"))
    assert (d / "step.onnx").is_file() and (d / "step.int8.onnx").is_file()


def test_only_default_keeps_the_steered_graph_the_app_loads(model_dir, tmp_path):
    from songwriter.cli import main

    d = tmp_path / "m"
    shutil.copytree(model_dir, d)
    assert main(["export-onnx", str(d), "--int8", "yes", "--default", "fp32", "--check-pieces", "0",
                 "--only-default"]) == 0
    files = json.loads((d / "onnx.json").read_text())["cocon"]["files"]
    assert files == {"content": "cocon_content.onnx", "fp32": "step.cocon.onnx"}
    assert not (d / "step.cocon.int8.onnx").exists() and not (d / "cocon_content.int8.onnx").exists()
    eng = Engine.load(d)
    assert eng.supports_content
    cands = eng.generate(GenerationRequest(template=named_form("五绝"), n=1, seed=1, content=["春风"]))
    assert cands and cands[0].check.ok

"""A folder with a content-steering block ships one step graph: ``export-onnx --only-default``
keeps the steered step and its content graph, no plain step, and the onnxruntime backend steps
plain requests through the steered step with one content key masked by a -inf bias, so the
block adds exactly nothing (docs/cocon.md). Checked on the tiny model with a random block:
teacher-forced real poems (and random previous characters) give the plain step's log-probs
(fp32 and int8: stated tolerance 1e-5, measured 0), whole generations the same candidates, and
folders without the block keep their plain step."""

import json
import shutil
import textwrap

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("onnxruntime")
pytest.importorskip("onnx")

from helpers.tiny_model import POEMS, make_tiny_model  # noqa: E402
from test_cocon import random_block  # noqa: E402
from test_onnx_backend import _run_without_torch  # noqa: E402

from songwriter.engine import encoding as E  # noqa: E402
from songwriter.engine.cocon import save_block  # noqa: E402
from songwriter.engine.onnx_backend import OnnxBackend  # noqa: E402
from songwriter.engine.service import Engine, GenerationRequest  # noqa: E402
from songwriter.forms import named_form  # noqa: E402
from songwriter.train.onnx_export import export_model_dir, keep_only_default  # noqa: E402

TOL = 1e-5    # plain rows through the steered step against the plain step (measured: 0)


@pytest.fixture(scope="module")
def full_dir(tmp_path_factory):
    """Every graph: plain and steered steps, fp32 and int8."""
    d = make_tiny_model(tmp_path_factory.mktemp("cocon-plain"), steps=15)
    save_block(random_block(d), d, dtype=torch.float32)
    export_model_dir(d, int8=True, log=lambda *a: None)
    return d


def _shipped(full_dir, dest, default: str):
    """A copy of the folder as ``--only-default`` leaves it, the int8 steered step marked as
    passing its check (on the tiny model it may not: the test is of the layout, not of it)."""
    shutil.copytree(full_dir, dest)
    info = json.loads((dest / "onnx.json").read_text())
    info["default"] = default
    info["cocon"]["int8_check"]["int8_ok"] = True
    dropped = keep_only_default(dest, info)
    return dest, dropped


@pytest.fixture(scope="module")
def int8_dir(full_dir, tmp_path_factory):
    return _shipped(full_dir, tmp_path_factory.mktemp("ship8") / "m", "int8")[0]


@pytest.fixture(scope="module")
def fp32_dir(full_dir, tmp_path_factory):
    return _shipped(full_dir, tmp_path_factory.mktemp("ship32") / "m", "fp32")[0]


def _poem_rows(vocab, form: str):
    """Real poems of the form as teacher-forced previous tokens: (encoded template, prev (n, T))."""
    enc = E.encode_template(named_form(form), vocab)
    n_chars = int((enc.given == vocab.fill).sum())
    rows = []
    for p in POEMS:
        chars = [c for c in p if c not in "，。"]
        if len(chars) != n_chars:
            continue
        tg = enc.given.copy()
        tg[tg == vocab.fill] = [vocab.id(c) for c in chars]
        rows.append(np.concatenate([[vocab.bos], tg[:-1]]))
    rng = np.random.default_rng(0)          # and random characters, far from any poem
    rand = rng.integers(vocab.first_char, len(vocab), (2, len(enc)))
    rand[:, 0] = vocab.bos
    return enc, np.concatenate([np.asarray(rows), rand])


def _stepped(backend, enc, prev):
    state = backend.start(enc.arrays(), len(prev))
    return np.stack([backend.step(state, prev[:, p], p).copy() for p in range(len(enc))], 1)


def test_only_default_ships_the_steered_step_alone(full_dir, int8_dir, fp32_dir):
    for d, variant in ((int8_dir, "int8"), (fp32_dir, "fp32")):
        info = json.loads((d / "onnx.json").read_text())
        assert info["files"] == ({"encoder_int8": "encoder.int8.onnx"} if variant == "int8"
                                 else {"encoder": "encoder.onnx"})
        suffix = ".int8" if variant == "int8" else ""
        assert info["cocon"]["files"] == {variant: f"step.cocon{suffix}.onnx",
                                          "content" + ("_int8" if variant == "int8" else ""):
                                              f"cocon_content{suffix}.onnx"}
        assert not (d / "step.onnx").exists() and not (d / "step.int8.onnx").exists()
        be = OnnxBackend(d)
        assert be.variant == variant and be.plain_steered and be.supports_content
        assert be.session is be.steered_session          # one graph loaded, not two
    # the folder shrinks by the plain step it no longer holds
    size = {d: sum(f.stat().st_size for f in d.glob("*.onnx")) for d in (full_dir, int8_dir)}
    assert size[int8_dir] < size[full_dir] - (full_dir / "step.int8.onnx").stat().st_size


@pytest.mark.parametrize("variant", ["fp32", "int8"])
@pytest.mark.parametrize("form", ["五绝", "七绝"])
def test_plain_rows_through_the_steered_step_are_the_plain_step(full_dir, int8_dir, fp32_dir, variant, form):
    plain = OnnxBackend(full_dir, variant)
    assert not plain.plain_steered
    shipped = OnnxBackend(int8_dir if variant == "int8" else fp32_dir)
    enc, prev = _poem_rows(plain.vocab, form)
    assert len(prev) > 2
    a, b = _stepped(plain, enc, prev), _stepped(shipped, enc, prev)
    diff = float(np.abs(a - b).max())
    print(f"\n{variant} {form}: plain rows via the steered step vs {plain.step_file}: max |dlogp| {diff:.2e}")
    assert diff <= TOL
    # and the steered step with a content still steers
    c = _stepped(shipped.steered(["明月 故乡"], [2.0], shipped.vocab), enc, prev)
    assert np.abs(c - b).max() > 1e-2


def test_generation_and_dropping_rows_through_the_steered_step(full_dir, fp32_dir):
    req = dict(template=named_form("七绝"), n=4, seed=5)
    want = Engine.load(full_dir, backend="onnx-fp32").generate(GenerationRequest(**req))
    eng = Engine.load(fp32_dir)
    got = eng.generate(GenerationRequest(**req))
    assert [c.text for c in got] == [c.text for c in want] and all(c.check.ok for c in got)
    assert np.allclose([c.score for c in got], [c.score for c in want], atol=TOL)
    # select keeps the block's key cache on the plain path too
    be = eng.backend
    enc = E.encode_template(named_form("鹧鸪天"), be.vocab)
    s = be.start(enc.arrays(), 3)
    prev = np.full(3, be.vocab.bos)
    for p in range(40):
        be.step(s, prev, p)
        prev = np.array([10, 11, 12]) + p % 4
    s2 = be.select(s, np.array([2, 0]))
    assert np.allclose(be.step(s, prev, 40)[[2, 0]], be.step(s2, prev[[2, 0]], 40), atol=1e-6)


def test_without_the_block_the_steered_step_still_runs_plain_requests(fp32_dir, tmp_path):
    d = tmp_path / "m"
    shutil.copytree(fp32_dir, d)
    (d / "cocon.safetensors").unlink()
    (d / "cocon.json").unlink()
    eng = Engine.load(d)
    assert not eng.supports_content and eng.backend.plain_steered
    cands = eng.generate(GenerationRequest(template=named_form("五绝"), n=2, seed=1, content=["春风"]))
    assert cands and all(c.check.ok for c in cands)


def test_cli_only_default_with_a_block(full_dir, tmp_path):
    from songwriter.cli import main

    d = tmp_path / "m"
    shutil.copytree(full_dir, d)
    assert main(["export-onnx", str(d), "--int8", "yes", "--default", "fp32", "--check-pieces", "0",
                 "--only-default"]) == 0
    info = json.loads((d / "onnx.json").read_text())
    assert info["files"] == {"encoder": "encoder.onnx"}
    assert sorted(p.name for p in d.glob("*.onnx")) == ["cocon_content.onnx", "encoder.onnx", "step.cocon.onnx"]
    assert OnnxBackend(d).plain_steered


def test_int8_steered_that_failed_its_check_keeps_the_plain_int8_step(full_dir, tmp_path):
    d = tmp_path / "m"
    shutil.copytree(full_dir, d)
    info = json.loads((d / "onnx.json").read_text())
    info["default"] = "int8"
    info["cocon"]["int8_check"]["int8_ok"] = False
    keep_only_default(d, info)
    assert info["files"] == {"encoder_int8": "encoder.int8.onnx", "int8": "step.int8.onnx"}
    assert info["cocon"]["files"] == {"fp32": "step.cocon.onnx", "content": "cocon_content.onnx"}
    be = OnnxBackend(d)
    assert not be.plain_steered and be.steered_variant == "fp32"


def test_folder_without_a_block_keeps_its_plain_step(tmp_path):
    d = make_tiny_model(tmp_path / "plain", steps=5)
    export_model_dir(d, int8=True, log=lambda *a: None)
    info = json.loads((d / "onnx.json").read_text())
    info["default"] = "int8"
    assert keep_only_default(d, info) == "step.onnx, encoder.onnx"
    assert info["files"] == {"int8": "step.int8.onnx", "encoder_int8": "encoder.int8.onnx"} and "cocon" not in info
    be = OnnxBackend(d)
    assert not be.plain_steered and not be.supports_content and be.step_file == "step.int8.onnx"


def test_shipped_folder_runs_without_torch(int8_dir, tmp_path):
    code = textwrap.dedent(f"""
        import json, sys
        from songwriter.engine.service import Engine, GenerationRequest
        from songwriter.forms import named_form
        eng = Engine.load({str(int8_dir)!r})
        out = {{}}
        for name, content in (("plain", []), ("steered", ["明月", "故乡"])):
            cands = eng.generate(GenerationRequest(template=named_form("七绝"), n=3, seed=3, content=content))
            assert cands and all(c.check.ok for c in cands), [c.text for c in cands]
            out[name] = [c.text for c in cands]
        assert not any(m == "torch" or m.startswith("torch.") for m in sys.modules)
        out["plain_steered"] = eng.backend.plain_steered
        print(json.dumps(out, ensure_ascii=False))
    """)
    r = _run_without_torch(code, tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    out = json.loads(r.stdout.splitlines()[-1])
    assert out["plain_steered"] and out["plain"] != out["steered"]

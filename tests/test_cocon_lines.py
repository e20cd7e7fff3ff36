"""Per-line content (``GenerationRequest.line_content``, the plan: one content per template line)
and content in ``Engine.suggest``, on the tiny model with a random block: a line's content steers
only its own line's positions (a per-query mask over the content keys), exactly as that content
alone would there and not at all elsewhere; torch and onnxruntime agree (fp32, 1e-4, as
tests/test_cocon_onnx.py); whole-piece content combines with it; candidates keep every
constraint; requests are checked."""

import json
import shutil

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("onnxruntime")
pytest.importorskip("onnx")

from helpers.tiny_model import make_tiny_model  # noqa: E402
from test_cocon import random_block  # noqa: E402

from songwriter.engine import encoding as E  # noqa: E402
from songwriter.engine.api import GenerationError, request_problem  # noqa: E402
from songwriter.engine.cocon import save_block  # noqa: E402
from songwriter.engine.content import line_positions  # noqa: E402
from songwriter.engine.service import Engine, GenerationRequest  # noqa: E402
from songwriter.forms import named_form  # noqa: E402
from songwriter.template import parse_notation  # noqa: E402
from songwriter.train.onnx_export import export_model_dir, keep_only_default  # noqa: E402

TOL = 1e-4        # onnxruntime fp32 against torch (test_cocon_onnx)
EXACT = 1e-5      # the same backend: a line's content against that content alone, on its line


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    d = make_tiny_model(tmp_path_factory.mktemp("cocon-lines"), steps=15)
    save_block(random_block(d), d, dtype=torch.float32)
    export_model_dir(d, int8=False, log=lambda *a: None)
    return d


@pytest.fixture(scope="module")
def engines(model_dir):
    return {"torch": Engine.load(model_dir, backend="torch-cpu"), "onnx": Engine.load(model_dir, backend="onnx")}


@pytest.fixture(scope="module")
def shipped_dir(model_dir, tmp_path_factory):
    """--only-default: plain requests and line contents through the one steered step."""
    d = tmp_path_factory.mktemp("lines-ship") / "m"
    shutil.copytree(model_dir, d)
    keep_only_default(d, json.loads((d / "onnx.json").read_text()))
    return d


def _stepped(backend, enc, prev):
    state = backend.start(enc.arrays(), len(prev))
    return np.stack([backend.step(state, prev[:, p], p).copy() for p in range(len(enc))], 1)   # (n, T, V)


def _prev(vocab, enc, n=2, seed=0):
    prev = np.random.default_rng(seed).integers(vocab.first_char, len(vocab), (n, len(enc)))
    prev[:, 0] = vocab.bos
    return prev


def _request_backend(engine, template, **kw):
    enc = E.encode_template(template, engine.vocab)
    return engine._steered(GenerationRequest(template=template, **kw), enc), enc


@pytest.mark.parametrize("form", ["五绝", "鹧鸪天"])
def test_line_positions(engines, form):
    """Every position of line i (its characters, marks and </s>) is i; <eos> is -1."""
    t = named_form(form)
    enc = E.encode_template(t, engines["torch"].vocab)
    line_of = line_positions(enc.fmt)
    chars = enc.slot_line >= 0
    assert (line_of[chars] == enc.slot_line[chars]).all()
    assert line_of[enc.fmt == E.F_EOL].tolist() == list(range(len(t.lines)))
    assert line_of[-1] == -1 and enc.fmt[-1] == E.F_EOS and (line_of[:-1] >= 0).all()
    assert line_positions(np.array([E.F_CHAR, E.F_EOL, E.F_EOS, E.F_PAD])).tolist() == [0, 0, -1, -1]


def test_requests_are_checked():
    t = named_form("七绝")
    assert not request_problem(GenerationRequest(template=t, line_content=["明月", "", "", "故乡"]))
    assert "one text per template line (4 here" in request_problem(GenerationRequest(template=t, line_content=["明月"]))
    assert "line content" in request_problem(GenerationRequest(template=t, line_content="明月"))
    assert "line content" in request_problem(GenerationRequest(template=t, line_content=["a", "b", 3, "d"]))
    assert "line content" in request_problem(GenerationRequest(template=t, line_content=["x" * 10_001, "", "", ""]))
    assert GenerationRequest(template=t, line_content=["", " ", "", ""]).has_content() is False
    assert GenerationRequest(template=t, line_content=["", "春", "", ""]).has_content()


@pytest.mark.parametrize("form", ["七绝", "鹧鸪天"])
def test_a_line_content_steers_from_its_line_on(engines, form):
    """A line's content is seen by its own line's queries alone: on the first line it gives
    exactly what that content given for the whole piece gives there; on line 1 the first line
    keeps the base's log-probs exactly and line 1 moves (later lines read line 1's states, so
    they move too, as context does). Both backends, and they agree."""
    t = named_form(form)
    n = len(t.lines)
    got = {}
    for name, eng in engines.items():
        enc = E.encode_template(t, eng.vocab)
        line_of = line_positions(enc.fmt)
        prev = _prev(eng.vocab, enc)
        base = _stepped(eng.backend, enc, prev)
        alone = _stepped(_request_backend(eng, t, content=["明月 故乡"], strength=2.0)[0], enc, prev)
        first = _stepped(_request_backend(eng, t, line_content=["明月 故乡"] + [""] * (n - 1), strength=2.0)[0],
                         enc, prev)
        on = line_of == 0
        assert np.abs(first[:, on] - alone[:, on]).max() <= EXACT, name
        assert np.abs(first[:, ~on] - alone[:, ~on]).max() > 1e-3, name     # later lines see no key of it
        lc = [""] * n
        lc[1] = "明月 故乡"
        second = _stepped(_request_backend(eng, t, line_content=lc, strength=2.0)[0], enc, prev)
        assert np.abs(second[:, on] - base[:, on]).max() <= EXACT, name
        assert np.abs(second[:, line_of == 1] - base[:, line_of == 1]).max() > 1e-2, name
        got[name] = (first, second)
    for a, b in zip(got["torch"], got["onnx"]):
        assert np.abs(a - b).max() < TOL


def test_line_and_whole_piece_content_combine(engines):
    t = named_form("七绝")
    lc = ["", "孤舟", "", "春风 杨柳"]
    out = {}
    for name, eng in engines.items():
        both, enc = _request_backend(eng, t, content=["明月"], strengths=[1.0], line_content=lc, strength=3.0)
        whole, _ = _request_backend(eng, t, content=["明月"], strengths=[1.0])
        prev = _prev(eng.vocab, enc, seed=1)
        a, w = _stepped(both, enc, prev), _stepped(whole, enc, prev)
        line_of = line_positions(enc.fmt)
        # the first line has no content of its own: the whole-piece content alone steers it
        assert np.abs(a[:, line_of == 0] - w[:, line_of == 0]).max() <= EXACT
        assert np.abs(a[:, line_of == 1] - w[:, line_of == 1]).max() > 1e-2
        out[name] = a
        # teacher-forced scoring (torch: the whole sequence at once) agrees with stepping
        targets = np.where(enc.given == eng.vocab.fill, eng.vocab.id("山"), enc.given)
        sc = both.score({k: v[None] for k, v in enc.arrays().items()}, targets[None], eng.vocab.bos)[0]
        prev1 = np.concatenate([[eng.vocab.bos], targets[:-1]])[None]
        stepped = _stepped(both, enc, prev1)[0, np.arange(len(enc)), targets]
        assert np.abs(sc - stepped).max() < TOL, name
    assert np.abs(out["torch"] - out["onnx"]).max() < TOL


def test_generation_with_line_content_keeps_the_form_and_backends_agree(engines, shipped_dir):
    t = parse_notation("春____，\n_____月。@A\n_____，\n_____雪。@A")
    req = dict(template=t, n=4, seed=2, line_content=["明月", "故乡", "", "孤舟 寒江"], strength=2.0,
               content=["千山"], strengths=[1.0])
    got = {name: eng.generate(GenerationRequest(**req)) for name, eng in engines.items()}
    got["shipped"] = Engine.load(shipped_dir).generate(GenerationRequest(**req))
    for cands in got.values():
        assert cands and all(c.check.ok for c in cands)
        assert all(c.lines[0].startswith("春") and c.lines[1].endswith("月。") and c.lines[3].endswith("雪。")
                   for c in cands)
    assert [c.text for c in got["torch"]] == [c.text for c in got["onnx"]] == [c.text for c in got["shipped"]]
    plain = engines["onnx"].generate(GenerationRequest(template=t, n=4, seed=2))
    assert [c.text for c in plain] != [c.text for c in got["onnx"]]
    # a line regenerated alone, its content steering it; the other lines stay as written
    text = "\n".join(got["onnx"][0].lines)
    again = engines["onnx"].generate(GenerationRequest(template=t, text=text, lines=[2], n=2, seed=5,
                                                       line_content=["", "", "寒江雪", ""], strength=3.0))
    assert again and all(c.check.ok and c.lines[0] == got["onnx"][0].lines[0]
                         and c.lines[3] == got["onnx"][0].lines[3] for c in again)
    with pytest.raises(GenerationError, match="one text per template line"):
        engines["onnx"].generate(GenerationRequest(template=t, n=1, line_content=["明月"]))


def test_suggest_honours_content(engines):
    t = named_form("五绝")
    text = "白日依山尽，\n黄河入海流。\n欲穷千里目，\n更上一层楼。"
    for name, eng in engines.items():
        plain = eng.suggest(t, text, 2, 1, k=10)
        steered = eng.suggest(t, text, 2, 1, k=10, content=["明月 故乡"], strength=4.0)
        assert len(steered) == 10 and steered != plain, name
        # the slot's constraints still hold: the words are among those that fit it unsteered
        assert {w for w, _ in steered} <= {w for w, _ in eng.suggest(t, text, 2, 1, k=1000)}
        # a line's content: on the slot's line it steers; on a later line it changes nothing here
        on_line = eng.suggest(t, text, 2, 1, k=10, line_content=["", "", "明月 故乡", ""], strength=4.0)
        later = eng.suggest(t, text, 2, 1, k=10, line_content=["", "", "", "明月 故乡"], strength=4.0)
        assert on_line != plain and [w for w, _ in later] == [w for w, _ in plain], name
        assert np.allclose([s for _, s in later], [s for _, s in plain], atol=EXACT)
        # on the first line, a line's content is the whole piece's
        a = eng.suggest(t, text, 0, 2, k=10, content=["明月 故乡"], strength=4.0)
        b = eng.suggest(t, text, 0, 2, k=10, line_content=["明月 故乡", "", "", ""], strength=4.0)
        assert [w for w, _ in a] == [w for w, _ in b] and np.allclose([s for _, s in a], [s for _, s in b], atol=EXACT)
        with pytest.raises(GenerationError, match="strength"):
            eng.suggest(t, text, 2, 1, content=["明月"], strength=float("nan"))
        with pytest.raises(GenerationError, match="one text per template line"):
            eng.suggest(t, text, 2, 1, line_content=["明月"])
    a = engines["torch"].suggest(t, text, 2, 1, k=10, content=["明月"], line_content=["", "", "故乡", ""], strength=2.0)
    b = engines["onnx"].suggest(t, text, 2, 1, k=10, content=["明月"], line_content=["", "", "故乡", ""], strength=2.0)
    assert [w for w, _ in a] == [w for w, _ in b] and np.allclose([s for _, s in a], [s for _, s in b], atol=TOL)

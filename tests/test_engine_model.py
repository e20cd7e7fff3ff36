"""Model folders: save -> load round trip, and clear errors for missing, corrupt or mismatched ones."""

import json
import shutil

import pytest

torch = pytest.importorskip("torch")

from helpers.tiny_model import make_tiny_model  # noqa: E402

from songwriter.engine import encoding as E  # noqa: E402
from songwriter.engine.service import Engine, ModelLoadError  # noqa: E402
from songwriter.engine.torch_backend import read_model_dir  # noqa: E402
from songwriter.engine.vocab import Vocab  # noqa: E402
from songwriter.forms import named_form  # noqa: E402


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    return make_tiny_model(tmp_path_factory.mktemp("model"))


@pytest.fixture
def copy(model_dir, tmp_path):
    dst = tmp_path / "m"
    shutil.copytree(model_dir, dst)
    return dst


def test_round_trip_matches_manifest(model_dir):
    cfg, vocab, manifest, state = read_model_dir(model_dir)
    assert manifest["vocab_sha256"] == vocab.sha256
    assert manifest["format_version"] == 1
    assert cfg.vocab_size == len(vocab)
    assert all(v.dtype == torch.float32 for v in state.values())  # fp16 on disk, fp32 in memory


def test_missing_folder_and_files(tmp_path, copy):
    with pytest.raises(ModelLoadError, match="does not exist"):
        Engine.load(tmp_path / "nowhere")
    (copy / "vocab.json").unlink()
    with pytest.raises(ModelLoadError, match="vocab.json is missing"):
        Engine.load(copy)


def test_renamed_weight_key_fails_loudly(copy):
    from safetensors.torch import load_file, save_file

    state = load_file(str(copy / "model.safetensors"))
    key = next(k for k in state if k.startswith("blocks.0.cross_attn.q"))
    state["blocks.0.crossattn.q.weight"] = state.pop(key)
    save_file(state, str(copy / "model.safetensors"), metadata={"format_version": "1"})
    with pytest.raises(ModelLoadError, match="missing 1.*unexpected 1"):
        Engine.load(copy)


def test_wrong_shape_fails(copy):
    cfg = json.loads((copy / "config.json").read_text())
    cfg["d_ff"] = cfg["d_ff"] * 2
    (copy / "config.json").write_text(json.dumps(cfg))
    with pytest.raises(ModelLoadError, match="shape"):
        Engine.load(copy)


def test_corrupt_weights_fail(copy):
    data = (copy / "model.safetensors").read_bytes()
    (copy / "model.safetensors").write_bytes(data[: len(data) // 2])
    with pytest.raises(ModelLoadError, match="cannot be read"):
        Engine.load(copy)


def test_vocabulary_drift_fails(copy):
    v = Vocab.load(copy / "vocab.json")
    tokens = list(v.tokens)
    tokens[-1], tokens[-2] = tokens[-2], tokens[-1]
    Vocab(tokens).save(copy / "vocab.json")
    with pytest.raises(ModelLoadError, match="vocabulary"):
        Engine.load(copy)


def test_garbled_json_fails(copy):
    (copy / "config.json").write_text("{not json")
    with pytest.raises(ModelLoadError, match="not valid"):
        Engine.load(copy)


def test_no_model_at_import(monkeypatch):
    import importlib
    import sys

    import songwriter.engine as engine_package

    # re-imported for this test only: later tests patch the module object the rest of the suite
    # holds, found through sys.modules and through the package's attribute
    monkeypatch.setattr(engine_package, "service", engine_package.service)
    for name in [m for m in sys.modules if m.startswith("songwriter.engine.service")]:
        monkeypatch.delitem(sys.modules, name)
    mod = importlib.import_module("songwriter.engine.service")
    assert not any(isinstance(v, Engine) for v in vars(mod).values())


def test_kv_cache_matches_full_forward(model_dir):
    """Stepping with the cache gives the same log-probs as one teacher-forced pass."""
    import numpy as np

    from songwriter.engine.torch_backend import TorchBackend

    be, vocab, _ = TorchBackend.from_dir(model_dir, "cpu")
    enc = E.encode_template(named_form("五绝"), vocab)
    rng = np.random.default_rng(0)
    targets = np.where(enc.given == vocab.fill, rng.integers(vocab.first_char, len(vocab), len(enc)), enc.given)
    full = be.score({k: v[None] for k, v in enc.arrays().items()}, targets[None], vocab.bos)[0]
    state = be.start(enc.arrays(), 1)
    prev = np.array([vocab.bos])
    stepped = []
    for p in range(len(enc)):
        lp = be.step(state, prev, p)
        stepped.append(lp[0, targets[p]])
        prev = np.array([targets[p]])
    assert np.allclose(full, np.array(stepped), atol=1e-4)


def test_encoding_layout():
    from songwriter.template import parse_notation

    v = Vocab.build(["春风明月"], min_count=1)
    enc = E.encode_template(parse_notation("春__，\n_月_。@A"), v)
    assert list(enc.fmt) == [E.F_CHAR, E.F_CHAR, E.F_RHYME, E.F_PUNCT, E.F_EOL,
                             E.F_CHAR, E.F_CHAR, E.F_RHYME, E.F_PUNCT, E.F_EOL, E.F_EOS]
    assert list(enc.bpos[:5]) == [4, 3, 2, 1, 0]
    assert list(enc.line) == [0] * 5 + [1] * 5 + [2]
    assert enc.given[0] == v.id("春") and enc.given[1] == v.fill and enc.given[6] == v.id("月")
    assert enc.label[7] == 1 and enc.label[2] == 0

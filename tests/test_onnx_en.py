"""The English model through the ONNX graphs: the same export as Chinese, the same greedy text as
torch, every sampled candidate fitting, and the held-out measure the int8 check uses."""

import shutil

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("onnxruntime")
pytest.importorskip("onnx")

from helpers.tiny_model_en import en_pieces, make_tiny_model_en  # noqa: E402

from songwriter.engine.onnx_backend import OnnxBackend  # noqa: E402
from songwriter.train.onnx_export import export_model_dir, heldout_nll  # noqa: E402
from songwriter.engine.service import Engine, GenerationRequest  # noqa: E402
from songwriter.engine.torch_backend import TorchBackend  # noqa: E402
from songwriter.forms import named_form  # noqa: E402


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    plain = make_tiny_model_en(tmp_path_factory.mktemp("plain-en"), steps=15)
    d = tmp_path_factory.mktemp("onnx-en") / "tiny-en"
    shutil.copytree(plain, d)
    export_model_dir(d, int8=True, log=lambda *a: None)
    return d


def test_greedy_text_is_the_same_on_both_backends(model_dir):
    t = named_form("Shakespearean sonnet")
    texts = {}
    for name in ("torch-cpu", "onnx-fp32"):
        e = Engine.load(model_dir, backend=name)
        assert e.languages == ("en",)
        cands = e.generate(GenerationRequest(template=t, n=1, seed=0, temperature=0))
        assert cands[0].check.ok, cands[0].check.summary()
        texts[name] = cands[0].text
    assert texts["torch-cpu"] == texts["onnx-fp32"]


def test_the_int8_step_keeps_one_int8_copy_of_the_embedding(model_dir):
    import numpy as np
    import onnx

    g = onnx.load(str(model_dir / "step.int8.onnx")).graph
    inits = {i.name: i for i in g.initializer}
    assert "wT" not in inits and inits["wT_quantized"].data_type == onnx.TensorProto.INT8
    lookup = next(n for n in g.node if n.op_type == "Gather" and n.input[0] == "wT_quantized")
    assert any(n.op_type == "DequantizeLinear" and n.input[0] == lookup.output[0] for n in g.node)
    # the int8 step reads a held-out line as the fp32 one does, give or take the rounding
    fp32, int8 = (OnnxBackend(model_dir, v, "cpu") for v in ("fp32", "int8"))
    pieces = [{"id": "s18", "kind": "sonnet", "lines": ["Shall I compare thee to a summer's day?",
                                           "Thou art more lovely and more temperate"]}]
    a, b = (heldout_nll(be, be.vocab, pieces, be.max_len)["nll"] for be in (fp32, int8))
    assert np.isfinite(b) and abs(b - a) < 0.05 * a


def test_int8_candidates_fit(model_dir):
    e = Engine.load(model_dir, backend="onnx-int8")
    for c in e.generate(GenerationRequest(template=named_form("Common metre"), n=4, seed=2)):
        assert c.check.ok, c.check.summary()


def test_heldout_measure_reads_english_pieces(model_dir):
    be_t, vocab, _ = TorchBackend.from_dir(model_dir, "cpu")
    be_o = OnnxBackend(model_dir, "fp32", "cpu")
    a = heldout_nll(be_t, vocab, en_pieces()[:3], be_t.max_len)
    b = heldout_nll(be_o, be_o.vocab, en_pieces()[:3], be_o.max_len)
    assert a["pieces"] == 3 and a["char_nll"] > 0
    assert abs(a["nll"] - b["nll"]) < 1e-3

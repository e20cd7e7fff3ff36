"""Growing a trained model deeper (train/grow.py): the grown model computes what the trained one
did, its new layers can learn, and the trainer's --grow-layers warm start uses it."""

import json

import pytest

torch = pytest.importorskip("torch")

from test_engine_train import _train, corpus, trained_model  # noqa: E402,F401  (the tiny corpus fixture)
from test_train_step import tiny_batch  # noqa: E402

from songwriter.engine import encoding as E  # noqa: E402
from songwriter.engine import model as M  # noqa: E402
from songwriter.train.grow import WRITE_OUT, grow_kinds, grow_state, layer_plan  # noqa: E402
from songwriter.train.step import reference_loss  # noqa: E402



def test_layer_plan_keeps_the_trained_layers_in_order_spread_evenly():
    assert layer_plan(4, 8) == [0, None, 1, None, 2, None, 3, None]
    assert layer_plan(4, 6) == [0, 1, None, 2, 3, None]
    assert layer_plan(2, 2) == [0, 1]
    with pytest.raises(ValueError, match="at least as many"):
        layer_plan(4, 3)


def _model(layers):
    return M.SongNet(M.ModelConfig(vocab_size=60, n_layer=layers, n_head=2, d_model=32, max_len=64,
                                   dropout=0.0, n_kind=E.N_KINDS)).double()


@pytest.mark.parametrize("new_layers", [3, 4, 5])
def test_the_grown_model_computes_what_the_trained_one_did(new_layers):
    torch.manual_seed(2)
    small = _model(2)
    with torch.no_grad():               # trained-looking weights: every output projection non-zero
        for p in small.parameters():
            p.add_(0.05 * torch.randn_like(p))
    grown = _model(new_layers)
    grown.load_state_dict(grow_state(small.state_dict(), 2, new_layers))
    batch, device = tiny_batch(), torch.device("cpu")
    want, n = reference_loss(small, batch, device)
    got, n_grown = reference_loss(grown, batch, device)
    assert n == n_grown
    assert float(got.detach()) == pytest.approx(float(want.detach()), rel=1e-12)
    # each new layer is its neighbour below, except what it writes into the residual stream
    plan = layer_plan(2, new_layers)
    new = plan.index(None)
    below = plan[new - 1]
    for name, value in grown.blocks[new].state_dict().items():
        if name in WRITE_OUT:
            assert not value.any()
        else:
            assert torch.equal(value, small.blocks[below].state_dict()[name])
    # and it learns: its zero projections get a gradient at the first step
    got.backward()
    assert grown.blocks[new].ff[2].weight.grad.abs().sum() > 0
    assert grown.blocks[new].self_attn.o.weight.grad.abs().sum() > 0


def test_grow_state_refuses_a_state_of_another_depth():
    with pytest.raises(ValueError, match="layers"):
        grow_state(_model(3).state_dict(), 2, 4)


def test_the_trainer_grows_a_warm_start_and_refuses_growth_without_one(corpus, tmp_path):
    trained_model(corpus, tmp_path)
    second = tmp_path / "second"
    r = _train(corpus, second, "--init-from", str(tmp_path / "m1"), "--grow-layers", "2", steps=1)
    assert r.returncode == 0, r.stderr
    assert "growing" in r.stdout and "layers: 0 new" in r.stdout
    ck = torch.load(second / "ckpt.pt", weights_only=True)
    assert ck["model_config"]["n_layer"] == 2
    r = _train(corpus, tmp_path / "third", "--grow-layers", "2", steps=1)
    assert r.returncode == 2 and "--init-from" in r.stderr
    r = _train(corpus, tmp_path / "fourth", "--init-from", str(tmp_path / "m1"), "--grow-layers", "0", steps=1)
    assert r.returncode == 0 and "growing" not in r.stdout


def test_new_kinds_start_as_the_kind_they_were_part_of():
    old = _model(2)
    old_rows = E.KIND_IDS["modern"] + 1
    state = {**old.state_dict(), "kind.weight": torch.randn(old_rows, 32, dtype=torch.float64)}
    grown = grow_kinds(state, E.N_KINDS, E.KIND_FALLBACK)["kind.weight"]
    assert grown.shape == (E.N_KINDS, 32)
    assert torch.equal(grown[:old_rows], state["kind.weight"])
    for kind in ("poem", "speech"):
        assert torch.equal(grown[E.KIND_IDS[kind]], state["kind.weight"][E.KIND_IDS["modern"]])
    with pytest.raises(ValueError, match="shrink"):
        grow_kinds(state, 3, E.KIND_FALLBACK)


def test_a_warm_start_from_a_model_of_fewer_kinds_gains_the_registers(corpus, tmp_path):
    from safetensors.torch import load_file, save_file

    m1 = trained_model(corpus, tmp_path, steps=1)
    state = load_file(str(m1 / "model.safetensors"))       # as the models before the registers were
    state["kind.weight"] = state["kind.weight"][:E.KIND_IDS["modern"] + 1].clone()
    save_file(state, str(m1 / "model.safetensors"), metadata={"format_version": "1"})
    config = json.loads((m1 / "config.json").read_text())
    (m1 / "config.json").write_text(json.dumps({**config, "n_kind": E.KIND_IDS["modern"] + 1}))
    r = _train(corpus, tmp_path / "second", "--init-from", str(m1), steps=1)
    assert r.returncode == 0, r.stderr
    assert "adding the kinds poem, speech" in r.stdout
    ck = torch.load(tmp_path / "second" / "ckpt.pt", weights_only=True)
    assert ck["model_config"]["n_kind"] == E.N_KINDS and ck["model"]["kind.weight"].shape[0] == E.N_KINDS

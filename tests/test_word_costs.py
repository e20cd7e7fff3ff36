"""A model's word costs (engine/word_costs, word_costs.json beside the weights): read as checked
data, turned into a cost per vocabulary id, and used by the English decoder to write an overused
word less often, every candidate still inside the template; and the measuring side
(train/word_costs_en): which words are over their corpus rate, and how a round moves the costs."""

import json
import shutil
from collections import Counter

import numpy as np
import pytest

from songwriter.engine import word_costs as W
from songwriter.engine.errors import ModelLoadError
from songwriter.train import word_costs_en as M

torch = pytest.importorskip("torch")

from helpers.tiny_model_en import make_tiny_model_en, tiny_vocab  # noqa: E402


def _write(path, data) -> str:
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return str(path)


def test_a_table_reads_as_words_and_nats(tmp_path):
    path = _write(tmp_path / W.WORD_COSTS, {"format": 1, "costs": {"summer": 1.5, "night": 0}})
    assert W.read_costs(path) == {"summer": 1.5, "night": 0.0}


@pytest.mark.parametrize("content, says", [
    ("{not json", "are not JSON"),
    (json.dumps([1, 2]), "format-1 table"),
    (json.dumps({"format": 2, "costs": {}}), "format-1 table"),
    (json.dumps({"format": 1, "costs": {"summer": -1}}), "'summer' costs -1"),
    (json.dumps({"format": 1, "costs": {"summer": "a lot"}}), "'summer' costs 'a lot'"),
    (json.dumps({"format": 1, "costs": {"summer": 99}}), "from 0 to 5.0"),
    (json.dumps({"format": 1, "costs": {"summer": True}}), "'summer' costs True"),
])
def test_a_bad_table_is_refused_with_the_reason(tmp_path, content, says):
    with pytest.raises(ModelLoadError, match=says):
        W.read_costs(_write(tmp_path / W.WORD_COSTS, content))


def test_costs_land_on_their_words_ids_and_a_stranger_is_refused():
    v = tiny_vocab()
    vec = W.cost_vector({"summer": 2.0}, v)
    assert vec.shape == (len(v),) and vec[v.id("summer")] == 2.0 and vec.sum() == 2.0
    with pytest.raises(ModelLoadError, match="'zyzzyva'.*measure them again"):
        W.cost_vector({"zyzzyva": 1.0}, v)
    with pytest.raises(ModelLoadError, match="does not have"):
        W.cost_vector({",": 1.0}, v)          # a mark is not a word the table may cost


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    return make_tiny_model_en(tmp_path_factory.mktemp("en"), steps=20)


def _rigged_engine(folder, monkeypatch, word: str, bonus: float):
    """The model in ``folder``, rigged to love ``word`` wherever it is written."""
    from songwriter.engine.service import Engine

    engine = Engine.load(folder, backend="torch-cpu")
    step = engine.backend.step
    wid = engine.vocab.id(word)

    def rigged(state, prev, position):
        logp = np.array(step(state, prev, position), dtype=np.float64)
        logp[:, wid] += bonus
        return logp

    monkeypatch.setattr(engine.backend, "step", rigged)
    return engine


def _uses(engine, word: str) -> int:
    from songwriter.engine.service import GenerationRequest
    from songwriter.forms import named_form

    got = engine.generate(GenerationRequest(template=named_form("Shakespearean sonnet"), n=2, seed=3,
                                            line_choices=2))
    assert all(c.check.ok for c in got), [c.check.summary() for c in got]
    return sum(M.words_of(ln).count(word) for c in got for ln in c.lines)


def test_the_decoder_writes_a_costed_word_less_and_still_fits(model_dir, tmp_path, monkeypatch):
    """A model that loves "love" writes it often; the same model with a word-costs file costing
    "love" 5 nats writes it far less, and every candidate passes the check."""
    plain = _uses(_rigged_engine(model_dir, monkeypatch, "love", 6.0), "love")
    costed_dir = tmp_path / "costed"
    shutil.copytree(model_dir, costed_dir)
    _write(costed_dir / W.WORD_COSTS, {"format": 1, "costs": {"love": 5.0}})
    costed = _rigged_engine(costed_dir, monkeypatch, "love", 6.0)
    assert costed.tables.word_costs is not None
    assert plain >= 6 and _uses(costed, "love") <= plain / 3


def test_a_model_whose_table_names_other_words_does_not_load(model_dir, tmp_path):
    from songwriter.engine.service import Engine

    folder = tmp_path / "other"
    shutil.copytree(model_dir, folder)
    _write(folder / W.WORD_COSTS, {"format": 1, "costs": {"zyzzyva": 1.0}})
    with pytest.raises(ModelLoadError, match="zyzzyva"):
        Engine.load(folder, backend="torch-cpu")


def test_excess_is_positive_for_a_word_over_its_rate_and_negative_under_it():
    corpus = Counter({"summer": 10, "night": 1000, "sea": 1000, "the": 10000})
    generated = Counter({"summer": 30, "night": 1, "sea": 10, "the": 60})
    x = M.excess(generated, corpus, countable={"summer", "night", "sea"})
    assert x["summer"] > 1.5 and x["night"] < 0 and "the" not in x
    # a word written at its corpus rate has none; one seen twice where none was expected, little
    assert abs(M.excess(Counter({"sea": 10, "night": 10}), Counter({"sea": 1000, "night": 1000}), {"sea"})["sea"]) < 0.01
    assert M.excess(Counter({"sea": 2, "night": 1000}), Counter({"night": 1000}), {"sea"})["sea"] < 0.6


def test_a_round_moves_costs_within_their_limits_and_drops_the_spent_ones():
    costs = {"summer": 1.0, "night": 0.5}
    got = M.updated_costs(costs, {"summer": 4.0, "night": -1.0, "sea": 0.7, "dim": 0.01}, strength=1.0, limit=3.0)
    assert got == {"summer": 3.0, "sea": 0.7}
    assert costs == {"summer": 1.0, "night": 0.5}        # the earlier round's table is left as it was


def test_the_report_names_the_words_furthest_over():
    corpus = Counter({"summer": 1, "night": 1000, "sea": 1000})
    generated = Counter({"summer": 8, "night": 10, "sea": 10})
    report = M.overuse_report(generated, corpus, {"summer", "night", "sea"})
    assert report["furthest_over"][0].startswith("summer 8") and report["over_3x_share"] == pytest.approx(8 / 28, abs=1e-4)

"""A Chinese model's word costs (engine/word_costs): the optional line-opening table and the kinds
the costs apply to, read as checked data and used by the Chinese decoder; and the measuring side
(train/word_costs_zh): counts per kind and the mixed reference rates."""

import json
import shutil
from collections import Counter

import numpy as np
import pytest

from songwriter.engine import word_costs as W
from songwriter.engine.errors import ModelLoadError
from songwriter.train import word_costs_zh as Z

pytest.importorskip("torch")

from helpers.tiny_model import make_tiny_model  # noqa: E402


def _write(path, data) -> str:
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return str(path)


def test_the_line_start_table_and_kinds_read_as_checked_data(tmp_path):
    path = _write(tmp_path / W.WORD_COSTS, {"format": 1, "costs": {"首": 1.0}, "line_start": {"不": 2.5},
                                            "kinds": ["shi", "ci"]})
    assert W.read_costs(path) == {"首": 1.0}
    assert W.read_costs(path, "line_start") == {"不": 2.5}
    assert W.kinds_for(tmp_path) == frozenset({"shi", "ci"})
    # an English table has neither: every kind, no opening costs
    _write(tmp_path / W.WORD_COSTS, {"format": 1, "costs": {"summer": 1.0}})
    assert W.read_costs(path, "line_start") == {} and W.kinds_for(tmp_path) is None


@pytest.mark.parametrize("extra, says", [
    ({"line_start": ["不"]}, "\"line_start\" is not an object"),
    ({"line_start": {"不": 9}}, "'不' costs 9"),
    ({"kinds": "shi"}, "\"kinds\" is not a list"),
])
def test_a_bad_opening_table_or_kinds_is_refused_with_the_reason(tmp_path, extra, says):
    path = _write(tmp_path / W.WORD_COSTS, {"format": 1, "costs": {}, **extra})
    with pytest.raises(ModelLoadError, match=says):
        W.read_costs(path, "line_start")
        W.kinds_for(tmp_path)


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    return make_tiny_model(tmp_path_factory.mktemp("zh"))


def _openings(folder, monkeypatch, template) -> int:
    """Lines opening with 不, written by the model in ``folder`` rigged to love opening with it."""
    from songwriter.engine.service import Engine, GenerationRequest

    engine = Engine.load(folder, backend="torch-cpu")
    step = engine.backend.step
    bu = engine.vocab.id("不")
    starts = [engine.vocab.bos, engine.vocab.eol]

    def rigged(state, prev, position):
        logp = np.array(step(state, prev, position), dtype=np.float64)
        logp[np.isin(np.asarray(prev), starts), bu] += 6.0
        return logp

    monkeypatch.setattr(engine.backend, "step", rigged)
    got = engine.generate(GenerationRequest(template=template, n=4, seed=2, line_choices=2))
    assert all(c.check.ok for c in got), [c.check.summary() for c in got]
    return sum(line.startswith("不") for c in got for line in c.lines)


def test_opening_costs_apply_to_the_kinds_measured_and_every_candidate_still_fits(model_dir, tmp_path,
                                                                                   monkeypatch):
    """A model that loves to open a line with 不: a table costing 不 5 nats at line openings for shi
    makes a shi open far fewer lines with it, and leaves a lyric's lines as they were."""
    from songwriter.engine import decode
    from songwriter.template import parse_notation

    monkeypatch.setattr(decode, "FIRST_CHAR_COST_ZH", 0.0)     # the table alone
    shi = parse_notation("# kind: shi\n" + "\n".join(["_____，", "_____。"] * 2))
    lyric = parse_notation("# kind: lyric\n" + "\n".join(["_____，", "_____。"] * 2))
    costed = tmp_path / "costed"
    shutil.copytree(model_dir, costed)
    _write(costed / W.WORD_COSTS, {"format": 1, "costs": {}, "line_start": {"不": 5.0}, "kinds": ["shi"]})
    plain_shi = _openings(model_dir, monkeypatch, shi)
    assert plain_shi >= 10                                  # of 16 lines
    assert _openings(costed, monkeypatch, shi) <= plain_shi / 3
    assert _openings(costed, monkeypatch, lyric) == _openings(model_dir, monkeypatch, lyric)


def test_a_chinese_table_naming_a_stranger_does_not_load(model_dir, tmp_path):
    from songwriter.engine.service import Engine

    folder = tmp_path / "other"
    shutil.copytree(model_dir, folder)
    _write(folder / W.WORD_COSTS, {"format": 1, "costs": {}, "line_start": {"，": 1.0}})
    with pytest.raises(ModelLoadError, match="word-costs-zh"):
        Engine.load(folder, backend="torch-cpu")


def test_counts_per_kind_and_the_mixed_reference(tmp_path):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    pieces = [{"id": "a", "kind": "shi", "lines": ["不见长安，", "明月孤。"]},
              {"id": "b", "kind": "ci", "lines": ["回首，", "回首春。"]},
              {"id": "c", "kind": "ci", "lines": ["held out。"]},
              {"id": "d", "kind": "modern", "lines": ["我们。"]}]
    (corpus / "pieces.jsonl").write_text("".join(json.dumps(p, ensure_ascii=False) + "\n" for p in pieces),
                                         encoding="utf-8")
    (corpus / "split.json").write_text(json.dumps({"dev": ["c"], "test": []}), encoding="utf-8")
    got = Z.corpus_counts(corpus)
    assert set(got) == {"shi", "ci"}
    shi_chars, shi_starts, shi_pairs = got["shi"]
    assert shi_chars == Counter("不见长安明月孤") and shi_starts == Counter("不明")
    assert shi_pairs == Counter({"不见": 1, "明月": 1})
    assert got["ci"][1] == Counter({"回": 2}) and "h" not in got["ci"][0]
    # half shi, half ci: each kind's rate counts for half, whatever its corpus size
    mix = Z.mixed({"shi": shi_chars, "ci": got["ci"][0]}, {"shi": 0.5, "ci": 0.5})
    assert mix["回"] == pytest.approx(0.5 * Z.SCALE * 2 / 5)
    assert mix["不"] == pytest.approx(0.5 * Z.SCALE / 7)


def _doubles(folder, monkeypatch, template) -> int:
    """Characters written right after themselves by the model in ``folder``, rigged to love writing
    each character again."""
    from songwriter.engine.service import Engine, GenerationRequest

    engine = Engine.load(folder, backend="torch-cpu")
    step = engine.backend.step

    def rigged(state, prev, position):
        logp = np.array(step(state, prev, position), dtype=np.float64)
        prev = np.asarray(prev)
        chars = prev >= engine.vocab.first_char
        logp[np.nonzero(chars)[0], prev[chars]] += 6.0
        return logp

    monkeypatch.setattr(engine.backend, "step", rigged)
    got = engine.generate(GenerationRequest(template=template, n=4, seed=3, line_choices=2))
    assert all(c.check.ok for c in got), [c.check.summary() for c in got]
    return sum(a == b for c in got for line in c.lines for a, b in zip(line, line[1:]))


def test_doubled_costs_keep_a_character_from_following_itself_on_the_kinds_measured(model_dir, tmp_path,
                                                                                    monkeypatch):
    """A model that loves writing a character twice: the ``doubled`` table, costing every
    character 5 nats right after itself in shi, leaves far fewer doubles there and a lyric's as
    they were; every candidate still passes the check."""
    from songwriter.engine.vocab import Vocab
    from songwriter.template import parse_notation

    shi = parse_notation("# kind: shi\n" + "\n".join(["_____，", "_____。"] * 2))
    lyric = parse_notation("# kind: lyric\n" + "\n".join(["_____，", "_____。"] * 2))
    vocab = Vocab.load(model_dir / "vocab.json")
    costed = tmp_path / "doubled"
    shutil.copytree(model_dir, costed)
    _write(costed / W.WORD_COSTS, {"format": 1, "costs": {}, "kinds": ["shi"],
                                   "doubled": {c: 5.0 for c in vocab.tokens[vocab.first_char:]
                                               if c not in "，。、；：？！"}})
    plain = _doubles(model_dir, monkeypatch, shi)
    assert plain >= 20                                      # of 64 pairs of neighbours
    assert _doubles(costed, monkeypatch, shi) <= plain / 4
    assert _doubles(costed, monkeypatch, lyric) == _doubles(model_dir, monkeypatch, lyric)


def test_the_doubled_table_from_the_corpus_costs_what_the_poets_seldom_double(tmp_path):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    often = ["悠悠天地，", "悠然见南山。"] * 20          # 悠 doubled in 20 of 60 uses
    seldom = ["飞鸟鸟飞，"] + ["飞鸟还，"] * 400           # 鸟 doubled once in 402 uses
    pieces = [{"id": "a", "kind": "shi", "lines": often}, {"id": "b", "kind": "ci", "lines": seldom},
              {"id": "c", "kind": "shi", "lines": ["鸟鸟鸟鸟鸟。"]}, {"id": "d", "kind": "modern", "lines": ["鸟鸟。"]}]
    (corpus / "pieces.jsonl").write_text("".join(json.dumps(p, ensure_ascii=False) + "\n" for p in pieces),
                                         encoding="utf-8")
    (corpus / "split.json").write_text(json.dumps({"dev": ["c"], "test": []}), encoding="utf-8")
    uses, doubled = Z.doubling_counts(corpus)
    assert doubled == Counter({"悠": 20, "鸟": 1})          # held-out and modern pieces not counted
    assert uses["鸟"] == 402 and uses["悠"] == 60
    table = Z.doubled_costs(uses, doubled, {"悠", "鸟", "还", "月"}, W.MAX_COST)
    assert "悠" not in table and 0 < table["鸟"] <= W.MAX_COST
    assert table.get("月", 0) < table["鸟"]                  # never seen: the corpus's overall rate


def test_doubled_only_adds_its_table_and_keeps_the_others(model_dir, tmp_path):
    folder = tmp_path / "m"
    shutil.copytree(model_dir, folder)
    _write(folder / W.WORD_COSTS, {"format": 1, "costs": {}, "line_start": {"不": 1.0}, "kinds": ["shi", "ci"]})
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "pieces.jsonl").write_text(json.dumps({"id": "a", "kind": "shi", "lines": ["不不见，"] + ["不见。"] * 1000},
                                                    ensure_ascii=False) + "\n", encoding="utf-8")
    (corpus / "split.json").write_text(json.dumps({"dev": [], "test": []}), encoding="utf-8")
    assert Z.write_doubled_only(folder, corpus, folder / W.WORD_COSTS, log=lambda m: None) == 0
    assert W.read_costs(folder / W.WORD_COSTS, "line_start") == {"不": 1.0}      # kept
    doubled = W.read_costs(folder / W.WORD_COSTS, "doubled")
    assert 0 < doubled["不"] <= W.MAX_COST


def test_the_opening_pair_table_reads_as_pairs_of_the_vocabulary(model_dir, tmp_path):
    from songwriter.engine.vocab import Vocab

    vocab = Vocab.load(model_dir / "vocab.json")
    path = _write(tmp_path / W.WORD_COSTS, {"format": 1, "costs": {}, "opening_pairs": {"东风": 2.0, "东山": 1.0,
                                                                                         "西风": 0.5}})
    lookup = W.pair_lookup(W.read_costs(path, "opening_pairs"), vocab)
    east, west = vocab.id("东"), vocab.id("西")
    assert set(lookup) == {east, west}
    seconds, nats = lookup[east]
    assert dict(zip((vocab.tokens[i] for i in seconds), nats)) == {"风": 2.0, "山": 1.0}
    assert W.load_pairs_for(tmp_path, vocab) is not None
    _write(tmp_path / W.WORD_COSTS, {"format": 1, "costs": {}})
    assert W.load_pairs_for(tmp_path, vocab) is None


@pytest.mark.parametrize("key", ["东", "东风吹", "东，", "东\x00"])
def test_an_opening_pair_that_is_not_two_characters_of_the_vocabulary_is_refused(model_dir, key):
    from songwriter.engine.vocab import Vocab

    vocab = Vocab.load(model_dir / "vocab.json")
    with pytest.raises(ModelLoadError, match="not two characters of this model's vocabulary"):
        W.pair_lookup({key: 1.0}, vocab)


def _pair_openings(folder, monkeypatch, template, pair: str) -> int:
    """Lines opening on ``pair`` written by the model in ``folder``, rigged to love it: its first
    character at a line's start and its second after the first."""
    from songwriter.engine.service import Engine, GenerationRequest

    engine = Engine.load(folder, backend="torch-cpu")
    step = engine.backend.step
    first, second = engine.vocab.id(pair[0]), engine.vocab.id(pair[1])
    starts = [engine.vocab.bos, engine.vocab.eol]

    def rigged(state, prev, position):
        logp = np.array(step(state, prev, position), dtype=np.float64)
        prev = np.asarray(prev)
        logp[np.isin(prev, starts), first] += 6.0
        logp[prev == first, second] += 6.0
        return logp

    monkeypatch.setattr(engine.backend, "step", rigged)
    got = engine.generate(GenerationRequest(template=template, n=4, seed=5, line_choices=2))
    assert all(c.check.ok for c in got), [c.check.summary() for c in got]
    return sum(line.startswith(pair) for c in got for line in c.lines)


def test_opening_pair_costs_keep_lines_from_opening_alike_on_the_kinds_measured(model_dir, tmp_path,
                                                                                 monkeypatch):
    """A model that loves to open a line on 东风: costing the pair 5 nats for shi leaves far fewer
    shi lines opening on it (东 alone is not costed), a lyric's lines as they were, and every
    candidate passing the check."""
    from songwriter.engine import decode
    from songwriter.template import parse_notation

    monkeypatch.setattr(decode, "FIRST_CHAR_COST_ZH", 0.0)     # no echo costs between lines
    monkeypatch.setattr(decode, "PAIR_REPEAT_COST_ZH", 0.0)
    monkeypatch.setattr(decode, "REPEAT_COST_CLASSICAL_ZH", decode.REPEAT_COST_ZH)   # the table alone
    shi = parse_notation("# kind: shi\n" + "\n".join(["_____，", "_____。"] * 2))
    lyric = parse_notation("# kind: lyric\n" + "\n".join(["_____，", "_____。"] * 2))
    costed = tmp_path / "pairs"
    shutil.copytree(model_dir, costed)
    _write(costed / W.WORD_COSTS, {"format": 1, "costs": {}, "opening_pairs": {"东风": 5.0}, "kinds": ["shi"]})
    plain = _pair_openings(model_dir, monkeypatch, shi, "东风")
    assert plain >= 10                                      # of 16 lines
    assert _pair_openings(costed, monkeypatch, shi, "东风") <= plain / 3
    assert _pair_openings(costed, monkeypatch, lyric, "东风") == _pair_openings(model_dir, monkeypatch, lyric, "东风")


def test_opening_pairs_are_counted_per_line_and_contained_by_their_characters():
    anywhere, starts, pairs = Counter(), Counter(), Counter()
    Z.count_lines(["东风吹雨，", "东风。", "月，", "，"], anywhere, starts, pairs)
    assert pairs == Counter({"东风": 2}) and starts == Counter({"东": 2, "月": 1})
    countable = Z.PairsOf({"东", "风"})
    assert "东风" in countable and "风东" in countable
    assert "东雨" not in countable and "东" not in countable and "东风吹" not in countable


def test_opening_pairs_only_needs_the_file_it_measures_beside(model_dir, tmp_path):
    import argparse

    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "split.json").write_text(json.dumps({"dev": [], "test": []}), encoding="utf-8")
    parser = argparse.ArgumentParser()
    Z.add_arguments(parser)
    args = parser.parse_args(["--model", str(model_dir), "--corpus", str(corpus), "--out",
                              str(tmp_path / "none.json"), "--opening-pairs-only"])
    with pytest.raises(SystemExit, match="does not exist"):
        Z.run(args)
    bad = tmp_path / "bad.json"
    bad.write_text("not json", encoding="utf-8")
    args.out = str(bad)
    with pytest.raises(ModelLoadError, match="not JSON"):
        Z.run(args)
    assert bad.read_text(encoding="utf-8") == "not json"        # refused, not overwritten

"""An English model's word associations: the builder (plan/build_en.py, `build-plan --lang en`)
on a small English corpus made here, the statistics file's English form, the associations per
vocabulary id (engine/topic_en.py) and the English decoder leaning towards them."""

import json
import random
import shutil

import numpy as np
import pytest

from songwriter.plan import PlanError, PlanStats, load_stats
from songwriter.plan import build as B
from songwriter.plan import build_en as BE

THEMES = {
    "sea": ["waves", "shore", "ships", "sailor", "harbour", "tide"],
    "winter": ["snow", "frost", "ice", "cold", "december", "sleigh"],
    "garden": ["roses", "petals", "bloom", "gardener", "lilies", "bees"],
}
HELD_OUT_WORD = "zephyrine"


def english_pieces(per_theme: int = 40, seed: int = 3) -> tuple[list[dict], dict]:
    """Stanzas of four lines on one subject each; the sea stanzas end two lines on "foam" and
    "home" (a rhyme: the builder must not take it for a subject) and hold "sail" and "sailing"
    (one family)."""
    rng = random.Random(seed)
    pieces = []
    for theme, words in THEMES.items():
        for k in range(per_theme):
            picked = rng.sample(words, 4)
            lines = [f"The {picked[i]} and the {picked[(i + 1) % 4]} were there" for i in range(4)]
            if theme == "sea":
                lines[1] += " in the foam"
                lines[3] += " to sail us home"
                lines[2] += " sailing"
            pieces.append({"id": f"poem:{theme}:{k}", "kind": "poem", "lines": lines, "breaks": [2]})
    held = [{"id": f"poem:held:{k}", "kind": "poem", "lines": [f"The {HELD_OUT_WORD} and the snow"] * 4}
            for k in range(4)]
    split = {"dev": [p["id"] for p in held[:2]], "test": [p["id"] for p in held[2:]]}
    return pieces + held, split


def write_corpus(folder, pieces, split):
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "pieces.jsonl", "w", encoding="utf-8") as f:
        for p in pieces:
            f.write(json.dumps(p) + "\n")
    (folder / "split.json").write_text(json.dumps(split), encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def stats_en(tmp_path_factory):
    from songwriter.cli_train import main

    folder = write_corpus(tmp_path_factory.mktemp("corpus"), *english_pieces())
    out = folder / "plan.json"
    assert main(["build-plan", "--lang", "en", "--corpus", str(folder), "--out", str(out), "--min-df", "3",
                 "--min-pair", "3", "--neighbors", "8"]) == 0
    return load_stats(out)


def _neighbours(stats, word: str) -> list[str]:
    return [stats.words[j] for j, _ in stats.neighbors[stats.index[word]]]


def test_english_statistics_hold_content_words_of_the_training_split(stats_en):
    assert stats_en.lang == "en"
    assert {"snow", "waves", "roses", "foam", "home"} <= set(stats_en.words)
    assert HELD_OUT_WORD not in stats_en.words
    assert not {"the", "and", "were", "there", "in"} & set(stats_en.words)      # grammar words


def test_english_neighbours_are_the_same_subject_not_the_rhyme_or_the_family(stats_en):
    for theme, words in THEMES.items():
        for w in words:
            got = _neighbours(stats_en, w)
            assert got and all(x in THEMES[theme] + ["foam", "home", "sail", "sailing"] for x in got), (w, got)
    assert "home" not in _neighbours(stats_en, "foam") and "foam" not in _neighbours(stats_en, "home")
    assert "sailing" not in _neighbours(stats_en, "sail")
    assert "waves" in _neighbours(stats_en, "foam")


def test_stanzas_are_the_documents():
    pieces = [{"id": "p", "kind": "poem", "lines": ["Snow and frost", "Roses bloom", "Waves and tide"] * 4,
               "breaks": [3]}]
    docs = list(BE.documents(pieces, chunk_lines=4))
    # a stanza of 3 lines, then the other 9 in runs of at most 4
    assert [len(d) for d, _, _ in docs][:1] == [6] and len(docs) == 4
    assert docs[0][2] == 0.0 and docs[1][2] == pytest.approx(3 / 11)
    # the words that stand only at line ends: frost, bloom, tide (roses, waves stand inside)
    assert docs[0][1] == {"frost", "bloom", "tide"}


def test_two_words_that_meet_only_at_line_ends_are_not_counted_together(tmp_path):
    """Rhymed lines pair their end words because they rhyme (love / prove is no rhyme to CMUdict,
    yet verse pairs it): two end words of one stanza do not count as meeting; a word inside a line
    meets every other."""
    pieces = [{"id": f"poem:{k}", "kind": "poem",
               "lines": ["My heart is full of love", "As ever time can prove"], "breaks": []} for k in range(40)]
    folder = write_corpus(tmp_path / "c", pieces, {"dev": [], "test": []})
    counts = BE.count_corpus_en(folder, min_df=3, log=lambda *a: None)
    i = {w: k for k, w in enumerate(counts.words)}
    assert counts.co[i["love"], i["prove"]] == 0 and counts.co[i["heart"], i["prove"]] == 40
    assert counts.co[i["love"], i["love"]] == 40 and counts.co[i["prove"], i["prove"]] == 40


@pytest.mark.parametrize("change, message", [
    (lambda d: d.update(words=["Snow", "ice"]), "lowercase English word"),
    (lambda d: d.update(lang="fr"), "lang"),
    (lambda d: d.update(words=["snow", "snow and ice"]), "lowercase English word"),
])
def test_malformed_english_statistics_are_refused_by_name(change, message):
    data = {"format": "songwriter-plan", "version": 1, "lang": "en", "words": ["snow", "ice"], "df": [3, 3],
            "position": [50, 50], "neighbors": [[1, 20], [0, 20]]}
    PlanStats.from_dict(dict(data))
    bad = json.loads(json.dumps(data))
    change(bad)
    with pytest.raises(PlanError, match=message):
        PlanStats.from_dict(bad)


def test_the_chinese_statistics_keep_their_spelling_rule():
    """The Chinese builder's exclusions moved into related_spelling_zh: the same words excluded."""
    words = ["明月", "月", "明", "思", "量", "思量", "边塞"]
    related = B.related_spelling_zh(words)
    assert set(related(0)) == {0, 1, 2}                   # 明月 / 月 / 明
    assert 4 in related(3)                                # 思 / 量: 思量
    assert 6 not in related(0)


# --- the decoder ------------------------------------------------------------------------------

torch = pytest.importorskip("torch")

from helpers.tiny_model_en import make_tiny_model_en, tiny_vocab  # noqa: E402


def test_associations_are_per_vocabulary_id_and_skip_unknown_words():
    from songwriter.engine.topic_en import Associations

    v = tiny_vocab()
    stats = PlanStats(words=["winter", "cold", "zyzzyva"], df=[1, 1, 1], position=[50] * 3,
                      neighbors=[[(1, 2.5), (2, 1.0)], [(0, 2.5)], [(0, 1.0)]], lang="en")
    a = Associations(stats, v)
    ids, pmi = a.of(v.id("winter"))
    assert list(ids) == [v.id("cold")] and list(pmi) == [2.5]
    assert len(a.of(v.id("summer"))[0]) == 0 and a.words == 2


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    return make_tiny_model_en(tmp_path_factory.mktemp("en"), steps=20)


def _with_plan(model_dir, tmp_path):
    """A copy of the tiny model with word associations that tie "winter" to "cold"."""
    folder = tmp_path / "with-plan"
    shutil.copytree(model_dir, folder)
    stats = {"format": "songwriter-plan", "version": 1, "lang": "en", "words": ["winter", "cold"], "df": [9, 9],
             "position": [50, 50], "neighbors": [[1, 255], [0, 255]]}
    B.write(stats, folder / "plan.json")
    return folder


def _lines_with(engine, word: str, **steering) -> list[int]:
    """Four stanzas: per line, in how many of them it holds ``word``; every candidate fits."""
    from songwriter.engine.service import GenerationRequest
    from songwriter.template import parse_notation

    t = parse_notation("# lang: en\n" + "_ _ _ _ _ _ _ _ @A\n" * 2 + "_ _ _ _ _ _ _ _ @B\n" * 2, "en")
    got = engine.generate(GenerationRequest(template=t, n=4, seed=6, line_choices=2, **steering))
    assert len(got) == 4 and all(c.check.ok for c in got), [c.check.summary() for c in got]
    return [sum(word in c.lines[i].lower().replace(",", " ").replace(".", " ").split() for c in got)
            for i in range(4)]


def test_an_english_content_leans_the_words_towards_it_and_its_associates(model_dir, tmp_path):
    """With associations that tie "winter" to "cold", a content of "winter" brings "cold" into
    the stanzas (a word once: the lean spares a word already written), a line's own content into
    its line; every candidate still fits."""
    from songwriter.engine.service import Engine

    engine = Engine.load(_with_plan(model_dir, tmp_path), backend="torch-cpu")
    assert engine.supports_content
    plain = _lines_with(engine, "cold")
    assert sum(plain) <= 1, plain
    assert sum(_lines_with(engine, "cold", content=["Winter"], strength=4.0)) >= 3
    own = _lines_with(engine, "cold", line_content=["", "", "winter", ""], strength=4.0)
    assert own[2] >= 3 and own[0] + own[1] + own[3] <= 1, own


def test_an_english_model_without_associations_has_no_content_steering(model_dir):
    from songwriter.engine.service import Engine

    assert not Engine.load(model_dir, backend="torch-cpu").supports_content


def test_the_lean_weighs_the_contents_words_and_their_neighbours():
    from songwriter.engine import topic_en as T

    v = tiny_vocab()
    stats = PlanStats(words=["winter", "cold", "night"], df=[1] * 3, position=[50] * 3,
                      neighbors=[[(1, 2.0)], [(0, 2.0)], []], lang="en")
    a = T.Associations(stats, v)
    lean = a.lean("the Winter night", v)          # two known content words: divided by sqrt 2
    w = T.lean_weight(0.0) / np.sqrt(2)
    assert lean[v.id("winter")] == pytest.approx(w * T.SEED_PMI)
    assert lean[v.id("cold")] == pytest.approx(w * 2.0)
    assert lean[v.id("night")] == pytest.approx(w * T.SEED_PMI) and lean[v.id("summer")] == 0
    assert a.lean("the and of", v) is None and a.lean("zyzzyva", v) is None
    assert T.lean_weight(2.0) == pytest.approx(2 * T.lean_weight(0.0))
    both = T.ContentLean.of(a, v, ["winter"], [0.0], ["", "night"], 0.0)
    assert both.at(0) is both.piece and np.allclose(both.at(1), both.piece + a.lean("night", v))
    assert T.ContentLean.of(a, v, ["zyzzyva"], [0.0], None, 0.0) is None


def test_a_chinese_plan_in_an_english_model_is_refused_at_load(model_dir, tmp_path):
    from songwriter.engine.errors import ModelLoadError
    from songwriter.engine.service import Engine

    folder = tmp_path / "zh-plan"
    shutil.copytree(model_dir, folder)
    B.write({"format": "songwriter-plan", "version": 1, "words": ["明月"], "df": [3], "position": [50],
             "neighbors": [[]]}, folder / "plan.json")
    with pytest.raises(ModelLoadError, match="must be English"):
        Engine.load(folder, backend="torch-cpu")


def test_associations_add_nothing_to_a_piece_with_no_content_words_yet(model_dir):
    """The bias starts from the words written: a row that has written none has none (no division
    by zero, no bias from the empty sum)."""
    from songwriter.engine.topic_en import Associations

    v = tiny_vocab()
    a = Associations(PlanStats(words=["winter"], df=[1], position=[50], neighbors=[[]], lang="en"), v)
    assert a.words == 0 and np.all(a.start == 0)


# --- the planner and the CLI on English statistics --------------------------------------------

def test_the_planner_plans_an_english_topic_on_its_subject_without_a_family_twice(stats_en):
    from songwriter.plan import propose_plan, topic_words

    assert topic_words(stats_en, "The WAVES, the snow!") == ["waves", "snow"]
    plan = propose_plan(stats_en, "waves", 4, seed=1)
    assert plan[0] or plan[1]
    words = [k for k in plan if k]
    assert all(k in THEMES["sea"] + ["foam", "home", "sail", "sailing"] for k in words), plan
    assert not ({"sail", "sailing"} <= set(words))                    # one family, one keyword
    with pytest.raises(PlanError, match="give sea night"):
        propose_plan(stats_en, "zyzzyva", 4)


def test_the_cli_plans_an_english_form_with_english_statistics(stats_en, tmp_path, capsys):
    from songwriter import cli

    path = tmp_path / "plan.json"
    B.write({"format": "songwriter-plan", "version": 1, "lang": "en", "words": stats_en.words,
             "df": stats_en.df, "position": stats_en.position,
             "neighbors": [[x for j, s in row for x in (j, int(round(s * 10)))] for row in stats_en.neighbors]}, path)
    assert cli.main(["generate", "--form", "ballad stanza", "--plan", "snow", "--plan-only", "--json",
                     "--plan-stats", str(path)]) == 0
    got = json.loads(capsys.readouterr().out)
    assert len(got["keywords"]) == 4 and all(k in THEMES["winter"] for k in got["keywords"] if k)
    assert cli.main(["generate", "--form", "七绝", "--plan", "snow", "--plan-only", "--plan-stats", str(path)]) == 2
    assert "are English; the template is Chinese" in capsys.readouterr().err


def test_the_lean_spares_a_written_words_family():
    from songwriter.engine import topic_en as T

    v = tiny_vocab()
    words = [w for w in ("love", "loved", "lovely", "night", "the") if w in v.stoi]
    stats = PlanStats(words=words, df=[1] * len(words), position=[50] * len(words),
                      neighbors=[[(j, 2.0) for j in range(len(words)) if j != i] for i in range(len(words))], lang="en")
    lean = T.ContentLean.of(T.Associations(stats, v), v, [" ".join(words)], [0.0], None, 0.0)
    assert {v.tokens[i] for i in lean.family("lovely")} == {"love", "lovely"}
    assert {v.tokens[i] for i in lean.family("loves")} == {"love"}        # written, not leaned: still spends
    assert lean.family("night") == [v.id("night")] and lean.family("the") == []


def test_the_rhymes_and_words_list_leans_by_the_content_as_generation_does(model_dir, tmp_path):
    """The list of words for a slot (Engine.suggest) ranks "cold" higher with a content of
    "winter" (its associate) than without, for the whole piece and for the line's own content;
    another line's content leaves this line's list as it was."""
    from songwriter.engine.service import Engine
    from songwriter.template import parse_notation

    engine = Engine.load(_with_plan(model_dir, tmp_path), backend="torch-cpu")
    t = parse_notation("# lang: en\n_ _ _ _ _ _ @A\n_ _ _ _ _ _ @A\n", "en")

    def rank_of_cold(**steering) -> int:
        words = [w for w, _ in engine.suggest(t, "", 0, 0, k=400, **steering)]
        return words.index("cold")

    plain = rank_of_cold()
    assert rank_of_cold(content=["winter"], strength=4.0) < plain
    assert rank_of_cold(line_content=["winter", ""], strength=4.0) < plain
    assert rank_of_cold(line_content=["", "winter"], strength=4.0) == plain

"""The per-line plan (songwriter.plan): the PMI builder on a small fixture corpus made here (a user's
machine has no corpus), the planner's relevance, diversity, order and determinism on it, and the
statistics file's checks. The CLI's flags are in tests/test_plan_cli.py."""

import json
import random

import pytest

from songwriter.plan import PlanError, PlanStats, load_stats, propose_line, propose_plan, topic_words
from songwriter.plan import build as B

# Three subjects; each has words that open a poem (scenery) and words that close one (feeling).
THEMES = {
    "moon": (["明月", "床前", "寒霜", "夜露", "银河"], ["故园", "归梦", "乡音", "旧宅", "家书"]),
    "frontier": (["边塞", "黄沙", "烽火", "胡马", "孤城"], ["铁衣", "征人", "戍卒", "将军", "封侯"]),
    "spring": (["春雨", "杏花", "燕子", "池塘", "东风"], ["新绿", "游人", "踏青", "少年", "酒旗"]),
}
FILLER = "不知何处有来也自是其无谁可又亦"      # characters every poem uses, whatever its subject
HELD_OUT_WORD = "仙鹤"               # only in held-out poems: must not reach the statistics


def fixture_pieces(per_theme: int = 30, seed: int = 7) -> tuple[list[dict], dict]:
    """Shi of four seven-character lines (2|2|3): lines 1-2 hold four of the subject's five
    scenery words, lines 3-4 four of its feeling words, each line ending in three characters of
    filler, so the pairs at 0 and 2 are words and those at 1 and 3 cross a word boundary."""
    rng = random.Random(seed)
    pieces = []
    for theme, (scene, feeling) in THEMES.items():
        for k in range(per_theme):
            words = rng.sample(scene, 4) + rng.sample(feeling, 4)
            lines = []
            for i in range(4):
                filler = "".join(rng.sample(FILLER, 3))
                lines.append(words[2 * i] + words[2 * i + 1] + filler + ("，" if i % 2 == 0 else "。"))
            pieces.append({"id": f"shi:{theme}:{k}", "kind": "shi", "lines": lines})
    held = []
    for k in range(6):
        held.append({"id": f"shi:held:{k}", "kind": "shi",
                     "lines": [HELD_OUT_WORD + "明月来何处，", "故园何处有。"]})
    # modern prose is not counted by default
    pieces.append({"id": "modern:0", "kind": "modern", "lines": ["明月边塞春雨，"] * 4})
    split = {"dev": [p["id"] for p in held[:3]], "test": [p["id"] for p in held[3:]],
             "corpus_sha256": "f" * 64}
    return pieces + held, split


def write_corpus(folder, pieces, split):
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "pieces.jsonl", "w", encoding="utf-8") as f:
        for p in pieces:
            f.write(json.dumps(p, ensure_ascii=False) + "\n")
    (folder / "split.json").write_text(json.dumps(split), encoding="utf-8")
    return folder


SMALL = dict(max_words=500, min_df=3, min_bigram=5, min_regulated=3, min_pair=3, discount=2.0, neighbors=16)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    folder = write_corpus(tmp_path_factory.mktemp("corpus"), *fixture_pieces())
    stats = B.build(folder, log=lambda *a: None, **SMALL)
    out = folder / "plan.json"
    B.write(stats, out)
    return stats, out


@pytest.fixture(scope="module")
def stats(built):
    return load_stats(built[1])


def theme_of(word: str) -> str | None:
    """The subject of a word, or of a character of one of its words."""
    for theme, (scene, feeling) in THEMES.items():
        if word in scene + feeling or (len(word) == 1 and word in "".join(scene + feeling)):
            return theme
    return None


# --- the builder ------------------------------------------------------------------------------

def test_builder_words_are_the_pairs_on_word_boundaries(built):
    raw, _ = built
    words = set(raw["words"])
    for scene, feeling in THEMES.values():
        assert set(scene + feeling) <= words
    # pairs across the 2|3 boundary (月 + the filler after it) are never words, though as
    # cohesive as the words (月 comes only in 明月)
    theme_chars = set("".join(w for scene, feeling in THEMES.values() for w in scene + feeling))
    assert not {w for w in words if len(w) == 2 and w[0] in theme_chars and w[1] in FILLER}
    assert set(FILLER) <= words          # single characters are words too


def test_builder_counts_only_the_training_split_and_kinds(built):
    raw, _ = built
    assert not any(ch in w for w in raw["words"] for ch in HELD_OUT_WORD)
    i = raw["words"].index("明月")
    # the modern piece (all three subjects on one line) is not counted: 明月 is in exactly the
    # moon poems that drew it
    pieces, _ = fixture_pieces()
    expected = sum(1 for p in pieces if p["id"].startswith("shi:moon") and "明月" in "".join(p["lines"]))
    assert raw["df"][i] == expected
    assert raw["pieces"] == 90 and raw["kinds"] == list(B.DEFAULT_KINDS)


def test_pmi_neighbours_are_the_same_subject(stats):
    for theme, (scene, feeling) in THEMES.items():
        for w in scene + feeling:
            near = [stats.words[j] for j, _ in stats.neighbors[stats.index[w]][:3]]
            assert near and all(theme_of(x) == theme for x in near), (w, near)
            assert all(s > 0 for _, s in stats.neighbors[stats.index[w]])


def test_pmi_ranks_the_subject_above_the_filler(stats):
    i = stats.index["边塞"]
    assert stats.pmi(i, stats.index["黄沙"]) > stats.pmi(i, stats.index["何"])


def test_positions_put_scenery_before_feeling(stats):
    for scene, feeling in THEMES.values():
        assert max(stats.position[stats.index[w]] for w in scene) < min(stats.position[stats.index[w]] for w in feeling)


def test_written_file_is_compact_json_that_loads_back(built):
    raw, path = built
    again = load_stats(path)
    assert again.words == raw["words"] and again.df == raw["df"]
    assert json.loads(path.read_text(encoding="utf-8"))["format"] == "songwriter-plan"


def test_builder_refuses_a_corpus_without_those_kinds(tmp_path):
    folder = write_corpus(tmp_path / "c", *fixture_pieces(per_theme=2))
    with pytest.raises(ValueError, match="no training pieces of kinds qu"):
        B.build(folder, kinds=("qu",), log=lambda *a: None, **SMALL)


def test_build_plan_command(tmp_path, capsys):
    from songwriter.cli_train import main

    folder = write_corpus(tmp_path / "c", *fixture_pieces())
    out = tmp_path / "m" / "plan.json"
    assert main(["build-plan", "--corpus", str(folder), "--out", str(out), "--min-df", "3", "--min-bigram", "3",
                 "--min-pair", "2", "--neighbors", "8"]) == 0
    assert "明月" in load_stats(out).words and "wrote" in capsys.readouterr().out
    assert main(["build-plan", "--corpus", str(tmp_path / "none"), "--out", str(out)]) == 2
    assert "build-corpus" in capsys.readouterr().err


# --- the planner ------------------------------------------------------------------------------

def test_topic_words_cut_a_title_into_known_words(stats):
    assert topic_words(stats, "明月 故园") == ["明月", "故园"]
    assert topic_words(stats, "明月故园，边塞") == ["明月", "故园", "边塞"]
    assert topic_words(stats, "明 Moon 明") == ["明"]
    assert topic_words(stats, "zzz 鑫") == []


def test_plan_is_on_the_topic_without_repeats(stats):
    for theme, (scene, feeling) in THEMES.items():
        plan = propose_plan(stats, scene[0], 4)
        assert len(plan) == 4 and plan.count(scene[0]) == 1
        assert all(theme_of(w) == theme for w in plan), plan
        assert len(set(plan)) == 4
        chars = "".join(plan)
        assert len(set(chars)) == len(chars)     # no two lines' words share a character


def test_plan_orders_scenery_before_feeling(stats):
    for seed in range(5):
        plan = propose_plan(stats, "杏花", 4, seed=seed)
        scene, feeling = THEMES["spring"]
        kinds = ["s" if w in scene else "f" for w in plan]
        assert kinds == sorted(kinds, reverse=True), plan     # every s before every f


def test_plan_is_deterministic_for_a_seed_and_varies_with_it(stats):
    assert propose_plan(stats, "明月", 4, seed=3) == propose_plan(stats, "明月", 4, seed=3)
    assert propose_plan(stats, "明月", 4) == propose_plan(stats, "明月", 4)
    plans = {tuple(propose_plan(stats, "明月", 4, seed=s)) for s in range(12)}
    assert len(plans) > 1


def test_plan_keeps_the_topic_words_or_not(stats):
    plan = propose_plan(stats, "明月 将军", 6)
    assert "明月" in plan and "将军" in plan
    assert "明月" not in propose_plan(stats, "明月", 3, include_topic=False)


def test_a_long_piece_gets_blank_lines_when_the_topic_runs_out(stats):
    plan = propose_plan(stats, "烽火", 40)
    words = [w for w in plan if w]
    assert len(plan) == 40 and plan[0] and "" in plan[1:]
    assert len(words) == len(set(words)) and all(theme_of(w) == "frontier" for w in words), words
    assert plan[20:] != [""] * 20        # spread over the piece, not all at its start


def test_plan_refuses_an_unknown_topic_and_a_bad_count(stats):
    with pytest.raises(PlanError, match="no word of the topic"):
        propose_plan(stats, "xyz", 4)
    with pytest.raises(PlanError, match="number of lines"):
        propose_plan(stats, "明月", -1)
    assert propose_plan(stats, "明月", 0) == []


def test_propose_line_gives_other_words_for_one_line(stats):
    plan = propose_plan(stats, "黄沙", 4)
    alts = propose_line(stats, "黄沙", plan, 3, k=5)
    assert alts and plan[3] not in alts
    others = "".join(w for i, w in enumerate(plan) if i != 3)
    assert all(not set(a) & set(others) for a in alts)
    assert all(theme_of(a) == "frontier" for a in alts[:3]), alts
    # the last line gets feeling words first, the first line scenery
    assert alts[0] in THEMES["frontier"][1]
    first = propose_line(stats, "黄沙", ["", "将军", "铁衣", "征人"], 0, k=3)
    assert first[0] in THEMES["frontier"][0]
    assert propose_line(stats, "黄沙", plan, 3, seed=4) == propose_line(stats, "黄沙", plan, 3, seed=4)
    with pytest.raises(PlanError, match="not a line of the plan"):
        propose_line(stats, "黄沙", plan, 4)


# --- the statistics file ---------------------------------------------------------------------

def good() -> dict:
    return {"format": "songwriter-plan", "version": 1, "words": ["月", "明月", "故乡"], "df": [5, 3, 2],
            "position": [10, 20, 90], "neighbors": [[2, 12], [2, 30], [1, 30]]}


@pytest.mark.parametrize("change, message", [
    ({"format": "other"}, "not planner statistics"),
    ({"version": 9}, "newer than this app reads"),
    ({"words": ["月", "明月", "明月"]}, "listed twice"),
    ({"words": ["月", "明月的", "故乡"]}, "words[1]"),
    ({"words": ["月", "ab", "故乡"]}, "1 or 2 Chinese characters"),
    ({"df": [1, 2]}, "df: expected one number per word (3), got 2"),
    ({"position": [10, 20, 101]}, "position[2]"),
    ({"neighbors": [[2, 12], [2, 30]]}, "neighbors: expected one list per word"),
    ({"neighbors": [[2, 12], [2], [1, 30]]}, "neighbors[1]: expected pairs"),
    ({"neighbors": [[0, 12], [2, 30], [1, 30]]}, "index of another word"),
    ({"neighbors": [[7, 12], [2, 30], [1, 30]]}, "index of another word"),
    ({"neighbors": [[2, 0], [2, 30], [1, 30]]}, "a score from 1 to 255"),
    ({"neighbors": [[2, 1.5], [2, 30], [1, 30]]}, "a score from 1 to 255"),
    ({"words": None}, "words"),
])
def test_malformed_statistics_are_refused_by_name(tmp_path, change, message):
    data = {**good(), **change}
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    with pytest.raises(PlanError) as e:
        load_stats(path)
    assert message in str(e.value) and str(path) in str(e.value)


def test_unreadable_statistics_files(tmp_path):
    with pytest.raises(PlanError, match="build-plan"):
        load_stats(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(PlanError, match="not valid JSON"):
        load_stats(bad)
    bad.write_text("[1, 2]", encoding="utf-8")
    with pytest.raises(PlanError, match="expected an object"):
        load_stats(bad)


def test_a_good_small_file_plans(tmp_path):
    s = PlanStats.from_dict(good())
    assert s.pmi(0, 2) == pytest.approx(1.2) and s.pmi(0, 1) == 0
    assert propose_plan(s, "月", 2) == ["月", "故乡"]


def test_the_planner_imports_neither_numpy_nor_qt_nor_torch():
    import subprocess
    import sys

    code = ("import sys, songwriter.plan; bad = [m for m in ('numpy', 'torch', 'PySide6') if m in sys.modules]; "
            "print(bad); sys.exit(1 if bad else 0)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr

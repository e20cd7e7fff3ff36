"""bench/blind_reading.py: the flaw counts and the scoring of a reader's answers against the key."""

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

import blind_reading  # noqa: E402


def test_flaws_count_hollow_openings_and_repeats_but_not_reduplication():
    lines = ["不知何处是归程，", "萧萧落叶满江城。", "江上风来江水急，", "几时重到旧山城。"]
    hollow, n, repeats = blind_reading.flaws(lines)
    assert (hollow, n) == (2, 4)           # 不知…, 几时…
    assert repeats == 3                     # 江 three times (two repeats), 城 twice; 萧萧 is one word

def test_echoes_count_word_pairs_written_again_and_lines_opening_alike():
    lines = ["You are the builders of the olden time,", "You are the poets of the days to come,",
             "And I am here."]
    again, pairs, echoed, thirds = blind_reading.echoes(lines)
    # "you are", "are the", "of the" again on line 2; "you are" opens line 1 and 2
    assert (again, pairs, echoed, thirds) == (3, 7 + 8 + 3, 1, 0)
    assert blind_reading.echoes(["The sun is high,", "A cloud goes by."]) == (0, 3 + 3, 0, 0)
    assert blind_reading.echoes(["My eyes", "My ears", "My hands", "My feet", "And I"])[3] == 2


def test_score_counts_what_passed_as_human(tmp_path, capsys):
    key = [{"n": 1, "source": "machine", "form": "七绝", "lines": ["不是春风到小楼，"]},
           {"n": 2, "source": "human", "form": "七绝", "lines": ["白日依山尽，"]},
           {"n": 3, "source": "machine", "form": "七绝", "lines": ["明月照高楼，"]}]
    answers = [{"n": 1, "guess": "machine", "fluency": 2, "coherence": 1, "quality": 1, "why": ""},
               {"n": 2, "guess": "human", "fluency": 5, "coherence": 5, "quality": 4, "why": ""},
               {"n": 3, "guess": "human", "fluency": 4, "coherence": 3, "quality": 3, "why": ""}]
    (tmp_path / "key.json").write_text(json.dumps(key, ensure_ascii=False))
    (tmp_path / "answers.json").write_text(json.dumps(answers))
    assert blind_reading.main(["score", "--out", str(tmp_path)]) == 0
    rows = json.loads((tmp_path / "score.json").read_text())
    assert rows["machine"]["judged_human"] == 1 and rows["machine"]["pieces"] == 2
    assert rows["machine"]["coherence"] == 2.0 and rows["human"]["quality"] == 4.0
    assert rows["machine"]["hollow_line_openings"] == 0.5
    assert "ours: 1 of 2 judged human" in capsys.readouterr().out


def test_score_refuses_a_reading_with_pieces_unanswered(tmp_path):
    key = [{"n": 1, "source": "machine", "form": "七绝", "lines": ["明月照高楼，"]},
           {"n": 2, "source": "human", "form": "七绝", "lines": ["白日依山尽，"]}]
    (tmp_path / "key.json").write_text(json.dumps(key, ensure_ascii=False))
    (tmp_path / "answers.json").write_text(json.dumps([{"n": 1, "guess": "human", "fluency": 3,
                                                        "coherence": 3, "quality": 3, "why": ""}]))
    assert blind_reading.main(["score", "--out", str(tmp_path)]) == 2


def test_score_with_two_models_scores_each_apart(tmp_path, capsys):
    key = [{"n": 1, "source": "machine", "model": "new", "form": "sonnet", "lang": "en", "lines": ["A line of ours"]},
           {"n": 2, "source": "machine", "model": "old", "form": "sonnet", "lang": "en", "lines": ["A line of old"]},
           {"n": 3, "source": "human", "form": "sonnet", "lang": "en", "lines": ["Shall I compare thee"]}]
    answers = [{"n": 1, "guess": "human", "fluency": 4, "coherence": 3, "quality": 3, "why": ""},
               {"n": 2, "guess": "machine", "fluency": 2, "coherence": 1, "quality": 1, "why": ""},
               {"n": 3, "guess": "human", "fluency": 5, "coherence": 5, "quality": 5, "why": ""}]
    (tmp_path / "key.json").write_text(json.dumps(key))
    (tmp_path / "answers.json").write_text(json.dumps(answers))
    assert blind_reading.main(["score", "--out", str(tmp_path)]) == 0
    rows = json.loads((tmp_path / "score.json").read_text())
    assert rows["machine new"]["judged_human"] == 1 and rows["machine new"]["fluency"] == 4.0
    assert rows["machine old"]["judged_human"] == 0 and rows["machine old"]["fluency"] == 2.0
    assert rows["human"]["pieces"] == 1
    out = capsys.readouterr().out
    assert "ours new: 1 of 1 judged human" in out and "ours old: 0 of 1 judged human" in out


def _key(folder, items):
    folder.mkdir()
    (folder / "key.json").write_text(json.dumps(items))


def test_merge_puts_one_model_of_each_file_beside_the_real_pieces_once(tmp_path):
    real = [{"source": "human", "form": "sonnet", "lang": "en", "id": f"s{i}", "lines": [f"Real {i}"]} for i in range(2)]
    _key(tmp_path / "a", [{"source": "machine", "model": "m1", "lang": "en", "form": "sonnet", "lines": ["Old one"]},
                          {"source": "machine", "model": "m0", "lang": "en", "form": "sonnet", "lines": ["Other"]}] + real)
    _key(tmp_path / "b", [{"source": "machine", "model": "m2", "lang": "en", "form": "sonnet", "lines": ["New one"]}] + real)
    out = tmp_path / "ab"
    assert blind_reading.main(["merge", "--part", f"{tmp_path / 'a'}:m1:before", "--part",
                               f"{tmp_path / 'b'}:m2:after", "--out", str(out)]) == 0
    key = json.loads((out / "key.json").read_text())
    assert sorted(i["n"] for i in key) == [1, 2, 3, 4]
    assert sorted(i.get("model", "real") for i in key) == ["after", "before", "real", "real"]
    text = (out / "pieces.md").read_text()
    assert "Old one" in text and "New one" in text and "Other" not in text
    assert "before" not in text and "after" not in text          # no labels for the reader


def test_merge_refuses_files_with_different_real_pieces(tmp_path, capsys):
    _key(tmp_path / "a", [{"source": "machine", "model": "m", "lines": ["x"]},
                          {"source": "human", "id": "s1", "lines": ["y"]}])
    _key(tmp_path / "b", [{"source": "machine", "model": "m", "lines": ["x"]},
                          {"source": "human", "id": "s2", "lines": ["z"]}])
    assert blind_reading.main(["merge", "--part", f"{tmp_path / 'a'}:m:one", "--part", f"{tmp_path / 'b'}:m:two",
                               "--out", str(tmp_path / "ab")]) == 2
    assert "different real pieces" in capsys.readouterr().err
    assert blind_reading.main(["merge", "--part", f"{tmp_path / 'a'}:nobody:one", "--out", str(tmp_path / "c")]) == 2


def test_chinese_echoes_count_characters_and_spare_a_reduplication():
    lines = ["相逢不见月，", "萧萧相逢时。", "不知何处去，", "萧萧落叶飞。"]
    again, pairs, echoed, firsts = blind_reading.echoes(lines, "zh")
    # 相逢 again on line 2; 萧萧 is one word, never a pair; 萧相 ... pairs: 4 + 3 + 4 + 3
    assert (again, pairs) == (1, 14)
    assert echoed == 1                 # 萧萧 opens line 4 as it opened line 2
    assert firsts == 1                 # 萧 opened an earlier line; 不 of line 3 did not

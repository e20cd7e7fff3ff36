"""The document model and .song files (no Qt)."""
import json

import pytest

from songwriter import document as D
from songwriter.document import DocumentError, CandidateRecord, Original, new_document
from songwriter.forms import named_form


def zh_doc():
    doc = new_document(named_form("五绝"))
    doc.set_text("白日依山尽，\n黄河入海流。\n欲穷千里目，\n更上一层楼。")
    return doc


def test_lines_follow_template_and_text_round_trips():
    doc = new_document(named_form("五绝"))
    assert doc.lines == ["", "", "", ""]
    doc.set_text("白日依山尽，\n\n欲穷千里目，")
    assert doc.lines == ["白日依山尽，", "", "欲穷千里目，", ""]
    assert doc.is_blank_line(1) and not doc.is_blank_line(0)


def test_cells_holes_and_locks():
    doc = new_document(named_form("五绝"))
    doc.set_zh_cell(0, 0, "白")
    doc.set_zh_cell(0, 2, "依")
    assert doc.lines[0] == "白_依__，"
    assert doc.zh_cells(0) == ["白", "", "依", "", ""]
    doc.lock(0, 0)
    assert doc.template.lines[0].slots[0].lock == "白"
    with pytest.raises(DocumentError):
        doc.set_zh_cell(0, 0, "黑")
    with pytest.raises(DocumentError):
        doc.lock(0, 1)  # nothing written there
    doc.unlock(0, 0)
    assert doc.template.lines[0].slots[0].lock is None
    assert doc.lines[0].startswith("白")


def test_lock_line_and_check_statuses():
    doc = zh_doc()
    assert doc.lock_line(1) == 5
    assert "".join(s.lock for s in doc.template.lines[1].slots) == "黄河入海流"
    doc.lines[3] = ""
    doc.set_zh_cell(2, 4, "")
    statuses = D.line_statuses(doc, doc.check())
    assert statuses[3].state == "empty"
    assert statuses[2].state == "incomplete" and statuses[2].empty_slots == [4]
    assert statuses[0].state in ("ok", "problem")


def test_english_word_locks_keep_tones():
    doc = new_document(named_form("sonnet"))
    doc.lines[0] = "Shall I compare thee to a summer day,"
    doc.lock(0, 6)   # "summer", two syllables
    assert doc.is_locked(0, 6)
    slots = doc.template.lines[0].slots
    assert [s.lock for s in slots].count("summer") == 1 and len(slots) == 9
    doc.unlock(0, 6)
    assert [s.tone for s in doc.template.lines[0].slots] == list("x/x/x/x/x/")
    assert doc.lock_line(0) == 8
    doc.unlock_line(0)
    assert all(s.lock is None for s in doc.template.lines[0].slots)


def test_an_english_lock_keeps_the_mark_written_after_the_word():
    doc = new_document(named_form("Shakespearean sonnet"))
    doc.lines[0] = "Shall I compare thee to a summer's day?"
    doc.lines[1] = "Thou art more lovely and more temperate:"
    assert doc.template.lines[0].slots[-1].punct == ","       # the form's mark
    doc.lock_line(0)
    assert doc.template.lines[0].slots[-1].punct == "?"       # generation writes what was locked
    doc.lock(1, 3)                                             # "lovely" alone
    statuses = D.line_statuses(doc, doc.check())
    # the writer's marks fit: neither the locked line nor the unlocked "temperate:" is a problem
    assert statuses[0].state == "ok" and statuses[1].state == "ok", (statuses[0], statuses[1])
    doc.lines[0] = "Shall I compare thee to a summer's day!"
    assert any("after the locked word 'day'" in p.message for p in D.line_statuses(doc, doc.check())[0].problems)
    doc.unlock_line(0)
    assert doc.template.lines[0].slots[-1].punct == ","       # the form's mark comes back
    assert not doc.template.meta.get("held_marks")


def test_template_edits():
    doc = zh_doc()
    doc.insert_line(2)
    assert len(doc.template.lines) == 5 and doc.lines[2] == ""
    doc.remove_line(2)
    doc.set_line_length(0, 7)
    assert doc.template.lines[0].syllables == 7 and doc.template.lines[0].punct == "，"
    assert doc.template.lines[0].slots[4].punct == ""
    doc.set_line_length(0, 4)
    assert doc.lines[0] == "白日依山，"
    doc.set_rhyme(0, "B")
    doc.set_tone(0, 1, "平")
    doc.set_punct(0, 3, "！")
    assert doc.lines[0].endswith("！")
    with pytest.raises(DocumentError):
        doc.set_rhyme(0, "ab")


def test_save_load_round_trip(tmp_path):
    doc = zh_doc()
    doc.lock(0, 0)
    doc.content = ["秋天", "登高"]
    doc.strength = 0.5
    doc.add_candidates([CandidateRecord("a\nb", ["a", "b"], -1.5, False, D.now_iso(), [1], 2)])
    doc.remember("generate")
    doc.original = Original("lrc", "[00:01.00]x", ["x"], [1.0], "x.lrc")
    p = tmp_path / "poem.song"
    D.save(doc, p)
    data = json.loads(p.read_text("utf-8"))
    assert data["schema_version"] == D.SCHEMA_VERSION and data["format"] == D.FORMAT_ID
    assert data["text"].splitlines()[0] == "白日依山尽，"
    back = D.load(p)
    assert back.lines == doc.lines and back.content == doc.content and back.strength == 0.5
    assert back.template.lines[0].slots[0].lock == "白"
    assert back.candidates[0].regenerated == [1] and back.history[0].note == "generate"
    assert back.original.times == [1.0]
    assert not list(tmp_path.glob(".*tmp"))


@pytest.mark.parametrize("content, needle", [
    (b"not json", "it holds plain text, not a project.s JSON"),
    (b"[1, 2]", "no JSON object"),
    (b'{"schema_version": 1}', "no template"),
    (b'{"schema_version": "x", "template": {}}', "schema_version"),
    (b'{"schema_version": 99, "template": {}}', "newer Songwriter"),
    (b'{"schema_version": 1, "template": {"lines": 3}}', "template is malformed"),
    (b'{"schema_version": 1, "template": {"lines": [{"slots": [{}]}]}, "text": 5}', "text: expected a string"),
    (b"\xff\xfe\x00", "not UTF-8"),
])
def test_malformed_files_say_why(tmp_path, content, needle):
    p = tmp_path / "bad.song"
    p.write_bytes(content)
    with pytest.raises(DocumentError, match=needle):
        D.load(p)
    assert p.read_bytes() == content


def test_atomic_write_leaves_old_file_on_failure(tmp_path, monkeypatch):
    p = tmp_path / "x.song"
    p.write_text("old", "utf-8")

    def boom(*a, **k):
        raise OSError("disk full")

    monkeypatch.setattr(D.os, "replace", boom)
    with pytest.raises(OSError):
        D.write_atomic(p, "new")
    assert p.read_text("utf-8") == "old"
    assert [f.name for f in tmp_path.iterdir()] == ["x.song"]


def test_apply_lines_only_some():
    doc = zh_doc()
    before = list(doc.lines)
    doc.apply_lines(["一二三四五，", "六七八九十。", "x", "y"], only=[1])
    assert doc.lines[1] == "六七八九十。"
    assert doc.lines[0] == before[0] and doc.lines[2:] == before[2:]


def test_history_dedupes():
    doc = zh_doc()
    assert doc.remember("a") and not doc.remember("b")
    doc.lines[0] = "白日依山落，"
    assert doc.remember("c") and len(doc.history) == 2

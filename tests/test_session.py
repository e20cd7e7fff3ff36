"""The session layer with plain pytest (no Qt): what a writer can do to a piece."""

import os

import pytest

from songwriter import document as D
from songwriter.engine.api import Candidate, GenerationRequest
from songwriter.forms import named_form
from songwriter.checks import check
from songwriter.recovery import RecoveryStore
from songwriter.session import (
    DEFAULT_FORM, Sampling, Session, UndoHistory, Step, note, piece_from_song,
)

POEM = "白日依山尽，\n黄河入海流。\n欲穷千里目，\n更上一层楼。"


def zh_session(form="五绝", text=""):
    s = Session(D.new_document(named_form(form)))
    if text:
        s.doc.set_text(text)
    return s


def candidates_for(template, fills="云风月", n=3):
    out = []
    for c in range(n):
        lines = ["".join((s.lock or fills[c]) + s.punct for s in tl.slots) for tl in template.lines]
        text = "\n".join(lines)
        out.append(Candidate(text=text, lines=lines, score=-1.0 - c, check=check(text, template)))
    return out


def test_the_default_piece_is_a_form_the_shipped_model_writes():
    from songwriter.engine.api import model_facts

    s = Session()
    assert s.doc.template.name.startswith(DEFAULT_FORM) and s.doc.lang == "zh"
    assert s.doc.lang in model_facts().languages


def test_edits_undo_redo_and_the_clean_mark():
    s = zh_session()
    events = []
    s.subscribe(events.append)
    done, cursor = s.type_chars((0, 0), "白日")
    assert done and s.doc.lines[0] == "白日___，" and cursor == (0, 2)
    s.type_chars(cursor, "依")                     # typing on one line merges into one step
    assert len(s.history) == 1 and s.is_modified()
    assert s.undo() and s.doc.lines[0] == "" and not s.is_modified()
    assert s.redo() and s.doc.lines[0] == "白日依__，"
    assert events.count("changed") == 4


def test_a_refused_edit_changes_nothing_and_says_why():
    s = zh_session(text=POEM)
    done = s.remove_lines([0, 1, 2, 3])
    assert not done and "at least one line" in done.note.text
    assert s.doc.lines[0] == "白日依山尽，" and len(s.history) == 0


def test_typing_skips_locked_cells_and_locks_toggle():
    s = zh_session(text=POEM)
    assert s.toggle_lock([(0, 1)])
    s.erase((0, 0), backward=False)
    done, cursor = s.type_chars((0, 0), "青山")
    assert s.doc.zh_cells(0)[:3] == ["青", "日", "山"] and cursor == (0, 3)
    done = s.toggle_lock([(1, 0), (1, 1)])
    assert done and done.note.render() == "Locked 2: generation keeps it"
    assert not s.toggle_lock([(2, 9)])           # nothing there
    assert s.toggle_line_lock([3]) and all(sl.lock for sl in s.doc.template.lines[3].slots)


def test_undo_never_loses_the_pieces_history():
    s = zh_session(text=POEM)
    s.doc.remember("test")
    s.type_chars((0, 0), "青")
    s.undo()
    assert [h.note for h in s.doc.history] == ["test"]


def test_changing_the_form_keeps_text_and_locks_where_there_is_room():
    s = zh_session("七律", "白日依山尽黄河，\n黄河入海流流流。\n\n\n\n\n\n一二三四五六七。")
    s.toggle_lock([(0, 0), (0, 6)])
    done = s.use_form("五绝")
    assert done
    assert s.doc.lines[:2] == ["白日依山尽，", "黄河入海流。"]
    assert [sl.lock for sl in s.doc.template.lines[0].slots] == ["白", None, None, None, None]
    text = done.note.render()
    assert "4 character(s)" in text and "line(s) 8" in text and "1 lock(s)" in text
    s.undo()
    assert s.doc.template.name.startswith("七律") and s.doc.template.lines[0].slots[6].lock == "河"


def test_a_form_with_room_for_everything_says_so():
    s = zh_session("五绝", POEM)
    s.toggle_lock([(0, 0)])
    done = s.use_form("七绝")
    assert done.note.render().endswith("Your text and 1 lock(s) are kept")
    assert s.doc.lines[0].startswith("白日依山尽") and s.doc.template.lines[0].slots[0].lock == "白"


def test_english_locks_follow_the_words_to_a_new_form():
    s = Session(D.new_document(named_form("Shakespearean sonnet")))
    s.set_line_text(0, "Shall I compare thee to a summer's day?")
    s.toggle_lock([(0, 2)])
    done = s.use_form("Petrarchan sonnet")
    assert done and s.doc.lines[0].startswith("Shall I compare")
    assert any(sl.lock == "compare" for sl in s.doc.template.lines[0].slots)


def test_a_form_in_another_language_says_the_text_starts_afresh():
    s = zh_session(text=POEM)
    done = s.use_form("Shakespearean sonnet")
    assert done and "another language" in done.note.text
    s.undo()
    assert s.doc.lines[0] == "白日依山尽，"


def test_generation_request_sends_the_text_as_it_stands():
    s = zh_session(text="白日依山尽，")
    s.type_chars((1, 0), "黄")
    gen = s.generation([0], Sampling(n=4, seed=3), steering=False)
    req = gen.request
    assert isinstance(req, GenerationRequest)
    assert req.lines == [0] and req.n == 4 and req.seed == 3 and req.rhyme_system is None
    assert req.text.split("\n")[1] == "黄____。"         # holes, never a shifted line
    assert all(sl.lock is None for sl in req.template.lines[1].slots)   # the facade locks context
    whole = s.generation(None, Sampling(), steering=False).request
    assert whole.lines is None and whole.text == ""


def test_recording_candidates_applies_the_best_as_one_step():
    s = zh_session()
    gen = s.generation(None, Sampling(), steering=False)
    done = s.record(gen, candidates_for(gen.request.template))
    assert done and s.doc.lines[0] == "云云云云云，" and len(s.doc.candidates) == 3
    assert s.doc.candidates[0].form_name.startswith("五绝") and s.doc.history[-1].note == "generate"
    s.undo()
    assert s.doc.lines[0] == "" and not s.doc.candidates


def test_candidates_of_another_form_are_marked_and_not_applied():
    s = zh_session()
    gen = s.generation(None, Sampling(), steering=False)
    s.record(gen, candidates_for(gen.request.template))
    s.use_form("七绝")
    assert not s.candidate_fits(0)
    lines, why = s.candidate_preview(1)
    assert lines is None and "another form (五绝" in why.render()
    done = s.apply_candidate(1)
    assert not done and "another form" in done.note.text
    assert s.doc.lines[0] == "云云云云云__，"            # the kept text, no spill
    s.use_form("五绝")
    assert s.candidate_fits(0) and s.apply_candidate(1)


def test_the_form_changing_during_a_generation_keeps_the_candidates_unapplied():
    s = zh_session()
    gen = s.generation(None, Sampling(), steering=False)
    s.insert_line(4, 3)
    done = s.record(gen, candidates_for(gen.request.template))
    assert "none was applied" in done.note.text and all(not ln for ln in s.doc.lines)


def test_save_open_and_the_modified_flag(tmp_path):
    s = zh_session(text=POEM)
    s.toggle_lock([(0, 0)])
    assert not s.save() and "Choose where" in s.save().note.text
    assert s.save(tmp_path / "p.song") and not s.is_modified()
    other = Session()
    assert other.open(tmp_path / "p.song") and other.doc.template.lines[0].slots[0].lock == "白"
    assert other.path == (tmp_path / "p.song").resolve() and len(other.history) == 0
    bad = tmp_path / "bad.song"
    bad.write_text('{"schema_version": 1, "template": {"lines": [{"slots": [{}], "rhyme": 1}]}}', "utf-8")
    done = other.open(bad)
    assert not done and "bad.song" in done.note.text and other.doc.lines[0] == "白日依山尽，"


def test_importing_a_song_makes_a_new_piece_with_its_own_history():
    doc = piece_from_song("[00:01.00]月亮代表我的心\n[00:05.50]你问我爱你有多深\n", "lrc", "心.lrc",
                          "Tune of {name}", "Imported song")
    assert doc.template.name == "Tune of 心" and doc.title == "心" and doc.history == []
    assert doc.original.kind == "lrc" and doc.original.times == [1.0, 5.5]


def test_undo_history_does_not_merge_across_a_save():
    h = UndoHistory()
    h.push(Step(note("Typing"), {}, {"a": 1}, "k"))
    h.set_clean()
    h.push(Step(note("Typing"), {"a": 1}, {"a": 2}, "k"))
    assert len(h) == 2 and not h.is_clean()
    h.undo()
    assert h.is_clean()


# --- autosave and recovery ---------------------------------------------------------------------

def store(tmp_path, pid=1):
    return RecoveryStore(tmp_path / "recovery", pid=pid, alive=lambda p: False)


def test_autosave_and_recover_without_binding_the_old_path(tmp_path):
    s = zh_session(text=POEM)
    s.path = tmp_path / "somewhere" / "old.song"
    s.type_chars((2, 0), "青")
    assert store(tmp_path).write(s)
    later = store(tmp_path, pid=2)
    (found,) = later.orphans()
    assert found.doc is not None and found.original_path.endswith("old.song")
    fresh = Session()
    assert later.recover(fresh, found)
    assert fresh.doc.lines[2].startswith("青") and fresh.is_modified()
    assert fresh.path is None and fresh.suggested_path.name == "old.song"     # Save asks where
    assert not (tmp_path / "somewhere").exists()
    assert not found.path.exists() and later.own_file.exists()


@pytest.mark.parametrize("content, why", [
    ('{"schema_version": 99, "template": {}}', "newer Songwriter"),
    ('{"schema_version": 1, "template": {"lines": [{"slots": [], "rhyme": 1}]}, "text": "', "JSON"),
    ('{"schema_version": 1, "title": "x", "template": {"lines": [{"slots": [{"tone": 7}]}]}}', "tone"),
    ('{"schema_version": 1, "template": {"lines": [{"slots": [{}]}]}, "candidates": [{"text": {}}]}', "candidate"),
    ("[" * 100_000, "nested"),
])
def test_recovery_never_deletes_what_it_cannot_read(tmp_path, content, why):
    st = store(tmp_path)
    st.folder.mkdir(parents=True)
    p = st.folder / "autosave-777.song"
    p.write_text(content, "utf-8")
    (found,) = st.orphans()
    assert found.doc is None and found.error and "autosave-777" in found.error
    assert why.lower() in found.error.lower(), found.error
    kept = st.set_aside(found)
    assert kept is not None and kept.read_text("utf-8") == content
    assert st.orphans() == []                       # not offered again, not deleted


def test_recovery_of_running_sessions_is_left_alone(tmp_path):
    s = zh_session(text=POEM)
    s.type_chars((0, 0), "青")
    RecoveryStore(tmp_path, pid=5).write(s)
    assert RecoveryStore(tmp_path, pid=6, alive=lambda p: p == 5).orphans() == []


def test_saving_removes_nothing_but_own_recovery_file(tmp_path):
    s = zh_session(text=POEM)
    s.type_chars((0, 0), "青")
    st = store(tmp_path)
    st.write(s)
    s.save(tmp_path / "x.song")
    assert not st.write(s) and not st.own_file.exists()


def test_session_layer_imports_neither_qt_nor_torch():
    import subprocess
    import sys

    code = ("import sys\n"
            "import songwriter.session, songwriter.document, songwriter.template, songwriter.checks\n"
            "import songwriter.metrics, songwriter.recovery, songwriter.prosody.finals\n"
            "import songwriter.engine.api\n"
            "s = songwriter.session.Session(); s.type_chars((0, 0), '白'); s.check()\n"
            "bad = [m for m in sys.modules if m.split('.')[0] in ('PySide6', 'torch', 'onnxruntime', 'numpy')]\n"
            "print(bad)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         env={**os.environ, "PYTHONPATH": os.getcwd()})
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]", out.stdout

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
    assert text == ("Form: 五绝·仄起·首句不入韵. Not everything fits: lines 1–2 each lost their last 2 characters; "
                    "line 8 has no place in it and was left out; a lock was dropped. Undo brings it all back")
    s.undo()
    assert s.doc.template.name.startswith("七律") and s.doc.template.lines[0].slots[6].lock == "河"


def test_a_form_with_room_for_everything_says_so():
    s = zh_session("五绝", POEM)
    s.toggle_lock([(0, 0)])
    done = s.use_form("七绝")
    assert done.note.render().endswith("Your text and its lock are kept")
    assert s.doc.lines[0].startswith("白日依山尽") and s.doc.template.lines[0].slots[0].lock == "白"


def test_a_form_change_says_which_lines_lose_what_in_the_units_of_the_language():
    """七绝 to 五绝 said "no room for 8 character(s) past the line ends, line(s) — and 0 lock(s)";
    a sonnet to a limerick "no room for 0 character(s)" while its lines ran long."""
    from songwriter.ui.i18n import ZH

    s = zh_session("七绝", "白日依山尽入海，\n黄河入海流流。\n欲穷千里目，\n更上一层楼楼楼。")
    s.toggle_lock([(3, 5)])
    text = s.use_form("五绝").note.render()
    assert text == ("Form: 五绝·仄起·首句不入韵. Not everything fits: lines 1, 4 each lost their last 2 characters; "
                    "line 2 lost its last character; a lock was dropped. Undo brings it all back")
    s.undo()
    assert s.use_form("七律").note.render() == "Form: 七律·平起·首句入韵. Your text and its lock are kept"
    s = Session(D.new_document(named_form("Shakespearean sonnet")))
    for i in range(14):
        s.set_line_text(i, "Shall I compare thee to a summer's day?")
    s.toggle_lock([(1, 7)])                                      # "day", past the end of a limerick's line
    done = s.use_form("Limerick")
    text = done.note.render()
    assert "lines 6–14 have no place in it and were left out" in text
    assert "run past the ends of lines 1–5 (in red)" in text and "a lock was dropped" in text
    assert "character" not in text and "—" not in text and " 0 " not in text
    zh = done.note.render(lambda k: ZH.get(k, k))
    assert zh.startswith("格律：Limerick。有些放不下：第 6–14 行在新格律里没有位置") and "词超出行尾" in zh


def test_a_form_is_shown_as_changed_once_it_differs_from_its_name_locks_aside():
    from songwriter.session import shown_form_name

    s = Session(D.new_document(named_form("Shakespearean sonnet")))
    for i in range(14):
        s.set_line_text(i, "Shall I compare thee to a summer's day?")
    s.toggle_line_lock([0])                     # a locked word is one slot with the writer's mark: no change
    held = repr(s.doc.template.meta)
    assert shown_form_name(s.doc.template).render() == "Shakespearean sonnet"
    assert repr(s.doc.template.meta) == held                    # asking takes nothing from the piece
    s.use_form("Limerick")
    assert shown_form_name(s.doc.template).render() == "Limerick"
    s.set_scheme("AABBB")
    assert shown_form_name(s.doc.template).render() == "Limerick (changed)"
    s = zh_session("七绝", POEM)
    s.toggle_lock([(0, 0)])
    assert shown_form_name(s.doc.template).render() == "七绝·平起·首句入韵"
    s.insert_line(4, 3)
    assert shown_form_name(s.doc.template).render() == "七绝·平起·首句入韵 (changed)"
    s.undo()
    s.doc.template.name = ""
    assert shown_form_name(s.doc.template).render() == "Custom form"


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
    assert later.recover(Session(), found).note.render() == "Recovered unsaved work on old.song: save it to keep it"


def test_recovering_an_untitled_piece_says_so(tmp_path):
    s = zh_session(text=POEM)
    s.type_chars((2, 0), "青")
    store(tmp_path).write(s)
    later = store(tmp_path, pid=2)
    (found,) = later.orphans()
    said = later.recover(Session(), found).note.render()
    assert said == "Recovered unsaved work on an untitled piece: save it to keep it", said
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
    assert found.doc is None and found.error and found.error.count("autosave-777") == 1, found.error
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


# --- steering (issue 11): entries, the song's theme, the per-line plan ------------------------

PLAN_DIR = os.path.join(os.path.dirname(__file__), "..", "models", "zh")


@pytest.fixture(scope="module")
def plan_stats():
    from songwriter.session import load_plan_stats

    if not os.path.isfile(os.path.join(PLAN_DIR, "plan.json")):
        pytest.skip("models/zh/plan.json is not here")
    return load_plan_stats(PLAN_DIR)


def test_content_entries_each_with_a_strength_undoable_and_in_the_request():
    s = zh_session("七绝")
    assert s.add_entry("明月") and s.add_entry("故乡", strength=1.5)
    assert not s.add_entry("   ")                          # nothing typed: nothing added
    s.set_entry_strength(0, 0.5)
    s.set_entry_strength(0, 0.8)                           # one slider drag: one undo step
    s.set_entry(1, " 故园 ")
    req = s.generation(None, Sampling(), steering=True).request
    assert req.content == ["明月", "故园"] and req.strengths == [0.8, 1.5] and req.line_content is None
    assert req.check() is req
    s.undo()
    assert s.doc.content == ["明月", "故乡"]
    s.undo()
    assert s.doc.content_strengths == [0.0, 1.5]
    s.set_entry(0, "")                                     # an emptied entry goes
    assert s.doc.content == ["故乡"] and s.doc.content_strengths == [1.5]
    assert s.remove_entry(0) and s.doc.content == [] and s.doc.content_strengths == []
    assert not s.set_entry_strength(3, 1.0)


def test_a_model_that_cannot_steer_gets_no_content_but_the_piece_keeps_it():
    s = zh_session("七绝")
    s.add_entry("明月")
    s.set_plan_keyword(2, "故乡")
    gen = s.generation(None, Sampling(), steering=False)
    assert gen.request.content == [] and gen.request.line_content is None and not gen.request.has_content()
    s.record(gen, candidates_for(gen.request.template))
    line = s.last_steered.summary()
    assert "cannot steer" in line and "明月" in line and "plan" in line
    assert s.doc.content == ["明月"] and s.doc.plan[2] == "故乡"


def test_the_summary_says_what_was_steered():
    s = zh_session("七绝")
    gen = s.generation(None, Sampling(), steering=True)
    s.record(gen, candidates_for(gen.request.template))
    assert "not steered (no content, no plan)" in s.last_steered.summary()
    s.add_entry("明月")
    gen = s.generation(None, Sampling(), steering=True)
    s.record(gen, candidates_for(gen.request.template))
    assert s.last_steered.summary() == "Last generation steered by content: 明月"


def test_the_plan_proposes_a_keyword_per_line_each_editable_and_undoable(plan_stats):
    s = zh_session("七绝")
    done = s.propose_plan(plan_stats, "明月 故乡")
    assert done and len(s.doc.plan) == 4 and all(s.doc.plan) and s.doc.plan_topic == "明月 故乡"
    assert "明月" in s.doc.plan and "故乡" in s.doc.plan
    planned = list(s.doc.plan)
    s.set_plan_keyword(0, "长亭")
    assert s.another_keyword(plan_stats, 1, seed=1)
    assert s.doc.plan[0] == "长亭" and s.doc.plan[1] not in ("", planned[1])
    s.set_strength(2)
    req = s.generation(None, Sampling(), steering=True).request
    assert req.line_content == s.doc.plan and req.strength == 2 and req.content == [] and req.check()
    s.undo()
    s.undo()
    assert s.doc.plan[0] == "长亭" and s.doc.plan[1] == planned[1]
    s.undo()
    assert s.doc.plan == planned
    s.undo()
    assert s.doc.plan == [] and s.doc.plan_topic == ""
    assert not s.propose_plan(plan_stats, "abc")          # a topic the planner does not know: why
    assert "knows none of the words of abc" in s.propose_plan(plan_stats, "abc").note.render()
    s.redo()
    assert s.clear_plan() and s.doc.plan == [] and s.generation(None, Sampling(), True).request.line_content is None


def test_the_plan_follows_the_lines_of_the_form():
    s = zh_session("五绝")
    s.set_plan_keyword(1, "故乡")
    s.insert_line(0, 0)
    assert s.doc.plan == ["", "", "故乡", "", ""]
    s.remove_lines([0, 1])
    assert s.doc.plan == ["故乡", "", ""]
    s.use_form("七律")
    assert s.doc.plan[0] == "故乡" and len(s.doc.plan) == 8
    assert s.generation(None, Sampling(), True).request.check()


def test_the_songs_theme_is_on_for_a_song_off_for_a_classical_form():
    song = "晚风吹过那座城\n你说的话还在耳边\n我们走过的街\n灯还亮着"
    s = Session(piece_from_song(song, "lyrics", "晚风.txt", "Tune of {name}", "Imported"))
    assert s.keeps_theme()
    req = s.generation(None, Sampling(), steering=True).request
    assert req.content == [song] and req.strengths == [0.0] and req.check()
    s.set_theme_strength(1.5)
    s.add_entry("离别")
    req = s.generation(None, Sampling(), steering=True).request
    assert req.content == ["离别", song] and req.strengths == [0.0, 1.5]
    s.set_keep_theme(False)
    assert s.generation(None, Sampling(), steering=True).request.content == ["离别"]
    s.undo()
    assert s.keeps_theme()
    shi = "白日依山尽\n黄河入海流\n欲穷千里目\n更上一层楼"
    s2 = Session(piece_from_song(shi, "lyrics", "登楼.txt", "Tune of {name}", "Imported"))
    assert not s2.keeps_theme()                            # shaped like regulated verse
    s2.set_keep_theme(True)
    assert s2.generation(None, Sampling(), True).request.content == [shi]
    assert not zh_session().keeps_theme()                  # no song: no theme


def test_long_songs_go_as_pieces_cut_at_line_ends():
    from songwriter.project.steering import THEME_CHARS, THEME_CONTENTS, theme_pieces

    lines = [f"第{i}行的歌词写在这里" for i in range(200)]
    pieces = theme_pieces(lines)
    assert len(pieces) == THEME_CONTENTS and all(len(p) <= THEME_CHARS + 12 for p in pieces)
    assert all(p.split("\n")[0] in lines for p in pieces)


def test_steering_is_saved_and_old_files_still_load(tmp_path, plan_stats):
    import json

    s = zh_session("七绝")
    s.add_entry("明月", strength=1.25)
    s.propose_plan(plan_stats, "明月 故乡")
    s.set_strength(-1)
    s.set_keep_theme(False)
    p = tmp_path / "a.song"
    assert s.save(p)
    data = json.loads(p.read_text("utf-8"))
    assert data["content_strengths"] == [1.25] and data["plan"]["topic"] == "明月 故乡"
    back = Session()
    assert back.open(p)
    d = back.doc
    assert (d.content, d.content_strengths, d.plan, d.plan_topic, d.strength, d.keep_theme) == (
        ["明月"], [1.25], s.doc.plan, "明月 故乡", -1.0, False)
    # a file of before: content and one strength, nothing else
    for key in ("content_strengths", "plan", "keep_theme", "theme_strength"):
        del data[key]
    data["strength"] = 0.6
    old = tmp_path / "old.song"
    old.write_text(json.dumps(data, ensure_ascii=False), "utf-8")
    assert back.open(old)
    assert back.doc.content_strengths == [0.6] and back.doc.plan == [] and back.doc.keep_theme is None
    data["content_strengths"] = ["strong"]
    old.write_text(json.dumps(data, ensure_ascii=False), "utf-8")
    refused = back.open(old)
    assert not refused and "content_strengths[0]" in refused.note.text


def test_a_new_piece_steers_its_plan_at_the_plan_strength(plan_stats):
    """A Chinese plan steers each line at its language's PLAN_STRENGTH until the writer moves the
    slider (an English piece's lean stays at 0); a whole-piece content entry keeps its own
    strength (0: as trained)."""
    from songwriter.forms import named_form
    from songwriter.project.document import PLAN_STRENGTH, Document

    s = zh_session("七绝")
    assert s.doc.strength == PLAN_STRENGTH["zh"] == 1.0
    assert s.propose_plan(plan_stats, "明月 故乡")
    req = s.generation(None, Sampling(), steering=True).request
    assert req.line_content == s.doc.plan and req.strength == 1.0 and req.check()
    s.add_entry("故乡")
    assert s.doc.content_strengths == [0.0]
    assert Document(template=named_form("shakespearean sonnet")).strength == 0.0


def test_saving_under_a_file_says_the_folder_part_is_a_file(tmp_path):
    s = zh_session(text=POEM)
    afile = tmp_path / "notes.txt"
    afile.write_text("x", "utf-8")
    done = s.save(afile / "p.song")
    text = done.note.render()
    assert not done and f"{afile} is a file, not a folder" in text and "File exists" not in text, text
    assert s.path is None and afile.read_text("utf-8") == "x"       # not bound to where it could not go

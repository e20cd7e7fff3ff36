"""The Steering panel (issue 11) in the window: content entries with a strength each, the song's
theme for a re-lyric, the per-line plan; every edit undoable and saved; a model without the
steering block keeps it all and says so; one with it gets it in its requests."""

import json
import os

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLineEdit

from test_ui_support import (  # noqa: F401  (fixtures)
    RecordingEngine, answers, double_loader, engine, make_window, wait_idle,
)

PLAN = os.path.join(os.path.dirname(__file__), "..", "models", "zh", "plan.json")
SONG = "晚风吹过那座城\n你说的话还在耳边\n我们走过的街\n灯还亮着"


@pytest.fixture
def win(qtbot, answers, engine):
    w = make_window(qtbot, loader=double_loader(engine))
    w.use_form("七绝")
    w.docks["steering"].show()
    w.docks["steering"].raise_()
    w.session.history.clear()
    return w


def type_into(qtbot, edit: QLineEdit, text: str) -> None:
    edit.setFocus()
    edit.clear()
    edit.insert(text)
    qtbot.keyClick(edit, Qt.Key_Return)


def test_entries_are_added_edited_weighted_removed_and_undone(win, qtbot):
    panel = win.steering_panel
    type_into(qtbot, panel.new_entry, "明月")
    panel.new_entry.setText("故乡")
    panel.add.click()
    assert win.doc.content == ["明月", "故乡"] and panel.new_entry.text() == ""
    assert [r[0].text() for r in panel.entry_rows] == ["明月", "故乡"]
    edit, strength, remove = panel.entry_rows[1]
    strength.slider.setValue(15)                    # keyboard or wheel: taken at once
    assert win.doc.content_strengths == [0.0, 1.5] and strength.value.text() == "+1.5"
    type_into(qtbot, edit, "故园")
    panel.setFocus()
    assert win.doc.content == ["明月", "故园"]
    panel.entry_rows[0][2].click()
    assert win.doc.content == ["故园"] and len(panel.entry_rows) == 1
    assert panel.entry_rows[0][1].get() == 1.5       # the row shows its own entry's strength
    win.undo()
    assert win.doc.content == ["明月", "故园"] and [r[0].text() for r in panel.entry_rows] == ["明月", "故园"]
    win.undo()
    win.undo()
    assert win.doc.content_strengths == [0.0, 0.0] and panel.entry_rows[1][1].value.text() == "+0.0"


def test_a_model_without_steering_keeps_everything_and_says_so(win, qtbot, engine):
    panel = win.steering_panel
    assert "known once it has loaded" in panel.note.text()
    win.session.add_entry("秋天")
    win.session.set_plan_keyword(0, "登高")
    win.action_generate()
    wait_idle(qtbot, win)
    assert "cannot steer yet" in panel.note.text()
    assert panel.new_entry.isEnabled() and panel.entry_rows[0][1].isEnabled()   # still editable
    req = engine.requests[-1]
    assert req.content == [] and req.line_content is None                    # not silently sent
    assert win.doc.content == ["秋天"] and win.doc.plan[0] == "登高"         # kept with the piece
    assert "not steered" in panel.status.text() and "秋天" in panel.status.text()


def test_a_model_with_steering_gets_the_entries_and_the_plan(qtbot, answers):
    engine = RecordingEngine()
    engine.supports_content = True
    w = make_window(qtbot, loader=double_loader(engine))
    w.use_form("七绝")
    panel = w.steering_panel
    w.session.add_entry("秋天", strength=1.0)
    w.session.set_plan_keyword(3, "故乡")
    panel.plan_strength.slider.setValue(20)
    w.action_generate()
    wait_idle(qtbot, w)
    req = engine.requests[-1]
    assert req.content == ["秋天"] and req.strengths == [1.0]
    assert req.line_content == ["", "", "", "故乡"] and req.strength == 2.0 and req.check()
    assert "follows what you enter" in panel.note.text()
    assert panel.status.text().startswith("Last generation steered by content: 秋天")


@pytest.mark.skipif(not os.path.isfile(PLAN), reason="models/zh/plan.json is not here")
def test_the_plan_is_proposed_edited_line_by_line_and_undone(win, qtbot):
    panel = win.steering_panel
    type_into(qtbot, panel.topic, "明月 故乡")          # Enter proposes
    qtbot.waitUntil(lambda: len(win.doc.plan) == 4 and all(win.doc.plan), timeout=20000)
    assert [r[1].text() for r in panel.keyword_rows] == win.doc.plan and win.doc.plan_topic == "明月 故乡"
    planned = list(win.doc.plan)
    type_into(qtbot, panel.keyword_rows[0][1], "长亭")
    panel.setFocus()
    assert win.doc.plan[0] == "长亭"
    panel.keyword_rows[2][2].click()                  # ↻: another keyword for line 3
    qtbot.waitUntil(lambda: win.doc.plan[2] != planned[2], timeout=20000)
    assert win.doc.plan[2] and win.doc.plan[2] != planned[2]
    win.undo()
    win.undo()
    assert win.doc.plan == planned and panel.keyword_rows[0][1].text() == planned[0]
    win.undo()
    assert win.doc.plan == [] and panel.topic.text() == "明月 故乡"      # the topic typed stays
    win.undo()
    assert panel.topic.text() == "" and not panel.clear.isEnabled()
    win.redo()
    win.redo()
    panel.clear.click()
    assert win.doc.plan == [] and all(r[1].text() == "" for r in panel.keyword_rows)
    # an unknown topic: the reason in the status bar, in the UI's words
    panel.topic.setText("abc")
    panel.propose.click()
    qtbot.waitUntil(lambda: "knows none of the words" in win.statusBar().currentMessage(), timeout=20000)


def test_a_row_per_line_follows_the_form(win, qtbot):
    panel = win.steering_panel
    assert len(panel.keyword_rows) == 4
    win.session.set_plan_keyword(1, "故乡")
    win.use_form("七律")
    assert len(panel.keyword_rows) == 8 and panel.keyword_rows[1][1].text() == "故乡"
    win.use_form("Shakespearean sonnet")
    # an English piece plans with its own model's (English) statistics: English examples
    assert len(panel.keyword_rows) == 14 and panel.propose.isEnabled()
    assert "sea at night" in panel.topic.placeholderText() and "sea at night" in panel.new_entry.placeholderText()
    win.use_form("五绝")                               # fewer lines: the rows of the others go at once
    shown = [e for e in panel.plan_box.findChildren(QLineEdit) if e.isVisibleTo(panel)]
    assert len(panel.keyword_rows) == 4 and len(shown) == 4


def test_a_relyric_keeps_the_songs_theme_by_default(qtbot, answers):
    from songwriter.session import piece_from_song

    engine = RecordingEngine()
    engine.supports_content = True
    doc = piece_from_song(SONG, "lyrics", "晚风.txt", "Tune of {name}", "Imported")
    w = make_window(qtbot, loader=double_loader(engine), doc=doc)
    panel = w.steering_panel
    w.docks["steering"].show()
    w.docks["steering"].raise_()
    assert panel.theme_box.isVisible() and panel.theme.isChecked()
    w.action_generate()
    wait_idle(qtbot, w)
    assert engine.requests[-1].content == [SONG] and "the song's theme" in panel.status.text()
    panel.theme.click()
    assert w.doc.keep_theme is False and not panel.theme_strength.isEnabled()
    w.action_generate()
    wait_idle(qtbot, w)
    assert engine.requests[-1].content == []
    w.undo()                                          # the generation
    w.undo()                                          # the theme switched off
    assert panel.theme.isChecked() and w.doc.keep_theme is None
    w.use_form("七绝")
    assert not panel.theme.isChecked()                # a classical form: off by default


def test_steering_is_saved_with_the_piece(win, tmp_path, qtbot):
    win.session.add_entry("明月", strength=0.5)
    win.session.set_plan_keyword(2, "故乡")
    p = tmp_path / "a.song"
    assert win.session.save(p)
    data = json.loads(p.read_text("utf-8"))
    assert data["content"] == ["明月"] and data["content_strengths"] == [0.5]
    assert data["plan"]["keywords"] == ["", "", "故乡", ""]
    win.session.new_piece()
    assert not win.steering_panel.entry_rows
    assert win.files.open_path(str(p))
    assert win.steering_panel.entry_rows[0][0].text() == "明月"
    assert win.steering_panel.keyword_rows[2][1].text() == "故乡"


def test_the_panel_in_chinese(qtbot, answers, engine):
    from songwriter.ui.i18n import set_language

    w = make_window(qtbot, loader=double_loader(engine))
    set_language("zh")
    try:
        from songwriter.ui.steering import SteeringPanel

        panel = SteeringPanel(w.session, plan_folder=lambda: "")
        qtbot.addWidget(panel)
        panel.refresh()
        assert panel.propose.text() == "立意" and "模型加载后" in panel.note.text()
        assert "尚未生成" in panel.status.text()
    finally:
        set_language("en")

"""The window with the real engine facade and the tiny test model (tests/helpers/tiny_model.py):
generate, locks kept, undo, regenerate one line, cancel, word suggestions, clear refusals."""

import pytest
from PySide6.QtCore import Qt

from test_ui_support import answers, ime_type, make_window, wait_idle  # noqa: F401  (fixtures)

tiny = pytest.importorskip("helpers.tiny_model")
pytest.importorskip("torch")
pytest.importorskip("songwriter.engine.service")

from songwriter.template import syllable_units  # noqa: E402

LONG = 120_000


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    return str(tiny.make_tiny_model(tmp_path_factory.mktemp("tiny")))


@pytest.fixture
def win(qtbot, answers, model_dir):
    from songwriter.ui import settings

    settings.put("seed", "1")
    settings.put("candidates", 4)
    w = make_window(qtbot, model_dir=model_dir)
    w.use_form("五绝")
    w.session.history.clear()
    return w


def fits(line: str, n: int) -> bool:
    return len(syllable_units(line, "zh")) == n


def test_generate_keeps_locks_and_is_one_undo_step(win, qtbot):
    win.view.set_cursor(0, 0)
    ime_type(win.view, "白日")
    win.toggle_lock([(0, 0), (0, 1)])
    steps = len(win.session.history)
    win.action_generate()
    assert win.busy
    wait_idle(qtbot, win, LONG)
    assert not win.engine_host.error, win.engine_host.error
    assert win.engine_host.ready and "torch" in win.engine_label.text()
    assert all(fits(line, 5) for line in win.doc.lines), win.doc.lines
    assert win.doc.lines[0].startswith("白日")
    assert [ln[-1] for ln in win.doc.lines] == ["，", "。", "，", "。"]
    assert 1 <= len(win.doc.candidates) <= 4
    assert len(win.session.history) == steps + 1
    assert win.time_label.text()
    win.undo()
    assert win.doc.lines[0] == "白日___，" and win.doc.lines[1] == ""


def test_regenerate_one_line_leaves_the_others_unchanged(win, qtbot):
    win.action_generate()
    wait_idle(qtbot, win, LONG)
    before = list(win.doc.lines)
    win.view.set_cursor(2, 0)
    win.action_regenerate()
    wait_idle(qtbot, win, LONG)
    after = win.doc.lines
    assert after[:2] == before[:2] and after[3] == before[3]
    assert fits(after[2], 5)
    assert win.doc.candidates[0].regenerated == [2]


def test_regenerate_with_unfinished_lines_keeps_them(win, qtbot, answers):
    win.view.set_cursor(0, 0)
    ime_type(win.view, "白日依山尽")
    ime_type(win.view, "黄")            # line 2 unfinished, lines 3-4 empty
    win.view.set_cursor(0, 0)
    win.action_regenerate()
    wait_idle(qtbot, win, LONG)
    assert not answers.warnings, answers.warnings
    assert fits(win.doc.lines[0], 5)
    assert win.doc.lines[1] == "黄____。" and win.doc.lines[2:] == ["", ""]


def test_cancel_a_long_generation(win, qtbot, answers):
    from songwriter.ui import settings
    from songwriter.template import parse_notation

    win.action_generate()                    # load the engine first
    wait_idle(qtbot, win, LONG)
    big = parse_notation("\n".join(["__________，"] * 17 + ["__________。"]))   # the tiny model's limit
    win.edit("big", lambda d: d.set_template(big, keep_text=False))
    settings.put("candidates", 64)
    win.action_generate()
    qtbot.waitUntil(lambda: not win.busy or (win.progress.maximum() == 1000 and win.progress.value() > 0), timeout=LONG)
    assert win.busy, answers.warnings
    win.cancel_button.click()
    wait_idle(qtbot, win, LONG)
    assert "cancelled" in win.statusBar().currentMessage().lower()
    assert all(not ln for ln in win.doc.lines)
    assert not answers.warnings


def test_word_suggestions_ranked_by_the_engine(win, qtbot):
    win.doc.set_text("白日依山尽，\n黄河入海流。\n欲穷千里目，\n更上一层楼。")
    win.doc_changed()
    win.action_generate()
    wait_idle(qtbot, win, LONG)
    win.docks["words"].show()
    win.view.set_cursor(1, 4)
    win.suggestions.action_suggest()
    qtbot.waitUntil(lambda: win.words_panel.list.count() > 0, timeout=LONG)
    assert "Ranked by the engine" in win.words_panel.note.text()
    first = win.words_panel.list.item(0).data(Qt.UserRole)
    win.words_panel.list.itemActivated.emit(win.words_panel.list.item(0))
    assert win.doc.zh_cells(1)[4] == first[0]


def test_a_language_without_a_model_is_said_before_generate_is_pressed(win, qtbot, answers):
    win.action_generate()                    # the tiny model writes zh
    wait_idle(qtbot, win, LONG)
    win.use_form("Shakespearean sonnet")
    assert not win.actions["generate"].isEnabled() and not win.actions["regenerate"].isEnabled()
    assert "No English model" in win.language_note.text() and win.language_note.isVisible()
    assert "No English model is installed" in win.actions["generate"].toolTip()
    win.action_generate()                    # the shortcut still says why, without a dialog
    assert not win.busy and not answers.warnings
    assert "No English model is installed" in win.statusBar().currentMessage()
    win.undo()
    assert win.actions["generate"].isEnabled() and not win.language_note.text()

"""Generation wiring in the window, with a test double of the engine facade that records the
requests (no generation happens here; test_ui_engine.py generates with the tiny model)."""

import threading

import pytest
from PySide6.QtCore import Qt

from test_ui_support import (  # noqa: F401  (fixtures)
    POEM, RecordingEngine, answers, double_loader, engine, ime_type, make_window, wait_idle,
)

from songwriter.ui.wording import plain


@pytest.fixture
def win(qtbot, answers, engine):
    w = make_window(qtbot, loader=double_loader(engine))
    w.use_form("五绝")
    w.session.history.clear()
    return w


def test_generate_fills_unlocked_slots_as_one_undo_step(win, qtbot, engine):
    win.doc.set_text(POEM)
    win.doc_changed()
    win.toggle_lock([(0, 0), (0, 1)])
    steps = len(win.session.history)
    win.action_generate()
    wait_idle(qtbot, win)
    req = engine.requests[-1]
    assert req.lines is None and req.n == 8
    assert [s.lock for s in req.template.lines[0].slots[:2]] == ["白", "日"]
    assert win.doc.lines[0] == "白日云云云，" and win.doc.lines[1] == "云云云云云。"
    assert len(win.session.history) == steps + 1
    assert len(win.doc.candidates) == 8 and win.candidates_panel.list.count() == 8
    assert "test-double" in win.engine_label.text()
    assert "s per generation" in win.time_label.text()
    assert win.doc.history and win.doc.history[-1].note == "generate"
    win.undo()
    assert win.doc.lines[0] == "白日依山尽，" and not win.doc.candidates
    win.redo()
    assert win.doc.lines[1] == "云云云云云。"


def test_regenerate_one_line_leaves_the_others(win, qtbot, engine):
    win.doc.set_text(POEM)
    win.doc_changed()
    win.view.set_cursor(2, 3)
    win.action_regenerate()
    wait_idle(qtbot, win)
    assert engine.requests[-1].lines == [2]
    assert win.doc.lines == ["白日依山尽，", "黄河入海流。", "云云云云云，", "更上一层楼。"]
    assert win.doc.candidates[0].regenerated == [2]


def test_candidates_preview_and_apply(win, qtbot, engine):
    win.action_generate()
    wait_idle(qtbot, win)
    panel = win.candidates_panel
    panel.list.setCurrentRow(2)
    assert win.view.preview and win.view.preview[0].startswith("月")
    assert win.doc.lines[0].startswith("云")          # a preview changes nothing
    panel.list.setFocus()
    qtbot.keyClick(panel.list, Qt.Key_Return)
    assert win.doc.lines[0].startswith("月") and not win.view.preview
    win.undo()
    assert win.doc.lines[0].startswith("云")
    win.action_next_candidate()
    assert win.candidates_panel.list.currentRow() >= 0


def test_cancel_a_running_generation_and_keep_editing(win, qtbot, engine):
    engine.block = threading.Event()
    before = list(win.doc.lines)
    win.action_generate()
    qtbot.waitUntil(engine.started.is_set, timeout=10000)
    assert win.busy and win.cancel_button.isVisible() and win.progress.isVisible()
    assert not win.actions["generate"].isEnabled()
    # the window stays responsive: typing works while the engine is busy
    win.view.set_cursor(3, 0)
    ime_type(win.view, "更")
    assert win.doc.lines[3].startswith("更")
    qtbot.waitUntil(lambda: win.progress.maximum() == 1000, timeout=5000)   # progress reported
    win.cancel_button.click()
    wait_idle(qtbot, win)
    assert "cancelled" in win.statusBar().currentMessage().lower()
    assert not win.cancel_button.isVisible() and win.actions["generate"].isEnabled()
    assert win.doc.lines[:3] == before[:3] and not win.doc.candidates


def test_missing_model_gives_a_message_and_the_editor_still_works(qtbot, answers, tmp_path):

    def broken(model_dir, backend):
        raise RuntimeError("model.safetensors is missing")

    w = make_window(qtbot, loader=broken)
    w.use_form("五绝")
    w.action_generate()
    wait_idle(qtbot, w)
    assert w.engine_host.state == "failed"
    assert answers.warnings and "not available" in answers.warnings[-1][0]
    assert "Engine unavailable" in w.engine_label.text()
    w.view.set_cursor(0, 0)
    ime_type(w.view, "白日")
    assert w.doc.lines[0].startswith("白日")
    # the real loader on an empty folder fails with a clear message too (no crash)
    w2 = make_window(qtbot, model_dir=str(tmp_path / "no-model"))
    w2.action_generate()
    wait_idle(qtbot, w2)
    assert w2.engine_host.state == "failed" and w2.engine_host.error


def test_word_suggestions_for_the_selected_slot(win, qtbot, engine):
    win.docks["words"].show()
    win.docks["words"].raise_()
    win.view.set_cursor(1, 4)
    win.suggestions.action_suggest()
    qtbot.waitUntil(lambda: win.words_panel.list.count() == 3, timeout=10000)
    assert engine.suggestions[-1] == (1, 4)
    header = plain(win.words_panel.header.text())
    assert "Line 2, slot 5" in header and "rhyme A" in header
    item = win.words_panel.list.item(0)
    win.words_panel.list.itemActivated.emit(item)
    assert win.doc.zh_cells(1)[4] == "天"


def test_form_change_during_generation_does_not_apply(win, qtbot, engine):
    engine.block = threading.Event()
    win.action_generate()
    qtbot.waitUntil(engine.started.is_set, timeout=10000)
    win.action_insert_below()
    engine.block.set()
    wait_idle(qtbot, win)
    assert all(not ln for ln in win.doc.lines)
    assert len(win.doc.candidates) == 8


def test_libraries_shared_with_the_engine_thread_are_imported_before_it_starts():
    """The UI thread checks the text while the engine's thread loads and generates; both import
    pypinyin on first use, and two threads importing it at once break it for the whole session
    (seen as generations that fail and leave the text unapplied). A fresh interpreter, since in
    this one an earlier test may already have imported it."""
    import subprocess
    import sys

    script = (
        "import sys\n"
        "from PySide6.QtCore import QCoreApplication\n"
        "app = QCoreApplication([])\n"
        "from songwriter.ui.engine_host import EngineHost\n"
        "seen = []\n"
        "host = EngineHost(loader=lambda model_dir, backend: seen.append('pypinyin' in sys.modules))\n"
        "host.load()\n"
        "host.pool.waitForDone(20000)\n"
        "print(seen)\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[True]", out.stdout + out.stderr

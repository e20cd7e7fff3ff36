"""The Form panel has room at 1100x700 in either UI language (issue 13): the notation editor folds
away under its heading, so the panel does not scroll and the form list shows several forms; the
list scrolls by pixels (its rows are two or three lines high)."""

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QListView

from test_ui_support import answers, make_window  # noqa: F401  (fixtures)


@pytest.mark.parametrize("ui", ["en", "zh"])
def test_the_form_panel_fits_1100x700_with_the_notation_folded(qtbot, answers, ui):
    from songwriter.ui.i18n import set_language

    win = make_window(qtbot)
    try:
        if ui == "zh":          # the panel's labels are built in the UI language: a window of its own
            win.close()
            set_language("zh")
            from songwriter.ui.mainwindow import MainWindow

            win = MainWindow(autosave_seconds=3600)
            qtbot.addWidget(win)
            win.show()
            qtbot.waitExposed(win)
        from songwriter.ui import chrome

        win.resize(1100, 700)
        chrome.fit_docks(win, 1100)         # the panels as a first start at this size lays them out
        for form in ("七绝", "Shakespearean sonnet"):
            win.use_form(form)
            qtbot.wait(50)
            panel, area = win.form_panel, win.docks["form"].widget()
            assert not panel.notation_box.isVisible() and not panel.notation_toggle.isChecked()
            assert area.verticalScrollBar().maximum() == 0, (ui, form)       # nothing of the panel hidden
            assert panel.list.height() >= 180 and panel.scheme.isVisible()
            assert panel.list.verticalScrollMode() == QListView.ScrollPerPixel
    finally:
        set_language("en")


def test_the_notation_unfolds_and_the_choice_is_remembered(qtbot, answers):
    from songwriter.ui import settings

    win = make_window(qtbot)
    panel = win.form_panel
    panel.notation_toggle.click()
    assert panel.notation_box.isVisible() and panel.notation.isVisible()
    assert settings.get("form_notation_open") is True
    assert "# name:" in panel.notation.toPlainText()        # the current form, as text
    again = make_window(qtbot)
    assert again.form_panel.notation_box.isVisible() and again.form_panel.notation_toggle.isChecked()
    again.form_panel.notation_toggle.click()
    assert not again.form_panel.notation_box.isVisible() and settings.get("form_notation_open") is False


def test_the_form_list_shows_the_current_form(qtbot, answers, tmp_path):
    from test_ui_support import installed_models

    from songwriter.ui.mainwindow import MainWindow

    win = MainWindow(autosave_seconds=3600, installed_models=installed_models(tmp_path, langs=("zh", "en")))
    qtbot.addWidget(win)
    win.resize(1100, 700)           # as the app starts: sized, then shown
    win.show()
    qtbot.waitExposed(win)
    assert win.doc.template.name == "Shakespearean sonnet"       # far down the list, after the 词牌 forms
    qtbot.wait(50)
    lst = win.form_panel.list
    item = lst.currentItem()
    assert item is not None and item.data(Qt.UserRole) == "Shakespearean sonnet"
    assert lst.viewport().rect().contains(lst.visualItemRect(item))           # whole, not cut at an edge
    assert lst.visualItemRect(item).top() == 0                                # at the top: no row above cut
    win.use_form("鹧鸪天")
    qtbot.wait(50)
    assert lst.viewport().rect().contains(lst.visualItemRect(lst.currentItem()))
    # a piece of no listed form (a song imported): nothing selected, the list from its top, no row cut
    assert win.files.import_song("[00:01.00]晚风轻轻吹\n[00:03.00]吹过我的脸\n", "lrc", "晚风.lrc")
    qtbot.wait(50)
    assert lst.currentItem() is None and lst.verticalScrollBar().value() == 0


@pytest.mark.parametrize("ui, size", [("en", (1100, 700)), ("en", (1024, 700)), ("zh", (1024, 700))])
def test_the_unfolded_notation_scrolls_the_panel_rather_than_squeezing_it(qtbot, answers, ui, size):
    """With the notation editor unfolded the Form panel needs more than a 700 px window has: every
    part keeps its own height (a combo its full height, the check under the notation box, not on
    it) and the panel scrolls."""
    from songwriter.ui import chrome
    from songwriter.ui.i18n import set_language
    from songwriter.ui.mainwindow import MainWindow

    try:
        set_language(ui)
        win = MainWindow(autosave_seconds=3600)
        qtbot.addWidget(win)
        win.resize(*size)
        win.show()
        qtbot.waitExposed(win)
        chrome.fit_docks(win, size[0])
        win.use_form("七绝")
        panel = win.form_panel
        panel.show_notation(True)
        qtbot.wait(50)
        for part in (panel.search, panel.kind, panel.rhyme_system, panel.tone_system, panel.scheme,
                     panel.notation_toggle, panel.apply, panel.error):
            assert part.height() >= part.sizeHint().height(), (part.objectName(), part.height())
        assert panel.notation.height() >= panel.notation.minimumHeight()
        assert panel.error.text().startswith("✓")
        box = panel.notation_box
        assert panel.notation.geometry().bottom() < panel.error.geometry().top()       # nothing drawn over
        assert panel.error.geometry().bottom() < panel.apply.geometry().top()
        assert box.height() >= box.minimumSizeHint().height()
        area = win.docks["form"].widget()
        assert area.verticalScrollBar().maximum() == panel.height() - area.viewport().height()   # all of it in reach
        if ui == "en":      # its labels over their choices: more than the window's height
            assert area.verticalScrollBar().maximum() > 0
    finally:
        set_language("en")

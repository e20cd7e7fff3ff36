"""The main window driven as a person would (offscreen): forms, typing, locks, undo/redo,
template edits, notation, import, files, export, autosave/recovery."""

import json
import os

import pytest
from PySide6.QtCore import Qt

from test_ui_support import Answers, answers, ime_type, make_window  # noqa: F401  (fixtures)

from songwriter import document as D
from songwriter.forms import named_form
from songwriter.ui.wording import plain


@pytest.fixture
def win(qtbot, answers):
    return make_window(qtbot)


def test_starts_as_an_editor_without_loading_the_engine(win):
    assert win.engine_host.state == "unloaded"
    assert len(win.doc.template.lines) == 14 or len(win.doc.template.lines) == 4
    assert "not loaded" in win.engine_label.text()


def test_choose_a_form_from_the_searchable_list(win, qtbot):
    win.form_panel.search.setText("七律")
    win.form_panel.fill_forms()
    names = [win.form_panel.list.item(i).data(Qt.UserRole) for i in range(win.form_panel.list.count())]
    assert names and all("七律" in n for n in names[:4])
    win.form_panel.list.setCurrentRow(0)
    win.form_panel.use.click()
    assert len(win.doc.template.lines) == 8 and win.doc.template.lines[0].syllables == 7
    assert "七律" in plain(win.form_label.text())
    win.undo()
    assert "七律" not in win.doc.template.name


def test_cipai_search(win):
    win.form_panel.search.setText("浣溪沙")
    win.form_panel.fill_forms()
    item = win.form_panel.list.item(0)
    assert item is not None and "浣溪沙" in item.data(Qt.UserRole)
    win.use_form(item.data(Qt.UserRole))
    assert win.doc.template.kind == "ci"


def zh_win(win):
    win.use_form("五绝")
    win.view.set_cursor(0, 0)
    return win


def test_type_characters_into_the_grid(win, qtbot):
    zh_win(win)
    ime_type(win.view, "白日依山尽")
    assert win.doc.lines[0] == "白日依山尽，"
    assert win.view.cursor == (1, 0)   # moved on to the next line
    ime_type(win.view, "黄河")
    assert win.doc.lines[1].startswith("黄河")
    # typing into one line is one undo step
    win.undo()
    assert win.doc.lines[1] == "" and win.doc.lines[0] == "白日依山尽，"
    win.undo()
    assert win.doc.lines[0] == ""
    win.redo()
    assert win.doc.lines[0] == "白日依山尽，"


def test_backspace_and_delete(win, qtbot):
    zh_win(win)
    ime_type(win.view, "白日依")
    qtbot.keyClick(win.view, Qt.Key_Backspace)
    assert win.doc.zh_cells(0)[:3] == ["白", "日", ""]
    win.view.set_cursor(0, 0)
    qtbot.keyClick(win.view, Qt.Key_Delete)
    assert win.doc.zh_cells(0)[:2] == ["", "日"]


def test_lock_with_shortcut_click_and_gutter(win, qtbot):
    zh_win(win)
    win.doc.set_text("白日依山尽，\n黄河入海流。\n欲穷千里目，\n更上一层楼。")
    win.doc_changed()
    win.view.set_cursor(0, 1)
    qtbot.keyClick(win.view, Qt.Key_L, Qt.ControlModifier)
    assert win.doc.template.lines[0].slots[1].lock == "日"
    # Ctrl+click toggles a cell
    rect = win.view.unit_rect(0, 2)
    qtbot.mouseClick(win.view, Qt.LeftButton, Qt.ControlModifier, rect.center().toPoint())
    assert win.doc.template.lines[0].slots[2].lock == "依"
    qtbot.mouseClick(win.view, Qt.LeftButton, Qt.ControlModifier, rect.center().toPoint())
    assert win.doc.template.lines[0].slots[2].lock is None
    # the gutter's lock toggles the whole line
    y = int(win.view.unit_rect(1, 0).center().y())
    qtbot.mouseClick(win.view, Qt.LeftButton, Qt.NoModifier, win.view.rect().topLeft() + type(rect.center().toPoint())(10, y))
    assert "".join(s.lock or "" for s in win.doc.template.lines[1].slots) == "黄河入海流"
    # typing never overwrites a locked cell: it skips it
    win.view.set_cursor(0, 0)
    qtbot.keyClick(win.view, Qt.Key_Delete)
    ime_type(win.view, "青")
    assert win.doc.zh_cells(0)[:3] == ["青", "日", "依"] or win.doc.zh_cells(0)[0] == "青"
    assert win.doc.template.lines[0].slots[1].lock == "日"
    # selection lock: shift+right then Ctrl+L
    win.view.set_cursor(2, 0)
    qtbot.keyClick(win.view, Qt.Key_Right, Qt.ShiftModifier)
    qtbot.keyClick(win.view, Qt.Key_Right, Qt.ShiftModifier)
    win.actions["toggle_lock"].trigger()
    assert [s.lock for s in win.doc.template.lines[2].slots[:3]] == ["欲", "穷", "千"]
    win.undo()
    assert all(s.lock is None for s in win.doc.template.lines[2].slots)


def test_inline_edit_and_checks(win, qtbot):
    zh_win(win)
    win.view.set_cursor(0, 0)
    qtbot.keyClick(win.view, Qt.Key_Return)
    assert win.view.editing_inline
    win.view.inline.setText("白日依山尽尽，")
    qtbot.keyClick(win.view.inline, Qt.Key_Return)
    assert win.doc.lines[0] == "白日依山尽尽，"
    win.run_checks()
    assert win.statuses[0].state == "problem"
    assert any(p.kind == "length" for p in win.statuses[0].problems)
    assert "syllables" in win.view.line_summary(0, win.statuses[0]) or "characters" in win.view.line_summary(0, win.statuses[0])
    assert win.statuses[1].state == "empty"


def test_template_direct_controls(win, qtbot, answers):
    zh_win(win)
    win.view.set_cursor(2, 0)
    win.action_set_rhyme("B")
    assert win.doc.template.lines[2].rhyme == "B"
    win.action_set_tone("平")
    assert win.doc.template.lines[2].slots[0].tone == "平"
    win.view.set_cursor(2, 4)
    win.action_set_punct("！")
    assert win.doc.template.lines[2].slots[4].punct == "！"
    win.action_insert_below()
    assert len(win.doc.template.lines) == 5
    win.action_remove_line()
    assert len(win.doc.template.lines) == 4
    answers.int_value = 7
    win.view.set_cursor(0, 0)
    win.action_line_length()
    assert win.doc.template.lines[0].syllables == 7
    win.set_scheme("AABA")
    assert [ln.rhyme for ln in win.doc.template.lines] == ["A", "A", "B", "A"]
    win.set_scheme("AB")   # wrong count: refused, nothing changes
    assert [ln.rhyme for ln in win.doc.template.lines] == ["A", "A", "B", "A"]
    for _ in range(7):
        win.undo()
    assert win.doc.template.lines[2].rhyme is None and win.doc.template.lines[0].syllables == 5


def test_notation_editor_live_errors_and_apply(win, qtbot):
    panel = win.form_panel
    panel.notation.setPlainText("__|@A\n__@")
    panel.parse_notation()
    assert panel.error.text().startswith("✗") and "line 2" in panel.error.text()
    assert not panel.apply.isEnabled()
    panel.notation.setPlainText("# name: 试\n__|__，@A\n--|--。@A\n")
    panel._notation_dirty = True
    panel.parse_notation()
    assert panel.error.text().startswith("✓") and panel.apply.isEnabled()
    panel.apply.click()
    assert len(win.doc.template.lines) == 2 and win.doc.template.name == "试"
    win.set_rhyme_system("shisanzhe")
    assert win.doc.template.rhyme_system == "shisanzhe"


def test_kind_combo_sets_the_kind_undoably_and_follows_the_template(win, qtbot, tmp_path):
    from songwriter.template import format_notation

    panel = win.form_panel
    zh_win(win)
    assert win.doc.template.kind == "shi" and panel.kind.currentData() == "shi"
    assert panel.kind.isEnabled() and "register" in panel.kind.toolTip()
    assert "# kind: shi" in panel.notation.toPlainText() and "平水韵" in plain(win.form_label.text())
    win.session.set_clean()
    assert not win.isWindowModified()

    idx = panel.kind.findData("lyric")         # choose 歌词 (Song lyric) as a person would
    panel.kind.setCurrentIndex(idx)
    panel.kind.activated.emit(idx)
    assert win.doc.template.kind == "lyric"
    assert win.is_modified() and win.isWindowModified()
    assert panel.kind.currentText() == "Song lyric"
    assert panel.notation.toPlainText() == format_notation(win.doc.template)   # the header follows the kind
    assert "# kind: lyric" in panel.notation.toPlainText()
    assert "中华新韵" in plain(win.form_label.text()) and "中华新韵" in panel.rhyme_system.itemText(0)

    win.undo()
    assert win.doc.template.kind == "shi" and panel.kind.currentData() == "shi"
    assert "# kind: shi" in panel.notation.toPlainText() and "平水韵" in panel.rhyme_system.itemText(0)
    assert not win.isWindowModified()
    win.redo()
    assert win.doc.template.kind == "lyric" and panel.kind.currentData() == "lyric"
    win.undo()

    win.use_form("浣溪沙")                       # a 词牌: the combo shows 词 (Ci)
    assert win.doc.template.kind == "ci" and panel.kind.currentData() == "ci"
    assert panel.kind.currentText() == "Ci (lyric to a tune)"
    assert "# kind: ci" in panel.notation.toPlainText()

    doc = D.new_document(named_form("五绝"))     # opening a project shows its kind
    doc.template.kind = "poem"
    D.save(doc, tmp_path / "k.song")
    assert win.files.open_path(str(tmp_path / "k.song"))
    assert panel.kind.currentData() == "poem" and "# kind: poem" in panel.notation.toPlainText()

    win.use_form("Shakespearean sonnet")         # English: the kind combo lists English kinds; no tones
    assert win.doc.lang == "en" and not panel.tone_system.isEnabled()
    kinds = [panel.kind.itemData(i) for i in range(panel.kind.count())]
    assert kinds == ["poem", "lyric", "hymn"] and panel.kind.currentData() == "poem"
    assert "hymn" in panel.kind.toolTip()
    idx = panel.kind.findData("hymn")
    panel.kind.setCurrentIndex(idx)
    panel.kind.activated.emit(idx)
    assert win.doc.template.kind == "hymn" and "# kind: hymn" in panel.notation.toPlainText()
    win.undo()
    assert win.doc.template.kind == "poem" and panel.kind.currentData() == "poem"

    win.use_form("Common metre")                 # a hymn metre is a hymn
    assert win.doc.template.kind == "hymn" and panel.kind.currentText() == "Hymn"
    win.use_form("七绝")                          # and back: the Chinese kinds again
    assert panel.kind.count() == 5 and panel.kind.currentData() == "shi"


LRC = "[ti:Test]\n[00:01.00]月亮代表我的心\n[00:05.50]你问我爱你有多深\n[00:10.00]我爱你有几分\n"


def test_import_lrc_keeps_original_and_exports_lrc(win, tmp_path, answers):
    p = tmp_path / "song.lrc"
    p.write_text(LRC, "utf-8")
    assert win.files.import_file(str(p))
    doc = win.doc
    assert doc.original is not None and doc.original.kind == "lrc"
    assert [ln.time for ln in doc.template.lines] == [1.0, 5.5, 10.0]
    assert doc.original.lines[0] == "月亮代表我的心"
    assert "[00:01.00] 月亮代表我的心" in win.view._original_texts()[0]
    assert "月亮代表我的心" in win.original_panel.text.toPlainText()
    win.view.set_cursor(0, 0)
    win.type_chars("星星照亮你的路")
    answers.save_path = str(tmp_path / "new.lrc")
    win.files.file_export()
    assert "[00:01.00]星星照亮你的路" in (tmp_path / "new.lrc").read_text("utf-8")
    win.use_form("七绝")                  # four lines no longer sung to the song's three
    assert win.view._original_texts() == [""] * 4


def test_import_plain_lyrics_by_paste(win, answers):
    answers.text = "Twinkle twinkle little star,\nHow I wonder what you are.\n"
    win.files.paste_lyrics()
    assert win.doc.lang == "en" and len(win.doc.template.lines) == 2
    assert win.doc.original.kind == "lyrics"


def test_save_reopen_round_trip(win, qtbot, tmp_path, answers):
    zh_win(win)
    win.type_chars("白日依山尽")
    win.toggle_lock([(0, 0), (0, 1)])
    win.set_content(["登高"])
    answers.save_path = str(tmp_path / "poem")
    assert win.files.file_save_as()
    path = tmp_path / "poem.song"
    assert path.exists() and not win.isWindowModified() and win.session.history.is_clean()
    data = json.loads(path.read_text("utf-8"))
    assert data["schema_version"] == D.SCHEMA_VERSION and data["content"] == ["登高"]
    other = make_window(qtbot)
    assert other.files.open_path(str(path))
    assert other.doc.lines[0] == "白日依山尽，"
    assert [s.lock for s in other.doc.template.lines[0].slots[:2]] == ["白", "日"]
    assert other.windowTitle().startswith("poem.song")
    from songwriter.ui import settings
    assert settings.recent_files()[0] == str(path.resolve())


@pytest.mark.parametrize("content, needle", [
    ("{not json", "not valid JSON"),
    ('{"format": "songwriter-project", "schema_version": 99, "template": {}}', "newer Songwriter"),
    ('{"schema_version": 1, "template": {"lines": "x"}}', "malformed"),
])
def test_bad_files_give_a_message_and_change_nothing(win, tmp_path, answers, content, needle):
    zh_win(win)
    win.type_chars("白日")
    before = win.doc.to_dict()
    p = tmp_path / "bad.song"
    p.write_text(content, "utf-8")
    answers.save_changes = "discard"
    assert not win.files.open_path(str(p))
    assert answers.warnings and needle in answers.warnings[-1][1]
    after = win.doc.to_dict()
    assert after["text"] == before["text"] and after["template"] == before["template"]
    assert p.read_text("utf-8") == content


def test_export_every_format(win, tmp_path, answers):
    zh_win(win)
    win.type_chars("白日依山尽黄河入海流欲穷千里目更上一层楼")
    for fmt in ("txt", "md", "pdf", "png", "json"):
        answers.save_path = str(tmp_path / f"out.{fmt}")
        win.files.file_export()
        assert (tmp_path / f"out.{fmt}").stat().st_size > 0, fmt
    answers.save_path = str(tmp_path / "out.lrc")
    win.files.file_export()   # no timestamps: a clear message, no file
    assert "no timestamps" in answers.warnings[-1][1]
    assert not (tmp_path / "out.lrc").exists()


def test_the_status_bar_says_what_just_happened(win, tmp_path, answers):
    """The status kept "Form: 七律… Your text is kept" after Ctrl+Z had put the 七绝 back, said
    nothing of a new rhyme scheme, and "Exported ….json" after an export that failed."""
    zh_win(win)
    status = win.statusBar().currentMessage
    win.use_form("七律")
    assert status().startswith("Form: 七律")
    win.undo()
    assert win.doc.template.name.startswith("五绝") and status() == "Undone: Use form 七律·平起·首句入韵"
    win.redo()
    assert status() == "Redone: Use form 七律·平起·首句入韵"
    win.undo()
    win.set_scheme("AABA")
    assert status() == "Rhyme scheme: AABA"
    win.type_chars("白日")                    # a change with nothing to say: what was said before goes
    assert status() == ""
    answers.save_path = str(tmp_path / "out.json")
    win.files.file_export()
    assert status() == "Exported out.json"
    answers.save_path = str(tmp_path / "out.lrc")
    win.files.file_export()                  # no timestamps: refused
    assert status() == "Cannot export" and not (tmp_path / "out.lrc").exists()


def test_export_takes_the_chosen_format_where_suffixes_are_shared(win, tmp_path, answers):
    from songwriter.export import FORMATS
    from songwriter.ui.i18n import tr

    zh_win(win)
    win.type_chars("白日依山尽黄河入海流欲穷千里目更上一层楼")
    answers.save_path = str(tmp_path / "sheet.pdf")
    answers.export_filter = f"{tr(FORMATS['sheet.pdf'])} (*.sheet.pdf)"
    win.files.file_export()       # a lead sheet was asked for: this piece has no melody
    assert "no melody" in answers.warnings[-1][1] and not (tmp_path / "sheet.pdf").exists()
    answers.export_filter = f"{tr(FORMATS['pdf'])} (*.pdf)"
    win.files.file_export()       # the text page
    assert (tmp_path / "sheet.pdf").read_bytes().startswith(b"%PDF")


def test_autosave_and_recovery_after_a_crash(qtbot, answers, tmp_path):
    from songwriter.ui import settings

    win = make_window(qtbot)
    zh_win(win)
    win.type_chars("白日依山尽")
    assert win.files.autosave()
    rec = settings.recovery_file()
    assert rec.exists()
    # a crash: the process is gone, its autosave stays behind under a dead pid
    dead = settings.recovery_dir() / "autosave-999999.song"
    os.replace(rec, dead)
    win.session.set_clean()
    answers.recover = "recover"
    fresh = make_window(qtbot)
    assert fresh.files.offer_recovery()
    assert fresh.doc.lines[0] == "白日依山尽，" and fresh.isWindowModified()
    assert not dead.exists()
    # saving clears the recovery file
    answers.save_path = str(tmp_path / "kept.song")
    assert fresh.files.file_save_as()
    assert not settings.recovery_file().exists()


def test_recovery_can_be_discarded(qtbot, answers):
    from songwriter.ui import settings

    settings.recovery_dir().mkdir(parents=True)
    doc = D.new_document(named_form("五绝"))
    doc.set_text("白日依山尽，")
    (settings.recovery_dir() / "autosave-999998.song").write_text(doc.to_json(), "utf-8")
    answers.recover = "discard"
    win = make_window(qtbot)
    assert not win.files.offer_recovery()
    assert not list(settings.recovery_dir().glob("*.song"))
    assert win.doc.lines[0] == ""


def test_close_asks_to_save(qtbot, answers):
    win = make_window(qtbot)
    zh_win(win)
    win.type_chars("白")
    answers.save_changes = "cancel"
    assert not win.close()
    answers.save_changes = "discard"
    assert win.close()


def test_english_words_syllables_and_word_locks(win, qtbot):
    win.use_form("Shakespearean sonnet")
    win.view.set_cursor(0, 0)
    qtbot.keyClick(win.view, Qt.Key_S)   # typing opens the line editor
    assert win.view.editing_inline
    win.view.inline.setText("Shall I compare thee to a summer's day?")
    qtbot.keyClick(win.view.inline, Qt.Key_Return)
    assert win.doc.lines[0] == "Shall I compare thee to a summer's day?"
    row = win.view.rows[0]
    words = [u for u in row.units if u.kind == "word"]
    assert [u.syllables for u in words] == [1, 1, 2, 1, 1, 1, 2, 1]
    win.view.set_cursor(0, 2)
    win.action_toggle_lock()
    assert any(s.lock == "compare" and s.span == 2 for s in win.doc.template.lines[0].slots)
    win.action_toggle_lock()
    assert [s.tone for s in win.doc.template.lines[0].slots] == list("x/x/x/x/x/")


def test_ui_language_chinese(qtbot, answers):
    from songwriter.ui.i18n import set_language
    from songwriter.ui.mainwindow import MainWindow

    set_language("zh")
    try:
        win = MainWindow(autosave_seconds=3600)
        qtbot.addWidget(win)
        assert win.actions["generate"].text().startswith("生成")
        assert win.docks["form"].windowTitle() == "格律"
        kind = win.form_panel.kind
        assert [kind.itemText(i) for i in range(kind.count())] == ["诗", "词", "曲", "歌词", "新诗·诗歌"]
        win.use_form("浣溪沙")
        assert kind.currentText() == "词" and "默认韵书" in kind.toolTip()
        win.set_ui_language("en")
        from songwriter.ui import settings
        assert settings.get("language") == "en"
    finally:
        set_language("en")


def test_screenshot_command(qtbot, answers, tmp_path):
    from PySide6.QtGui import QImage
    from songwriter.ui import app as app_mod

    doc = D.new_document(named_form("五绝"))
    doc.set_text("白日依山尽，\n黄河入海流。")
    song = tmp_path / "p.song"
    D.save(doc, song)
    out = tmp_path / "shot.png"
    assert app_mod.main(["main.py", "--screenshot", str(out), "--open", str(song), "--size", "1000x700"]) == 0
    img = QImage(str(out))
    assert img.width() == 1000 and img.height() == 700


def test_context_menu_and_menus_use_the_shared_actions(win):
    zh_win(win)
    menu = win.editor_context_menu(win.view)
    names = {a.objectName() for a in menu.actions() if a.objectName()}
    assert {"action_toggle_lock", "action_toggle_line_lock", "action_regenerate", "action_insert_line_below"} <= names
    titles = [a.text() for a in menu.actions() if a.menu() is not None]
    assert any("Rhyme" in t for t in titles) and any("Tone" in t for t in titles)
    tone_menu = win.actions.menus["tone"]
    assert [a.text() for a in tone_menu.actions()][:2] == ["平 (level)", "仄 (oblique)"]
    win.use_form("sonnet")
    assert "stressed" in tone_menu.actions()[0].text()
    assert win.actions["generate"].shortcut().toString() == "Ctrl+G"
    assert win.actions["toggle_lock"].shortcut().toString() == "Ctrl+L"


def test_preferences_are_kept_in_qsettings(win, qtbot):
    from songwriter.ui import settings
    from songwriter.ui.prefs import PreferencesDialog

    dlg = PreferencesDialog(win)
    from songwriter.engine.decode import LINE_CHOICES
    assert dlg.line_choices.value() == LINE_CHOICES     # the app's default is the decoder's
    dlg.n.setValue(3)
    dlg.seed.setText("42")
    dlg.autosave.setValue(30)
    dlg.line_choices.setValue(2)
    dlg._accept()
    assert settings.get("candidates") == 3 and settings.get("autosave_seconds") == 30
    from songwriter.ui.generating import sampling_from_settings
    assert sampling_from_settings().seed == 42 and sampling_from_settings().n == 3
    assert sampling_from_settings().line_choices == 2
    gen = win.session.generation(None, sampling_from_settings(), steering=False)
    assert gen.request.line_choices == 2


def test_history_restore_is_undoable(win):
    zh_win(win)
    win.type_chars("白日依山尽")
    win.doc.remember("test")
    win.view.set_cursor(0, 0)
    win.type_chars("青")
    win.history_panel.refresh()
    when, text = plain(win.history_panel.list.item(0).text()).split("\n")    # newest first
    assert when.endswith(" · test") and text == "白日依山尽，"        # when and what, the text on a line of its own
    win.restore_history(len(win.doc.history) - 1)
    assert win.doc.lines[0] == "白日依山尽，"
    win.undo()
    assert win.doc.lines[0].startswith("青")


def test_tooltips_name_the_problems(win):
    zh_win(win)
    win.set_line_text(0, "白日依山尽尽，")
    win.run_checks()
    y = win.view.rows[0].units[0].rect.center().y()
    from PySide6.QtCore import QPointF
    tip = win.view.tooltip_at(QPointF(34, y))
    assert "Line 1" in tip and "length" in tip
    cell_tip = win.view.tooltip_at(win.view.rows[0].units[1].rect.center())
    assert "Slot 2" in cell_tip


def test_a_refrain_line_is_marked_and_its_problem_named(win):
    from PySide6.QtCore import QPointF

    assert win.files.import_song("Home on the range\nWhere the deer play\nHome on the range\n", "lyrics", "")
    assert win.doc.template.lines[2].repeats == 0
    row = win.view.rows[2]
    assert row.refrain_rect is not None and win.view.rows[0].refrain_rect is None
    assert "line 1" in win.view.tooltip_at(row.refrain_rect.center())
    win.set_line_text(0, "Love on the hill")
    assert win.doc.lines[2] == "Love on the hill"          # written in its refrain too
    win.doc.lines[2] = "Love on the bay"                    # as an old file could have it
    win.run_checks()
    tip = win.view.tooltip_at(QPointF(34, row.refrain_rect.center().y()))
    assert "repeats line 1" in tip and "refrain" in tip


def test_every_ui_string_has_a_chinese_translation():
    import glob
    import re
    from pathlib import Path

    from songwriter.export import FORMATS
    from songwriter.ui import actions
    from songwriter.ui.i18n import ZH

    strings = set(FORMATS.values())
    for row in actions.SPEC:
        strings |= {v for v in (row[1], row[5]) if v}
    ui = Path(actions.__file__).parent
    # the window's own strings, and the session's notes (shown through tr)
    sources = sorted(glob.glob(str(ui / "*.py"))) + [str(ui.parent / "session.py"), str(ui.parent / "recovery.py")]
    for f in sources:
        for m in re.finditer(r'(?:\btr|\bnote|\bN_|\bNote)\(\s*((?:"(?:[^"\\]|\\.)*"\s*)+|\'[^\']*\')[,)]',
                             Path(f).read_text("utf-8")):
            strings.add(eval("(" + m.group(1) + ")"))
    from songwriter.ui.wording import FEET, FORM_PATTERNS, KINDS, PATTERNS, RULES
    strings |= {text for _, text in PATTERNS + FORM_PATTERNS + RULES} | set(KINDS.values()) | set(FEET.values())
    assert sorted(s for s in strings if s not in ZH) == []


def label_lines(label) -> list[str]:
    """The lines a wrapped label shows its text in, at its width (as QLabel lays it out)."""
    from PySide6.QtGui import QTextLayout, QTextOption

    layout = QTextLayout(label.text(), label.font())
    option = QTextOption()
    option.setWrapMode(QTextOption.WrapAtWordBoundaryOrAnywhere)
    layout.setTextOption(option)
    layout.beginLayout()
    lines = []
    while (line := layout.createLine()).isValid():
        line.setLineWidth(label.contentsRect().width())
        lines.append(plain(label.text()[line.textStart():line.textStart() + line.textLength()]))
    layout.endLayout()
    return lines


@pytest.mark.parametrize("size", [(1100, 700), (1600, 1000)])
def test_the_header_wraps_between_its_facts_never_inside_one(win, qtbot, size):
    """At 1100x700 the header of an imported song read "… · 中 / 华新韵": a fact is never cut."""
    win.resize(*size)
    assert win.files.import_song("[00:01.00]好一朵美丽的茉莉花\n[00:06.00]好一朵美丽的茉莉花\n"
                                 "[00:11.00]芬芳美丽满枝桠\n", "lrc", "茉莉花.lrc")
    qtbot.wait(50)
    label = win.form_label
    facts = plain(label.text()).replace("\n", " · ").split(" · ")       # broken between facts, no dot left
    assert facts == ["Tune of 茉莉花", "3 lines", "25 characters", "中华新韵"]
    assert label.accessibleName() == " · ".join(facts)
    widest = max(label.fontMetrics().horizontalAdvance(f) for f in facts)
    for width in (label.contentsRect().width(), 2 * widest, widest + 8):    # any width a fact fits in
        label.resize(width, label.height())
        for line in label_lines(label):
            assert all(bit.strip(" ·\n") in facts for bit in line.split(" · ") if bit.strip(" ·\n")), (width, line)


def test_another_piece_shows_its_title_even_with_the_title_field_in_focus(win, qtbot, answers, tmp_path):
    """The app starts with the focus in the title field; a piece opened or imported from there
    showed the placeholder "Title" over a titled piece."""
    win.title_edit.setFocus()
    qtbot.waitUntil(win.title_edit.hasFocus)
    doc = D.new_document(named_form("五绝"), title="春晓")
    path = tmp_path / "chunxiao.song"
    path.write_text(doc.to_json(), encoding="utf-8")
    assert win.files.open_path(str(path))
    assert win.title_edit.hasFocus() and win.title_edit.text() == "春晓"
    win.title_edit.setText("half typed")
    win.files.file_new()
    assert win.doc.title == "" and win.title_edit.text() == ""


def test_the_words_header_keeps_each_fact_whole(win, qtbot):
    """The Words panel's header read "rhyme A (上平五 / 微)" at 1100x700."""
    win.resize(1100, 700)
    win.use_form("七绝")
    win.doc.set_text("春风三月雪初飞，\n吹到梧桐院落晖。\n")
    win.doc_changed()
    win.run_checks()
    header = win.suggestions.slot_constraints(1, 6)
    facts = plain(header).split(" · ")
    assert facts[0] == "Line 2, slot 7" and facts[-1].startswith("rhyme A (") and facts[-1].endswith(")")
    label = win.words_panel.header
    label.setText(header)
    widest = max(label.fontMetrics().horizontalAdvance(f) for f in facts)
    for width in (label.contentsRect().width(), widest + 8):
        label.resize(width, label.height())
        for line in label_lines(label):
            assert all(bit.strip(" ·\n") in facts for bit in line.split(" · ") if bit.strip(" ·\n")), (width, line)


def test_the_refrain_menu_makes_the_cursor_line_repeat_an_earlier_one(win):
    assert win.files.import_song("Home on the range\nWhere the deer play\nOn a hill far away\n", "lyrics", "")
    win.set_line_text(0, "Love in the hills")
    win.view.set_cursor(2, 0)
    menu = win.actions.menus["refrain"]
    win.actions.fill_refrain_menu()
    texts = [a.text() for a in menu.actions()]
    assert texts == ["Not a refrain", "Repeats line 1", "Repeats line 2"] and menu.actions()[0].isChecked()
    menu.actions()[1].trigger()
    assert win.doc.template.lines[2].repeats == 0 and win.doc.lines[2] == "Love in the hills"
    assert win.doc.template.lines[2].syllables == 4 and win.view.rows[2].refrain_rect is not None
    win.actions.fill_refrain_menu()
    assert menu.actions()[1].isChecked()
    menu.actions()[0].trigger()
    assert win.doc.template.lines[2].repeats is None


def test_the_original_song_panel_keeps_the_verses_apart(win):
    song = "Oh the river runs so wide\nAnd the boat is on the tide\n\nI will wait here by the shore\nTill she comes to me once more\n"
    assert win.files.import_song(song, "lyrics", "river.txt")
    assert [ln.stanza for ln in win.doc.template.lines] == [0, 0, 1, 1]
    shown = win.original_panel.text.toPlainText()
    assert shown == ("Oh the river runs so wide\nAnd the boat is on the tide\n\n"
                     "I will wait here by the shore\nTill she comes to me once more"), shown


def test_an_english_writers_own_mark_is_not_red(win):
    win.use_form("Shakespearean sonnet")
    win.set_line_text(0, "Shall I compare thee to a summer's day?")      # the form has a comma there
    states = {mark: state for _rect, mark, state in win.view.rows[0].puncts}
    assert states == {"?": "text"}, states


def test_at_1024_the_header_wraps_cleanly_the_tabs_fit_and_the_gutter_stays(qtbot, answers):
    from PySide6.QtCore import QPointF

    from songwriter.ui.chrome import tabs_width
    from songwriter.ui.wording import plain

    win = make_window(qtbot)
    win.use_form("Shakespearean sonnet")
    for i, text in enumerate(["Shall I compare thee to a summer's day?", "Thou art more lovely and more temperate:",
                              "Rough winds do shake the darling buds of May,"]):
        win.set_line_text(i, text)
    win.docks["original"].show()
    win.docks["original"].raise_()
    win.resize(1024, 700)
    qtbot.waitUntil(lambda: win.form_label.width() < 400)
    header = [plain(x).strip() for x in win.form_label.text().split("\n")]
    assert len(header) > 1 and not any(x.endswith("·") or x.startswith("·") for x in header), header
    left = win.docks["form"].widget().widget()
    assert left.minimumWidth() >= tabs_width(["Form", "Original Song", "History"])
    bar = win.scroll.horizontalScrollBar()
    qtbot.waitUntil(lambda: bar.maximum() > 0)
    bar.setValue(bar.maximum())
    shift = win.view.gutter_shift()
    assert shift == bar.maximum()
    y = win.view.rows[0].y + win.view.rows[0].h / 2
    assert win.view.tooltip_at(QPointF(shift + 10, y)).startswith("Click to lock")    # the lock, still there
    assert "Line 1" in win.view.tooltip_at(QPointF(shift + 40, y))

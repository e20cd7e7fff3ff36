"""What a writer hit in the window (issue 13), one test each: rhyme suggestions, the default
piece, comparing candidates, changing the form, importing, Help, room at 1100x700 and 1600x1000,
the UI's language, and the small things."""

import pytest
from PySide6.QtCore import Qt

from test_ui_support import POEM, answers, double_loader, engine, make_window, wait_idle  # noqa: F401  (fixtures)
from songwriter.ui.wording import plain


@pytest.fixture
def win(qtbot, answers, engine):
    return make_window(qtbot, loader=double_loader(engine))


def generate(win, qtbot):
    win.action_generate()
    wait_idle(qtbot, win)


def test_rhyme_suggestions_get_the_piece_as_it_stands(win, qtbot, engine):
    """The window hands the facade the template and the text, written and locked alike, so the
    facade (which alone decides what is context) sees the other rhyme lines."""
    win.use_form("五绝")
    win.doc.set_text(POEM)
    win.doc_changed()
    win.toggle_line_lock([1])
    win.set_line_text(1, "")        # line 2 only locked, line 4 only written
    win.docks["words"].show()
    win.docks["words"].raise_()
    win.view.set_cursor(3, 4)
    win.suggestions.action_suggest()                     # loads the engine, then asks it
    qtbot.waitUntil(lambda: bool(engine.suggestions) and engine.suggestions[-1] == (3, 4), timeout=10000)
    template, text = engine.suggest_context[-1]
    assert template.lines[1].slots[4].lock == "流"             # the locks travel in the template
    assert text.split("\n")[3] == "更上一层楼。"                # and the written text as it stands


def test_facade_rhyme_slot_lists_only_the_rhyme_group():
    pytest.importorskip("torch")
    from helpers.tiny_model import make_tiny_model

    import tempfile

    from songwriter.engine.api import load_engine
    from songwriter.prosody import chinese
    from songwriter.template import parse_notation

    engine = load_engine(make_tiny_model(tempfile.mkdtemp()))
    t = parse_notation("_____，\n____流。@A\n_____，\n_____。@A")
    system = t.effective_rhyme_system()
    want = chinese.rhyme_groups("流", 0, system)
    # the other rhyme line only locked (no text): the list keeps to its group
    locked = t.copy()
    got = engine.suggest(locked, "", 3, 4, k=10)
    assert got and all(chinese.rhyme_groups(ch, 0, system) & want for ch, _ in got)
    # nothing written on the other rhyme line yet: still only characters of a rhyme group
    free = parse_notation("_____，\n_____。@A\n_____，\n_____。@A")
    got = engine.suggest(free, "_____，\n_____。\n_____，\n_____。", 3, 4, k=10)
    assert got and all(chinese.rhyme_groups(ch, 0, system) for ch, _ in got)


def test_the_default_new_piece_can_be_generated(win, qtbot, engine):
    assert win.doc.template.name.startswith("七绝") and win.doc.lang == "zh"
    assert win.actions["generate"].isEnabled() and not win.language_note.isVisible()
    generate(win, qtbot)
    assert win.doc.candidates


def test_a_language_without_a_model_is_said_before_generating(qtbot, answers):
    win = make_window(qtbot)                 # models/zh installed, no English model
    win.use_form("Shakespearean sonnet")
    assert not win.actions["generate"].isEnabled()
    why = win.candidates_panel.notice.text()
    assert win.candidates_panel.notice.isVisible()
    # in plain words, with what to do instead
    assert "No English model is installed" in why and "choose a Chinese form (七绝" in why and "models/en" in why
    assert win.actions["generate"].toolTip() == why.removeprefix("⚠ ")
    assert "No English model" in win.language_note.text()
    assert win.engine_host.state == "unloaded"       # known without loading the engine
    win.use_form("七绝")
    assert win.actions["generate"].isEnabled() and not win.candidates_panel.notice.isVisible()


def test_candidates_are_shown_whole_with_differences_and_a_readable_rating(win, qtbot):
    win.use_form("五绝")
    win.doc.set_text(POEM)
    win.doc_changed()
    win.toggle_line_lock([0])
    win.toggle_line_lock([1])
    generate(win, qtbot)
    panel = win.candidates_panel
    first = panel.shown(0)
    assert len(first.lines) == 4                           # whole, line by line
    assert first.header.startswith("1. ★★★★★") and "−" not in first.header and "-1" not in first.header
    assert panel.shown(7).header.startswith("8. ★☆☆☆☆")
    changed = [[c for _, c in runs] for runs in panel.shown(1).lines]
    assert not any(changed[0]) and all(changed[2])          # the kept line is not marked, the new one is
    assert panel.list.currentRow() == 0                     # the one in the editor is highlighted
    win.action_generate()
    wait_idle(qtbot, win)
    assert panel.list.currentRow() == 0 and win.doc.lines[2] == win.doc.candidates[0].lines[2]
    panel.list.setCurrentRow(3)
    panel.list.setFocus()
    qtbot.keyClick(panel.list, Qt.Key_Return)
    assert panel.list.currentRow() == 3
    assert "Previewing" not in win.statusBar().currentMessage()


def test_changing_the_form_keeps_locks_and_marks_old_candidates(win, qtbot):
    win.use_form("五绝")
    generate(win, qtbot)
    win.toggle_lock([(0, 0), (1, 1)])
    win.use_form("七绝")
    assert [win.doc.template.lines[i].slots[k].lock for i, k in ((0, 0), (1, 1))] == ["云", "云"]
    assert win.statusBar().currentMessage().endswith("Your text and its 2 locks are kept")
    panel = win.candidates_panel
    assert not panel.shown(0).fits_form and "another form" in panel.shown(0).header
    assert "✓" not in panel.shown(0).header
    panel.list.setCurrentRow(2)
    assert win.view.preview is None and "another form" in win.statusBar().currentMessage()
    before = list(win.doc.lines)
    win.apply_candidate(2)
    assert win.doc.lines == before
    win.use_form("五律")
    assert "Not everything fits" in win.statusBar().currentMessage() or "kept" in win.statusBar().currentMessage()


def test_a_form_changed_away_from_its_name_is_not_shown_under_it(win, qtbot):
    """After a new rhyme scheme the candidates said "for another form: 七绝·平起·首句入韵" (the
    piece's own form) and a 5-line notation kept the header "七绝·平起·首句入韵 · 5 lines"."""
    from songwriter.template import format_notation

    name = "七绝·平起·首句入韵"
    win.use_form("七绝")
    generate(win, qtbot)
    panel = win.candidates_panel
    assert plain(win.form_label.text()).startswith(name + " · 4 lines")
    win.set_scheme("AABA")
    assert plain(win.form_label.text()).startswith(name + " (changed) · 4 lines")
    state = panel.shown(0).header.split(" · ", 2)[-1]
    assert state == "for this form before it was changed: rhyme scheme AA-A"
    panel.list.setCurrentRow(0)
    assert "before it was changed: rhyme scheme AA-A. Change the form back" in win.statusBar().currentMessage()
    win.undo()                                               # the form as named again: they fit
    assert plain(win.form_label.text()).startswith(name + " · ") and panel.shown(0).fits_form
    win.use_form("五绝")
    assert panel.shown(0).header.endswith("for another form: " + name)
    win.undo()
    lines = format_notation(win.doc.template).rstrip("\n").split("\n")
    win.form_panel.notation.setPlainText("\n".join(lines + [lines[-1]]))      # a fifth line
    win.form_panel._notation_dirty = True
    win.form_panel._apply_notation()
    assert len(win.doc.template.lines) == 5 and win.doc.template.name == name
    assert plain(win.form_label.text()).startswith(name + " (changed) · 5 lines")
    assert panel.shown(0).header.endswith("for this form before it was changed: 4 lines")
    generate(win, qtbot)                                     # written for the changed form
    win.use_form("七绝")                                      # 七绝 as named again
    k = next(k for k, c in enumerate(win.doc.candidates) if len(c.lines) == 5)
    assert panel.shown(k).header.endswith("for another version of this form: 5 lines")


def test_importing_lyrics_opens_a_new_piece_after_asking(win, answers, tmp_path):
    win.use_form("五绝")
    win.type_chars("白日")
    win.doc.remember("mine")
    answers.save_changes = "cancel"
    answers.text = "月亮代表我的心\n你问我爱你有多深\n"
    win.files.paste_lyrics()
    assert win.doc.lines[0].startswith("白日")              # asked, cancelled: nothing replaced
    answers.save_changes = "discard"
    win.files.paste_lyrics()
    assert win.doc.original is not None and win.doc.history == []   # its own history
    assert len(win.session.history) == 0 and not win.is_modified()


def test_an_english_relyric_shows_its_stresses_and_the_marks_inside_its_lines(win, answers):
    answers.save_changes = "discard"
    answers.text = "O God, our help in ages past,\nOur hope for years to come,\n"
    win.files.paste_lyrics()
    row = win.view.rows[0]
    empties = [u for u in row.units if u.kind == "empty"]
    assert len(empties) == 8 and [u.tones[0] for u in empties] == list("x/x/x/x/")
    marks = [(rect.x(), mark) for rect, mark, _ in row.puncts]
    assert [m for _, m in marks] == [",", ","]           # after "God", and the line's own
    assert empties[1].rect.right() < marks[0][0] < empties[2].rect.left()


def test_help_has_the_guide_notation_shortcuts_and_credits(win):
    names = [a.objectName() for a in win.menuBar().actions()[-1].menu().actions()]
    for name in ("action_user_guide", "action_notation_help", "action_shortcuts_help", "action_models_help"):
        assert name in names
    guide = win.action_user_guide()
    assert "user guide" in guide.browser.toPlainText().lower()
    assert "notation" in win.action_notation_help().browser.toPlainText().lower()
    keys = win.action_shortcuts_help().browser.toPlainText()
    assert "Ctrl+G" in keys and "Ctrl+L" in keys
    credits = win.action_models_help().browser.toPlainText()
    assert "Tatoeba" in credits and "TinyStories" in credits and "songwriter-zh" in credits


def test_the_shortcuts_list_the_keys_of_a_keyboard(win):
    """The list read "Ctrl+N, New" and "Ctrl+Shift+S, Shift+Save": the standard shortcuts' media keys."""
    import re

    from songwriter.ui.help import shortcuts_html

    rows = dict((text, keys) for keys, text in re.findall(r"<tr><td><b>(.*?)</b></td><td>(.*?)</td>",
                                                         shortcuts_html(win.actions)))
    assert rows["New"] == "Ctrl+N" and rows["Save As…"] == "Ctrl+Shift+S" and rows["Save"] == "Ctrl+S"
    media = {"New", "Open", "Save", "Undo", "Redo"}
    assert [keys for keys in rows.values() if media & {k.split("+")[-1] for k in keys.split(", ")}] == []


def test_a_long_status_message_ends_before_the_counts(win, qtbot):
    """At 1024 px the message ran into the counts: "… for each of the 4 l3/5 lines fit"."""
    win.resize(1024, 700)
    win.time_label.setText("0.7 s per generation")
    win.use_form("五绝")
    win.doc.set_text("白日依山尽，\n黄河入海流。\n")
    win.doc_changed()
    win.run_checks()
    win.status_hint("The rhyme scheme needs one letter (or -) for each of the 4 lines" + ", and some more words" * 12)
    qtbot.wait(50)
    bar = win.statusBar()
    shown = bar.shown_message()
    assert bar.currentMessage().startswith("The rhyme scheme needs")        # the whole message is kept
    assert shown.endswith("…") and bar.currentMessage().startswith(shown[:-1])
    assert bar.currentMessage()[len(shown) - 1] == " "                     # cut between words
    end = bar.message_rect().left() + bar.fontMetrics().horizontalAdvance(shown)
    assert end + bar.GAP // 2 <= win.check_label.x() and win.check_label.isVisible()


@pytest.mark.parametrize("size", [(1100, 700), (1600, 1000)])
def test_the_window_has_room_at_both_sizes(win, qtbot, size, tmp_path):
    from PySide6.QtWidgets import QTabBar

    win.use_form("鹧鸪天")
    win.resize(*size)
    qtbot.wait(50)
    assert (win.width(), win.height()) == size
    for bar in win.findChildren(QTabBar):
        if bar.isVisible():
            for i in range(bar.count()):
                assert bar.tabRect(i).width() >= bar.fontMetrics().horizontalAdvance(bar.tabText(i)), bar.tabText(i)
    combo = win.form_panel.rhyme_system
    assert "Default for the form" not in combo.currentText() and "(default)" in combo.currentText()
    assert win.form_panel.list.wordWrap() and win.form_panel.list.textElideMode() == Qt.ElideNone
    tb = win.findChild(type(win.findChildren(__import__("PySide6.QtWidgets", fromlist=["QToolBar"]).QToolBar)[0]))
    button = tb.widgetForAction(win.actions["toggle_line_lock"])
    assert button.toolButtonStyle() != Qt.ToolButtonIconOnly and button.text() == "Lock Line"
    # a visible tab bar is one in use, right under its dock (none left over across a panel)
    docks = [d for d in win.docks.values() if d.isVisible()]
    for bar in win.findChildren(QTabBar, options=Qt.FindDirectChildrenOnly):
        if bar.isVisible():
            assert any(bar.x() == d.x() and abs(bar.y() - (d.y() + d.height())) <= 2 for d in docks)
    # each choice of the Form panel shown whole; the Steering panel's note keeps all its lines
    fp = win.form_panel
    for combo in (fp.kind, fp.rhyme_system, fp.tone_system):
        assert combo.width() >= combo.fontMetrics().horizontalAdvance(combo.currentText()) + 16, combo.currentText()
    win.docks["steering"].raise_()
    qtbot.wait(50)
    note = win.steering_panel.note
    assert note.text() and note.height() >= note.heightForWidth(note.width())
    # a 七言 line whole in the editor: the cells take the width there is
    from songwriter.ui.editor_layout import MIN_CELL, ZH_CELL

    win.use_form("七绝")
    win.doc.set_text("白日依山尽入海，\n黄河入海流千里。\n欲穷千里目依山，\n更上一层楼入海。")
    win.doc_changed()
    qtbot.wait(50)
    port = win.scroll.viewport().width()
    assert all(row.right <= port for row in win.view.rows), (port, [r.right for r in win.view.rows])
    assert win.view.cell >= (MIN_CELL if size[0] == 1100 else ZH_CELL)
    assert win.view.cell_font.pixelSize() > 15
    # English words shrink (within limits) so a sonnet's lines fit, on a first start at this size
    from songwriter.ui import chrome
    from songwriter.ui.editor_layout import MIN_EN_SCALE

    chrome.fit_docks(win, win.width())
    win.use_form("Shakespearean sonnet")
    for i, text in enumerate(["Shall I compare thee to a summer's day?", "Thou art more lovely and more temperate:",
                              "Rough winds do shake the darling buds of May,"]):
        win.set_line_text(i, text)
    qtbot.wait(50)
    port = win.scroll.viewport().width()
    assert all(row.right <= port for row in win.view.rows), (port, [r.right for r in win.view.rows])
    assert win.scroll.horizontalScrollBar().maximum() == 0
    assert win.view.word_scale >= MIN_EN_SCALE and (size[0] == 1100 or win.view.word_scale == 1.0)


def test_user_facing_strings_name_things_as_a_writer_knows_them(qtbot, answers):
    from songwriter.ui.i18n import set_language
    from songwriter.ui.wording import problem_text

    assert problem_text("does not rhyme with line 2 (rhyme A, shisanzhe)") == \
        "does not rhyme with line 2 (rhyme A, 十三辙)"
    assert problem_text("does not rhyme with lines 2, 4 (rhyme A, shisanzhe)").startswith("does not rhyme with lines 2, 4")
    # counts as the checks give them, singular included (checks.py uses wording.plural)
    from songwriter.checks import check
    from songwriter.forms import named_form

    [problem] = [p.message for p in check("床前明月光，\n", named_form("五绝")).problems]
    assert problem == "1 line, the template has 4" and problem_text(problem) == "1 line, the form has 4"
    assert problem_text("1 character, the template wants 7") == "1 character, the form wants 7"
    assert problem_text("9/10 syllables, the template wants 8") == "9/10 syllables, the form wants 8"
    from songwriter.ui.wording import counted

    assert counted("{n} syllable(s) left in the line", 1, n=1) == "1 syllable left in the line"
    assert counted("{n} problem(s)", 3, n=3) == "3 problems"
    set_language("zh")
    try:
        assert "十三辙" in problem_text("does not rhyme with lines 2, 4 (rhyme A, shisanzhe)")
        assert "shisanzhe" not in problem_text("does not rhyme with lines 2, 4 (rhyme A, shisanzhe)")
        assert counted("{n} syllable(s) left in the line", 1, n=1) == "本行还剩 1 个音节"
        from songwriter.ui.mainwindow import MainWindow

        win = MainWindow(autosave_seconds=3600)
        qtbot.addWidget(win)
        assert win.files.import_song("[00:01.00]晚风轻轻吹\n[00:03.00]吹过我的脸\n", "lrc", "晚风.lrc")
        assert "Tune of" not in win.doc.template.name and "晚风" in win.doc.template.name
        from songwriter.export.paint import blocks       # what the PNG card and the PDF print

        printed = " ".join(b.text for b in blocks(win.doc))
        assert "晚风 曲" in printed and "Tune of" not in printed
        assert win.actions["user_guide"].text().startswith("用户指南")
        # every form's description in the form list is in Chinese (词牌 included)
        import re

        win.form_panel.fill_forms()
        texts = [win.form_panel.list.item(k).text() for k in range(win.form_panel.list.count())]
        assert any("词牌，9 句，55 字" in t for t in texts)
        assert [t for t in texts if re.search(r"[a-z]{3,}", t.split("\n", 1)[1])] == []
        # a Chinese piece counts 字, an English one 音节; Stop Preview only while previewing
        assert "字" in plain(win.form_label.text())
        win.use_form("Shakespearean sonnet")
        assert "140 个音节" in plain(win.form_label.text()) and "字" not in plain(win.form_label.text())
        assert not win.candidates_panel.clear_preview.isEnabled()
    finally:
        set_language("en")


def test_the_chinese_ui_says_the_cores_errors_qts_buttons_and_its_help_in_chinese(qtbot, answers, tmp_path):
    """In the Chinese UI an export refusal, a notation error, the check summary's tooltip, Qt's
    OK/Cancel and the user guide were in English (and the guide did not say it has no Chinese)."""
    import re

    from PySide6.QtWidgets import QDialogButtonBox

    from songwriter.export import ExportError, export
    from songwriter.template import TemplateError, parse_notation
    from songwriter.ui.app import install_qt_translations
    from songwriter.ui.i18n import set_language
    from songwriter.ui.wording import core_text

    def english(text):          # English words left (names such as LRC, txt or mm:ss aside)
        return re.findall(r"\b(?!LRC|lrc|txt|md|pdf|mm|ss|xx)[A-Za-z]{3,}\b", text)

    set_language("zh")
    try:
        from songwriter.ui.mainwindow import MainWindow

        win = MainWindow(autosave_seconds=3600)
        qtbot.addWidget(win)
        win.use_form("五绝")
        # the core's own errors, as it raises them
        errors = []
        for bad in ("_-_||@A\n_|_@\n", "__，__\n@A__", "_Q_\n"):
            with pytest.raises(TemplateError) as e:
                parse_notation(bad, lang="zh")
            errors.append(str(e.value))
        with pytest.raises(ExportError) as e:
            export(win.doc, tmp_path / "x.lrc")
        errors.append(str(e.value))
        assert win.files.import_song("[00:01.00]晚风轻轻吹\n[00:03.00]吹过我的脸\n", "lrc", "晚风.lrc")
        win.session.insert_line(2, 1)              # a line the song has no time for
        with pytest.raises(ExportError) as e:
            export(win.doc, tmp_path / "y.lrc")
        errors.append(str(e.value))
        for error in errors:
            assert english(core_text(error)) == [], (error, core_text(error))
        # where the window shows them
        panel = win.form_panel
        panel.notation.setPlainText("_-_||--，@A\n_|--||-。@a\n")
        panel.parse_notation()
        assert panel.error.text().startswith("✗ 第 2 行：") and english(panel.error.text()) == []
        win.use_form("五绝")
        answers.save_path = str(tmp_path / "z.lrc")
        win.files.file_export()
        assert answers.warnings[-1][0] == "无法导出" and english(answers.warnings[-1][1]) == []
        win.set_line_text(0, "白日依山")
        for i, text in enumerate(["天下人间万。", "日暮黄昏无，", "夜来残月上。"], 1):     # tones against the rules
            win.set_line_text(i, text)
        win.run_checks()
        tip = win.check_label.toolTip()
        assert tip.startswith("第 1 行：") and "声；" in tip and english(tip) == [], tip
        # the user guide says it is in English only
        assert win.action_user_guide().browser.toPlainText().startswith("本页只有英文版")
        # Qt's own words
        assert install_qt_translations("zh")
        buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel)
        assert sorted(b.text() for b in buttons.buttons()) == sorted(["确定", "取消"])
    finally:
        install_qt_translations("en")
        set_language("en")
    buttons = QDialogButtonBox(QDialogButtonBox.Ok)
    assert buttons.buttons()[0].text() == "OK"


@pytest.mark.parametrize("ui", ["en", "zh"])
def test_the_preferences_show_their_help_texts_whole(qtbot, answers, ui):
    """At its natural size the dialog cut the help under Temperature, top-k, top-p and Drafts
    mid-line, in either language."""
    from PySide6.QtWidgets import QLabel

    from songwriter.ui.i18n import set_language
    from songwriter.ui.prefs import PreferencesDialog

    set_language(ui)
    try:
        dlg = PreferencesDialog()
        qtbot.addWidget(dlg)
        dlg.show()
        qtbot.waitExposed(dlg)
        qtbot.wait(50)
        hints = dlg.findChildren(QLabel, "hint")
        assert len(hints) == 4
        for label in hints:
            assert label.wordWrap() and label.isVisible()
            lines = label.fontMetrics().boundingRect(label.contentsRect(), Qt.TextWordWrap, label.text())
            assert label.contentsRect().height() >= lines.height(), (label.text(), label.height())
    finally:
        set_language("en")


def test_small_things(win, qtbot):
    from songwriter.ui.prefs import PreferencesDialog

    assert not win.actions["cancel"].isEnabled()
    dlg = PreferencesDialog(win)
    assert "varied" in dlg.top_k.toolTip() and "bold" in dlg.top_p.toolTip()
    from songwriter.engine.service import MODERN_KINDS, TRANSLITERATION

    assert {"拉", "巴", "亚", "米"} <= TRANSLITERATION and "lyric" in MODERN_KINDS


def test_modern_lyric_suggestions_put_transliteration_characters_last(monkeypatch):
    """A lyric's Words list led with 拉, 巴, 亚, 米 (names spelt in sound, as in 玛丽亚): in a
    modern form they go after every other character; a classical form keeps the model's order."""
    pytest.importorskip("torch")
    import tempfile

    from helpers.tiny_model import make_tiny_model

    from songwriter.engine import decode
    from songwriter.engine.api import load_engine
    from songwriter.template import parse_notation

    ranked = [("拉", -0.1), ("风", -0.2), ("巴", -0.3), ("月", -0.4), ("米", -0.5), ("花", -0.6)]
    monkeypatch.setattr(decode, "suggest", lambda *a, **k: list(ranked))
    engine = load_engine(make_tiny_model(tempfile.mkdtemp()))
    t = parse_notation("_____，\n_____。")
    for kind, want in (("lyric", ["风", "月", "花", "拉", "巴", "米"]), ("shi", [w for w, _ in ranked])):
        t.kind = kind
        assert [w for w, _ in engine.suggest(t, "", 0, 1, k=6)] == want, kind


def test_a_screenshot_of_a_file_that_is_not_a_project_does_not_wait_on_a_dialog(qtbot, answers, tmp_path, capsys):
    from songwriter.ui import app as app_mod

    notes = tmp_path / "notes.txt"
    notes.write_text("just some notes", "utf-8")
    assert app_mod.main(["main.py", "--screenshot", str(tmp_path / "x.png"), "--open", str(notes)]) == 2
    assert "Cannot open the project" in capsys.readouterr().err


def test_a_screenshot_leaves_the_users_settings_as_they_are(qtbot, answers, tmp_path, capsys):
    """--screenshot put the project it opened into the recent files, its folder into last_dir and
    its window's geometry into the user's settings; --size big fell back to 1400x900 unsaid."""
    from songwriter import document as D
    from songwriter.forms import named_form
    from songwriter.ui import app as app_mod, settings

    project = tmp_path / "poem.song"
    D.save(D.new_document(named_form("五绝")), project)
    settings.put("recent", [str(tmp_path / "old.song")])
    settings.put("last_dir", "/somewhere/else")
    before = {k: settings.settings().value(k) for k in settings.settings().allKeys()}
    shot = tmp_path / "shot.png"
    assert app_mod.main(["main.py", "--screenshot", str(shot), "--open", str(project), "--size", "1100x700"]) == 0
    assert shot.stat().st_size > 0
    assert {k: settings.settings().value(k) for k in settings.settings().allKeys()} == before
    assert settings.recent_files() == [str(tmp_path / "old.song")] and settings.get("last_dir") == "/somewhere/else"
    settings.put("last_dir", "/here")            # the run over, the app writes them again
    assert settings.get("last_dir") == "/here"
    with pytest.raises(SystemExit) as e:
        app_mod.main(["main.py", "--screenshot", str(tmp_path / "big.png"), "--size", "big"])
    assert e.value.code == 2 and not (tmp_path / "big.png").exists()
    err = capsys.readouterr().err
    assert "'big' is not a window size" in err and "1100x700, 1400x900 or 1600x1000" in err


def test_the_words_list_shows_many_rhymes_at_1100x700(win, qtbot):
    """Rhyme characters many to a row, and Words (like Steering) given half the height under
    Candidates the first time it is shown in a short window: not three rows."""
    win.resize(1100, 700)
    win.docks["steering"].raise_()
    win.docks["words"].raise_()
    qtbot.wait(100)
    words, cand = win.docks["words"], win.docks["candidates"]
    assert words.height() >= 0.4 * (words.height() + cand.height())
    chars = "晖飞微霏稀威归肥围薇矶帏辉闱非徽依挥违衣扉"
    win.words_panel.show_words("rhyme A", [(c, -1.0) for c in chars], "")
    lst = win.words_panel.list

    def seen() -> int:
        port = lst.viewport().rect()
        return sum(1 for k in range(lst.count()) if port.contains(lst.visualItemRect(lst.item(k))))
    qtbot.waitUntil(lambda: seen() >= 12, timeout=3000)      # the list lays itself out after a moment
    # English words with what they are keep a row each
    win.words_panel.show_words("rhyme A", [("away", -1.0, "2 syllables · perfect rhyme")], "")
    assert not lst.isWrapping()

"""English in the window (issue 15, "The app"): the engine follows the piece's language (a model
per language), a new piece starts in a form an installed model writes, a language without a
model says so before Generate is pressed, and Rhymes and Words for English come from CMUdict
without a model and are ranked by an English model when one is loaded."""

import pytest
from PySide6.QtCore import Qt

from test_ui_support import (  # noqa: F401  (fixtures)
    RecordingEngine, answers, installed_models, make_window, wait_idle,
)

from songwriter.prosody import english
from songwriter.ui.starting_form import starting_template
from songwriter.ui.wording import plain

SONNET_START = ["Shall I compare thee to a summer's day?", "Thou art more lovely and more temperate:"]


def recording_loader(engine, loaded):
    """A loader that stands the test double behind every folder, noting which it was asked for."""
    def load(model_dir, backend):
        loaded.append(str(model_dir))
        return engine
    return load


# --- a model per language ---------------------------------------------------------------------

def test_each_language_is_generated_by_its_own_model(qtbot, answers, tmp_path):
    installed = installed_models(tmp_path, langs=("zh", "en"))
    engine, loaded = RecordingEngine(), []
    win = make_window(qtbot, loader=recording_loader(engine, loaded), installed=installed)
    win.use_form("五绝")
    win.action_generate()
    wait_idle(qtbot, win)
    assert loaded == [str(installed("zh"))]
    win.use_form("Shakespearean sonnet")
    assert win.actions["generate"].isEnabled() and not win.candidates_panel.notice.isVisible()
    assert win.engine_host.state == "unloaded"             # English has its own engine, not loaded yet
    assert "not loaded" in win.engine_label.text()
    win.action_generate()
    wait_idle(qtbot, win)
    assert loaded == [str(installed("zh")), str(installed("en"))]
    assert engine.requests[-1].template.lang == "en" and win.doc.candidates
    assert "English" in win.engine_label.text()
    win.use_form("七绝")                                    # back to Chinese: its engine is still loaded
    assert win.engine_host.ready and "Chinese" in win.engine_label.text()
    win.action_generate()
    wait_idle(qtbot, win)
    assert len(loaded) == 2


def test_a_piece_that_changes_language_while_an_engine_loads_is_written_by_its_own(qtbot, answers, tmp_path):
    import threading

    installed = installed_models(tmp_path, langs=("zh", "en"))
    gate, engine, loaded = threading.Event(), RecordingEngine(), []

    def slow_load(model_dir, backend):
        loaded.append(str(model_dir))
        gate.wait(20)
        return engine
    win = make_window(qtbot, loader=slow_load, installed=installed)
    win.use_form("五绝")
    win.action_generate()
    qtbot.waitUntil(lambda: bool(loaded))
    win.use_form("Shakespearean sonnet")       # while the Chinese engine loads
    gate.set()
    wait_idle(qtbot, win)
    assert loaded == [str(installed("zh")), str(installed("en"))]
    assert len(engine.requests) == 1 and engine.requests[0].template.lang == "en"
    assert win.doc.candidates and not answers.warnings


def test_a_chosen_model_folder_wins_for_its_language_only(qtbot, answers, tmp_path):
    chosen = installed_models(tmp_path / "mine", langs=("en",))("en")      # a manifest saying "en"
    installed = installed_models(tmp_path, langs=("zh",))                  # no English model installed
    engine, loaded = RecordingEngine(), []
    win = make_window(qtbot, loader=recording_loader(engine, loaded), model_dir=str(chosen), installed=installed)
    win.use_form("Ballad stanza")
    assert win.actions["generate"].isEnabled()
    win.action_generate()
    wait_idle(qtbot, win)
    win.use_form("五绝")
    win.action_generate()
    wait_idle(qtbot, win)
    assert loaded == [str(chosen), str(installed("zh"))]


def test_preferences_change_the_model_of_a_language(qtbot, answers, tmp_path):
    from songwriter.ui import settings

    installed = installed_models(tmp_path, langs=("zh",))
    win = make_window(qtbot, installed=installed)
    win.use_form("Shakespearean sonnet")
    assert not win.actions["generate"].isEnabled()
    chosen = installed_models(tmp_path / "mine", langs=("en",))("en")
    settings.put("model_dir", str(chosen))
    win.engines.set_model(str(chosen), "auto")       # what accepting Preferences does
    win.generating.update_availability()
    assert win.actions["generate"].isEnabled() and win.engine_host.model_dir == str(chosen)


# --- the form of a new piece ------------------------------------------------------------------

def test_a_new_piece_starts_in_a_form_a_model_writes():
    both, zh_only, en_only = (lambda lang: True), (lambda lang: lang == "zh"), (lambda lang: lang == "en")
    assert starting_template("en", "", both).name == "Shakespearean sonnet"
    assert starting_template("zh", "", both).name.startswith("七绝")
    assert starting_template("en", "", zh_only).name.startswith("七绝")      # no English model yet
    assert starting_template("zh", "", en_only).name == "Shakespearean sonnet"
    assert starting_template("en", "鹧鸪天", both).name == "鹧鸪天"            # the last form chosen
    assert starting_template("zh", "Ballad stanza", zh_only).name.startswith("七绝")   # but not without its model
    assert starting_template("en", "no such form", both).name == "Shakespearean sonnet"
    assert starting_template("en", "", lambda lang: False).name == "Shakespearean sonnet"  # nothing installed


def test_the_window_starts_and_renews_in_the_last_form_a_model_writes(qtbot, answers, tmp_path):
    from songwriter.ui import settings

    with_en = installed_models(tmp_path, langs=("zh", "en"))
    win = make_window(qtbot, installed=with_en)
    assert win.doc.template.name == "Shakespearean sonnet"            # English UI, English model there
    assert win.actions["generate"].isEnabled()
    win.use_form("浣溪沙")
    assert settings.get("last_form") == "浣溪沙"
    win.files.file_new()
    assert win.doc.template.name == "浣溪沙"
    win.use_form("Limerick")
    win.close()
    without_en = installed_models(tmp_path / "other", langs=("zh",))
    win2 = make_window(qtbot, installed=without_en)                      # the last form, but no model for it
    assert win2.doc.template.name.startswith("七绝") and win2.actions["generate"].isEnabled()


# --- Rhymes and Words for English ---------------------------------------------------------------

def first_empty_unit(win, line):
    """The editor's unit of the first syllable not yet written on a line."""
    return next(u.unit for u in win.view.rows[line].units if u.kind == "empty")


def show_words_at(win, qtbot, line, text, timeout=60000):
    """Write ``text`` on ``line`` and show the words for the syllable after it."""
    win.set_line_text(line, text)
    win.docks["words"].show()
    win.docks["words"].raise_()
    win.view.set_cursor(line, first_empty_unit(win, line))
    win.suggestions.update_suggestions(load=True)
    panel = win.words_panel
    qtbot.waitUntil(lambda: panel.list.count() > 0 or "No word" in panel.note.text(), timeout=timeout)
    return [panel.list.item(i).data(Qt.UserRole) for i in range(panel.list.count())]


def test_english_rhymes_and_words_without_a_model(qtbot, answers):
    win = make_window(qtbot)                       # no English model installed
    win.use_form("Shakespearean sonnet")
    for i, text in enumerate(SONNET_START):
        win.set_line_text(i, text)
    # line 3 rhymes with line 1 (day): its last syllable
    words = show_words_at(win, qtbot, 2, "Rough winds do shake the darling buds of")
    panel = win.words_panel
    assert "CMUdict" in panel.note.text() and "no English model is installed" in panel.note.text()
    assert "Line 3, syllable 10" in plain(panel.header.text()) and "rhyme A" in plain(panel.header.text())
    assert "1 syllable left" in plain(panel.header.text())
    day = english.rhyme_keys("day", "perfect")
    assert english.rhyme_keys(words[0], "perfect") & day            # perfect rhymes first
    assert "day" not in words[:1] and len(words) >= 10
    assert all("syllables" not in panel.list.item(i).text() for i in range(panel.list.count()))  # all of one
    assert "perfect rhyme" in panel.list.item(0).text()
    # a slot with three syllables left: words of up to three
    words = show_words_at(win, qtbot, 2, "Rough winds do shake the darling")
    assert "3 syllables left" in plain(panel.header.text())
    assert words and all(min(english.syllable_counts(w)) <= 3 for w in words)
    assert any("3 syllables" in panel.list.item(i).text() for i in range(panel.list.count()))
    # a word taken from the list goes in
    first = show_words_at(win, qtbot, 2, "Rough winds do shake the darling buds of")[0]
    panel.list.itemActivated.emit(panel.list.item(0))
    assert win.doc.lines[2].split()[-1].strip(",.;:?!").lower() == first


def test_english_words_ranked_by_an_english_model_when_one_is_loaded(qtbot, answers, tmp_path_factory):
    pytest.importorskip("torch")
    tiny_en = pytest.importorskip("helpers.tiny_model_en")
    model_dir = tiny_en.make_tiny_model_en(tmp_path_factory.mktemp("tiny-en"), steps=20)
    win = make_window(qtbot, model_dir=str(model_dir))         # a chosen folder that writes English
    win.use_form("Shakespearean sonnet")
    for i, text in enumerate(SONNET_START):
        win.set_line_text(i, text)
    assert win.actions["generate"].isEnabled()
    show_words_at(win, qtbot, 2, "Rough winds do shake the darling buds of")   # loads the English engine
    qtbot.waitUntil(lambda: "Ranked by the engine" in win.words_panel.note.text(), timeout=120000)
    words = [win.words_panel.list.item(i).data(Qt.UserRole) for i in range(win.words_panel.list.count())]
    day = english.rhyme_keys("day", "perfect")
    assert words and english.rhyme_keys(words[0], "perfect") & day
    assert win.engine_host.ready and win.engine_host.model_dir == str(model_dir)


def test_english_words_still_listed_when_the_engine_cannot_suggest(qtbot, answers, tmp_path):
    class CannotSuggest(RecordingEngine):
        def suggest(self, template, text, line, slot, k=20):
            raise RuntimeError("no suggestions today")

        suggest_words = suggest

    installed = installed_models(tmp_path, langs=("zh", "en"))
    win = make_window(qtbot, loader=recording_loader(CannotSuggest(), []), installed=installed)
    win.use_form("Shakespearean sonnet")
    for i, text in enumerate(SONNET_START):
        win.set_line_text(i, text)
    show_words_at(win, qtbot, 2, "Rough winds do shake the darling buds of")
    panel = win.words_panel
    qtbot.waitUntil(lambda: "no suggestions today" in panel.note.text() and panel.list.count() > 0, timeout=60000)
    assert english.rhyme_keys(panel.list.item(0).data(Qt.UserRole), "perfect") & english.rhyme_keys("day", "perfect")


def test_english_words_ranked_by_the_engine_keep_their_rhyme_and_syllables(qtbot, answers, tmp_path):
    installed = installed_models(tmp_path, langs=("zh", "en"))
    win = make_window(qtbot, loader=recording_loader(RecordingEngine(), []), installed=installed)
    win.use_form("Shakespearean sonnet")
    win.set_line_text(1, "And summer's lease hath all too short a rose")
    win.docks["words"].show()
    win.view.set_cursor(1, next(u.unit for u in win.view.rows[1].units if u.slot == 9))   # on "rose"
    win.suggestions.update_suggestions(load=True)
    panel = win.words_panel
    qtbot.waitUntil(lambda: "Ranked by the engine" in panel.note.text(), timeout=60000)
    shown = [panel.list.item(i).text() for i in range(panel.list.count())]
    assert shown == ["grows  · perfect rhyme", "close  · slant rhyme", "garden  · 2 syllables"]  # not rose itself
    assert panel.list.item(0).data(Qt.UserRole) == "grows"


def test_a_locked_english_word_says_how_to_unlock_it(qtbot, answers):
    win = make_window(qtbot)
    win.use_form("Shakespearean sonnet")
    win.set_line_text(0, "Shall I compare thee to a summer's day")
    win.view.set_cursor(0, 0)
    win.action_toggle_lock()
    assert win.doc.template.lines[0].slots[0].lock == "Shall"
    win.docks["words"].show()
    win.suggestions.update_suggestions(load=True)
    note = win.words_panel.note.text()
    assert "locked" in note and "Ctrl+L" in note and win.words_panel.list.count() == 0

"""Every action of the window, defined in one place: text, shortcut, icon, tip, handler.
Menus, the toolbar and the editor's context menu are built from these names."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QAction, QActionGroup, QIcon, QKeySequence
from PySide6.QtWidgets import QMenu

from .i18n import tr

ICONS = Path(__file__).resolve().parents[2] / "assets" / "icons"

K = QKeySequence.StandardKey
# name, text, shortcut(s), icon, handler (a method of the window, or of one of its parts:
# files.*, suggestions.*), status tip
SPEC = [
    ("new", "&New", K.New, "new", "files.file_new", "Start a new piece"),
    ("open", "&Open…", K.Open, "open", "files.file_open", "Open a .song project"),
    ("save", "&Save", K.Save, "save", "files.file_save", "Save the project"),
    ("save_as", "Save &As…", K.SaveAs, None, "files.file_save_as", "Save the project under another name"),
    ("import_lyrics", "Import &Lyrics…", "Ctrl+I", "import", "files.import_lyrics",
     "Make the form from a song's lyrics, to write new words to its tune"),
    ("import_lrc", "Import L&RC…", "Ctrl+Shift+I", None, "files.import_lrc",
     "Make the form from an LRC file, keeping its timestamps"),
    ("import_melody", "Import &Melody…", "Ctrl+Shift+M", None, "files.import_melody",
     "Make the form from a melody (MusicXML, MIDI, ABC): a slot per note, a line per phrase"),
    ("paste_lyrics", "&Paste Lyrics as Form…", None, None, "files.paste_lyrics",
     "Paste a song's lyrics (or LRC) to make the form"),
    ("export", "&Export…", "Ctrl+E", "export", "files.file_export", "Export as text, Markdown, PDF, PNG card, LRC or JSON"),
    ("quit", "&Quit", K.Quit, None, "close", "Quit Songwriter"),
    ("toggle_lock", "&Lock / Unlock", "Ctrl+L", "lock", "action_toggle_lock",
     "Lock the selected characters or words so generation keeps them (or unlock them)"),
    ("toggle_line_lock", "Lock / Unlock Whole &Line", "Ctrl+Shift+L", "lockline", "action_toggle_line_lock",
     "Lock or unlock every word of the selected lines"),
    ("lock_all", "Lock All Written Text", None, None, "action_lock_all", "Lock everything written so far"),
    ("unlock_all", "Unlock Everything", None, None, "action_unlock_all", "Remove every lock"),
    ("edit_line", "&Edit Line as Text", "F2", None, "action_edit_line", "Type the whole line as text"),
    ("clear_text", "&Clear Unlocked Text", None, None, "action_clear_text", "Erase everything that is not locked"),
    ("generate", "&Generate", "Ctrl+G", "generate", "action_generate",
     "Fill every unlocked slot; candidates appear in the Candidates panel"),
    ("regenerate", "&Regenerate Selected Lines", "Ctrl+R", "regenerate", "action_regenerate",
     "Write the selected lines again; the others stay as they are"),
    ("cancel", "&Cancel Generation", "Ctrl+.", "cancel", "action_cancel", "Stop the running generation"),
    ("next_candidate", "&Next Candidate", "Alt+Down", None, "action_next_candidate", "Preview the next candidate"),
    ("prev_candidate", "&Previous Candidate", "Alt+Up", None, "action_prev_candidate", "Preview the previous candidate"),
    ("apply_candidate", "&Apply Candidate", "Alt+Return", None, "action_apply_candidate", "Use the previewed candidate"),
    ("suggest", "Suggest &Words", "Ctrl+Space", "suggest", "suggestions.action_suggest", "Words that fit the selected slot"),
    ("insert_line_above", "Insert Line &Above", None, None, "action_insert_above", "Add a line to the form above this one"),
    ("insert_line_below", "Insert Line &Below", "Ctrl+Shift+Return", None, "action_insert_below",
     "Add a line to the form below this one"),
    ("remove_line", "Re&move Line", "Ctrl+Shift+Backspace", None, "action_remove_line", "Remove this line from the form"),
    ("line_length", "Line Len&gth…", None, None, "action_line_length", "Set how many syllables this line has"),
    ("play", "&Play from This Line", "F5", None, "playback.action_play",
     "Play the melody from the line at the cursor, the sung syllable lit"),
    ("play_start", "Play from the &Start", "Ctrl+F5", None, "playback.action_play_start", "Play the melody from the first line"),
    ("stop", "S&top", "Shift+F5", None, "playback.stop", "Stop playing"),
    ("break_line", "&Break Line After This Syllable", None, None, "melody.action_break",
     "End the line after this syllable; the rest of its notes start the next line"),
    ("join_notes", "&Join with Next Syllable", None, None, "melody.action_join",
     "Sing this syllable and the next as one, over both their notes (a melisma)"),
    ("split_notes", "&Split into Notes", None, None, "melody.action_split", "Sing a syllable held over several notes as one syllable per note"),
    ("preferences", "&Preferences…", K.Preferences, None, "action_preferences", "Generation settings, autosave, model"),
    ("undo", "&Undo", K.Undo, "undo", "undo", "Undo the last change"),
    ("redo", "&Redo", K.Redo, "redo", "redo", "Redo the change undone last"),
    ("user_guide", "&User Guide", K.HelpContents, None, "action_user_guide", "How to write with Songwriter"),
    ("notation_help", "Form &Notation", None, None, "action_notation_help", "How to write a form as text"),
    ("shortcuts_help", "&Keyboard Shortcuts", None, None, "action_shortcuts_help", "Every key the window knows"),
    ("models_help", "&Models and Credits", None, None, "action_models_help",
     "The models, what they were trained on, and the credits the data asks for"),
    ("about", "&About Songwriter", None, None, "action_about", "Version, engine and licences"),
]


class Actions:
    def __init__(self, window):
        self.window = window
        self.acts: dict[str, QAction] = {}
        self.menus: dict[str, QMenu] = {}
        for name, text, shortcut, icon, handler, tip in SPEC:
            act = QAction(tr(text), window)
            act.setObjectName(f"action_{name}")
            if shortcut is not None:
                if isinstance(shortcut, str):
                    act.setShortcut(QKeySequence(shortcut))
                else:
                    act.setShortcuts(shortcut)
            if icon:
                act.setIcon(icon_for(icon))
            if tip:
                act.setStatusTip(tr(tip))
                act.setToolTip(tr(text).replace("&", "").replace("…", "") +
                               (f" ({act.shortcut().toString(QKeySequence.NativeText)})" if not act.shortcut().isEmpty() else "")
                               + "\n" + tr(tip))
            act.triggered.connect(_handler(window, handler))
            window.addAction(act)
            self.acts[name] = act
        self.acts["cancel"].setEnabled(False)     # until a generation runs
        from PySide6.QtWidgets import QStyle

        for name, icon in (("play", QStyle.SP_MediaPlay), ("play_start", QStyle.SP_MediaSkipBackward),
                           ("stop", QStyle.SP_MediaStop)):
            self.acts[name].setIcon(window.style().standardIcon(icon))
        self.menus["rhyme"] = QMenu(tr("&Rhyme Label"), window)
        self.menus["refrain"] = QMenu(tr("Re&frain"), window)
        self.menus["refrain"].aboutToShow.connect(self.fill_refrain_menu)
        self.menus["tone"] = QMenu(tr("&Tone / Stress"), window)
        self.menus["punct"] = QMenu(tr("&Punctuation"), window)
        self.menus["recent"] = QMenu(tr("Open &Recent"), window)
        self.language_group = QActionGroup(window)

    def __getitem__(self, name: str) -> QAction:
        return self.acts[name]

    def fill_refrain_menu(self) -> None:
        """"Repeats line N" for each earlier line the cursor's line could repeat, and "Not a
        refrain": filled when it opens (it depends on the line and the form)."""
        w = self.window
        m = self.menus["refrain"]
        m.clear()
        line = w.view.cursor[0]
        current = w.doc.template.lines[line].repeats if line < len(w.doc.template.lines) else None
        act = m.addAction(tr("Not a refrain"))
        act.setCheckable(True)
        act.setChecked(current is None)
        act.triggered.connect(lambda: w.action_set_refrain(None))
        for j in w.doc.template.refrain_sources(line):
            act = m.addAction(tr("Repeats line {n}").format(n=j + 1))
            act.setCheckable(True)
            act.setChecked(current == j)
            act.triggered.connect(lambda _=False, x=j: w.action_set_refrain(x))

    def fill_slot_menus(self, lang: str) -> None:
        """The rhyme/tone/punctuation submenus (their choices depend on the piece's language)."""
        w = self.window
        m = self.menus["rhyme"]
        m.clear()
        m.addAction(tr("No rhyme")).triggered.connect(lambda: w.action_set_rhyme(None))
        for label in "ABCDEFGH":
            m.addAction(label).triggered.connect(lambda _=False, x=label: w.action_set_rhyme(x))
        m = self.menus["tone"]
        m.clear()
        choices = [("平 (level)", "平"), ("仄 (oblique)", "仄")] if lang == "zh" else [
            ("/ stressed", "/"), ("˘ unstressed", "x")]
        for text, tone in choices + [(tr("Any"), None)]:
            m.addAction(tr(text)).triggered.connect(lambda _=False, t=tone: w.action_set_tone(t))
        m = self.menus["punct"]
        m.clear()
        marks = ["，", "。", "、", "；", "！", "？", "："] if lang == "zh" else [",", ".", ";", ":", "!", "?", "—"]
        for mark in marks + [""]:
            label = mark or tr("None")
            m.addAction(label).triggered.connect(lambda _=False, x=mark: w.action_set_punct(x))


def _handler(window, path: str):
    target = window
    for name in path.split("."):
        target = getattr(target, name)
    return target


_icon_cache: dict[str, QIcon] = {}


def icon_for(name: str) -> QIcon:
    if name not in _icon_cache:
        path = ICONS / f"{name}.svg"
        _icon_cache[name] = QIcon(str(path)) if path.exists() else QIcon()
    return _icon_cache[name]

"""The main window: a view over one Session (songwriter.session), the editor in the middle,
panels around it, the engine working in the background.

What a writer can do to the piece lives in the session; this module turns menu choices, keys
and clicks into session calls, shows the notes they return in the status bar, and redraws when
the session says the piece changed. Generation runs through the engine host in a worker thread
(ui/generating.py); files and recovery ask their questions here, in dialogs."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QByteArray, Qt, QTimer
from PySide6.QtWidgets import (
    QDockWidget, QHBoxLayout, QLabel, QLineEdit, QMainWindow, QProgressBar, QPushButton, QToolBar,
    QVBoxLayout, QWidget,
)

from songwriter import document as D
from songwriter.document import Document
from songwriter.lyrics import looks_like_lrc
from songwriter.session import Checks, Done, Note, RecoveryStore, Session, note, piece_from_song
from songwriter.template import TemplateError

from . import dialogs, settings
from .actions import Actions, icon_for
from .candidates import CandidatesPanel
from .editor import EditorScroll, PieceView, build_context_menu
from .engine_host import FAILED, LOADING, READY, EngineHost
from .generating import Generating
from .i18n import LANGUAGES, language, tr
from .panels import FormPanel, HistoryPanel, OriginalPanel, SteeringPanel, WordsPanel, rhyme_system_label
from .wording import problem_text

SONG_FILTER = "Songwriter project (*.song)"
LYRICS_FILTER = "Lyrics (*.txt *.lrc *.text);;All files (*)"
LRC_FILTER = "LRC lyrics (*.lrc);;All files (*)"


class MainWindow(QMainWindow):
    def __init__(self, model_dir: str | None = None, backend: str | None = None, engine_loader=None,
                 autosave_seconds: int | None = None, doc: Document | None = None):
        super().__init__()
        self.setObjectName("MainWindow")
        self.setWindowIcon(icon_for("app"))
        self.session = Session(doc)
        self.session.subscribe(self._session_event)
        self.recovery = RecoveryStore(settings.recovery_dir())
        self.engine_host = EngineHost(self, model_dir or settings.get("model_dir") or None,
                                      backend or settings.get("backend") or "auto", engine_loader)
        self.engine_host.changed.connect(self.engine_changed)
        self.checks = Checks()
        self._preview_index = -1
        self._suggest_token = 0
        self.screenshot_mode = False      # no dialogs: errors go to stderr (main.py --screenshot)

        self.actions = Actions(self)
        self._build_central()
        self._build_docks()
        self._build_menus()
        self._build_toolbar()
        self._build_statusbar()
        self.generating = Generating(self)

        self.check_timer = QTimer(self, singleShot=True, interval=120)
        self.check_timer.timeout.connect(self.run_checks)
        self.suggest_timer = QTimer(self, singleShot=True, interval=250)
        self.suggest_timer.timeout.connect(self.update_suggestions)
        self.autosave_timer = QTimer(self)
        secs = autosave_seconds if autosave_seconds is not None else settings.get("autosave_seconds")
        self.autosave_timer.setInterval(max(1, int(secs)) * 1000)
        self.autosave_timer.timeout.connect(self.autosave)
        self.autosave_timer.start()

        self.resize(1360, 860)
        geo = settings.settings().value("window/geometry")
        if isinstance(geo, QByteArray):
            self.restoreGeometry(geo)
        state = settings.settings().value("window/state")
        if isinstance(state, QByteArray):
            self.restoreState(state)
        self.doc_replaced()

    @property
    def doc(self) -> Document:
        return self.session.doc

    @property
    def busy(self) -> bool:
        return self.generating.busy

    # ==========================================================================================
    # building
    def _build_central(self) -> None:
        from songwriter.export.fonts import font

        central = QWidget()
        lay = QVBoxLayout(central)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(0)
        head = QWidget()
        head.setObjectName("header")
        head.setStyleSheet("#header { background: #fafafa; border-bottom: 1px solid #e0e0e0; }")
        hl = QHBoxLayout(head)
        hl.setContentsMargins(12, 8, 12, 8)
        self.title_edit = QLineEdit()
        self.title_edit.setObjectName("title")
        self.title_edit.setPlaceholderText(tr("Title"))
        self.title_edit.setFont(font(pixel_size=20, bold=True))
        self.title_edit.setFrame(False)
        self.title_edit.setStyleSheet("background: transparent;")
        self.title_edit.editingFinished.connect(lambda: self.say(self.session.set_title(self.title_edit.text())))
        self.title_edit.setMinimumWidth(180)
        hl.addWidget(self.title_edit, 2)
        self.form_label = QLabel()
        self.form_label.setObjectName("form_label")
        self.form_label.setFont(font(pixel_size=14))
        self.form_label.setStyleSheet("color: #546e7a;")
        self.form_label.setWordWrap(True)           # a long form name takes two lines, never a cut
        self.form_label.setAlignment(Qt.AlignRight | Qt.AlignVCenter)
        hl.addWidget(self.form_label, 3)
        lay.addWidget(head)
        self.view = PieceView(self)
        self.view.setObjectName("editor")
        self.scroll = EditorScroll()
        self.scroll.setWidget(self.view)
        self.scroll.setWidgetResizable(False)
        self.scroll.setStyleSheet("QScrollArea { background: white; border: none; }")
        self.scroll.setAlignment(Qt.AlignLeft | Qt.AlignTop)
        lay.addWidget(self.scroll, 1)
        self.setCentralWidget(central)
        self.view.cursorMoved.connect(lambda *_: self.suggest_timer.start())
        self.view.previewCleared.connect(lambda: self.candidates_panel.stop_preview())

    def _dock(self, name: str, title: str, widget: QWidget, area, min_width: int) -> QDockWidget:
        dock = QDockWidget(title, self)
        dock.setObjectName(f"dock_{name}")
        dock.setWidget(widget)
        widget.setMinimumWidth(min_width)
        self.addDockWidget(area, dock)
        return dock

    def _build_docks(self) -> None:
        s = self.session
        self.form_panel = FormPanel(s)
        self.candidates_panel = CandidatesPanel(s)
        self.words_panel = WordsPanel()
        self.steering_panel = SteeringPanel(s)
        self.original_panel = OriginalPanel(s)
        self.history_panel = HistoryPanel(s)
        left, right = Qt.LeftDockWidgetArea, Qt.RightDockWidgetArea
        # Three tabs a side at most, with short titles, so none is cut at 1100 px.
        self.docks = {
            "form": self._dock("form", tr("Form"), self.form_panel, left, 240),
            "original": self._dock("original", tr("Original Song"), self.original_panel, left, 240),
            "history": self._dock("history", tr("History"), self.history_panel, left, 240),
            "candidates": self._dock("candidates", tr("Candidates"), self.candidates_panel, right, 260),
            "words": self._dock("words", tr("Rhymes and Words"), self.words_panel, right, 260),
            "steering": self._dock("steering", tr("Steering"), self.steering_panel, right, 260),
        }
        self.tabifyDockWidget(self.docks["form"], self.docks["original"])
        self.tabifyDockWidget(self.docks["original"], self.docks["history"])
        self.docks["form"].raise_()
        self.splitDockWidget(self.docks["candidates"], self.docks["words"], Qt.Vertical)
        self.tabifyDockWidget(self.docks["words"], self.docks["steering"])
        self.docks["words"].raise_()
        self.resizeDocks([self.docks["form"]], [330], Qt.Horizontal)
        self.resizeDocks([self.docks["candidates"]], [360], Qt.Horizontal)
        self.resizeDocks([self.docks["candidates"], self.docks["words"]], [3, 2], Qt.Vertical)
        self.docks["words"].visibilityChanged.connect(lambda v: v and self.suggest_timer.start())

        fp = self.form_panel
        fp.formChosen.connect(self.use_form)
        fp.importRequested.connect(self.paste_lyrics)
        fp.notationApplied.connect(self.apply_notation)
        fp.kindChosen.connect(lambda k: self.say(self.session.set_kind(k)))
        fp.rhymeSystemChosen.connect(lambda sid: self.say(self.session.set_rhyme_system(sid)))
        fp.toneSystemChosen.connect(lambda ts: self.say(self.session.set_tone_system(ts)))
        fp.schemeEntered.connect(self.set_scheme)
        fp.problem.connect(lambda text: self.status_hint(text))
        self.candidates_panel.previewRequested.connect(self.preview_candidate)
        self.candidates_panel.applyRequested.connect(self.apply_candidate)
        self.words_panel.wordChosen.connect(self.insert_word)
        self.steering_panel.contentChanged.connect(self.set_content)
        self.steering_panel.strengthChanged.connect(self.set_strength)
        self.history_panel.restoreRequested.connect(self.restore_history)

    def _build_menus(self) -> None:
        a = self.actions
        mb = self.menuBar()

        def fill(menu, names):
            for n in names:
                menu.addSeparator() if n is None else menu.addAction(a[n])

        m = mb.addMenu(tr("&File"))
        fill(m, ("new", "open"))
        m.addMenu(a.menus["recent"])
        a.menus["recent"].aboutToShow.connect(self._fill_recent)
        fill(m, ("save", "save_as", None, "import_lyrics", "import_lrc", "paste_lyrics", None, "export", None, "quit"))
        fill(mb.addMenu(tr("&Edit")), ("undo", "redo", None, "edit_line", "clear_text", None, "toggle_lock",
                                       "toggle_line_lock", "lock_all", "unlock_all", None, "preferences"))
        m = mb.addMenu(tr("F&orm"))
        fill(m, ("insert_line_above", "insert_line_below", "remove_line", "line_length"))
        for name in ("rhyme", "tone", "punct"):
            m.addMenu(a.menus[name])
        fill(mb.addMenu(tr("&Generate")), ("generate", "regenerate", "cancel", None, "prev_candidate",
                                           "next_candidate", "apply_candidate", None, "suggest"))
        m = mb.addMenu(tr("&View"))
        for dock in self.docks.values():
            m.addAction(dock.toggleViewAction())
        m.addSeparator()
        lm = m.addMenu(tr("&Language"))
        for code, name in LANGUAGES.items():
            act = lm.addAction(name)
            act.setCheckable(True)
            act.setChecked(code == language())
            a.language_group.addAction(act)
            act.triggered.connect(lambda _=False, c=code: self.set_ui_language(c))
        fill(mb.addMenu(tr("&Help")), ("user_guide", "notation_help", "shortcuts_help", "models_help", None, "about"))

    def _build_toolbar(self) -> None:
        tb = QToolBar(tr("Main"), self)
        tb.setObjectName("toolbar_main")
        tb.setToolButtonStyle(Qt.ToolButtonTextBesideIcon)
        a = self.actions
        a["toggle_lock"].setIconText(tr("Lock"))
        a["toggle_line_lock"].setIconText(tr("Lock Line"))
        a["regenerate"].setIconText(tr("Regenerate Lines"))
        a["cancel"].setIconText(tr("Cancel"))
        for n in ("new", "open", "save", None, "undo", "redo", None, "generate", "regenerate", "cancel", None,
                  "toggle_lock", "toggle_line_lock", None, "export"):
            tb.addSeparator() if n is None else tb.addAction(a[n])
        self.addToolBar(Qt.TopToolBarArea, tb)
        for n in ("new", "open", "save", "undo", "redo", "export"):
            w = tb.widgetForAction(a[n])
            if w is not None:
                w.setToolButtonStyle(Qt.ToolButtonIconOnly)

    def _build_statusbar(self) -> None:
        sb = self.statusBar()
        self.check_label = QLabel()
        self.check_label.setObjectName("check_summary")
        self.engine_label = QLabel()
        self.engine_label.setObjectName("engine_status")
        self.language_note = QLabel()
        self.language_note.setObjectName("language_note")
        self.language_note.setStyleSheet("color: #b26a00;")
        self.time_label = QLabel()
        self.time_label.setObjectName("generation_time")
        self.progress = QProgressBar()
        self.progress.setObjectName("progress")
        self.progress.setMaximumWidth(180)
        self.progress.setTextVisible(False)
        self.progress.hide()
        self.cancel_button = QPushButton(tr("Cancel"))
        self.cancel_button.setObjectName("cancel_button")
        self.cancel_button.setIcon(icon_for("cancel"))
        self.cancel_button.clicked.connect(self.action_cancel)
        self.cancel_button.hide()
        for w in (self.check_label, self.language_note, self.progress, self.cancel_button, self.time_label,
                  self.engine_label):
            sb.addPermanentWidget(w)
        self.engine_changed()

    # ==========================================================================================
    # the session and the views
    def say(self, outcome: Done | Note | None) -> bool:
        """Show an outcome's note in the status bar; True when the piece changed."""
        text = outcome.note if isinstance(outcome, Done) else outcome
        if text is not None:
            self.status_hint(text.render(tr))
        return bool(outcome) if isinstance(outcome, Done) else False

    def status_hint(self, text: str, ms: int = 6000) -> None:
        self.statusBar().showMessage(text, ms)

    def edit(self, label: str, fn, merge_key=None) -> bool:
        """One undoable change made by fn(doc) (for callers outside the session's own actions)."""
        return self.say(self.session.edit(Note(label), fn, merge_key))

    def undo(self) -> None:
        self.say(self.session.undo())

    def redo(self) -> None:
        self.say(self.session.redo())

    def _session_event(self, event: str) -> None:
        if event == "replaced":
            self.doc_replaced()
        elif event == "saved":
            self.history_panel.refresh()
            self.update_title()
        else:
            if self._preview_index >= 0:
                self.preview_candidate(-1)
            self.doc_changed()

    def doc_changed(self) -> None:
        self.view.relayout()
        self.check_timer.start()
        for panel in (self.form_panel, self.candidates_panel, self.steering_panel, self.original_panel,
                      self.history_panel):
            panel.refresh()
        if self.title_edit.text() != self.doc.title and not self.title_edit.hasFocus():
            self.title_edit.setText(self.doc.title)
        t = self.doc.template
        bits = [t.name or tr("Custom form"), tr("{n} lines").format(n=len(t.lines)),
                tr("{n} syllables").format(n=t.syllables)]
        if t.rhyme_groups():
            bits.append(rhyme_system_label(t.effective_rhyme_system(), t.lang))
        locks = self.doc.locked_count()
        if locks:
            bits.append(tr("{n} locked").format(n=locks))
        self.form_label.setText(" · ".join(bits))
        self.actions.fill_slot_menus(self.doc.lang)
        self._update_undo_actions()
        self.update_title()
        self.generating.update_availability()
        self.suggest_timer.start()

    def doc_replaced(self) -> None:
        """Another piece: the cursor at its start, no preview."""
        self.view.cursor = (0, 0)
        self.view.anchor = None
        self._preview_index = -1
        self.view.preview = None
        self.doc_changed()
        self.run_checks()

    def _update_undo_actions(self) -> None:
        h = self.session.history
        for name, label, verb in (("undo", h.undo_label, tr("&Undo")), ("redo", h.redo_label, tr("&Redo"))):
            act = self.actions[name]
            act.setEnabled(label is not None)
            act.setText(verb + (" " + label.render(tr) if label is not None else ""))

    def is_modified(self) -> bool:
        return self.session.is_modified()

    def update_title(self) -> None:
        name = self.session.path.name if self.session.path else (self.doc.title or tr("Untitled"))
        self.setWindowTitle(f"{name}[*] — Songwriter")
        self.setWindowModified(self.is_modified())

    # --- checks -----------------------------------------------------------------------------
    def run_checks(self) -> None:
        self.checks = self.session.check()
        self.view.set_statuses(self.checks.statuses)
        if self.checks.statuses is None:
            self.check_label.setText(tr("checks unavailable"))
            self.check_label.setToolTip(self.checks.error)
            return
        ok, bad, n = self.checks.summary
        text = tr("{ok}/{n} lines fit").format(ok=ok, n=n)
        if bad:
            text += " · " + tr("{n} with problems").format(n=bad)
        self.check_label.setText(text)
        problems = [f"{tr('Line {n}').format(n=s_i + 1)}: {problem_text(p.message)}"
                    for s_i, s in enumerate(self.checks.statuses) for p in s.problems]
        self.check_label.setToolTip("\n".join(problems[:20]))

    @property
    def statuses(self):
        return self.checks.statuses

    @property
    def report(self):
        return self.checks.report

    # ==========================================================================================
    # typing and editing (called by the editor)
    def _move(self, result) -> None:
        done, cursor = result
        self.say(done)
        self.view.set_cursor(*cursor)

    def type_chars(self, chars: str) -> None:
        self._move(self.session.type_chars(self.view.cursor, chars))

    def erase(self, backward: bool) -> None:
        self._move(self.session.erase(self.view.cursor, backward))

    def paste_text(self, text: str) -> None:
        self._move(self.session.paste_text(self.view.cursor, text))

    def set_line_text(self, line: int, text: str) -> None:
        self.say(self.session.set_line_text(line, text))

    def insert_word(self, word: str) -> None:
        self._move(self.session.insert_word(self.view.cursor, word))

    def toggle_lock(self, units: list[tuple[int, int]]) -> None:
        self.say(self.session.toggle_lock(units))

    def toggle_line_lock(self, lines: list[int]) -> None:
        self.say(self.session.toggle_line_lock(lines))

    def action_toggle_lock(self) -> None:
        self.toggle_lock(self.view.selected_units())

    def action_toggle_line_lock(self) -> None:
        self.toggle_line_lock(self.view.selected_lines())

    def action_lock_all(self) -> None:
        self.say(self.session.lock_all())

    def action_unlock_all(self) -> None:
        self.say(self.session.unlock_all())

    def action_clear_text(self) -> None:
        self.say(self.session.clear_unlocked())

    def action_edit_line(self) -> None:
        self.view.start_inline_edit(self.view.cursor[0])

    # --- the form ---------------------------------------------------------------------------
    def _slot_range(self, line: int, unit: int) -> list[int]:
        """Template slots under a unit (zh: the slot; en: the syllables of the word, or the empty
        syllable at the cursor)."""
        tline = self.doc.template.lines[line]
        if self.doc.lang == "zh":
            return [unit] if unit < len(tline.slots) else []
        for u in self.view.rows[line].units if line < len(self.view.rows) else []:
            if u.unit != unit:
                continue
            if u.kind == "empty":
                s = self.view._slot_for_syllable(line, u.syl_start)
                return [s] if s is not None else []
            if u.slot is None:
                return []
            out, syl, k = [], 0, u.slot
            while k < len(tline.slots) and syl < u.syllables:
                out.append(k)
                syl += tline.slots[k].span
                k += 1
            return out
        return []

    def action_set_rhyme(self, label) -> None:
        self.say(self.session.set_rhyme(self.view.selected_lines(), label))

    def action_set_tone(self, tone) -> None:
        targets = [(i, s) for i, u in self.view.selected_units() for s in self._slot_range(i, u)]
        self.say(self.session.set_tone(targets, tone))

    def action_set_punct(self, mark: str) -> None:
        line, unit = self.view.cursor
        slots = self._slot_range(line, unit)
        if slots:
            self.say(self.session.set_punct(line, slots[-1], mark))

    def action_insert_above(self) -> None:
        line = self.view.cursor[0]
        self.say(self.session.insert_line(line, line))

    def action_insert_below(self) -> None:
        line = self.view.cursor[0]
        if self.say(self.session.insert_line(line + 1, line)):
            self.view.set_cursor(line + 1, 0)

    def action_remove_line(self) -> None:
        self.say(self.session.remove_lines(self.view.selected_lines()))

    def action_line_length(self) -> None:
        line = self.view.cursor[0]
        n = dialogs.get_int(self, tr("Line length"), tr("Syllables in line {n}:").format(n=line + 1),
                            self.doc.template.lines[line].syllables, 1, 64)
        if n is not None:
            self.say(self.session.set_line_length(line, n))

    def use_form(self, name: str) -> None:
        self.say(self.session.use_form(name))

    def apply_notation(self, text: str) -> None:
        self.say(self.session.apply_notation(text))

    def set_kind(self, kind: str) -> None:
        self.say(self.session.set_kind(kind))

    def set_rhyme_system(self, sid) -> None:
        self.say(self.session.set_rhyme_system(sid))

    def set_tone_system(self, ts: str) -> None:
        self.say(self.session.set_tone_system(ts))

    def set_scheme(self, text: str) -> None:
        if not self.say(self.session.set_scheme(text)):
            self.form_panel.refresh(force=True)

    def set_content(self, entries: list[str]) -> None:
        self.say(self.session.set_content(entries))

    def set_strength(self, value: float) -> None:
        self.say(self.session.set_strength(value))

    # ==========================================================================================
    # generation (the running of it is in ui/generating.py)
    def action_generate(self) -> None:
        self.generating.start(None)

    def action_regenerate(self) -> None:
        self.generating.start(self.view.selected_lines())

    def start_generation(self, lines: list[int] | None) -> None:
        self.generating.start(lines)

    def action_cancel(self) -> None:
        self.generating.cancel()

    def engine_changed(self) -> None:
        host = self.engine_host
        if host.state == READY:
            langs = "/".join(host.languages) if host.languages else ""
            self.engine_label.setText(tr("Engine: {backend}").format(backend=host.backend_name or "?")
                                      + (f" · {langs}" if langs else ""))
            self.engine_label.setToolTip(tr("Model: {path}").format(path=host.model_dir or tr("the default model")))
            self.steering_panel.set_available(host.supports_content)
            if hasattr(self, "suggest_timer"):
                self.suggest_timer.start()
        elif host.state == LOADING:
            self.engine_label.setText(tr("Engine: loading…"))
            self.steering_panel.set_available(None)
        elif host.state == FAILED:
            self.engine_label.setText("⚠ " + tr("Engine unavailable"))
            self.engine_label.setToolTip(host.error + "\n" + tr("Songwriter still works as an editor."))
            self.steering_panel.set_available(None)
        else:
            self.engine_label.setText(tr("Engine: not loaded"))
            self.engine_label.setToolTip(tr("The engine loads in the background when you first generate."))
            self.steering_panel.set_available(None)
        if hasattr(self, "generating"):
            self.generating.update_availability()

    # --- candidates ---------------------------------------------------------------------------
    def preview_candidate(self, index: int) -> None:
        lines, why = self.session.candidate_preview(index)
        self._preview_index = index if lines is not None else -1
        self.view.set_preview(lines)
        if why is not None:
            self.say(why)
        elif self.statusBar().currentMessage().startswith(tr("Previewing candidate {n}").split("{")[0]):
            self.statusBar().clearMessage()

    def apply_candidate(self, index: int) -> None:
        self._preview_index = -1
        self.view.set_preview(None)
        self.say(self.session.apply_candidate(index))
        self.candidates_panel.mark(self.candidates_panel.in_editor())

    def action_next_candidate(self) -> None:
        n = len(self.doc.candidates)
        if n:
            self.candidates_panel.select(min(n - 1, self.candidates_panel.list.currentRow() + 1))

    def action_prev_candidate(self) -> None:
        if self.doc.candidates:
            self.candidates_panel.select(max(0, self.candidates_panel.list.currentRow() - 1))

    def action_apply_candidate(self) -> None:
        self.apply_candidate(self.candidates_panel.list.currentRow())

    def restore_history(self, k: int) -> None:
        self.say(self.session.restore_version(k))

    # --- word suggestions ---------------------------------------------------------------------
    def action_suggest(self) -> None:
        self.docks["words"].show()
        self.docks["words"].raise_()
        self.update_suggestions(load=True)

    def slot_constraints(self, line: int, slot: int) -> str:
        t = self.doc.template
        tline = t.lines[line]
        s = tline.slots[slot]
        bits = [tr("Line {n}, slot {k}").format(n=line + 1, k=slot + 1)]
        if s.tone:
            bits.append(tr("tone {t}").format(t=s.tone if t.lang == "zh" else {"/": tr("stressed"), "x": tr("unstressed")}[s.tone]))
        if tline.rhyme and slot == len(tline.slots) - 1:
            name = group_label(t, self.session.rhyme_group_of(line, self.checks))
            bits.append(tr("rhyme {label}").format(label=tline.rhyme) + (f" ({name})" if name else ""))
        if t.lang == "en":
            left = sum(x.span for x in tline.slots[slot:])
            bits.append(tr("{n} syllable(s) left in the line").format(n=left))
        return " · ".join(bits)

    def update_suggestions(self, load: bool = False) -> None:
        if not self.docks["words"].isVisible() and not load:
            return
        where = self.view.current_slot()
        if where is None or where[1] is None:
            self.words_panel.show_words(tr("Select a slot in the editor to see words that fit it."), [], "")
            return
        line, slot = where
        header = self.slot_constraints(line, slot)
        host = self.engine_host
        self._suggest_token += 1
        token = self._suggest_token
        if host.state == READY and self.doc.lang in host.languages:
            template, text = self.session.suggestion_context(line, slot)
            self.words_panel.show_words(header, [], tr("Asking the engine…"))
            op = host.call(lambda engine: engine.suggest(template, text, line, slot, k=20), label="suggest")
            op.success(lambda words: self._suggested(token, header, words)) \
              .failure(lambda e: self._suggest_failed(token, header, line, slot, e))
            op.run_in_background(host.pool)
            return
        fallback = self.session.fallback_words(line, slot, self.checks)
        if host.state == FAILED:
            why = tr("The engine is not available, so these are not ranked.")
        elif host.state == READY:
            why = tr("No model for this language: these are not ranked.")
        elif host.state == LOADING:
            why = tr("The engine is loading; the ranked list follows.")
        else:
            why = tr("Not ranked yet: the engine loads when you generate or press Ctrl+Space.")
        self.words_panel.show_words(header, [(w, None) for w in fallback], why if fallback else
                                    why + " " + tr("No rhyme-table words for this slot."))
        if load and host.state not in (FAILED, READY):
            host.load(then=lambda _e: self.update_suggestions(), otherwise=lambda _m: None)

    def _suggested(self, token: int, header: str, words) -> None:
        if token != self._suggest_token:
            return
        items = [(str(w), float(s)) for w, s in words]
        self.words_panel.show_words(header, items, tr("Ranked by the engine; double-click or Enter puts a word in.")
                                    if items else tr("No word fits this slot."))

    def _suggest_failed(self, token: int, header: str, line: int, slot: int, error) -> None:
        if token != self._suggest_token:
            return
        self.words_panel.show_words(header, [(w, None) for w in self.session.fallback_words(line, slot, self.checks)],
                                    tr("The engine could not suggest: {e}").format(e=error))

    # ==========================================================================================
    # files
    def warn(self, title: str, text: str, details: str = "") -> None:
        if self.screenshot_mode:
            import sys

            print(f"songwriter: {title}: {text}", file=sys.stderr)
            return
        dialogs.warn(self, title, text, details)

    def maybe_save(self) -> bool:
        """True when it is fine to replace the piece (saved, discarded or unchanged)."""
        if self.view.editing_inline:
            self.view.finish_inline_edit(commit=True)
        if not self.is_modified():
            return True
        name = self.session.path.name if self.session.path else (self.doc.title or tr("Untitled"))
        choice = dialogs.ask_save_changes(self, name)
        if choice == "save":
            return self.file_save()
        return choice == "discard"

    def file_new(self) -> None:
        if self.maybe_save():
            self.session.new_piece()

    def file_open(self, path: str | None = None) -> bool:
        if not self.maybe_save():
            return False
        if not path:
            path = dialogs.open_path(self, tr("Open project"), tr(SONG_FILTER), self._last_dir())
            if not path:
                return False
        return self.open_path(path)

    def open_path(self, path: str) -> bool:
        done = self.session.open(path)
        if not done:
            self.warn(tr("Cannot open the project"), done.note.render(tr))
            return False
        self.say(done)
        settings.add_recent(str(self.session.path))
        settings.put("last_dir", str(self.session.path.parent))
        return True

    def file_save(self) -> bool:
        if self.session.path is None:
            return self.file_save_as()
        return self.save_to(self.session.path)

    def file_save_as(self) -> bool:
        s = self.session
        start = s.path or s.suggested_path or Path(self._last_dir()) / ((self.doc.title or "untitled") + D.SUFFIX)
        path = dialogs.save_path(self, tr("Save project"), tr(SONG_FILTER), str(start))
        if not path:
            return False
        if not path.endswith(D.SUFFIX):
            path += D.SUFFIX
        return self.save_to(Path(path))

    def save_to(self, path: Path) -> bool:
        if self.view.editing_inline:
            self.view.finish_inline_edit(commit=True)
        done = self.session.save(path)
        if not done:
            self.warn(tr("Cannot save"), done.note.render(tr))
            return False
        self.say(done)
        self.recovery.remove()
        settings.add_recent(str(self.session.path))
        settings.put("last_dir", str(self.session.path.parent))
        return True

    def _last_dir(self) -> str:
        return str(settings.get("last_dir") or "") or str(Path.home())

    def _fill_recent(self) -> None:
        m = self.actions.menus["recent"]
        m.clear()
        for p in settings.recent_files():
            act = m.addAction(p)
            act.triggered.connect(lambda _=False, x=p: self.file_open(x))
        if not m.actions():
            m.addAction(tr("(none)")).setEnabled(False)
        else:
            m.addSeparator()
            m.addAction(tr("Clear Recent")).triggered.connect(settings.clear_recent)

    # --- import: a song becomes a new piece ---------------------------------------------------
    def import_lyrics(self) -> None:
        path = dialogs.open_path(self, tr("Import lyrics"), tr(LYRICS_FILTER), self._last_dir())
        if path:
            self.import_file(path)

    def import_lrc(self) -> None:
        path = dialogs.open_path(self, tr("Import LRC"), tr(LRC_FILTER), self._last_dir())
        if path:
            self.import_file(path, kind="lrc")

    def import_file(self, path: str, kind: str | None = None) -> bool:
        from songwriter.cli import InputError, read_text_file

        try:
            text = read_text_file(path)
        except InputError as e:
            self.warn(tr("Cannot import"), str(e))
            return False
        if kind is None:
            kind = "lrc" if path.lower().endswith(".lrc") or looks_like_lrc(text) else "lyrics"
        return self.import_song(text, kind, Path(path).name)

    def paste_lyrics(self) -> None:
        text = dialogs.get_text(self, tr("Lyrics to re-lyric"),
                                tr("Paste the song's lyrics (one sung line per line) or an LRC file:"), "", multiline=True)
        if text and text.strip():
            self.import_song(text, "lrc" if looks_like_lrc(text) else "lyrics", "")

    def import_song(self, text: str, kind: str, name: str) -> bool:
        """The song's form becomes a new piece (the open one is saved or discarded first, as on
        New), so the open piece and its history are never mixed with the song's."""
        try:
            doc = piece_from_song(text, kind, name, tr("Tune of {name}"), tr("Imported song"))
        except TemplateError as e:
            self.warn(tr("Cannot import"), str(e))
            return False
        if not self.maybe_save():
            return False
        self.session.replace(doc, None)
        self.docks["original"].show()
        self.docks["original"].raise_()
        self.status_hint(tr("Form made from the song: {n} lines. The original is beside each line and in the Original Song panel.")
                         .format(n=len(doc.template.lines)))
        return True

    # --- export -------------------------------------------------------------------------------
    def file_export(self) -> None:
        from songwriter.export import FORMATS, ExportError, export

        filters = ";;".join(f"{tr(desc)} (*.{fmt})" for fmt, desc in FORMATS.items())
        base = self.session.path.stem if self.session.path else (self.doc.title or "untitled")
        path = dialogs.save_path(self, tr("Export"), filters, str(Path(self._last_dir()) / (base + ".txt")))
        if not path:
            return
        try:
            out = export(self.doc, path)
        except ExportError as e:
            self.warn(tr("Cannot export"), str(e))
            return
        self.status_hint(tr("Exported {name}").format(name=out.name))

    # ==========================================================================================
    # autosave and recovery
    def autosave(self) -> bool:
        return self.say(self.recovery.write(self.session))

    def offer_recovery(self) -> bool:
        """At start: if a Songwriter that did not close normally left unsaved work, offer it.
        What cannot be read is set aside, never deleted, and the writer is told where."""
        for found in self.recovery.orphans():
            if found.doc is None:
                kept = self.recovery.set_aside(found)
                self.warn(tr("Unsaved work could not be read"),
                          tr("Songwriter found unsaved work it cannot open: {error}\n\nThe file was kept as {path}.")
                          .format(error=found.error, path=kept or found.path))
                continue
            name = Path(found.original_path).name if found.original_path else (found.doc.title or tr("an untitled piece"))
            choice = dialogs.ask_recover(self, found.time, name)
            if choice == "recover":
                self.say(self.recovery.recover(self.session, found))
                return True
            if choice == "discard":
                self.recovery.discard(found)
            return False
        return False

    # ==========================================================================================
    # preferences, language, help
    def action_preferences(self) -> None:
        from .prefs import PreferencesDialog

        dlg = PreferencesDialog(self)
        if dlg.exec():
            self.autosave_timer.setInterval(max(1, settings.get("autosave_seconds")) * 1000)
            self.engine_host.set_model(settings.get("model_dir") or None, settings.get("backend"))
            self.generating.update_availability()

    def set_ui_language(self, code: str) -> None:
        settings.put("language", code)
        dialogs.info(self, "Songwriter", "Language changes when Songwriter next starts.\n界面语言将在下次启动时更改。")

    def action_user_guide(self):
        from . import help

        return help.show_user_guide(self)

    def action_notation_help(self):
        from . import help

        return help.show_notation(self)

    def action_shortcuts_help(self):
        from . import help

        return help.show_shortcuts(self, self.actions)

    def action_models_help(self):
        from . import help

        return help.show_models(self)

    def action_about(self) -> None:
        host = self.engine_host
        engine = (tr("Engine: {backend}").format(backend=host.backend_name) if host.ready else
                  host.error if host.state == FAILED else tr("Engine: not loaded"))
        dialogs.info(self, tr("About Songwriter"),
                     tr("Songwriter {v}: write lyrics and poems to a form.").format(v=D._app_version()) + "\n\n" + engine
                     + "\n\n" + tr("Help ▸ Models and Credits names the training data and its licences."))

    # ==========================================================================================
    def editor_context_menu(self, view):
        return build_context_menu(view, self.actions)

    def closeEvent(self, e) -> None:
        if not self.maybe_save():
            e.ignore()
            return
        self.generating.cancel()
        self.autosave_timer.stop()
        self.engine_host.shutdown(5000)
        self.recovery.remove()
        s = settings.settings()
        s.setValue("window/geometry", self.saveGeometry())
        s.setValue("window/state", self.saveState())
        s.sync()
        e.accept()


def group_label(template, group: str | None) -> str:
    """A rhyme group's name as a writer knows it (江阳辙, 下平七阳), never its id."""
    if not group:
        return ""
    try:
        from songwriter.prosody.chinese import group_name

        return group_name(template.effective_rhyme_system(), group)
    except Exception:   # an English rhyme key or a table that is missing: no name to show
        return ""

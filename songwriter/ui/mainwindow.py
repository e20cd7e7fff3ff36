"""The main window: the editor in the middle, panels around it, every change undoable, the
engine working in the background."""

from __future__ import annotations

import json
import os
import time
import traceback
from pathlib import Path

from PySide6.QtCore import QByteArray, Qt, QTimer
from PySide6.QtGui import QUndoStack
from PySide6.QtWidgets import (
    QDockWidget, QLabel, QLineEdit, QMainWindow, QProgressBar, QPushButton, QScrollArea, QToolBar,
    QVBoxLayout, QWidget, QHBoxLayout,
)

from songwriter import document as D
from songwriter.document import Document, DocumentError, Original, new_document
from songwriter.lyrics import looks_like_lrc
from songwriter.template import TemplateError, is_hanzi

from . import dialogs, settings
from .actions import Actions, icon_for
from .commands import SnapshotCommand, snapshot
from .editor import EditorScroll, PieceView, build_context_menu
from .engine_host import FAILED, LOADING, READY, EngineHost
from .i18n import LANGUAGES, language, tr
from .panels import (
    CandidatesPanel, FormPanel, HistoryPanel, OriginalPanel, SteeringPanel, WordsPanel,
)
from .worker import progress_fraction

SONG_FILTER = "Songwriter project (*.song)"
LYRICS_FILTER = "Lyrics (*.txt *.lrc *.text);;All files (*)"
LRC_FILTER = "LRC lyrics (*.lrc);;All files (*)"


def default_form_name() -> str:
    return "七绝" if language() == "zh" else "Shakespearean sonnet"


class MainWindow(QMainWindow):
    def __init__(self, model_dir: str | None = None, backend: str | None = None, engine_loader=None,
                 autosave_seconds: int | None = None, doc: Document | None = None):
        super().__init__()
        from songwriter.forms import named_form

        self.setObjectName("MainWindow")
        self.setWindowIcon(icon_for("app"))
        self.doc: Document = doc or new_document(named_form(default_form_name()))
        self.path: Path | None = None
        self._recovered = False
        self.undo_stack = QUndoStack(self)
        self.undo_stack.cleanChanged.connect(self._stack_changed)
        self.undo_stack.indexChanged.connect(self._stack_changed)
        self.engine_host = EngineHost(self, model_dir or settings.get("model_dir") or None,
                                      backend or settings.get("backend") or "auto", engine_loader)
        self.engine_host.changed.connect(self.engine_changed)
        self.gen_op = None
        self._gen_request = None
        self._gen_wanted = False
        self._gen_apply_only = None
        self.last_generation_seconds: float | None = None
        self.report = None
        self.statuses = None
        self.check_error = ""
        self._suggest_token = 0
        self._preview_index = -1
        self._autosaved_index = None

        self.actions = Actions(self)
        self._build_central()
        self._build_docks()
        self._build_menus()
        self._build_toolbar()
        self._build_statusbar()

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

    # ==========================================================================================
    # building
    def _build_central(self) -> None:
        central = QWidget()
        lay = QVBoxLayout(central)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(0)
        head = QWidget()
        head.setObjectName("header")
        head.setStyleSheet("#header { background: #fafafa; border-bottom: 1px solid #e0e0e0; }")
        hl = QHBoxLayout(head)
        hl.setContentsMargins(12, 8, 12, 8)
        from songwriter.export.fonts import font

        self.title_edit = QLineEdit()
        self.title_edit.setObjectName("title")
        self.title_edit.setPlaceholderText(tr("Title"))
        self.title_edit.setFont(font(pixel_size=20, bold=True))
        self.title_edit.setFrame(False)
        self.title_edit.setStyleSheet("background: transparent;")
        self.title_edit.editingFinished.connect(self._title_edited)
        hl.addWidget(self.title_edit, 2)
        self.form_label = QLabel()
        self.form_label.setObjectName("form_label")
        self.form_label.setFont(font(pixel_size=14))
        self.form_label.setStyleSheet("color: #546e7a;")
        hl.addWidget(self.form_label, 3, Qt.AlignRight)
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
        self.view.cursorMoved.connect(lambda *_: self._cursor_moved())
        self.view.previewCleared.connect(lambda: self.candidates_panel.stop_preview())

    def _dock(self, name: str, title: str, widget: QWidget, area) -> QDockWidget:
        dock = QDockWidget(title, self)
        dock.setObjectName(f"dock_{name}")
        dock.setWidget(widget)
        self.addDockWidget(area, dock)
        return dock

    def _build_docks(self) -> None:
        self.form_panel = FormPanel(self)
        self.candidates_panel = CandidatesPanel(self)
        self.words_panel = WordsPanel(self)
        self.steering_panel = SteeringPanel(self)
        self.original_panel = OriginalPanel(self)
        self.history_panel = HistoryPanel(self)
        self.docks = {
            "form": self._dock("form", tr("Form"), self.form_panel, Qt.LeftDockWidgetArea),
            "candidates": self._dock("candidates", tr("Candidates"), self.candidates_panel, Qt.RightDockWidgetArea),
            "words": self._dock("words", tr("Rhymes and Words"), self.words_panel, Qt.RightDockWidgetArea),
            "steering": self._dock("steering", tr("Steering"), self.steering_panel, Qt.RightDockWidgetArea),
            "original": self._dock("original", tr("Original Song"), self.original_panel, Qt.LeftDockWidgetArea),
            "history": self._dock("history", tr("History"), self.history_panel, Qt.RightDockWidgetArea),
        }
        self.tabifyDockWidget(self.docks["form"], self.docks["original"])
        self.docks["form"].raise_()
        self.splitDockWidget(self.docks["candidates"], self.docks["words"], Qt.Vertical)
        self.tabifyDockWidget(self.docks["words"], self.docks["steering"])
        self.tabifyDockWidget(self.docks["steering"], self.docks["history"])
        self.docks["words"].raise_()
        self.resizeDocks([self.docks["form"]], [330], Qt.Horizontal)
        self.resizeDocks([self.docks["candidates"]], [360], Qt.Horizontal)
        self.docks["words"].visibilityChanged.connect(lambda v: v and self.suggest_timer.start())

    def _build_menus(self) -> None:
        a = self.actions
        mb = self.menuBar()
        m = mb.addMenu(tr("&File"))
        for n in ("new", "open"):
            m.addAction(a[n])
        m.addMenu(a.menus["recent"])
        a.menus["recent"].aboutToShow.connect(self._fill_recent)
        for n in ("save", "save_as", None, "import_lyrics", "import_lrc", "paste_lyrics", None, "export", None, "quit"):
            m.addSeparator() if n is None else m.addAction(a[n])
        m = mb.addMenu(tr("&Edit"))
        for n in ("undo", "redo", None, "edit_line", "clear_text", None, "toggle_lock", "toggle_line_lock",
                  "lock_all", "unlock_all", None, "preferences"):
            m.addSeparator() if n is None else m.addAction(a[n])
        m = mb.addMenu(tr("F&orm"))
        for n in ("insert_line_above", "insert_line_below", "remove_line", "line_length"):
            m.addAction(a[n])
        m.addMenu(a.menus["rhyme"])
        m.addMenu(a.menus["tone"])
        m.addMenu(a.menus["punct"])
        m = mb.addMenu(tr("&Generate"))
        for n in ("generate", "regenerate", "cancel", None, "prev_candidate", "next_candidate",
                  "apply_candidate", None, "suggest"):
            m.addSeparator() if n is None else m.addAction(a[n])
        m = mb.addMenu(tr("&View"))
        for dock in self.docks.values():
            m.addAction(dock.toggleViewAction())
        m.addSeparator()
        lm = m.addMenu(tr("&Language"))
        for code, name in LANGUAGES.items():
            act = lm.addAction(name)
            act.setCheckable(True)
            act.setChecked(code == language())
            act.setData(code)
            a.language_group.addAction(act)
            act.triggered.connect(lambda _=False, c=code: self.set_ui_language(c))
        m = mb.addMenu(tr("&Help"))
        m.addAction(a["about"])

    def _build_toolbar(self) -> None:
        tb = QToolBar(tr("Main"), self)
        tb.setObjectName("toolbar_main")
        tb.setToolButtonStyle(Qt.ToolButtonTextBesideIcon)
        a = self.actions
        for n in ("new", "open", "save", None, "undo", "redo", None, "generate", "regenerate", "cancel", None,
                  "toggle_lock", "toggle_line_lock", None, "export"):
            tb.addSeparator() if n is None else tb.addAction(a[n])
        self.addToolBar(Qt.TopToolBarArea, tb)
        for n in ("new", "open", "save", "undo", "redo", "toggle_line_lock", "export"):
            w = tb.widgetForAction(a[n])
            if w is not None:
                w.setToolButtonStyle(Qt.ToolButtonIconOnly)

    def _build_statusbar(self) -> None:
        sb = self.statusBar()
        self.check_label = QLabel()
        self.check_label.setObjectName("check_summary")
        self.engine_label = QLabel()
        self.engine_label.setObjectName("engine_status")
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
        for w in (self.check_label, self.progress, self.cancel_button, self.time_label, self.engine_label):
            sb.addPermanentWidget(w)
        self.engine_changed()

    # ==========================================================================================
    # the document and undo
    def edit(self, label: str, fn, merge_key=None) -> bool:
        """Make one undoable change: fn(doc) mutates the document. False if it refused."""
        if self._preview_index >= 0:
            self.preview_candidate(-1)
        before = snapshot(self.doc)
        try:
            fn(self.doc)
        except (DocumentError, TemplateError) as e:
            self.restore_snapshot(before, keep_history=True)
            self.status_hint(str(e))
            return False
        after = snapshot(self.doc)
        if after == before:
            self.doc_changed()
            return False
        self.undo_stack.push(SnapshotCommand(self, label, before, after, merge_key))
        self.doc_changed()
        return True

    def restore_snapshot(self, data: dict, keep_history: bool = True) -> None:
        history = self.doc.history
        self.doc = Document.from_dict(data)
        if keep_history:
            self.doc.history = history
        self.doc_changed()

    def doc_changed(self) -> None:
        self.view.relayout()
        self.check_timer.start()
        self.form_panel.refresh()
        self.candidates_panel.refresh()
        self.steering_panel.refresh()
        self.original_panel.refresh()
        self.history_panel.refresh()
        if self.title_edit.text() != self.doc.title and not self.title_edit.hasFocus():
            self.title_edit.setText(self.doc.title)
        t = self.doc.template
        bits = [t.name or tr("Custom form"), tr("{n} lines").format(n=len(t.lines)),
                tr("{n} syllables").format(n=t.syllables)]
        if t.rhyme_groups():
            bits.append(self.form_panel._system_label(t.effective_rhyme_system(), t.lang))
        locks = self.doc.locked_count()
        if locks:
            bits.append(tr("{n} locked").format(n=locks))
        self.form_label.setText(" · ".join(bits))
        self.actions.fill_slot_menus(self.doc.lang)
        self.update_title()
        self.suggest_timer.start()

    def doc_replaced(self) -> None:
        """A new document (new/open/recover): a fresh undo history."""
        self.undo_stack.clear()
        self._autosaved_index = None
        self.view.cursor = (0, 0)
        self.view.anchor = None
        self._preview_index = -1
        self.view.preview = None
        self.doc_changed()
        self.run_checks()

    def is_modified(self) -> bool:
        return self._recovered or not self.undo_stack.isClean()

    def _stack_changed(self, *_args) -> None:
        self.update_title()

    def update_title(self) -> None:
        name = self.path.name if self.path else (self.doc.title or tr("Untitled"))
        self.setWindowTitle(f"{name}[*] — Songwriter")
        self.setWindowModified(self.is_modified())

    def _title_edited(self) -> None:
        text = self.title_edit.text().strip()
        if text != self.doc.title:
            self.edit(tr("Change title"), lambda d: setattr(d, "title", text))

    # ==========================================================================================
    # checks
    def run_checks(self) -> None:
        try:
            self.report = self.doc.check()
            self.statuses = D.line_statuses(self.doc, self.report)
            self.check_error = ""
        except Exception as e:   # a prosody table missing must not stop the editor
            self.report, self.statuses = None, None
            self.check_error = f"{type(e).__name__}: {e}"
        self.view.set_statuses(self.statuses)
        if self.statuses is None:
            self.check_label.setText(tr("checks unavailable"))
            self.check_label.setToolTip(self.check_error)
            return
        written = [s for s in self.statuses if s.state != "empty"]
        ok = sum(1 for s in written if s.state == "ok")
        bad = sum(1 for s in written if s.state == "problem")
        text = tr("{ok}/{n} lines fit").format(ok=ok, n=len(self.statuses))
        if bad:
            text += " · " + tr("{n} with problems").format(n=bad)
        self.check_label.setText(text)
        self.check_label.setToolTip(self.report.summary() if self.report else "")

    # ==========================================================================================
    # typing and editing (called by the editor)
    def status_hint(self, text: str, ms: int = 6000) -> None:
        self.statusBar().showMessage(text, ms)

    def _free_slot_from(self, line: int, k: int) -> tuple[int, int] | None:
        t = self.doc.template
        while line < len(t.lines):
            slots = t.lines[line].slots
            while k < len(slots):
                if slots[k].lock is None:
                    return line, k
                k += 1
            line, k = line + 1, 0
        return None

    def type_chars(self, chars: str) -> None:
        """Chinese: put characters into the cells from the cursor on, skipping locked cells."""
        line, k = self.view.cursor
        positions = []
        pos = (line, k)
        for _ in chars:
            nxt = self._free_slot_from(*pos)
            if nxt is None:
                break
            positions.append(nxt)
            pos = (nxt[0], nxt[1] + 1)
        if not positions:
            self.status_hint(tr("No free slot here: every slot from the cursor on is locked"))
            return

        def fn(d):
            for (i, s), ch in zip(positions, chars):
                d.set_zh_cell(i, s, ch)

        self.edit(tr("Typing"), fn, merge_key=("type", positions[0][0]))
        last = positions[-1]
        nxt = self._free_slot_from(last[0], last[1] + 1)
        if nxt is not None and nxt[0] == last[0]:
            self.view.set_cursor(*nxt)
        elif nxt is not None:
            self.view.set_cursor(nxt[0], nxt[1])
        else:
            self.view.set_cursor(last[0], last[1] + 1)

    def erase(self, backward: bool) -> None:
        line, unit = self.view.cursor
        if self.doc.lang == "zh":
            cells = self.doc.zh_cells(line)
            slots = self.doc.template.lines[line].slots
            k = unit
            if backward and (k >= len(cells) or not cells[k] or (k < len(slots) and slots[k].lock is not None)):
                k -= 1
                while k >= 0 and k < len(slots) and slots[k].lock is not None:
                    k -= 1
                if k < 0:
                    if line > 0:
                        self.view.set_cursor(line - 1, self.view.n_units(line - 1) - 1)
                    return
            if k < len(slots) and slots[k].lock is not None:
                self.status_hint(tr("That character is locked (Ctrl+L unlocks it)"))
                return
            if k >= len(slots):   # an overflow cell: drop it from the text
                def fn(d):
                    cells2 = d.zh_cells(line)
                    del cells2[k]
                    d.lines[line] = D.compose_zh(cells2, d.template.lines[line])
            else:
                def fn(d):
                    d.set_zh_cell(line, k, "")
            self.edit(tr("Erase"), fn, merge_key=("erase", line))
            self.view.set_cursor(line, k)
            return
        words = D.en_word_layout(self.doc.lines[line], self.doc.template.lines[line])
        k = unit - 1 if backward else unit
        if not 0 <= k < len(words):
            return
        if words[k].locked:
            self.status_hint(tr("That word is locked (Ctrl+L unlocks it)"))
            return

        def fn(d):
            units = D.syllable_units(d.lines[line], "en")
            del units[k]
            d.lines[line] = " ".join(w + p for w, p in units)
        self.edit(tr("Erase"), fn, merge_key=("erase", line))
        self.view.set_cursor(line, k)

    def paste_text(self, text: str) -> None:
        if self.doc.lang == "zh":
            chars = "".join(c for c in text if is_hanzi(c))
            if chars:
                self.type_chars(chars)
            return
        lines = [x.strip() for x in text.splitlines() if x.strip()]
        start = self.view.cursor[0]

        def fn(d):
            for j, x in enumerate(lines):
                if start + j < len(d.lines):
                    d.lines[start + j] = x
        self.edit(tr("Paste"), fn)

    def set_line_text(self, line: int, text: str) -> None:
        def fn(d):
            d.lines[line] = text.strip()
            if d.lang == "zh" and any(s.lock for s in d.template.lines[line].slots):
                d.lines[line] = D.compose_zh(d.zh_cells(line), d.template.lines[line])
        self.edit(tr("Edit line {n}").format(n=line + 1), fn)

    def insert_word(self, word: str) -> None:
        if not word:
            return
        if self.doc.lang == "zh":
            self.type_chars(word)
            return
        line, unit = self.view.cursor

        def fn(d):
            units = D.syllable_units(d.lines[line], "en")
            if unit < len(units):
                units[unit] = (word, units[unit][1])
            else:
                units.append((word, ""))
            d.lines[line] = " ".join(w + p for w, p in units)
        self.edit(tr("Insert word"), fn)
        self.view.set_cursor(line, unit + 1)

    # ==========================================================================================
    # locks
    def _lockable(self, line: int, unit: int) -> bool:
        if self.doc.lang == "zh":
            cells = self.doc.zh_cells(line)
            return unit < len(self.doc.template.lines[line].slots) and bool(cells[unit]) and is_hanzi(cells[unit])
        return unit < len(D.en_word_layout(self.doc.lines[line], self.doc.template.lines[line]))

    def toggle_lock(self, units: list[tuple[int, int]]) -> None:
        units = [u for u in units if self._lockable(*u)]
        if not units:
            self.status_hint(tr("Nothing written there to lock: write a character or word first"))
            return
        if all(self.doc.is_locked(*u) for u in units):
            def fn(d):
                for i, k in sorted(units, reverse=True):
                    d.unlock(i, k)
            self.edit(tr("Unlock"), fn)
            self.status_hint(tr("Unlocked {n}").format(n=len(units)))
        else:
            def fn(d):
                for i, k in units:
                    if not d.is_locked(i, k):
                        d.lock(i, k)
            self.edit(tr("Lock"), fn)
            self.status_hint(tr("Locked {n}: generation keeps it").format(n=len(units)))

    def toggle_line_lock(self, lines: list[int]) -> None:
        t = self.doc.template
        if all(all(s.lock is not None for s in t.lines[i].slots) for i in lines):
            def fn(d):
                for i in lines:
                    d.unlock_line(i)
            self.edit(tr("Unlock line"), fn)
            return
        if all(self.doc.is_blank_line(i) for i in lines):
            self.status_hint(tr("Nothing written on this line to lock"))
            return

        def fn(d):
            for i in lines:
                d.lock_line(i)
        self.edit(tr("Lock line"), fn)

    def action_toggle_lock(self) -> None:
        self.toggle_lock(self.view.selected_units())

    def action_toggle_line_lock(self) -> None:
        self.toggle_line_lock(self.view.selected_lines())

    def action_lock_all(self) -> None:
        def fn(d):
            for i in range(len(d.lines)):
                d.lock_line(i)
        self.edit(tr("Lock all"), fn)

    def action_unlock_all(self) -> None:
        def fn(d):
            for i in range(len(d.lines)):
                d.unlock_line(i)
        self.edit(tr("Unlock all"), fn)

    def action_clear_text(self) -> None:
        def fn(d):
            for i in range(len(d.lines)):
                if d.lang == "zh":
                    d.lines[i] = D.compose_zh([s.lock or "" for s in d.template.lines[i].slots], d.template.lines[i])
                else:
                    d.lines[i] = " ".join(s.lock + s.punct for s in d.template.lines[i].slots if s.lock)
        self.edit(tr("Clear unlocked text"), fn)

    def action_edit_line(self) -> None:
        self.view.start_inline_edit(self.view.cursor[0])

    # ==========================================================================================
    # template edits
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
        lines = self.view.selected_lines()

        def fn(d):
            for i in lines:
                d.set_rhyme(i, label)
        self.edit(tr("Set rhyme"), fn)

    def action_set_tone(self, tone) -> None:
        targets = [(i, s) for i, u in self.view.selected_units() for s in self._slot_range(i, u)]

        def fn(d):
            for i, s in targets:
                if d.template.lines[i].slots[s].span == 1:
                    d.set_tone(i, s, tone)
        if targets:
            self.edit(tr("Set tone"), fn)

    def action_set_punct(self, mark: str) -> None:
        line, unit = self.view.cursor
        slots = self._slot_range(line, unit)
        if slots:
            self.edit(tr("Set punctuation"), lambda d: d.set_punct(line, slots[-1], mark))

    def action_insert_above(self) -> None:
        line = self.view.cursor[0]
        self.edit(tr("Insert line"), lambda d: d.insert_line(line, like=line))

    def action_insert_below(self) -> None:
        line = self.view.cursor[0]
        self.edit(tr("Insert line"), lambda d: d.insert_line(line + 1, like=line))
        self.view.set_cursor(line + 1, 0)

    def action_remove_line(self) -> None:
        lines = self.view.selected_lines()

        def fn(d):
            for i in sorted(lines, reverse=True):
                d.remove_line(i)
        self.edit(tr("Remove line"), fn)

    def action_line_length(self) -> None:
        line = self.view.cursor[0]
        n = dialogs.get_int(self, tr("Line length"), tr("Syllables in line {n}:").format(n=line + 1),
                            self.doc.template.lines[line].syllables, 1, 64)
        if n is not None:
            self.edit(tr("Line length"), lambda d: d.set_line_length(line, n))

    # --- form panel ---------------------------------------------------------------------------
    def use_form(self, name: str) -> None:
        from songwriter.forms import named_form

        try:
            t = named_form(name)
        except TemplateError as e:
            dialogs.warn(self, tr("Unknown form"), str(e))
            return
        same_lang = t.lang == self.doc.lang

        def fn(d):
            d.set_template(t, keep_text=same_lang)
        self.edit(tr("Use form {name}").format(name=t.name), fn)
        self.status_hint(tr("Form: {name}").format(name=t.name))

    def apply_notation(self, text: str) -> None:
        from songwriter.template import parse_notation

        try:
            t = parse_notation(text)
        except TemplateError as e:
            self.status_hint(str(e))
            return
        if not t.name:
            t.name = self.doc.template.name
        same_lang = t.lang == self.doc.lang
        self.edit(tr("Edit form"), lambda d: d.set_template(t, keep_text=same_lang))

    def set_kind(self, kind: str) -> None:
        def fn(d):
            d.template.kind = kind
        self.edit(tr("Kind of piece"), fn)

    def set_rhyme_system(self, sid) -> None:
        def fn(d):
            d.template.rhyme_system = sid
        self.edit(tr("Rhyme system"), fn)

    def set_tone_system(self, ts: str) -> None:
        def fn(d):
            d.template.tone_system = ts
        self.edit(tr("Tone system"), fn)

    def set_scheme(self, text: str) -> None:
        letters = [c for c in text.upper() if not c.isspace()]
        n = len(self.doc.template.lines)
        if len(letters) != n or any(not ("A" <= c <= "Z" or c in "-_.") for c in letters):
            self.status_hint(tr("The rhyme scheme needs one letter (or -) for each of the {n} lines").format(n=n))
            self.form_panel.refresh(force=True)
            return

        def fn(d):
            for i, c in enumerate(letters):
                d.set_rhyme(i, c if "A" <= c <= "Z" else None)
        self.edit(tr("Rhyme scheme"), fn)

    # --- steering -----------------------------------------------------------------------------
    def set_content(self, entries: list[str]) -> None:
        self.edit(tr("Content"), lambda d: setattr(d, "content", list(entries)))

    def set_strength(self, value: float) -> None:
        self.edit(tr("Strength"), lambda d: setattr(d, "strength", round(float(value), 2)), merge_key="strength")

    # ==========================================================================================
    # generation
    def _settings_request_kwargs(self) -> dict:
        seed = settings.settings().value("seed", "")
        try:
            seed = int(seed) if str(seed).strip() != "" else None
        except ValueError:
            seed = None
        return {"n": max(1, settings.get("candidates")), "temperature": settings.get("temperature"),
                "top_k": settings.get("top_k"), "top_p": settings.get("top_p"), "seed": seed}

    def action_generate(self) -> None:
        self.start_generation(None)

    def action_regenerate(self) -> None:
        self.start_generation(self.view.selected_lines())

    def start_generation(self, lines: list[int] | None) -> None:
        if self.gen_op is not None or self._gen_wanted:
            self.status_hint(tr("A generation is already running (Cancel stops it)"))
            return
        if self.view.editing_inline:
            self.view.finish_inline_edit(commit=True)
        self._gen_wanted = True
        self._set_busy(True, lines)
        if self.engine_host.state != READY:
            self.status_hint(tr("Loading the engine…"), 0)
        self.engine_host.load(then=lambda _e: self._generate_now(lines), otherwise=self._engine_unavailable)

    def _generate_now(self, lines: list[int] | None) -> None:
        if not self._gen_wanted:     # cancelled while the engine was loading
            self._set_busy(False)
            return
        host = self.engine_host
        kwargs = self._settings_request_kwargs()
        doc = self.doc
        template, req_lines = doc.template.copy(), lines
        if lines is not None:
            # Lines not being rewritten are context. Unfinished ones cannot be kept as they are, so
            # the engine fills them too (around what is written, locked for this request only);
            # only the selected lines are taken from the result.
            unfinished = [i for i in range(len(doc.lines)) if i not in lines and not doc.line_complete(i)]
            if unfinished:
                template = doc.context_template(unfinished)
                req_lines = sorted(set(lines) | set(unfinished))
        request = make_request(
            template=template, text=doc.check_text(), lines=req_lines,
            content=list(doc.content) if host.supports_content else [],
            strength=doc.strength if host.supports_content else 0.0,
            rhyme_system=doc.template.rhyme_system, **kwargs)
        self._gen_apply_only = list(lines) if lines is not None else None
        self._gen_request = request
        self._gen_signature = D.to_dict(self.doc.template)
        op = host.call("generate", request, cancellable=True, with_progress=True, label="generate")
        apply_only = self._gen_apply_only
        op.success(lambda cands: self._generated(request, cands, op.elapsed, apply_only)) \
          .failure(self._generation_failed).progress(self._progress).finally_(self._generation_over)
        self.gen_op = op
        self.status_hint(tr("Generating {n} candidates…").format(n=request.n), 0)
        op.run_in_background(host.pool)

    def _progress(self, value) -> None:
        frac = progress_fraction(value)
        if frac is None:
            self.progress.setRange(0, 0)
        else:
            self.progress.setRange(0, 1000)
            self.progress.setValue(int(frac * 1000))

    def _generated(self, request, candidates, seconds: float, apply_only=None) -> None:
        self.last_generation_seconds = seconds
        self.time_label.setText(tr("{s:.1f} s per generation").format(s=seconds))
        if not candidates:
            self.status_hint(tr("The engine returned no candidates"))
            return
        now = D.now_iso()
        records = []
        for c in candidates:
            lines = list(getattr(c, "lines", None) or str(c.text).split("\n"))
            check = getattr(c, "check", None)
            n_problems = (len(getattr(check, "problems", [])) + sum(len(x.problems) for x in getattr(check, "lines", []))) if check is not None else 0
            records.append(D.CandidateRecord(text=str(c.text), lines=lines, score=float(c.score),
                                             ok=bool(getattr(check, "ok", True)), created=now,
                                             regenerated=apply_only,
                                             problems=n_problems))
        same_form = D.to_dict(self.doc.template) == self._gen_signature
        label = (tr("Generate") if apply_only is None else
                 tr("Regenerate line {n}").format(n=", ".join(str(i + 1) for i in apply_only)))

        def fn(d):
            d.add_candidates(records)
            if same_form:
                d.apply_lines(records[0].lines, only=apply_only)
        self.edit(label, fn)
        if same_form:
            self.doc.remember("generate")
            self.history_panel.refresh()
            self.status_hint(tr("{n} candidates in {s:.1f} s; the best is in the editor (Alt+Up/Down to preview others)")
                             .format(n=len(records), s=seconds))
        else:
            self.status_hint(tr("The form changed while generating: the candidates are listed, none was applied"))
        self.docks["candidates"].raise_()

    def _generation_failed(self, error: BaseException) -> None:
        name = type(error).__name__
        if name == "GenerationCancelled":
            self.status_hint(tr("Generation cancelled"))
        elif name == "GenerationError":
            dialogs.warn(self, tr("Cannot generate"), str(error))
        else:
            dialogs.warn(self, tr("Generation failed"), f"{name}: {error}",
                         getattr(self.gen_op, "traceback", "") if self.gen_op else "")

    def _generation_over(self) -> None:
        self.gen_op = None
        self._gen_wanted = False
        self._set_busy(False)

    def _engine_unavailable(self, message: str) -> None:
        self._gen_wanted = False
        self._set_busy(False)
        dialogs.warn(self, tr("The engine is not available"),
                     message + "\n\n" + tr("Songwriter still works as an editor: write, lock, check and export as usual."),
                     self.engine_host.details)

    def action_cancel(self) -> None:
        if self.gen_op is not None:
            self.gen_op.cancel()
            self.status_hint(tr("Cancelling…"), 0)
        elif self._gen_wanted:
            self._gen_wanted = False
            self._set_busy(False)
            self.status_hint(tr("Generation cancelled"))

    def _set_busy(self, busy: bool, lines=None) -> None:
        self.progress.setVisible(busy)
        self.cancel_button.setVisible(busy)
        self.progress.setRange(0, 0)
        self.actions["cancel"].setEnabled(busy)
        self.actions["generate"].setEnabled(not busy)
        self.actions["regenerate"].setEnabled(not busy)
        if busy:
            self.view.set_busy(lines if lines is not None else range(len(self.doc.lines)))
        else:
            self.view.set_busy(())
            if self.statusBar().currentMessage().startswith((tr("Generating {n} candidates…").split("{")[0],
                                                             tr("Loading the engine…"))):
                self.statusBar().clearMessage()

    @property
    def busy(self) -> bool:
        return self.gen_op is not None or self._gen_wanted

    def engine_changed(self) -> None:
        host = self.engine_host
        if host.state == READY:
            langs = "/".join(host.languages) if host.languages else ""
            self.engine_label.setText(tr("Engine: {backend}").format(backend=host.backend_name or "?")
                                      + (f" · {langs}" if langs else ""))
            self.engine_label.setToolTip(tr("Model: {path}").format(path=host.model_dir or tr("the default model")))
            self.steering_panel.set_available(host.supports_content, host.backend_name)
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

    # --- candidates ---------------------------------------------------------------------------
    def preview_candidate(self, index: int) -> None:
        if not 0 <= index < len(self.doc.candidates):
            self._preview_index = -1
            self.view.set_preview(None)
            return
        c = self.doc.candidates[index]
        only = c.regenerated if c.regenerated is not None else range(len(self.doc.lines))
        self._preview_index = index
        self.view.set_preview({i: c.lines[i] for i in only if i < len(c.lines)})
        self.status_hint(tr("Previewing candidate {n}: Enter or Apply uses it, Esc stops the preview").format(n=index + 1))

    def apply_candidate(self, index: int) -> None:
        if not 0 <= index < len(self.doc.candidates):
            return
        c = self.doc.candidates[index]
        self._preview_index = -1
        self.view.set_preview(None)
        self.edit(tr("Apply candidate {n}").format(n=index + 1), lambda d: d.apply_lines(c.lines, only=c.regenerated))
        self.doc.remember("candidate")
        self.history_panel.refresh()

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
        if 0 <= k < len(self.doc.history):
            text = self.doc.history[k].text
            self.edit(tr("Restore version"), lambda d: d.set_text(text))

    # --- word suggestions ---------------------------------------------------------------------
    def _cursor_moved(self) -> None:
        self.suggest_timer.start()

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
            group = self.report.rhyme_groups.get(tline.rhyme) if self.report else None
            name = self._group_name(group)
            bits.append(tr("rhyme {label}").format(label=tline.rhyme) + (f" ({name})" if name else ""))
        if t.lang == "en":
            left = sum(x.span for x in tline.slots[slot:])
            bits.append(tr("{n} syllable(s) left in the line").format(n=left))
        return " · ".join(bits)

    def _group_name(self, group) -> str:
        if not group:
            return ""
        try:
            from songwriter.prosody.chinese import group_name

            return group_name(self.doc.template.effective_rhyme_system(), group)
        except Exception:
            return str(group).split(":")[-1]

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
        if host.state == READY:
            template = self.doc.context_template(skip=(line, slot))
            self.words_panel.show_words(header, [], tr("Asking the engine…"))
            op = host.call("suggest", template, "", line, slot, k=20, label="suggest")
            op.success(lambda words: self._suggested(token, header, words)) \
              .failure(lambda e: self._suggest_failed(token, header, line, slot, e))
            op.run_in_background(host.pool)
            return
        fallback = self.fallback_words(line, slot)
        if host.state == FAILED:
            note = tr("The engine is not available, so these are not ranked.")
        elif host.state == LOADING:
            note = tr("The engine is loading; the ranked list follows.")
        else:
            note = tr("Not ranked yet: the engine loads when you generate or press Ctrl+Space.")
        self.words_panel.show_words(header, [(w, None) for w in fallback], note if fallback else
                                    note + " " + tr("No rhyme-table words for this slot."))
        if load and host.state != FAILED:
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
        self.words_panel.show_words(header, [(w, None) for w in self.fallback_words(line, slot)],
                                    tr("The engine could not suggest: {e}").format(e=error))

    def fallback_words(self, line: int, slot: int) -> list[str]:
        """Without the engine: characters of the line's rhyme group that have the slot's tone."""
        t = self.doc.template
        tline = t.lines[line]
        if t.lang != "zh" or not tline.rhyme or slot != len(tline.slots) - 1 or not self.report:
            return []
        group = self.report.rhyme_groups.get(tline.rhyme)
        if not group:
            return []
        try:
            from songwriter.prosody import chinese

            chars = chinese.chars_in_group(t.effective_rhyme_system(), group)
            tone = tline.slots[slot].tone
            if tone:
                chars = [c for c in chars if tone in chinese.tone_classes(c, 0, t.tone_system)]
            return chars[:80]
        except Exception:
            return []

    # ==========================================================================================
    # files
    def maybe_save(self) -> bool:
        """True when it is fine to replace the document (saved, discarded or unchanged)."""
        if self.view.editing_inline:
            self.view.finish_inline_edit(commit=True)
        if not self.is_modified():
            return True
        choice = dialogs.ask_save_changes(self, self.path.name if self.path else (self.doc.title or tr("Untitled")))
        if choice == "save":
            return self.file_save()
        return choice == "discard"

    def set_document(self, doc: Document, path: Path | None) -> None:
        self.doc = doc
        self.path = path
        self._recovered = False
        self.doc_replaced()

    def file_new(self) -> None:
        from songwriter.forms import named_form

        if not self.maybe_save():
            return
        self.set_document(new_document(named_form(self.doc.template.name or default_form_name())
                                       if self._is_named(self.doc.template.name) else named_form(default_form_name())), None)
        self.doc.title = ""
        self.doc_changed()

    @staticmethod
    def _is_named(name: str) -> bool:
        from songwriter.forms import named_form

        try:
            named_form(name)
            return True
        except Exception:
            return False

    def file_open(self, path: str | None = None) -> bool:
        if not self.maybe_save():
            return False
        if not path:
            path = dialogs.open_path(self, tr("Open project"), tr(SONG_FILTER), self._last_dir())
            if not path:
                return False
        return self.open_path(path)

    def open_path(self, path: str) -> bool:
        try:
            doc = D.load(path)
        except DocumentError as e:
            dialogs.warn(self, tr("Cannot open the project"), str(e))
            return False
        self.set_document(doc, Path(path).resolve())
        settings.add_recent(str(self.path))
        settings.put("last_dir", str(self.path.parent))
        self.status_hint(tr("Opened {name}").format(name=self.path.name))
        return True

    def file_save(self) -> bool:
        if self.path is None:
            return self.file_save_as()
        return self.save_to(self.path)

    def file_save_as(self) -> bool:
        start = str(self.path) if self.path else str(Path(self._last_dir()) / ((self.doc.title or "untitled") + D.SUFFIX))
        path = dialogs.save_path(self, tr("Save project"), tr(SONG_FILTER), start)
        if not path:
            return False
        if not path.endswith(D.SUFFIX):
            path += D.SUFFIX
        return self.save_to(Path(path))

    def save_to(self, path: Path) -> bool:
        if self.view.editing_inline:
            self.view.finish_inline_edit(commit=True)
        self.doc.remember("save")
        try:
            D.save(self.doc, path)
        except OSError as e:
            dialogs.warn(self, tr("Cannot save"), tr("{path} could not be written: {e}").format(path=path, e=e.strerror or e))
            return False
        self.path = Path(path).resolve()
        self._recovered = False
        self.undo_stack.setClean()
        self.remove_recovery_file()
        settings.add_recent(str(self.path))
        settings.put("last_dir", str(self.path.parent))
        self.history_panel.refresh()
        self.update_title()
        self.status_hint(tr("Saved {name}").format(name=self.path.name))
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

    # --- import -------------------------------------------------------------------------------
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
            dialogs.warn(self, tr("Cannot import"), str(e))
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
        from songwriter import lyrics

        try:
            if kind == "lrc":
                template = lyrics.template_from_lrc(text)
                src = lyrics.parse_lrc(text)
            else:
                template = lyrics.template_from_lyrics(text)
                src = lyrics._plain_lines(text) if hasattr(lyrics, "_plain_lines") else []
        except TemplateError as e:
            dialogs.warn(self, tr("Cannot import"), str(e))
            return False
        lines = [ll.text for ll in src] if len(src) == len(template.lines) else [""] * len(template.lines)
        times = [ll.time for ll in src] if len(src) == len(template.lines) else [ln.time for ln in template.lines]
        original = Original(kind, text, lines, times, name)
        title = Path(name).stem if name else ""
        template.name = template.name or (tr("Tune of {name}").format(name=title) if title else tr("Imported song"))

        def fn(d):
            d.set_template(template, keep_text=False)
            d.original = original
            if not d.title and title:
                d.title = title
        self.edit(tr("Import {name}").format(name=name or tr("lyrics")), fn)
        self.docks["original"].show()
        self.status_hint(tr("Form made from the song: {n} lines. The original is beside each line and in the Original Song panel.")
                         .format(n=len(template.lines)))
        return True

    # --- export -------------------------------------------------------------------------------
    def file_export(self) -> None:
        from songwriter.export import FORMATS, ExportError, export

        filters = ";;".join(f"{tr(desc)} (*.{fmt})" for fmt, desc in FORMATS.items())
        base = self.path.stem if self.path else (self.doc.title or "untitled")
        path = dialogs.save_path(self, tr("Export"), filters, str(Path(self._last_dir()) / (base + ".txt")))
        if not path:
            return
        try:
            out = export(self.doc, path)
        except ExportError as e:
            dialogs.warn(self, tr("Cannot export"), str(e))
            return
        self.status_hint(tr("Exported {name}").format(name=out.name))

    # ==========================================================================================
    # autosave and recovery
    def recovery_path(self) -> Path:
        return settings.recovery_file()

    def autosave(self) -> bool:
        """Write the unsaved work to this process's recovery file (nothing when all is saved)."""
        if not self.is_modified():
            self.remove_recovery_file()
            return False
        if self._autosaved_index == self.undo_stack.index() and self.recovery_path().exists():
            return False
        data = self.doc.to_dict()
        data["recovery"] = {"path": str(self.path) if self.path else None, "time": D.now_iso()}
        try:
            D.write_atomic(self.recovery_path(), json.dumps(data, ensure_ascii=False, indent=1))
        except OSError as e:
            self.status_hint(tr("Autosave failed: {e}").format(e=e))
            return False
        self._autosaved_index = self.undo_stack.index()
        return True

    def remove_recovery_file(self) -> None:
        try:
            self.recovery_path().unlink()
        except FileNotFoundError:
            pass
        except OSError:
            pass
        self._autosaved_index = None

    def offer_recovery(self) -> bool:
        """At start: if a crashed session left unsaved work, offer it. True if recovered."""
        for p in settings.orphan_recovery_files():
            try:
                data = json.loads(p.read_text("utf-8"))
                doc = Document.from_dict(data)
            except (OSError, ValueError, DocumentError):
                try:
                    p.unlink()
                except OSError:
                    pass
                continue
            info = data.get("recovery") or {}
            orig = info.get("path")
            when = str(info.get("time", ""))[:19].replace("T", " ")
            name = Path(orig).name if orig else (doc.title or tr("an untitled piece"))
            choice = dialogs.ask_recover(self, when, name)
            if choice == "recover":
                self.set_document(doc, Path(orig) if orig else None)
                self._recovered = True
                self.update_title()
                p.unlink(missing_ok=True)
                self.autosave()
                self.status_hint(tr("Recovered unsaved work on {name}: save it to keep it").format(name=name))
                return True
            if choice == "discard":
                p.unlink(missing_ok=True)
            return False
        return False

    # ==========================================================================================
    # preferences, language, about
    def action_preferences(self) -> None:
        from .prefs import PreferencesDialog

        dlg = PreferencesDialog(self)
        if dlg.exec():
            self.autosave_timer.setInterval(max(1, settings.get("autosave_seconds")) * 1000)
            self.engine_host.set_model(settings.get("model_dir") or None, settings.get("backend"))

    def set_ui_language(self, code: str) -> None:
        settings.put("language", code)
        dialogs.info(self, "Songwriter", "Language changes when Songwriter next starts.\n界面语言将在下次启动时更改。")

    def action_about(self) -> None:
        host = self.engine_host
        engine = (tr("Engine: {backend}").format(backend=host.backend_name) if host.ready else
                  host.error if host.state == FAILED else tr("Engine: not loaded"))
        dialogs.info(self, tr("About Songwriter"),
                     tr("Songwriter {v}: write lyrics and poems to a form.").format(v=D._app_version()) + "\n\n" + engine
                     + "\n\n" + tr("Chinese font: Noto Sans CJK SC (subset), SIL Open Font License 1.1."))

    # ==========================================================================================
    def editor_context_menu(self, view):
        return build_context_menu(view, self.actions)

    def closeEvent(self, e) -> None:
        if not self.maybe_save():
            e.ignore()
            return
        if self.gen_op is not None:
            self.gen_op.cancel()
        self.autosave_timer.stop()
        self.engine_host.shutdown(5000)
        self.remove_recovery_file()
        s = settings.settings()
        s.setValue("window/geometry", self.saveGeometry())
        s.setValue("window/state", self.saveState())
        s.sync()
        e.accept()


def make_request(**fields):
    """A GenerationRequest of the engine facade (imported only once the engine has loaded)."""
    from songwriter.engine.service import GenerationRequest

    return GenerationRequest(**fields)

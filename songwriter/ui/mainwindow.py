"""The main window: a view over one Session (songwriter.session), the editor in the middle,
panels around it, the engine working in the background.

What a writer can do to the piece lives in the session; this module turns menu choices, keys
and clicks into session calls, shows the notes they return in the status bar, and redraws when
the session says the piece changed. Generation runs through the engine host in a worker thread
(ui/generating.py); files and recovery ask their questions here, in dialogs."""

from __future__ import annotations


from PySide6.QtCore import QByteArray, QTimer
from PySide6.QtWidgets import QMainWindow

from songwriter import document as D
from songwriter.document import Document, new_document
from songwriter.engine.api import default_model_dir
from songwriter.recovery import RecoveryStore
from songwriter.session import Checks, Done, Note, Session, shown_form_name

from . import chrome, dialogs, settings
from .actions import Actions, icon_for
from .editor import build_context_menu
from .engine_host import FAILED, LOADING, READY, EngineHost
from .engines import EngineHosts, language_name
from .files import FileCommands
from .generating import Generating
from .i18n import language, tr
from .panels import rhyme_system_label
from .melody_edit import MelodyCommands
from .playback import Playback
from .starting_form import SETTING as LAST_FORM, starting_template
from .suggesting import Suggestions
from .wording import core_text, counted, fit_text, joined_bits, note_text, plain, problem_text, syllables_text


class MainWindow(QMainWindow):
    def __init__(self, model_dir: str | None = None, backend: str | None = None, engine_loader=None,
                 autosave_seconds: int | None = None, doc: Document | None = None, installed_models=None):
        """``model_dir``: a model folder that writes the languages its manifest lists (else the
        one chosen in Preferences); ``installed_models(lang)``: the folder of a language's
        installed model (``models/<lang>``; tests give their own)."""
        super().__init__()
        self.setObjectName("MainWindow")
        self.setWindowIcon(icon_for("app"))
        self.engines = EngineHosts(self, model_dir or settings.get("model_dir") or None,
                                   backend or settings.get("backend") or "auto", engine_loader,
                                   installed=installed_models or default_model_dir)
        self.engines.changed.connect(self.engine_changed)
        self._engine_lang = None
        self.session = Session(doc if doc is not None else new_document(self.starting_template()))
        self.session.subscribe(self._session_event)
        self.recovery = RecoveryStore(settings.recovery_dir())
        self.checks = Checks()
        self._preview_index = -1
        self.screenshot_mode = False      # no dialogs: errors go to stderr (main.py --screenshot)
        self._status_lasts = False        # the status bar's message stays until replaced (status_hint)
        self.files = FileCommands(self)
        self.suggestions = Suggestions(self)
        self.playback = Playback(self)
        self.melody = MelodyCommands(self)

        self.actions = Actions(self)
        chrome.build_central(self)
        chrome.build_docks(self)
        chrome.build_menus(self)
        chrome.build_toolbar(self)
        chrome.build_statusbar(self)
        self.generating = Generating(self)

        self.check_timer = QTimer(self, singleShot=True, interval=120)
        self.check_timer.timeout.connect(self.run_checks)
        self.suggest_timer = QTimer(self, singleShot=True, interval=250)
        self.suggest_timer.timeout.connect(self.suggestions.update_suggestions)
        self.autosave_timer = QTimer(self)
        secs = autosave_seconds if autosave_seconds is not None else settings.get("autosave_seconds")
        self.autosave_timer.setInterval(max(1, int(secs)) * 1000)
        self.autosave_timer.timeout.connect(self.files.autosave)
        self.autosave_timer.start()

        self.resize(1360, 860)
        geo = settings.settings().value("window/geometry")
        if isinstance(geo, QByteArray):
            self.restoreGeometry(geo)
        state = settings.settings().value("window/state")
        self._docks_fitted = isinstance(state, QByteArray) and self.restoreState(state)
        self.doc_replaced()

    @property
    def doc(self) -> Document:
        return self.session.doc

    @property
    def engine_host(self) -> EngineHost:
        """The engine of the piece's language (another language has its own model)."""
        return self.engines.host(self.doc.lang)

    def starting_template(self):
        """The form of a new piece: one an installed model writes (ui/starting_form.py)."""
        return starting_template(language(), settings.get(LAST_FORM), self.engines.has_model)

    @property
    def busy(self) -> bool:
        return self.generating.busy

    # ==========================================================================================
    # the session and the views
    def say(self, outcome: Done | Note | None) -> bool:
        """Show an outcome's note in the status bar; True when the piece changed."""
        text = outcome.note if isinstance(outcome, Done) else outcome
        if text is not None:
            self.status_hint(text.render(note_text))
        return bool(outcome) if isinstance(outcome, Done) else False

    def status_hint(self, text: str, ms: int = 6000) -> None:
        """Say in the status bar what just happened (for ``ms``; 0: until something else is
        said, as while a generation runs). A change to the piece clears what was said before
        it (the change's own note follows), so the bar never tells of an earlier step."""
        self._status_lasts = ms == 0
        self.statusBar().showMessage(text, ms)

    def edit(self, label: str, fn, merge_key=None) -> bool:
        """One undoable change made by fn(doc) (for callers outside the session's own actions)."""
        return self.say(self.session.edit(Note(label), fn, merge_key))

    def undo(self) -> None:
        self.say(self.session.undo())

    def redo(self) -> None:
        self.say(self.session.redo())

    def _session_event(self, event: str) -> None:
        if event in ("changed", "replaced") and not self._status_lasts:
            self.statusBar().clearMessage()
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
        bits = [shown_form_name(t).render(tr), counted("{n} line(s)", len(t.lines), n=len(t.lines)),
                syllables_text(t.syllables, t.lang)]
        if t.rhyme_groups():
            bits.append(rhyme_system_label(t.effective_rhyme_system(), t.lang))
        locks = self.doc.locked_count()
        if locks:
            bits.append(tr("{n} locked").format(n=locks))
        self.form_label.set_bits(bits)                    # wraps between the bits only
        self.form_label.setAccessibleName(plain(joined_bits(bits)))
        self.actions.fill_slot_menus(self.doc.lang)
        self._update_undo_actions()
        self.update_title()
        if self._engine_lang != self.doc.lang:      # another language: its own engine
            self.engine_changed()
        self.generating.update_availability()
        self.playback.doc_changed(False)
        self.suggest_timer.start()

    def doc_replaced(self) -> None:
        """Another piece: the cursor at its start, no preview, its title (even where the title
        field has the focus: what was typed there belonged to the piece that went)."""
        self.title_edit.setText(self.doc.title)
        self.view.cursor = (0, 0)
        self.view.anchor = None
        self._preview_index = -1
        self.view.preview = None
        self.doc_changed()
        self.playback.doc_changed(True)
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
        self.view.set_fit(self.checks.fit)
        if self.checks.statuses is None:
            self.check_label.setText(tr("checks unavailable"))
            self.check_label.setToolTip(self.checks.error)
            return
        ok, bad, n = self.checks.summary
        text = tr("{ok}/{n} lines fit").format(ok=ok, n=n)
        if bad:
            text += " · " + tr("{n} with problems").format(n=bad)
        fit = self.view.fit_report
        if fit is not None and (fit.pairs or fit.problems):
            poor = sum(1 for p in fit.problems if p.grade == "poor")
            text += " · " + (tr("♪ {bad} 倒字, {poor} weak").format(bad=fit.dao_zi, poor=poor) if self.doc.lang == "zh"
                             else tr("♪ {poor} weak").format(poor=poor))
        self.check_label.setText(text)
        problems = [tr("Line {n}: {problem}").format(n=s_i + 1, problem=problem_text(p.message))
                    for s_i, s in enumerate(self.checks.statuses) for p in s.problems]
        if fit is not None:
            problems += [f"{tr('Line {n}').format(n=p.line + 1)} ♪ {fit_text(p.message)}" for p in fit.problems]
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

    def action_set_refrain(self, source) -> None:
        self.say(self.session.set_refrain(self.view.selected_lines(), source))

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
        if self.say(self.session.use_form(name)):
            settings.put(LAST_FORM, self.doc.template.name)     # a new piece starts in it

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
        self._engine_lang = self.doc.lang
        host = self.engine_host
        if host.state == READY:
            self.engine_label.setText(tr("Engine: {backend}").format(backend=host.backend_name or "?")
                                      + " · " + language_name(self.doc.lang))
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
        self.candidates_panel.clear_preview.setEnabled(lines is not None)
        if why is not None:
            self.say(why)
        elif self.statusBar().currentMessage().startswith(tr("Previewing candidate {n}").split("{")[0]):
            self.statusBar().clearMessage()

    def apply_candidate(self, index: int) -> None:
        self._preview_index = -1
        self.view.set_preview(None)
        self.candidates_panel.clear_preview.setEnabled(False)
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

    # ==========================================================================================
    # files
    def warn(self, title: str, text: str, details: str = "") -> None:
        """Say what went wrong, in a dialog (``text`` may be the core's English error: it is
        shown in the UI's language where its sentence is known)."""
        text = core_text(text)
        self.status_hint(title)         # what just happened ("Cannot export"), not an earlier success
        if self.screenshot_mode:
            import sys

            print(f"songwriter: {title}: {text}", file=sys.stderr)
            return
        dialogs.warn(self, title, text, details)

    # ==========================================================================================
    # preferences, language, help
    def action_preferences(self) -> None:
        from .prefs import PreferencesDialog

        dlg = PreferencesDialog(self)
        if dlg.exec():
            self.autosave_timer.setInterval(max(1, settings.get("autosave_seconds")) * 1000)
            self.engines.set_model(settings.get("model_dir") or None, settings.get("backend"))
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

    def showEvent(self, e) -> None:
        super().showEvent(e)
        if not self._docks_fitted:          # first start: the panels in proportion to the window
            self._docks_fitted = True
            chrome.fit_docks(self, self.width())
        QTimer.singleShot(0, lambda: chrome.hide_stale_tab_bars(self))

    def maybe_save(self) -> bool:
        return self.files.maybe_save()

    def closeEvent(self, e) -> None:
        if not self.maybe_save():
            e.ignore()
            return
        self.generating.cancel()
        self.playback.stop()
        self.autosave_timer.stop()
        self.suggestions.shutdown(5000)
        self.engines.shutdown(5000)
        self.recovery.remove()
        settings.put("window/geometry", self.saveGeometry())
        settings.put("window/state", self.saveState())
        e.accept()

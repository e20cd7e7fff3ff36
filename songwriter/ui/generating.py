"""Running a generation for the window: the engine loads if it has to, the request (built by the
session) runs in the engine's worker thread as a typed call, progress and Cancel show in the
status bar, and the candidates go back to the session. Also whether Generate can work at all
for the piece's language, said before it is pressed."""

from __future__ import annotations

from songwriter.engine.api import MAX_LINE_CHOICES, GenerationCancelled, GenerationError
from songwriter.session import Sampling

from . import settings
from .engine_host import READY
from .engines import language_name
from .i18n import tr
from .worker import progress_fraction


def sampling_from_settings() -> Sampling:
    seed = settings.settings().value("seed", "")
    try:
        seed = int(seed) if str(seed).strip() != "" else None
    except ValueError:
        seed = None
    if seed is not None and seed < 0:
        seed = None
    return Sampling(n=max(1, settings.get("candidates")), temperature=settings.get("temperature"),
                    top_k=settings.get("top_k"), top_p=settings.get("top_p"), seed=seed,
                    line_choices=max(1, min(MAX_LINE_CHOICES, settings.get("line_choices"))))


class Generating:
    def __init__(self, window):
        self.w = window
        self.op = None
        self.wanted = False          # asked for; the engine may still be loading
        self.last_seconds: float | None = None

    @property
    def busy(self) -> bool:
        return self.op is not None or self.wanted

    # --- can the piece be generated? ----------------------------------------------------------
    def unavailable_reason(self) -> str:
        """Why Generate cannot write the piece ("" when it can, or when only loading can tell)."""
        return self.w.engines.unavailable_reason(self.w.doc.lang)

    def update_availability(self) -> None:
        """Generate is off, and says why in the Candidates panel, in its tooltip and in the
        status bar, before it is pressed, when no installed model writes the piece's language."""
        a = self.w.actions
        why = self.unavailable_reason()
        for name in ("generate", "regenerate"):
            a[name].setEnabled(not self.busy and not why)
        a["cancel"].setEnabled(self.busy)
        short = tr("No {lang} model").format(lang=language_name(self.w.doc.lang))
        self.w.language_note.setText(("⚠ " + short) if why else "")
        self.w.language_note.setToolTip(why)
        self.w.language_note.setVisible(bool(why))
        self.w.candidates_panel.set_notice(why)
        for name, tip in (("generate", "Fill every unlocked slot; candidates appear in the Candidates panel"),
                          ("regenerate", "Write the selected lines again; the others stay as they are")):
            a[name].setToolTip(why or tr(tip))

    # --- running ------------------------------------------------------------------------------
    def start(self, lines: list[int] | None) -> None:
        w = self.w
        if self.busy:
            w.status_hint(tr("A generation is already running (Cancel stops it)"))
            return
        why = self.unavailable_reason()
        if why:
            w.status_hint(why)
            return
        if w.view.editing_inline:
            w.view.finish_inline_edit(commit=True)
        self.wanted = True
        self._set_busy(True, lines)
        host = w.engine_host
        if host.state != READY:
            w.status_hint(tr("Loading the engine…"), 0)
        host.load(then=lambda _e: self._run(lines, host), otherwise=self._engine_unavailable)

    def _run(self, lines: list[int] | None, host) -> None:
        w = self.w
        if not self.wanted:     # cancelled while the engine was loading
            self._set_busy(False)
            return
        if w.engine_host is not host:
            # the piece changed language (or Preferences the model) while this engine loaded:
            # the piece's own engine writes it
            self.wanted = False
            self._set_busy(False)
            self.start(lines)
            return
        gen = w.session.generation(lines, sampling_from_settings(), steering=host.supports_content)
        request = gen.request
        op = host.call(lambda engine, cancel, progress: engine.generate(request, progress=progress, cancel=cancel),
                       cancellable=True, with_progress=True, label="generate")
        op.success(lambda cands: self._done(gen, cands, op.elapsed)) \
          .failure(self._failed).progress(self._progress).finally_(self._over)
        self.op = op
        w.status_hint(tr("Generating {n} candidates…").format(n=request.n), 0)
        op.run_in_background(host.pool)

    def _progress(self, value) -> None:
        frac = progress_fraction(value)
        if frac is None:
            self.w.progress.setRange(0, 0)
        else:
            self.w.progress.setRange(0, 1000)
            self.w.progress.setValue(int(frac * 1000))

    def _done(self, gen, candidates, seconds: float) -> None:
        w = self.w
        self.last_seconds = seconds
        w.time_label.setText(tr("{s:.1f} s per generation").format(s=seconds))
        w.say(w.session.record(gen, candidates))
        w.candidates_panel.mark(w.candidates_panel.in_editor())
        w.docks["candidates"].raise_()

    def _failed(self, error: BaseException) -> None:
        w = self.w
        if isinstance(error, GenerationCancelled):
            w.status_hint(tr("Generation cancelled"))
        elif isinstance(error, GenerationError):
            w.warn(tr("Cannot generate"), str(error))
        else:
            w.warn(tr("Generation failed"), f"{type(error).__name__}: {error}",
                   self.op.traceback if self.op is not None else "")

    def _over(self) -> None:
        self.op = None
        self.wanted = False
        self._set_busy(False)

    def _engine_unavailable(self, message: str) -> None:
        self.wanted = False
        self._set_busy(False)
        self.w.warn(tr("The engine is not available"),
                    message + "\n\n" + tr("Songwriter still works as an editor: write, lock, check and export as usual."),
                    self.w.engine_host.details)

    def cancel(self) -> None:
        if self.op is not None:
            self.op.cancel()
            self.w.status_hint(tr("Cancelling…"), 0)
        elif self.wanted:
            self.wanted = False
            self._set_busy(False)
            self.w.status_hint(tr("Generation cancelled"))

    def _set_busy(self, busy: bool, lines=None) -> None:
        w = self.w
        w.progress.setVisible(busy)
        w.cancel_button.setVisible(busy)
        w.progress.setRange(0, 0)
        self.update_availability()
        if busy:
            w.view.set_busy(lines if lines is not None else range(len(w.doc.lines)))
        else:
            w.view.set_busy(())
            if w.statusBar().currentMessage().startswith((tr("Generating {n} candidates…").split("{")[0],
                                                          tr("Loading the engine…"))):
                w.statusBar().clearMessage()



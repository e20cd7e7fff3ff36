"""Playing the piece's melody: from the cursor's line or from the start, at the tempo in the
Melody toolbar, the syllable being sung lit in the editor; Stop.

The sound is made by songwriter.melody.synth (fluidsynth with a General MIDI soundfont where
installed, else its built-in synthesiser) and played by the machine's own player program
(PipeWire, PulseAudio, ALSA, afplay) or winsound on Windows, so Qt Multimedia (PySide6-Addons, a
175 MB download) is not needed. Where nothing can play, the status bar says so and the syllables
are still lit in time. The highlight follows a clock started with the sound."""

from __future__ import annotations

import os
import sys
import tempfile

from PySide6.QtCore import QElapsedTimer, QObject, QProcess, QTimer, Signal
from PySide6.QtWidgets import QSpinBox, QToolBar

from songwriter.melody import synth

from .i18n import tr
from .melody_strip import melody_for

TICK_MS = 30


class Playback(QObject):
    stateChanged = Signal(bool)          # playing or not

    def __init__(self, window):
        super().__init__(window)
        self.w = window
        self.events: list[synth.Sounding] = []
        self.clock = QElapsedTimer()
        self.timer = QTimer(self, interval=TICK_MS)
        self.timer.timeout.connect(self._tick)
        self.process: QProcess | None = None
        self.wav_path: str | None = None
        self.sounding = False            # the sound is playing (not the silent highlight alone)
        self.synth_name = ""

    @property
    def playing(self) -> bool:
        return self.timer.isActive()

    def melody(self):
        return melody_for(self.w.doc.template)

    # --- play and stop ----------------------------------------------------------------------
    def play(self, from_line: int = 0, tempo: float | None = None) -> bool:
        """Play from ``from_line`` at ``tempo`` (quarter notes a minute; the toolbar's by default)."""
        self.stop()
        melody = self.melody()
        if melody is None:
            self.w.status_hint(tr("This piece has no melody to play (File ▸ Import Melody…)."))
            return False
        tempo = tempo or self.w.tempo_box.value()
        self.events = synth.timeline(melody, max(0, min(from_line, len(melody.lines) - 1)), tempo)
        if not self.events:
            return False
        self.sounding = self._start_sound()
        self.clock.start()
        self.timer.start()
        self._tick()
        self.stateChanged.emit(True)
        if self.sounding:
            self.w.status_hint(tr("Playing from line {n} at ♩ = {t} ({synth})").format(
                n=self.events[0].line + 1, t=round(tempo), synth=self.synth_name), 4000)
        else:
            self.w.status_hint(tr("No audio output on this computer: the tune is shown, not heard "
                                  "(the syllables are lit in time)."), 8000)
        return True

    def stop(self) -> None:
        was = self.playing
        self.timer.stop()
        self._stop_sound()
        self.events = []
        self.w.view.set_playing(None)
        if was:
            self.stateChanged.emit(False)

    def _tick(self) -> None:
        t = self.clock.elapsed() / 1000.0
        if t >= synth.duration(self.events) + 0.05:
            self.stop()
            return
        self.w.view.set_playing(synth.syllable_at(self.events, t))

    def tempo_changed(self, _value: int) -> None:
        """A new tempo while playing: play on at it from the line being sung."""
        if self.playing:
            at = self.w.view.playing
            self.play(at[0] if at is not None else self.events[0].line)

    def action_play(self) -> None:
        self.play(self.w.view.cursor[0])

    def action_play_start(self) -> None:
        self.play(0)

    def doc_changed(self, replaced: bool) -> None:
        """The Melody toolbar and actions follow the piece: shown while it has a melody, the
        tempo set to the file's when another piece opens; playing stops when the melody goes."""
        melody = self.melody()
        for name in ("play", "play_start", "stop", "break_line", "join_notes", "split_notes"):
            self.w.actions[name].setEnabled(melody is not None)
        self.w.melody_toolbar.setVisible(melody is not None)
        if melody is None and self.playing:
            self.stop()
        if replaced:
            self.stop()
            if melody is not None:
                self.w.tempo_box.setValue(round(synth.tempo_of(melody)))

    # --- sound ------------------------------------------------------------------------------
    def _start_sound(self) -> bool:
        if synth.audio_output() is None:
            return False
        from PySide6.QtCore import Qt
        from PySide6.QtWidgets import QApplication

        QApplication.setOverrideCursor(Qt.WaitCursor)
        try:
            pcm, self.synth_name = synth.render(self.events)
        finally:
            QApplication.restoreOverrideCursor()
        self.synth_name = tr("General MIDI soundfont") if self.synth_name == "fluidsynth" else tr("built-in synthesiser")
        fd, self.wav_path = tempfile.mkstemp(prefix="songwriter-tune-", suffix=".wav")
        with os.fdopen(fd, "wb") as f:
            f.write(synth.wav_bytes(pcm))
        if sys.platform == "win32":         # pragma: no cover - Windows only
            import winsound

            winsound.PlaySound(self.wav_path, winsound.SND_FILENAME | winsound.SND_ASYNC)
            return True
        cmd = synth.player_command(self.wav_path)
        if cmd is None:
            return False
        self.process = QProcess(self)
        self.process.finished.connect(self._player_finished)
        self.process.start(cmd[0], cmd[1:])
        if not self.process.waitForStarted(3000):
            self.process = None
            return False
        return True

    def _player_finished(self, code: int, _status) -> None:
        """The player program ended: where it failed (no sound device behind it, say), the
        status bar says why; the syllables go on being lit in time."""
        proc = self.sender()
        if code != 0 and proc is self.process and self.playing:
            err = bytes(proc.readAllStandardError()).decode("utf-8", "replace").strip().splitlines()
            self.sounding = False
            self.w.status_hint(tr("The audio output cannot play ({why}): the tune is shown, not heard.").format(
                why=(err[-1] if err else tr("exit code {n}").format(n=code))[:160]), 8000)

    def _stop_sound(self) -> None:
        if self.process is not None:
            proc, self.process = self.process, None
            proc.finished.disconnect(self._player_finished)
            if proc.state() != QProcess.NotRunning:
                proc.kill()
                proc.waitForFinished(2000)
            proc.deleteLater()
        if sys.platform == "win32" and self.sounding:       # pragma: no cover - Windows only
            import winsound

            winsound.PlaySound(None, 0)
        self.sounding = False
        if self.wav_path:
            try:
                os.remove(self.wav_path)
            except OSError:
                pass
            self.wav_path = None


def build_melody_toolbar(w) -> QToolBar:
    """Play from the cursor's line, Play from the start, Stop, and the tempo; shown while the
    piece has a melody."""
    from PySide6.QtCore import Qt

    tb = QToolBar(tr("Melody"), w)
    tb.setObjectName("toolbar_melody")
    tb.setToolButtonStyle(Qt.ToolButtonTextBesideIcon)
    w.actions["play"].setIconText(tr("Play"))
    w.actions["play_start"].setIconText(tr("From Start"))
    w.actions["stop"].setIconText(tr("Stop"))
    for name in ("play", "play_start", "stop"):
        tb.addAction(w.actions[name])
    for name in ("play_start", "stop"):          # icons only: the toolbar fits beside the main one at 1100 px
        button = tb.widgetForAction(w.actions[name])
        if button is not None:
            button.setToolButtonStyle(Qt.ToolButtonIconOnly)
    w.tempo_box = QSpinBox()
    w.tempo_box.setObjectName("tempo")
    w.tempo_box.setRange(int(synth.MIN_TEMPO), int(synth.MAX_TEMPO))
    w.tempo_box.setPrefix("♩ = ")
    w.tempo_box.setValue(120)
    w.tempo_box.setToolTip(tr("Tempo") + ": " + tr("Quarter notes a minute (the file's own tempo when a melody is opened)"))
    tb.addWidget(w.tempo_box)
    w.tempo_box.valueChanged.connect(w.playback.tempo_changed)
    w.addToolBar(Qt.TopToolBarArea, tb)
    w.melody_toolbar = tb
    return tb

"""Hearing the melody: the synthesiser (songwriter.melody.synth: length, onsets, silence in the
rests, the WAV and MIDI it writes), when each syllable is lit, and the window's Play / Stop with
no audio device (tests run offscreen with none) and with a stand-in player program."""

import struct
import sys

import numpy as np
import pytest
from conftest import DATA

from test_ui_support import Answers, answers, make_window  # noqa: F401  (fixtures)

from songwriter.melody import Melody, Note  # noqa: E402
from songwriter.melody import synth  # noqa: E402

RATE = 8000


def tune() -> Melody:
    """Four notes at 60 quarters a minute (a quarter is a second): C4 for 1, E4 for 1, a rest of
    1, G4 for 2 over two syllables' worth (a melisma of G4 and A4, 1 each), on two lines."""
    notes = [Note(60, 0.0, 1.0), Note(64, 1.0, 1.0), Note(67, 3.0, 1.0, rest_before=1.0), Note(69, 4.0, 1.0)]
    return Melody(notes=notes, lines=[[[0], [1]], [[2, 3]]], tempo=60.0)


def test_timeline_times_notes_at_the_tempo_from_any_line():
    ev = synth.timeline(tune())
    assert [(e.pitch, e.start, e.end, e.line, e.syllable) for e in ev] == [
        (60, 0.0, 1.0, 0, 0), (64, 1.0, 2.0, 0, 1), (67, 3.0, 4.0, 1, 0), (69, 4.0, 5.0, 1, 0)]
    fast = synth.timeline(tune(), tempo=120)
    assert [e.start for e in fast] == [0.0, 0.5, 1.5, 2.0] and synth.duration(fast) == 2.5
    second = synth.timeline(tune(), from_line=1)
    assert [(e.pitch, e.start) for e in second] == [(67, 0.0), (69, 1.0)]
    assert synth.timeline(tune(), from_line=5) == []
    assert synth.tempo_of(tune(), 5000) == synth.MAX_TEMPO


def test_the_lit_syllable_follows_the_notes_and_goes_out_in_rests():
    ev = synth.timeline(tune())
    at = {t: synth.syllable_at(ev, t) for t in (-0.1, 0.0, 0.5, 1.0, 1.99, 2.5, 3.0, 4.5, 5.0, 9.0)}
    assert at == {-0.1: None, 0.0: (0, 0), 0.5: (0, 0), 1.0: (0, 1), 1.99: (0, 1), 2.5: None,
                  3.0: (1, 0), 4.5: (1, 0), 5.0: None, 9.0: None}


def onsets(pcm: np.ndarray, rate: int, gap: float = 0.015) -> list[float]:
    """Where the sound starts after at least ``gap`` seconds of near-silence, in seconds."""
    loud = np.abs(pcm.astype(np.int32)) > 200
    out, quiet = [], int(gap * rate)
    last = -quiet
    for i in np.flatnonzero(loud):
        if i - last >= quiet:
            out.append(i / rate)
        last = i
    return out


def test_the_synthesiser_renders_the_notes_in_time_and_rests_in_silence():
    ev = synth.timeline(tune())
    pcm = synth.synthesise(ev, RATE)
    assert pcm.dtype == np.int16 and abs(len(pcm) - 5 * RATE) <= 1
    assert 0 < np.max(np.abs(pcm)) <= 32767
    rest = pcm[int(2.05 * RATE):int(2.95 * RATE)]
    assert np.max(np.abs(rest)) == 0                          # the rest is silent
    for a, b in ((0.1, 0.9), (1.1, 1.9), (3.1, 3.9), (4.1, 4.9)):
        assert np.max(np.abs(pcm[int(a * RATE):int(b * RATE)])) > 2000     # each note sounds
    # each note's pitch: the strongest frequency in its middle
    for (a, b), pitch in zip(((0.2, 0.8), (1.2, 1.8), (3.2, 3.8), (4.2, 4.8)), (60, 64, 67, 69)):
        seg = pcm[int(a * RATE):int(b * RATE)].astype(float)
        spec = np.abs(np.fft.rfft(seg * np.hanning(len(seg))))
        peak = np.fft.rfftfreq(len(seg), 1 / RATE)[np.argmax(spec)]
        assert abs(peak - synth.frequency(pitch)) < 3
    on = onsets(pcm, RATE)
    assert on[0] < 0.005 and any(abs(t - 3.0) < 0.005 for t in on)


def test_a_repeated_pitch_is_heard_as_two_notes():
    m = Melody(notes=[Note(62, 0.0, 1.0), Note(62, 1.0, 1.0)], lines=[[[0], [1]]], tempo=60.0)
    pcm = synth.synthesise(synth.timeline(m), RATE)
    assert [round(t, 2) for t in onsets(pcm, RATE)] == [0.0, 1.0]


def test_wav_and_midi_are_well_formed():
    pcm = synth.synthesise(synth.timeline(tune()), RATE)
    wav = synth.wav_bytes(pcm, RATE)
    assert wav[:4] == b"RIFF" and wav[8:16] == b"WAVEfmt "
    channels, rate, _, _, bits = struct.unpack("<HIIHH", wav[22:36])
    assert (channels, rate, bits) == (1, RATE, 16) and struct.unpack("<I", wav[40:44])[0] == 2 * len(pcm)
    mid = synth.midi_bytes(synth.timeline(tune()))
    assert mid[:4] == b"MThd" and mid[14:18] == b"MTrk" and mid.endswith(b"\xff\x2f\x00")
    music21 = pytest.importorskip("music21")
    import tempfile
    from pathlib import Path

    path = Path(tempfile.mkdtemp()) / "t.mid"
    path.write_bytes(mid)
    notes = list(music21.converter.parse(str(path)).flatten().notes)
    assert [n.pitch.midi for n in notes] == [60, 64, 67, 69]
    assert [float(n.offset) for n in notes] == [0.0, 1.0, 3.0, 4.0]     # 60 a minute: a second a quarter


def test_render_uses_the_builtin_synthesiser_without_fluidsynth(monkeypatch):
    monkeypatch.setattr(synth.shutil, "which", lambda name: None)
    pcm, made_by = synth.render(synth.timeline(tune()), RATE)
    assert made_by == "built-in" and len(pcm) == 2 * (5 * RATE + 1)


def test_no_player_when_audio_is_off(monkeypatch):
    monkeypatch.setenv("SONGWRITER_AUDIO", "none")
    assert synth.audio_output() is None and synth.player_command("x.wav") is None


# ----------------------------------------------------------------------------------------------
# Play and Stop in the window

def melody_window(qtbot):
    from songwriter.melody import piece_from_melody_file

    pytest.importorskip("music21")
    return make_window(qtbot, doc=piece_from_melody_file(DATA / "melody" / "molihua.musicxml", lang="zh"))


def test_without_audio_the_status_bar_says_so_and_the_syllables_are_lit(qtbot, answers, monkeypatch):
    monkeypatch.setenv("SONGWRITER_AUDIO", "none")
    win = melody_window(qtbot)
    assert win.melody_toolbar.isVisible() and win.actions["play"].isEnabled()
    assert win.tempo_box.value() == 72                        # the file's tempo
    win.tempo_box.setValue(400)
    win.view.set_cursor(2, 0)
    win.actions["play"].trigger()                            # from the cursor's line
    assert "No audio output" in win.statusBar().currentMessage()
    assert win.playback.playing and win.playback.events[0].line == 2
    seen = set()
    qtbot.waitUntil(lambda: seen.add(win.view.playing) or (3, 0) in seen or not win.playback.playing, timeout=10000)
    assert (2, 0) in seen or (2, 1) in seen
    assert all(p is None or p[0] >= 2 for p in seen)
    win.actions["stop"].trigger()
    assert not win.playback.playing and win.view.playing is None


def test_playback_ends_by_itself(qtbot, answers, monkeypatch):
    monkeypatch.setenv("SONGWRITER_AUDIO", "none")
    win = melody_window(qtbot)
    win.tempo_box.setValue(400)
    win.playback.play(3)
    qtbot.waitUntil(lambda: not win.playback.playing, timeout=10000)
    assert win.view.playing is None


def test_stop_ends_the_player_program(qtbot, answers, monkeypatch, tmp_path):
    """A stand-in player (a Python that sleeps) is started with the WAV and ended by Stop."""
    from PySide6.QtCore import QProcess

    monkeypatch.delenv("SONGWRITER_AUDIO", raising=False)
    monkeypatch.setattr(synth.shutil, "which", lambda name: None)        # no fluidsynth
    monkeypatch.setattr(synth, "audio_output", lambda: "stand-in")
    given = []

    def command(path):
        given.append(path)
        return [sys.executable, "-c", "import time; time.sleep(60)"]

    monkeypatch.setattr(synth, "player_command", command)
    win = melody_window(qtbot)
    assert win.playback.play(0)
    proc = win.playback.process
    assert proc is not None and proc.state() != QProcess.NotRunning
    with open(given[0], "rb") as f:
        assert f.read(4) == b"RIFF"
    assert "built-in synthesiser" in win.statusBar().currentMessage()
    win.playback.stop()
    assert proc.state() == QProcess.NotRunning and win.playback.process is None
    import os
    assert not os.path.exists(given[0])                      # the WAV is removed


def test_no_melody_no_playing(qtbot, answers):
    win = make_window(qtbot)
    assert not win.actions["play"].isEnabled() and not win.melody_toolbar.isVisible()
    assert not win.playback.play(0)


def test_a_new_tempo_while_playing_plays_on_at_it_from_the_sung_line(qtbot, answers, monkeypatch):
    monkeypatch.setenv("SONGWRITER_AUDIO", "none")
    win = melody_window(qtbot)
    win.tempo_box.setValue(60)
    win.playback.play(1)
    qtbot.waitUntil(lambda: win.view.playing is not None, timeout=5000)
    line = win.view.playing[0]
    slow = synth.duration(win.playback.events)
    win.tempo_box.setValue(120)
    assert win.playback.playing and win.playback.events[0].line == line
    assert synth.duration(win.playback.events) < slow
    win.playback.stop()


def test_a_player_that_fails_is_said_and_the_syllables_go_on(qtbot, answers, monkeypatch):
    monkeypatch.setattr(synth.shutil, "which", lambda name: None)
    monkeypatch.setattr(synth, "audio_output", lambda: "stand-in")
    monkeypatch.setattr(synth, "player_command", lambda path: [
        sys.executable, "-c", "import sys; sys.stderr.write('no sound card here\\n'); sys.exit(1)"])
    win = melody_window(qtbot)
    win.tempo_box.setValue(60)
    assert win.playback.play(0)
    qtbot.waitUntil(lambda: "cannot play" in win.statusBar().currentMessage(), timeout=10000)
    assert "no sound card here" in win.statusBar().currentMessage()
    assert win.playback.playing and not win.playback.sounding
    win.playback.stop()

"""Hearing a melody: when each syllable sounds, and the tune rendered to 16-bit PCM.

``timeline(melody, from_line, tempo)`` lists the sung syllables from a line on, each with the
seconds at which its notes start and end at the chosen tempo (quarter notes a minute; the file's
own tempo by default), counted from the start of that line. ``syllable_at(events, t)`` says which
syllable sounds at ``t`` seconds (what the editor lights during playback). ``render(events)``
makes the sound: a small built-in synthesiser (a few harmonics under an attack-decay-release
envelope, silence in the rests), or, where the ``fluidsynth`` program and a General MIDI
soundfont are installed, fluidsynth playing a MIDI file of the same notes. ``wav_bytes`` wraps
PCM in a WAV header, and ``player_command`` names a program that plays a WAV on this machine.

No Qt, no torch, no music21: numpy only (for the built-in synthesiser).
"""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from songwriter.melody.model import Melody

RATE = 22_050               # samples a second
MIN_TEMPO, MAX_TEMPO = 20.0, 400.0
ATTACK = 0.012              # seconds
RELEASE = 0.06              # seconds at the end of each note, inside its length
HARMONICS = (1.0, 0.45, 0.22, 0.1)      # a soft, reed-like tone
VOLUME = 0.32               # peak share of full scale
GAP = 0.025                 # seconds of silence before a note that repeats the one before
SOUNDFONTS = ("/usr/share/sounds/sf2/FluidR3_GM.sf2", "/usr/share/sounds/sf2/default-GM.sf2",
              "/usr/share/soundfonts/FluidR3_GM.sf2", "/usr/share/soundfonts/default.sf2",
              "/usr/share/sounds/sf2/TimGM6mb.sf2", "/usr/local/share/soundfonts/default.sf2",
              "/opt/homebrew/share/soundfonts/default.sf2")


@dataclass
class Sounding:
    """One note to play: its pitch and its start and end in seconds (from the start of playback),
    and the syllable it is sung on."""
    pitch: int
    start: float
    end: float
    line: int
    syllable: int


def tempo_of(melody: Melody, tempo: float | None = None) -> float:
    """The tempo to play at, quarter notes a minute: the one asked for, else the file's; held
    between MIN_TEMPO and MAX_TEMPO."""
    return max(MIN_TEMPO, min(MAX_TEMPO, float(tempo or melody.tempo or 120.0)))


def timeline(melody: Melody, from_line: int = 0, tempo: float | None = None) -> list[Sounding]:
    """The sung notes from line ``from_line`` to the end, in time order, timed at ``tempo``
    (quarter notes a minute) from the onset of that line's first note. Notes the words do not
    sing (an unworded note of a file with words) are left out, as a rest."""
    if not melody.lines or not 0 <= from_line < len(melody.lines):
        return []
    per_quarter = 60.0 / tempo_of(melody, tempo)
    out = []
    for li in range(from_line, len(melody.lines)):
        for si, notes in enumerate(melody.lines[li]):
            for k in notes:
                n = melody.notes[k]
                out.append(Sounding(n.pitch, n.onset, n.onset + n.duration, li, si))
    if not out:
        return []
    zero = min(s.start for s in out)
    for s in out:
        s.start = (s.start - zero) * per_quarter
        s.end = (s.end - zero) * per_quarter
    out.sort(key=lambda s: (s.start, s.line, s.syllable))
    return out


def duration(events: list[Sounding]) -> float:
    return max((s.end for s in events), default=0.0)


def syllable_at(events: list[Sounding], t: float) -> tuple[int, int] | None:
    """The (line, syllable) sounding at ``t`` seconds, or None in a rest, before the start and
    after the end. A syllable stays lit through its notes (a melisma) and until the next starts
    when no rest comes between."""
    current = None
    for s in events:
        if s.start > t:
            break
        current = s
    if current is None or t >= duration(events):
        return None
    if t >= current.end:
        return None
    return current.line, current.syllable


def frequency(pitch: int) -> float:
    return 440.0 * 2.0 ** ((pitch - 69) / 12.0)


def synthesise(events: list[Sounding], rate: int = RATE):
    """The built-in synthesiser: the notes as 16-bit mono samples (a numpy int16 array), each a
    few harmonics under an envelope (a short attack, a decay to a sustain, a release inside the
    note's length, so notes are heard apart), nothing between them."""
    import numpy as np

    total = int(round(duration(events) * rate)) + 1 if events else 0
    out = np.zeros(total, dtype=np.float32)
    for i, s in enumerate(events):
        start = s.start
        nxt = events[i + 1] if i + 1 < len(events) else None
        if nxt is not None and nxt.pitch == s.pitch and abs(nxt.start - s.end) < 1e-6:
            end = s.end - GAP          # a repeated pitch is heard as two notes
        else:
            end = s.end
        a, b = int(round(start * rate)), int(round(end * rate))
        n = b - a
        if n <= 0:
            continue
        t = np.arange(n, dtype=np.float32) / rate
        f = frequency(s.pitch)
        wave = np.zeros(n, dtype=np.float32)
        for h, amp in enumerate(HARMONICS, start=1):
            if f * h < rate / 2:
                wave += amp * np.sin(2 * np.pi * f * h * t)
        wave /= sum(HARMONICS)
        env = np.full(n, 0.7, dtype=np.float32)
        att = min(n, max(1, int(ATTACK * rate)))
        env[:att] = np.linspace(0.0, 1.0, att, dtype=np.float32)
        dec = min(n - att, int(0.08 * rate))
        if dec > 0:
            env[att:att + dec] = np.linspace(1.0, 0.7, dec, dtype=np.float32)
        rel = min(n, max(1, int(min(RELEASE, (end - start) / 3) * rate)))
        env[n - rel:] *= np.linspace(1.0, 0.0, rel, dtype=np.float32)
        out[a:b] += wave * env
    peak = float(np.max(np.abs(out))) if total else 0.0
    scale = VOLUME * 32767 / max(1.0, peak)
    return np.clip(out * scale, -32767, 32767).astype(np.int16)


def wav_bytes(samples, rate: int = RATE) -> bytes:
    """16-bit mono PCM samples (int16 array or bytes) as a WAV file."""
    data = samples if isinstance(samples, bytes) else samples.astype("<i2").tobytes()
    return (b"RIFF" + struct.pack("<I", 36 + len(data)) + b"WAVEfmt " +
            struct.pack("<IHHIIHH", 16, 1, 1, rate, rate * 2, 2, 16) + b"data" + struct.pack("<I", len(data)) + data)


# ----------------------------------------------------------------------------------------------
# fluidsynth, where installed

def find_soundfont() -> str | None:
    """A General MIDI soundfont: $SONGWRITER_SOUNDFONT, else a usual place."""
    named = os.environ.get("SONGWRITER_SOUNDFONT")
    for path in ([named] if named else []) + list(SOUNDFONTS):
        if path and Path(path).is_file():
            return path
    return None


def fluidsynth_available() -> bool:
    return shutil.which("fluidsynth") is not None and find_soundfont() is not None


def midi_bytes(events: list[Sounding], program: int = 0) -> bytes:
    """The notes as a one-track Standard MIDI File (480 ticks a quarter at 60 quarters a minute,
    so a tick is a fixed 1/480 s), General MIDI ``program`` on channel 1."""
    tpq = 480
    points = []
    for s in events:
        points.append((round(s.start * tpq), 1, s.pitch))
        points.append((round(s.end * tpq), 0, s.pitch))
    points.sort(key=lambda p: (p[0], p[1]))          # note-offs before note-ons at a time
    body = bytearray(b"\x00\xff\x51\x03" + (1_000_000).to_bytes(3, "big") + b"\x00" + bytes([0xC0, program & 0x7F]))
    last = 0
    for tick, on, pitch in points:
        body += _varlen(tick - last) + bytes([0x90 if on else 0x80, pitch & 0x7F, 90 if on else 0])
        last = tick
    body += b"\x00\xff\x2f\x00"
    return (b"MThd" + struct.pack(">IHHH", 6, 0, 1, tpq) + b"MTrk" + struct.pack(">I", len(body)) + bytes(body))


def _varlen(n: int) -> bytes:
    out = [n & 0x7F]
    n >>= 7
    while n:
        out.append(0x80 | (n & 0x7F))
        n >>= 7
    return bytes(reversed(out))


def fluidsynth_render(events: list[Sounding], rate: int = RATE, soundfont: str | None = None) -> bytes | None:
    """16-bit mono PCM of the notes played by fluidsynth with a General MIDI soundfont (acoustic
    grand piano), or None where fluidsynth or a soundfont is missing or fails."""
    font = soundfont or find_soundfont()
    exe = shutil.which("fluidsynth")
    if not font or not exe or not events:
        return None
    with tempfile.TemporaryDirectory(prefix="songwriter-tune-") as tmp:
        mid, raw = Path(tmp) / "tune.mid", Path(tmp) / "tune.raw"
        mid.write_bytes(midi_bytes(events))
        try:
            subprocess.run([exe, "-ni", "-g", "0.6", "-r", str(rate), "-T", "raw", "-O", "s16", "-F", str(raw),
                            font, str(mid)], check=True, capture_output=True, timeout=120)
            data = raw.read_bytes()
        except (OSError, subprocess.SubprocessError):
            return None
    # fluidsynth writes stereo: keep the left channel
    import numpy as np

    stereo = np.frombuffer(data[: len(data) // 4 * 4], dtype="<i2")
    return stereo[0::2].tobytes()


def render(events: list[Sounding], rate: int = RATE, engine: str = "auto") -> tuple[bytes, str]:
    """(16-bit mono PCM, which synthesiser made it: "fluidsynth" or "built-in"). ``engine``:
    "auto" (fluidsynth where installed), "builtin" or "fluidsynth"."""
    if engine in ("auto", "fluidsynth"):
        pcm = fluidsynth_render(events, rate)
        if pcm is not None:
            return pcm, "fluidsynth"
    return synthesise(events, rate).astype("<i2").tobytes(), "built-in"


# ----------------------------------------------------------------------------------------------
# playing a WAV on this machine, without Qt Multimedia

PLAYERS = (("pw-play", ["-"]), ("paplay", []), ("aplay", ["-q", "-"]))


def player_command(wav_path: str) -> list[str] | None:
    """A command that plays the WAV file at ``wav_path`` here (PipeWire, PulseAudio or ALSA on
    Linux, afplay on macOS), or None: no audio output found. $SONGWRITER_AUDIO=none says none;
    Windows plays through winsound (``play_windows``)."""
    if os.environ.get("SONGWRITER_AUDIO", "").lower() in ("none", "off", "0"):
        return None
    if sys.platform == "darwin":
        exe = shutil.which("afplay")
        return [exe, wav_path] if exe else None
    for name, args in PLAYERS:
        exe = shutil.which(name)
        if exe:
            return [exe] + [a if a != "-" else wav_path for a in args] + ([] if "-" in args else [wav_path])
    return None


def audio_output() -> str | None:
    """What plays the tune here (a program's name, or "winsound"), or None where nothing can."""
    if os.environ.get("SONGWRITER_AUDIO", "").lower() in ("none", "off", "0"):
        return None
    if sys.platform == "win32":
        return "winsound"
    cmd = player_command("x.wav")
    return Path(cmd[0]).name if cmd else None

"""Reading one melody line out of a MusicXML, MIDI or ABC file (music21, imported here only).

``read_melody(path, part=None, tune=None)`` gives a ``Melody`` whose notes are the line's sung
notes (the top note of a chord; tied notes merged into one) with their beat strength, the file's
words on them when it has words, and its phrase marks; and whose syllable map (``Melody.lines``)
says which notes each syllable sings and where the lines break (see docs/melody.md). Every file
that is not a melody raises MelodyError naming the file and the problem.
"""

from __future__ import annotations

import re
import statistics
from dataclasses import dataclass, field
from pathlib import Path

from songwriter.melody.model import MAX_NOTES, Melody, MelodyError, Note
from songwriter.template import MAX_LINE_SYLLABLES, MAX_LINES, MAX_TOTAL_SYLLABLES

MAX_FILE_BYTES = 5_000_000
SUFFIXES = {".musicxml": "musicxml", ".xml": "musicxml", ".mxl": "musicxml",
            ".mid": "midi", ".midi": "midi", ".kar": "midi", ".abc": "abc"}
# Sentence marks at the end of a syllable of the file's words end a line.
LINE_MARKS = "，。！？；、,.!?;:："
MIN_REST = 1 / 8            # quarters: a shorter gap between MIDI notes is legato, not a rest
LONG_LINE = 16              # a line without words longer than this is cut after its long notes
MARKED_LONG_LINE = 32       # ... and a phrase the file marks, longer than this
GRID = 1 / 48               # MIDI times are rounded to this many quarters


def is_melody_file(path) -> bool:
    return Path(str(path)).suffix.lower() in SUFFIXES


@dataclass
class _Event:
    """A note (or rest: pitch None) as read, before ties are merged."""
    pitch: int | None
    onset: float
    duration: float
    beat: float = 1.0
    measure: int = 0
    tie: str = ""                 # "", "start", "continue", "stop"
    lyric: str | None = None
    lyric_end: str = ""
    phrase_end: str = ""          # a phrase mark after this event: breath, fermata, line (ABC)
    system_break: bool = False    # a new system starts at this event (MusicXML layout)
    sources: list = field(default_factory=list)


# ----------------------------------------------------------------------------------------------
# Entry point

def read_melody(path, part: str | int | None = None, tune: int | None = None) -> Melody:
    """Read the melody line of a file. ``part``: a part or track by name or 1-based number
    (default: the first with notes); ``tune``: the ABC tune by its X: number (default: the first)."""
    p = Path(str(path))
    kind = SUFFIXES.get(p.suffix.lower())
    if kind is None:
        raise MelodyError(f"{p.name}: not a melody file (MusicXML .musicxml .xml .mxl, MIDI .mid .kar, "
                          f"or ABC .abc)")
    try:
        if not p.exists():
            raise MelodyError(f"{p}: no such file")
        if p.is_dir():
            raise MelodyError(f"{p}: is a folder, not a file")
        size = p.stat().st_size
        if size == 0:
            raise MelodyError(f"{p.name}: the file is empty")
        if size > MAX_FILE_BYTES:
            raise MelodyError(f"{p.name}: {size:,} bytes is too large for a melody (at most {MAX_FILE_BYTES:,})")
        data = p.read_bytes()
    except OSError as e:
        raise MelodyError(f"{p}: cannot read ({e.strerror or e})") from None
    if tune is not None and kind != "abc":
        raise MelodyError(f"{p.name}: a tune number is for ABC files, which hold several tunes")
    if kind == "midi":
        events, info = _read_midi(p, data, part)
    elif kind == "abc":
        events, info = _read_abc(p, data, part, tune)
    else:
        events, info = _read_musicxml(p, data, part)
    notes = _merge(events, info)
    if not notes:
        raise MelodyError(f"{p.name}: part {info.get('part') or 1} has no notes to sing")
    if len(notes) > MAX_NOTES:
        raise MelodyError(f"{p.name}: {len(notes):,} notes is too many for one melody (at most {MAX_NOTES:,})")
    _seconds(notes, info.get("tempi") or [(0.0, 120.0)])
    words = any(n.lyric for n in notes)
    lines = words_lines(notes) if words else note_lines(notes)
    if sum(len(ln) for ln in lines) > MAX_TOTAL_SYLLABLES:
        raise MelodyError(f"{p.name}: {sum(len(ln) for ln in lines):,} syllables is too many for one song "
                          f"(at most {MAX_TOTAL_SYLLABLES:,})")
    if len(lines) > MAX_LINES:
        raise MelodyError(f"{p.name}: {len(lines)} phrases is too many for one song (at most {MAX_LINES})")
    tempi = info.get("tempi") or [(0.0, 120.0)]
    return Melody(notes=notes, lines=lines, source=p.name, kind=kind, part=info.get("part", ""),
                  tune=info.get("tune"), title=info.get("title", ""), tempo=round(tempi[0][1], 3),
                  time_signature=info.get("time_signature", "4/4"), key=info.get("key", ""), words=words,
                  meta={k: v for k, v in info.items()
                        if k in ("parts", "tunes", "tune_count", "notes_marked", "warnings")})


# ----------------------------------------------------------------------------------------------
# music21 streams (MusicXML, ABC)

def _music21():
    try:
        import music21  # noqa: F401  (heavy: imported when a melody is opened, never before)
    except ImportError as e:   # pragma: no cover - a broken install
        raise MelodyError(f"reading melodies needs music21, which is not installed ({e})") from None
    import music21

    return music21


def _read_musicxml(p: Path, data: bytes, part) -> tuple[list[_Event], dict]:
    m21 = _music21()
    if p.suffix.lower() != ".mxl" and b"<" not in data[:2000]:
        raise MelodyError(f"{p.name}: not a MusicXML file (no XML in it)")
    if p.suffix.lower() == ".mxl" and not data.startswith(b"PK"):
        raise MelodyError(f"{p.name}: not a compressed MusicXML file (.mxl is a zip archive)")
    try:
        score = m21.converter.parse(str(p), format="musicxml", forceSource=True)
    except Exception as e:
        raise MelodyError(f"{p.name}: not a readable MusicXML file ({_why(e)})") from None
    return _from_stream(p, score, part, {"kind": "musicxml"})


def _abc_tunes(text: str) -> list[tuple[int, str]]:
    """(number, text) of each tune of an ABC file (a file without X: lines is one tune, 1)."""
    starts = [(m.start(), int(m.group(1))) for m in re.finditer(r"(?m)^X:\s*(\d+)", text)]
    if not starts:
        return [(1, text)]
    out = []
    for i, (at, number) in enumerate(starts):
        end = starts[i + 1][0] if i + 1 < len(starts) else len(text)
        out.append((number, text[at:end]))
    return out


def _read_abc(p: Path, data: bytes, part, tune: int | None) -> tuple[list[_Event], dict]:
    m21 = _music21()
    text = None
    for enc in ("utf-8-sig", "latin-1"):
        try:
            text = data.decode(enc)
            break
        except UnicodeDecodeError:
            continue
    tunes = _abc_tunes(text)
    numbers = [n for n, _ in tunes]
    if tune is None:
        tune = numbers[0]
    chosen = [t for n, t in tunes if n == tune]
    if not chosen:
        raise MelodyError(f"{p.name}: no tune {tune}; the file has tune{'s' if len(numbers) > 1 else ''} "
                          f"{', '.join(map(str, numbers[:40]))}{' ...' if len(numbers) > 40 else ''}")
    body = chosen[0]
    if not re.search(r"(?m)^K:", body):
        raise MelodyError(f"{p.name}: tune {tune} has no K: (key) line, so it is not an ABC tune")
    import contextlib
    import io

    said = io.StringIO()       # music21 prints what it guessed ("assuming C"): kept, not printed
    try:
        with contextlib.redirect_stderr(said), contextlib.redirect_stdout(said):
            handler = m21.abcFormat.ABCHandler()
            handler.process(body)
            score = m21.abcFormat.translate.abcToStreamScore(handler)
    except Exception as e:
        raise MelodyError(f"{p.name}: tune {tune} is not readable ABC ({_why(e)})") from None
    info = {"kind": "abc", "tune": tune, "tunes": numbers[:100] if len(numbers) > 1 else [],
            "tune_count": len(numbers)}
    guesses = [ln.strip() for ln in said.getvalue().splitlines() if ln.strip()]
    if guesses:
        info["warnings"] = guesses[:10]
    events, info = _from_stream(p, score, part, info)
    _abc_line_ends(m21, body, events, info)
    return events, info


def _abc_line_ends(m21, body: str, events: list[_Event], info: dict) -> None:
    """Mark the last note of each line of the tune's music as a phrase end: in ABC a line is a
    phrase (the Essen collection writes one phrase per line). The notes of each line are counted
    with music21's tokenizer and matched, in order, to the stream's notes and rests."""
    counts = []
    in_body = False
    joined: list[str] = []
    for raw in body.splitlines():      # a line ending in a backslash goes on on the next line
        if joined and joined[-1].endswith("\\"):
            joined[-1] = joined[-1][:-1] + " " + raw.split("%", 1)[0].rstrip()
        else:
            joined.append(raw.split("%", 1)[0].rstrip())
    for line in joined:
        if re.match(r"^[A-Za-z]:", line):
            in_body = in_body or line.startswith("K:")
            continue
        if not in_body or not line.strip():
            continue
        h = m21.abcFormat.ABCHandler()
        try:
            h.tokenize(line)
        except Exception:
            return
        n, grace = 0, False
        for t in h.tokens:
            name = type(t).__name__
            if name == "ABCGraceStart":
                grace = True
            elif name == "ABCGraceStop":
                grace = False
            elif name in ("ABCNote", "ABCChord") and not grace:
                n += 1
        if n:
            counts.append(n)
    timed = [e for e in events if e.duration > 0]
    if sum(counts) != len(timed) or len(counts) < 2:
        if sum(counts) != len(timed):
            info["notes_marked"] = "the ABC lines could not be matched to the notes; phrases from rests only"
        return
    at = 0
    for n in counts[:-1]:
        at += n
        k = at - 1
        while k >= 0 and timed[k].pitch is None:   # a line ending in a rest: its last note
            k -= 1
        if k >= 0:
            timed[k].phrase_end = timed[k].phrase_end or "line"


def _part_name(m21, part, index: int) -> str:
    name = (part.partName or "").strip()
    if not name:
        inst = part.getInstrument(returnDefault=False)
        name = (getattr(inst, "partName", None) or getattr(inst, "instrumentName", None) or "").strip() if inst else ""
    return name


def _pick(p: Path, named: list[tuple[str, object]], part, has_notes, noun: str = "part",
          where: str = "") -> tuple[int, str, object]:
    """The part asked for (a name or 1-based number), else the first with notes."""
    listing = ", ".join(f"{i + 1} {n!r}" if n else str(i + 1) for i, (n, _) in enumerate(named))
    if part is None or part == "":
        for i, (name, obj) in enumerate(named):
            if has_notes(obj):
                return i, name, obj
        raise MelodyError(f"{p.name}: {where or 'the file'} has no notes")
    text = str(part).strip()
    if text.isdigit():
        i = int(text) - 1
        if not 0 <= i < len(named):
            raise MelodyError(f"{p.name}: no {noun} {text}; the file has {len(named)} "
                              f"{noun}{'s' if len(named) != 1 else ''}: {listing}")
        return i, named[i][0], named[i][1]
    for i, (name, obj) in enumerate(named):
        if name.casefold() == text.casefold():
            return i, name, obj
    for i, (name, obj) in enumerate(named):
        if text.casefold() in name.casefold():
            return i, name, obj
    raise MelodyError(f"{p.name}: no {noun} named {text!r}; the {noun}s are: {listing}")


def _from_stream(p: Path, score, part, info: dict) -> tuple[list[_Event], dict]:
    m21 = _music21()
    parts = list(score.parts) if hasattr(score, "parts") and len(score.parts) else [score]
    named = [(_part_name(m21, x, i), x) for i, x in enumerate(parts)]
    where = f"tune {info['tune']}" if info.get("tune") is not None else ""
    i, name, chosen = _pick(p, named, part, lambda x: len(x.recurse().notes) > 0, where=where)
    info["part"] = name or str(i + 1)
    info["parts"] = [n or str(k + 1) for k, (n, _) in enumerate(named)] if len(named) > 1 else []
    md = getattr(score, "metadata", None)
    info["title"] = str(getattr(md, "bestTitle", None) or getattr(md, "title", None) or "") if md is not None else ""
    flat = chosen.flatten()
    ts = flat.getElementsByClass("TimeSignature")
    info["time_signature"] = ts[0].ratioString if ts else "4/4"
    keys = flat.getElementsByClass("KeySignature")
    if keys:
        k = keys[0]
        info["key"] = str(k.asKey()) if hasattr(k, "asKey") else str(k)
    tempi = []
    for mark in score.flatten().getElementsByClass("MetronomeMark"):
        try:
            bpm = mark.getQuarterBPM()
        except Exception:
            bpm = None
        if bpm and 1 <= bpm <= 2000:
            tempi.append((float(mark.offset), float(bpm)))
    info["tempi"] = sorted(tempi) or [(0.0, 120.0)]
    # system breaks: the offsets at which a new system starts (MusicXML print new-system)
    breaks = set()
    for m in chosen.getElementsByClass("Measure"):
        for lay in m.getElementsByClass(("SystemLayout", "PageLayout")):
            if getattr(lay, "isNew", False) and m.offset > 0:
                breaks.add(round(float(m.offset), 6))
    events: list[_Event] = []
    for el in flat.notesAndRests:
        ql = float(el.quarterLength)
        if ql <= 0:          # grace notes take no time and carry no syllable
            continue
        if el.isRest:
            pitch = None
        elif el.isChord:
            pitch = max(x.midi for x in el.pitches) if el.pitches else None
        else:
            pitch = el.pitch.midi
        if pitch is not None and not 0 <= pitch <= 127:
            continue
        try:
            beat = float(el.beatStrength)
        except Exception:
            beat = 1.0
        ev = _Event(pitch, float(el.offset), ql, beat, int(el.measureNumber or 0),
                    el.tie.type if el.tie is not None and pitch is not None else "")
        if pitch is not None:
            lyr = _first_verse(el)
            if lyr is not None:
                ev.lyric = lyr
            if any(type(x).__name__ == "Fermata" for x in el.expressions):
                ev.phrase_end = "fermata"
            if any(type(a).__name__ in ("BreathMark", "Caesura") for a in el.articulations):
                ev.phrase_end = "breath"
        if round(ev.onset, 6) in breaks:
            ev.system_break = True
        events.append(ev)
    return events, info


def _first_verse(el) -> str | None:
    lyrics = [ly for ly in (el.lyrics or []) if (ly.text or "").strip()]
    if not lyrics:
        return None
    ly = min(lyrics, key=lambda x: (x.number or 1))
    text = ly.text.strip()
    if ly.syllabic in ("begin", "middle") and not text.endswith("-"):
        text += "-"          # the word goes on on the next syllable (as ABC's w: writes it)
    return text[:64]


def _why(e: Exception) -> str:
    text = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
    return text[:160]


# ----------------------------------------------------------------------------------------------
# MIDI (music21's MIDI file reader; notes, tempo, metre and lyric/text events taken from the events)

def _read_midi(p: Path, data: bytes, part) -> tuple[list[_Event], dict]:
    m21 = _music21()
    from music21 import midi as m21midi

    if not data.startswith(b"MThd"):
        raise MelodyError(f"{p.name}: not a MIDI file (it does not start with MThd)")
    mf = m21midi.MidiFile()
    try:
        mf.readstr(data)
    except Exception as e:
        raise MelodyError(f"{p.name}: a broken MIDI file ({_why(e)})") from None
    tpq = mf.ticksPerQuarterNote or 480
    if not isinstance(tpq, int) or tpq <= 0:
        raise MelodyError(f"{p.name}: this MIDI file counts time in SMPTE frames, which is not supported")
    tracks = []
    tempi, metres, texts, lyrics = [], [], [], []
    for ti, track in enumerate(mf.tracks):
        tick = 0
        name = ""
        on: dict[tuple[int, int], tuple[int, int]] = {}
        notes = []
        for ev in track.events:
            if isinstance(ev, m21midi.DeltaTime):
                tick += int(ev.time or 0)
                continue
            t = ev.type
            if t == m21midi.ChannelVoiceMessages.NOTE_ON and (ev.velocity or 0) > 0:
                if ev.channel == 10:
                    continue          # General MIDI percussion: not a melody
                on[(ev.channel, ev.pitch)] = (tick, ev.pitch)
            elif t in (m21midi.ChannelVoiceMessages.NOTE_OFF, m21midi.ChannelVoiceMessages.NOTE_ON):
                start = on.pop((ev.channel, ev.pitch), None)
                if start is not None and tick > start[0]:
                    notes.append((start[0], tick, ev.pitch))
            elif t == m21midi.MetaEvents.SEQUENCE_TRACK_NAME and not name:
                name = _decode(ev.data).strip()
            elif t == m21midi.MetaEvents.SET_TEMPO and isinstance(ev.data, bytes) and len(ev.data) == 3:
                usec = int.from_bytes(ev.data, "big")
                if usec > 0:
                    tempi.append((tick / tpq, 60_000_000 / usec))
            elif t == m21midi.MetaEvents.TIME_SIGNATURE and isinstance(ev.data, bytes) and len(ev.data) >= 2:
                metres.append((tick / tpq, f"{ev.data[0]}/{2 ** ev.data[1]}"))
            elif t == m21midi.MetaEvents.LYRIC:
                lyrics.append((tick / tpq, _decode(ev.data)))
            elif t == m21midi.MetaEvents.TEXT_EVENT:
                texts.append((tick / tpq, _decode(ev.data)))
        tracks.append((name, sorted(notes)))
    named = [(name, notes) for name, notes in tracks if notes]    # tracks are numbered among those with notes
    if not named:
        raise MelodyError(f"{p.name}: the MIDI file has no notes")
    i, name, notes = _pick(p, named, part, lambda n: len(n) > 0, noun="track")
    metre = sorted(metres)[0][1] if metres else "4/4"
    info = {"kind": "midi", "part": name or str(i + 1),
            "parts": [n or str(k + 1) for k, (n, _) in enumerate(named)] if len(named) > 1 else [],
            "time_signature": metre, "tempi": sorted(tempi) or [(0.0, 120.0)], "title": ""}
    ts = m21.meter.TimeSignature(metre) if re.fullmatch(r"\d{1,2}/\d{1,2}", metre) else m21.meter.TimeSignature("4/4")
    bar = float(ts.barDuration.quarterLength)
    events: list[_Event] = []
    for start, end, pitch in notes:
        onset = round(start / tpq / GRID) * GRID
        off = round(end / tpq / GRID) * GRID
        if off <= onset:
            off = onset + GRID
        pos = onset % bar
        try:
            beat = float(ts.getAccentWeight(pos, permitMeterModulus=True))
        except Exception:
            beat = 1.0 if pos == 0 else 0.25
        events.append(_Event(pitch, onset, off - onset, beat, int(onset // bar) + 1))
    events = _top_line(events)
    words = _kar_words(texts) if not lyrics else [(t, w) for t, w in lyrics if w.strip()]
    if words:
        _put_words(events, words)
    if not info["title"]:
        titles = [w[2:].strip() for _, w in texts if w.startswith("@T")]
        info["title"] = titles[0] if titles else ""
    return events, info


def _decode(data) -> str:
    if not isinstance(data, bytes):
        return str(data or "")
    for enc in ("utf-8", "gb18030", "latin-1"):
        try:
            return data.decode(enc)
        except UnicodeDecodeError:
            continue
    return ""


def _kar_words(texts: list[tuple[float, str]]) -> list[tuple[float, str]]:
    """The sung syllables of a .kar file: its text events, less the @ headers (@T title, @L
    language, @I information) and stray descriptions; '/' and '\\' mark new lines and stanzas."""
    out = [(t, w) for t, w in texts if w and not w.startswith("@") and not w.startswith("%")]
    return out if len(out) >= 2 else []


def _put_words(events: list[_Event], words: list[tuple[float, str]]) -> None:
    """Give each syllable event to the note it starts on (the nearest onset within a sixteenth)."""
    onsets = [e.onset for e in events]
    import bisect

    pending_mark = ""
    for t, w in words:
        mark = ""
        while w and w[0] in "/\\":
            mark = "\\" if (w[0] == "\\" or mark == "\\") else "/"
            w = w[1:]
        text = w.strip()
        if not text:
            pending_mark = mark or pending_mark
            continue
        k = bisect.bisect_left(onsets, t - 0.25)
        best = None
        for j in range(k, min(len(events), k + 8)):
            if abs(events[j].onset - t) <= 0.25 and (best is None or abs(events[j].onset - t) < abs(events[best].onset - t)):
                best = j
        if best is None or events[best].lyric is not None:
            continue
        events[best].lyric = text[:64]
        mark = mark or pending_mark
        pending_mark = ""
        if mark and best > 0:
            prev = next((j for j in range(best - 1, -1, -1) if events[j].lyric), None)
            if prev is not None:
                events[prev].lyric_end = mark


def _top_line(events: list[_Event]) -> list[_Event]:
    """One note at a time: at a shared onset the highest; a note still sounding when the next
    starts is cut there; gaps become rests (shorter ones than MIN_REST are closed)."""
    events = sorted(events, key=lambda e: (e.onset, -(e.pitch or -1)))
    out: list[_Event] = []
    for e in events:
        if out and abs(out[-1].onset - e.onset) < 1e-9:
            continue
        if out and out[-1].onset + out[-1].duration > e.onset:
            out[-1].duration = e.onset - out[-1].onset
        if out:
            gap = e.onset - (out[-1].onset + out[-1].duration)
            if 0 < gap < MIN_REST:
                out[-1].duration += gap
            elif gap >= MIN_REST:
                out.append(_Event(None, out[-1].onset + out[-1].duration, gap))
        out.append(e)
    return out


# ----------------------------------------------------------------------------------------------
# From events to notes and lines

def _merge(events: list[_Event], info: dict) -> list[Note]:
    """Notes of the line: overlaps cut, tied notes joined into one, rests (not listed: they are
    the gaps between notes) measured in the next note's ``rest_before``, phrase marks kept on the
    note before them."""
    # by onset, and at one onset the highest note first (two voices: the top one is the melody)
    events = sorted((e for e in events if e.duration > 0 and e.pitch is not None),
                    key=lambda e: (round(e.onset, 6), -e.pitch))
    notes: list[Note] = []
    for e in events:
        if e.system_break and notes and not notes[-1].phrase_end:
            notes[-1].phrase_end = "system"
        if notes and e.onset < notes[-1].end - 1e-9:    # overlapping voices: cut the earlier note
            if e.onset <= notes[-1].onset + 1e-9:
                continue
            notes[-1].duration = e.onset - notes[-1].onset
        gap = max(0.0, e.onset - notes[-1].end) if notes else 0.0
        if gap < 1e-6:
            gap = 0.0
        if (e.tie in ("stop", "continue") and notes and notes[-1].pitch == e.pitch and gap == 0.0
                and not notes[-1].phrase_end):
            notes[-1].duration = e.onset + e.duration - notes[-1].onset    # a tie: one note
            notes[-1].phrase_end = e.phrase_end
            continue
        notes.append(Note(pitch=int(e.pitch), onset=e.onset, duration=e.duration, beat=e.beat,
                          measure=e.measure, rest_before=gap, phrase_end=e.phrase_end, lyric=e.lyric,
                          lyric_end=e.lyric_end))
    return notes


def _seconds(notes: list[Note], tempi: list[tuple[float, float]]) -> None:
    """Onsets in seconds through the tempo map (quarters per minute from each mark on)."""
    marks = sorted(tempi) or [(0.0, 120.0)]
    if marks[0][0] > 0:
        marks.insert(0, (0.0, marks[0][1]))
    for n in notes:
        secs, pos = 0.0, 0.0
        bpm = marks[0][1]
        for at, b in marks[1:]:
            if at >= n.onset:
                break
            secs += (at - pos) * 60.0 / bpm
            pos, bpm = at, b
        n.seconds = secs + (n.onset - pos) * 60.0 / bpm


def _ends_sentence(lyric: str | None) -> bool:
    return bool(lyric) and lyric.rstrip("-")[-1:] in LINE_MARKS


def words_lines(notes: list[Note]) -> list[list[list[int]]]:
    """Syllables and lines of a melody with words. A note with a syllable starts one; a note
    without, straight after a sung note (no rest), carries on its syllable (a melisma); one after a
    rest is not sung. Lines end where the words say (a sentence mark, a karaoke '/' or '\\'), and
    at breath marks and fermatas; when the words mark no line ends, also where a melody without
    words would end them (phrase marks; rests when the file marks no phrases)."""
    marked = any(_ends_sentence(n.lyric) or n.lyric_end for n in notes)
    phrases = any(n.phrase_end in ("line", "breath", "fermata") for n in notes)
    lines: list[list[list[int]]] = []
    line: list[list[int]] = []
    for i, n in enumerate(notes):
        if n.lyric:
            if line and not marked and not phrases and n.rest_before > 0:
                lines.append(line)
                line = []
            line.append([i])
        elif line and n.rest_before == 0:
            line[-1].append(i)           # a melisma
        else:
            continue                     # an unsung note
        nxt = notes[i + 1] if i + 1 < len(notes) else None
        if nxt is not None and not nxt.lyric and nxt.rest_before == 0:
            continue                     # the syllable goes on
        sung = notes[line[-1][0]]
        mark_here = _ends_sentence(sung.lyric) or sung.lyric_end
        phrase = n.phrase_end in ("breath", "fermata") or (not marked and n.phrase_end)
        if mark_here or phrase:
            lines.append(line)
            line = []
    if line:
        lines.append(line)
    return _cap_lines(notes, lines)


def note_lines(notes: list[Note]) -> list[list[list[int]]]:
    """Syllables and lines of a melody without words: a syllable per note. A file that marks its
    phrases (ABC line ends, breath marks, fermatas) gets a line per marked phrase, a rest inside
    one being a breath within the line; a file that does not gets a line ended by each rest (and
    system break). A line still longer than LONG_LINE (a marked phrase: MARKED_LONG_LINE) is cut
    at its rests, then after its long notes."""
    marked = any(n.phrase_end in ("line", "breath", "fermata") for n in notes)
    lines: list[list[list[int]]] = []
    line: list[list[int]] = []
    for i, n in enumerate(notes):
        if line and n.rest_before > 0 and not marked:
            lines.append(line)
            line = []
        line.append([i])
        if n.phrase_end:
            lines.append(line)
            line = []
    if line:
        lines.append(line)
    out = []
    durations = [n.duration for n in notes]
    median = statistics.median(durations) if durations else 1.0
    longest = MARKED_LONG_LINE if marked else LONG_LINE
    for ln in lines:
        for part in _cut_at_rests(notes, ln, longest):
            out.extend(_cut_at_long_notes(notes, part, median, longest))
    return _cap_lines(notes, out)


def _cut_at_rests(notes: list[Note], line: list[list[int]], longest: int) -> list[list[list[int]]]:
    if len(line) <= longest:
        return [line]
    out, cur = [], []
    for syl in line:
        if cur and notes[syl[0]].rest_before > 0:
            out.append(cur)
            cur = []
        cur.append(syl)
    out.append(cur)
    return out


def _cut_at_long_notes(notes: list[Note], line: list[list[int]], median: float,
                       longest: int = 16) -> list[list[list[int]]]:
    if len(line) <= longest:
        return [line]
    out, cur = [], []
    for k, syl in enumerate(line):
        cur.append(syl)
        n = notes[syl[-1]]
        left = len(line) - k - 1
        if n.duration >= max(2 * median, 1.0) and len(cur) >= 4 and left >= 3:
            out.append(cur)
            cur = []
    if cur:
        out.append(cur)
    return out


def _cap_lines(notes: list[Note], lines: list[list[list[int]]]) -> list[list[list[int]]]:
    """No line longer than a template allows: an over-long line is cut after its longest note
    in the middle part, again and again."""
    out = []
    stack = list(reversed(lines))
    while stack:
        ln = stack.pop()
        if len(ln) <= MAX_LINE_SYLLABLES:
            out.append(ln)
            continue
        lo, hi = len(ln) // 4, len(ln) - len(ln) // 4
        cut = max(range(lo, hi), key=lambda k: (sum(notes[i].duration for i in ln[k]), -abs(k - len(ln) // 2)))
        stack.append(ln[cut + 1:])
        stack.append(ln[:cut + 1])
    return out

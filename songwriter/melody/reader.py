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
# What of the reader's findings goes into Melody.meta (the rest is working data)
META_KEYS = ("parts", "tunes", "tune_count", "notes_marked", "warnings", "part_chosen", "repeats")


KIND_NAMES = {"musicxml": "MusicXML", "midi": "MIDI", "abc": "ABC"}
SNIFF_BYTES = 65_536        # how much of a file is looked at to tell what it holds


def sniff(data: bytes) -> str | None:
    """What a file's bytes are, whatever its name says: "midi" (it starts with MThd), "musicxml"
    (XML whose root is a MusicXML score) or "abc" (a tune: an X: line and a K: line); None for
    anything else. A name can lie (a MusicXML file saved as .txt, a MIDI file as .abc); the
    content decides how it is read."""
    head = data[:SNIFF_BYTES]
    if head.startswith(b"MThd"):
        return "midi"
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if text.startswith(b"<") and re.search(rb"<score-(partwise|timewise)\b", text):
        return "musicxml"
    try:
        decoded = head.decode("utf-8")
    except UnicodeDecodeError:
        decoded = head.decode("latin-1")
    if "\x00" not in decoded and re.search(r"(?m)^X:[ \t]*\d+[ \t]*$", decoded) \
            and re.search(r"(?m)^K:", decoded):
        return "abc"
    return None


def is_melody_file(path) -> bool:
    """A melody file by its suffix, or (an existing file with another suffix) by its content."""
    p = Path(str(path))
    if p.suffix.lower() in SUFFIXES:
        return True
    try:
        if not p.is_file() or not 0 < p.stat().st_size <= MAX_FILE_BYTES:
            return False
        with p.open("rb") as f:
            return sniff(f.read(SNIFF_BYTES)) is not None
    except OSError:
        return False


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
    verses: dict = field(default_factory=dict)   # verse number -> syllable (MusicXML lyrics, ABC w:)


# ----------------------------------------------------------------------------------------------
# Entry point

def read_melody(path, part: str | int | None = None, tune: int | None = None) -> Melody:
    """Read the melody line of a file. ``part``: a part or track by name or 1-based number
    (default: the first with notes); ``tune``: the ABC tune by its X: number (default: the first)."""
    p = Path(str(path))
    named = SUFFIXES.get(p.suffix.lower())
    not_melody = MelodyError(f"{p.name}: not a melody file (MusicXML .musicxml .xml .mxl, MIDI .mid .kar, "
                             f"or ABC .abc)")
    if named is None and not p.is_file():
        raise not_melody
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
    found = sniff(data)
    if named is None and found is None:
        raise not_melody
    kind = named
    renamed = ""
    # The content, not the name, decides (a compressed .mxl is a zip and sniffs as nothing)
    if found is not None and found != named:
        kind = found
        renamed = (f"{p.name} is a {KIND_NAMES[found]} file (named {p.suffix or 'without a suffix'}); "
                   f"read as {KIND_NAMES[found]}")
    if tune is not None and kind != "abc":
        raise MelodyError(f"{p.name}: a tune number is for ABC files, which hold several tunes")
    if kind == "midi":
        events, info = _read_midi(p, data, part)
    elif kind == "abc":
        events, info = _read_abc(p, data, part, tune)
    else:
        events, info = _read_musicxml(p, data, part)
    if renamed:
        info["warnings"] = [renamed] + list(info.get("warnings") or [])
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
                        if k in META_KEYS})


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
    zipped = data.startswith(b"PK")
    if p.suffix.lower() == ".mxl" and not zipped and sniff(data) != "musicxml":
        raise MelodyError(f"{p.name}: not a compressed MusicXML file (.mxl is a zip archive)")
    if p.suffix.lower() != ".mxl" and zipped:
        raise MelodyError(f"{p.name}: a zip archive, not a MusicXML file (if it is compressed MusicXML, "
                          f"name it .mxl)")
    if not zipped and b"<" not in data[:2000]:
        raise MelodyError(f"{p.name}: not a MusicXML file (no XML in it)")
    try:
        score = m21.converter.parse(str(p), format="musicxml", forceSource=True)
    except Exception as e:
        raise MelodyError(f"{p.name}: not a readable MusicXML file ({_why(e)})") from None
    events, info = _from_stream(p, score, part, {"kind": "musicxml"})
    return _expand_repeats(events, info), info


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
    body = _with_file_header(text, body)
    body, default_length = _with_note_length(body)
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
    if default_length:
        guesses.insert(0, f"no L: (note length) field: the unit note is {default_length}, as ABC 2.1 "
                          f"has it for this metre")
    if guesses:
        info["warnings"] = guesses[:10]
    events, info = _from_stream(p, score, part, info)
    music = "\n".join(ln for ln in _joined_lines(body.split("\nK:", 1)[-1]) if not re.match(r"^[A-Za-z+]:", ln))
    if not info.get("_bars") and re.search(r":\||\|:|\|\s*\[?[12]", music):
        # music21 bars a tune only when it has two plain bar lines; without bars it loses the
        # repeat signs, and the writer is told the tune is sung once as written
        info.setdefault("warnings", []).append("the repeat signs could not be read (too few bar lines); "
                                               "the tune is sung once, as written")
    _abc_line_ends(m21, body, events, info)
    _abc_words(m21, body, events, info)
    return _expand_repeats(events, info), info


def _with_file_header(text: str, body: str) -> str:
    """The tune with the file header's M: and L: (before the first X:; ABC 2.1 lets them apply to
    every tune) where the tune sets none of its own."""
    first = re.search(r"(?m)^X:", text)
    if first is None or first.start() == 0:
        return body
    head = text[:first.start()]
    tune_head = body.split("\nK:", 1)[0]
    extra = [m.group(0) for m in re.finditer(r"(?m)^[ML]:.*$", head)
             if not re.search(rf"(?m)^{m.group(0)[0]}:", tune_head)]
    if not extra:
        return body
    x_line, _, rest = body.partition("\n")
    return x_line + "\n" + "\n".join(extra) + "\n" + rest


def _with_note_length(body: str) -> tuple[str, str]:
    """The tune with an L: field where its header has none (music21 cannot read one without), and
    the length put in ("" when the tune had its own). ABC 2.1, 3.1.7: the default unit note is
    1/16 when the metre is under 3/4 (2/4 is 0.5), else 1/8 (free metre and no M: too)."""
    header = body.split("\nK:", 1)[0]
    if re.search(r"(?m)^L:", header):
        return body, ""
    length = "1/8"
    m = re.search(r"(?m)^M:\s*(\S.*)$", header)
    if m:
        metre = m.group(1).split("%", 1)[0].strip()
        value = {"C": 1.0, "C|": 1.0}.get(metre)
        frac = re.fullmatch(r"\(?([\d+ ]+)\)?\s*/\s*(\d+)", metre)
        if value is None and frac:
            try:
                value = sum(int(x) for x in re.split(r"[+ ]+", frac.group(1).strip())) / int(frac.group(2))
            except (ValueError, ZeroDivisionError):
                value = None
        if value is not None and value < 0.75:
            length = "1/16"
    k = re.search(r"(?m)^K:", body)
    return body[:k.start()] + f"L:{length}\n" + body[k.start():], length


def _joined_lines(body: str) -> list[str]:
    """The tune's lines, comments cut, a line ending in a backslash joined to the next."""
    joined: list[str] = []
    for raw in body.splitlines():
        if joined and joined[-1].endswith("\\"):
            joined[-1] = joined[-1][:-1] + " " + raw.split("%", 1)[0].rstrip()
        else:
            joined.append(raw.split("%", 1)[0].rstrip())
    return joined


def _abc_words(m21, body: str, events: list[_Event], info: dict) -> None:
    """The tune's w: lines (ABC 2.1, 4.? "lyrics") put on its notes as the file's words: a w: line
    sings the notes of the music lines since the last w: lines; several w: lines in a row are
    verses 1, 2 ... of the same notes (a repeat's second pass sings verse 2). In a w: line a space
    or '-' separates syllables ('-' inside a word), '_' holds the last syllable over one more
    note, '*' leaves a note unsung, '~' joins two words on one note, '\\-' is a hyphen, '|' moves
    on to the next bar. Rests and grace notes take no syllable; a tied note's second half does."""
    sung = [e for e in events if e.pitch is not None and e.duration > 0]
    block: list[tuple[int, int]] = []        # (note index, bar) of the music since the last w:
    pending: list[tuple[int, int]] = []
    count, bar, verse, last = 0, 0, 0, ""
    in_body = False
    words = 0
    for line in _joined_lines(body):
        field_ = re.match(r"^([A-Za-z+]):", line)
        if field_ and not in_body:
            in_body = line.startswith("K:")
            continue
        if field_ and field_.group(1) == "w":
            if last != "w":
                block, pending, verse = pending, [], 0
            verse += 1
            words += _align_w(line[2:], block, sung, verse)
            last = "w"
            continue
        if field_ or not line.strip():
            continue
        tokens = _abc_music_tokens(m21, line)
        if tokens is None:
            return
        for kind, src in tokens:
            if kind == "bar":
                bar += 1
            elif not _abc_rest(src):
                pending.append((count, bar))
                count += 1
        last = "music"
    if words and count != len(sung):
        for e in sung:
            e.verses = {}
        info.setdefault("warnings", []).append(
            f"the w: words could not be matched to the notes ({count} notes written, {len(sung)} read); "
            f"the words are left out")


def _abc_music_tokens(m21, line: str) -> list[tuple[str, str]] | None:
    """A line of ABC music as ("note", source) for each note, chord or rest outside grace notes
    and ("bar", source) for each bar line, in order; None when music21 cannot tokenize it."""
    h = m21.abcFormat.ABCHandler()
    try:
        h.tokenize(line)
    except Exception:
        return None
    out, grace = [], False
    for t in h.tokens:
        name = type(t).__name__
        if name == "ABCGraceStart":
            grace = True
        elif name == "ABCGraceStop":
            grace = False
        elif name == "ABCBar":
            out.append(("bar", t.src))
        elif name in ("ABCNote", "ABCChord") and not grace:
            out.append(("note", t.src))
    return out


def _abc_rest(src: str) -> bool:
    """Is this note token a rest (z, x; Z, X a bar's rest), once its chord symbol, decorations
    and annotations are taken off?"""
    bare = re.sub(r'^(?:"[^"]*"|![^!]*!|\+[^+]*\+|[.~HLMOPSTuv])*', "", src.strip())
    return bare[:1] in ("z", "x", "Z", "X")


def _align_w(text: str, block: list[tuple[int, int]], sung: list[_Event], verse: int) -> int:
    """Put one w: line's syllables on the block's notes (verse ``verse``); how many were put."""
    tokens: list[tuple[str, str]] = []          # ("syl", text) | ("hold", "") | ("skip", "") | ("bar", "")
    cur = ""
    i = 0
    while i < len(text):
        c = text[i]
        if c == "\\" and text[i + 1:i + 2] == "-":
            cur += "-"
            i += 2
            continue
        if c.isspace() or c in "-_*|":
            if cur:
                tokens.append(("syl", cur + ("-" if c == "-" else "")))
                cur = ""
            elif c == "-":
                tokens.append(("hold", ""))     # a hyphen on its own: the syllable goes on
            if c in "_*|":
                tokens.append(({"_": "hold", "*": "skip", "|": "bar"}[c], ""))
        elif c == "~":
            cur += " "
        else:
            cur += c
        i += 1
    if cur:
        tokens.append(("syl", cur))
    j = put = 0
    for kind, syl in tokens:
        if j >= len(block):
            break
        if kind == "bar":
            if j > 0:
                here = block[j - 1][1]
                while j < len(block) and block[j][1] == here:
                    j += 1
            continue
        if kind == "syl":
            k = block[j][0]
            if k < len(sung):
                sung[k].verses[verse] = syl.strip()[:64]
                put += 1
        j += 1
    return put


def _abc_line_ends(m21, body: str, events: list[_Event], info: dict) -> None:
    """Mark the last note of each line of the tune's music as a phrase end: in ABC a line is a
    phrase (the Essen collection writes one phrase per line). The notes of each line are counted
    with music21's tokenizer and matched, in order, to the stream's notes and rests."""
    counts = []
    in_body = False
    for line in _joined_lines(body):
        if re.match(r"^[A-Za-z]:", line):
            in_body = in_body or line.startswith("K:")
            continue
        if not in_body or not line.strip():
            continue
        tokens = _abc_music_tokens(m21, line)
        if tokens is None:
            return
        n = sum(kind == "note" for kind, _ in tokens)
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


# A part or track named like this is the sung line (a voice, the melody, the lead)
VOICE_NAME = re.compile(r"voice|vocal|vox|sing|melod|lead|lyric|soprano|tenor|alto|baritone|chant"
                        r"|人声|主唱|旋律|演唱|歌", re.IGNORECASE)
# A part with fewer chords than this share of its notes (or onsets) is a melody line
MONOPHONIC = 0.1


@dataclass
class _Candidate:
    """A part or track as ``_pick`` weighs it."""
    name: str
    obj: object
    notes: int                 # how many notes (chords counted once)
    chords: int = 0            # how many of them sound several pitches at once
    words: bool = False        # it carries lyrics

    @property
    def voice_like(self) -> bool:
        return self.words or bool(VOICE_NAME.search(self.name))

    @property
    def monophonic(self) -> bool:
        return self.notes > 0 and self.chords <= MONOPHONIC * self.notes


def _pick(p: Path, named: list[_Candidate], part, noun: str = "part", where: str = "",
          info: dict | None = None) -> tuple[int, str, object]:
    """The part asked for (a name or 1-based number); else the one most likely sung: one with
    words or named like a voice, then one that plays a single line (an accompaniment of chords
    listed first is passed over), then the first with notes. When the file offers several, how
    the choice was made goes into ``info["part_chosen"]`` for the writer to see."""
    def label(i: int) -> str:
        return f"{i + 1} {named[i].name!r}" if named[i].name else str(i + 1)

    listing = ", ".join(label(i) for i in range(len(named)))
    count = f"{len(named)} {noun}{'s' if len(named) != 1 else ''}"
    if part is None or part == "":
        sung = [i for i, c in enumerate(named) if c.notes]
        if not sung:
            raise MelodyError(f"{p.name}: {where or 'the file'} has no notes")
        ranked = sorted(sung, key=lambda i: (not named[i].voice_like, not named[i].monophonic, i))
        i = ranked[0]
        if info is not None and len(sung) > 1:
            c = named[i]
            why = ("it has the words" if c.words else "it is named like a voice" if c.voice_like
                   else "it plays one note at a time, the ones before it chords" if i != sung[0]
                   else "it is the first with notes")
            info["part_chosen"] = f"the file has {count} ({listing}); read {noun} {label(i)}: {why}"
        return i, named[i].name, named[i].obj
    text = str(part).strip()
    if text.isdigit():
        i = int(text) - 1
        if not 0 <= i < len(named):
            has = (f"the file has only 1 {noun}" + (f", {named[0].name!r}" if named[0].name else "")
                   if len(named) == 1 else f"the file has {count}: {listing}")
            raise MelodyError(f"{p.name}: no {noun} {text}; {has}")
        return i, named[i].name, named[i].obj
    for i, c in enumerate(named):
        if c.name.casefold() == text.casefold():
            return i, c.name, c.obj
    for i, c in enumerate(named):
        if text.casefold() in c.name.casefold():
            return i, c.name, c.obj
    unnamed = not any(c.name for c in named)
    raise MelodyError(f"{p.name}: no {noun} named {text!r}; " +
                      (f"the {noun}s have no names (the file has {count}; give a number)" if unnamed
                       else f"the {noun}s are: {listing}"))


def _from_stream(p: Path, score, part, info: dict) -> tuple[list[_Event], dict]:
    m21 = _music21()
    parts = list(score.parts) if hasattr(score, "parts") and len(score.parts) else [score]
    named = []
    for i, x in enumerate(parts):
        notes = list(x.recurse().notes)
        named.append(_Candidate(_part_name(m21, x, i), x, len(notes),
                                chords=sum(1 for n in notes if n.isChord and len(n.pitches) > 1),
                                words=any(n.lyrics for n in notes[:400])))
    where = f"tune {info['tune']}" if info.get("tune") is not None else ""
    i, name, chosen = _pick(p, named, part, where=where, info=info)
    info["part"] = name or str(i + 1)
    info["parts"] = [c.name or str(k + 1) for k, c in enumerate(named)] if len(named) > 1 else []
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
    info["_bars"] = _bars(chosen)
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
            ev.verses = _verses(el)
            if ev.verses:
                ev.lyric = ev.verses[min(ev.verses)]
            if any(type(x).__name__ == "Fermata" for x in el.expressions):
                ev.phrase_end = "fermata"
            if any(type(a).__name__ in ("BreathMark", "Caesura") for a in el.articulations):
                ev.phrase_end = "breath"
        if round(ev.onset, 6) in breaks:
            ev.system_break = True
        events.append(ev)
    return events, info


@dataclass
class _Bar:
    """A bar as the repeats see it."""
    start: float                  # quarters from the start, as written
    end: float
    forward: bool = False         # |: a repeated section starts here
    back: int = 0                 # :| the music goes back here (sung this many times in all)
    endings: tuple = ()           # the first/second ... ending (volta) this bar is under


def _bars(part) -> list[_Bar]:
    """The part's bars with their repeat signs and endings (empty when it has no repeats)."""
    measures = list(part.getElementsByClass("Measure"))
    bars = []
    for m in measures:
        start = float(m.offset)
        left, right = m.leftBarline, m.rightBarline
        bars.append(_Bar(start, start + float(m.quarterLength),
                         forward=type(left).__name__ == "Repeat" and getattr(left, "direction", "") == "start",
                         back=(int(getattr(right, "times", None) or 2)
                               if type(right).__name__ == "Repeat" and getattr(right, "direction", "") == "end"
                               else 0)))
    for k in range(len(bars) - 1):          # a bar ends where the next starts (a pickup is short)
        bars[k].end = bars[k + 1].start
    index = {id(m): k for k, m in enumerate(measures)}
    for bracket in part.spannerBundle.getByClass("RepeatBracket"):
        numbers = tuple(int(x) for x in (getattr(bracket, "numberRange", None) or []) if int(x) > 0)
        for m in bracket.getSpannedElements():
            k = index.get(id(m))
            if k is not None and numbers:
                bars[k].endings = tuple(sorted(set(bars[k].endings) | set(numbers)))
    if not any(b.forward or b.back or b.endings for b in bars):
        return []
    return bars


def _bar_order(bars: list[_Bar]) -> list[tuple[int, int]]:
    """The order the bars are sung in, with the pass each is sung on: a section between |: and :|
    (or from the start, or from the last repeat's end) twice (or as the sign says), on each pass
    the ending (volta) of that pass's number and no other."""
    order: list[tuple[int, int]] = []
    section, passno, in_endings = 0, 1, False
    i = 0
    limit = 16 * len(bars) + 64           # a malformed nest of repeats cannot loop for ever
    while i < len(bars) and len(order) < limit:
        bar = bars[i]
        if bar.forward and i != section:
            section, passno, in_endings = i, 1, False
        if bar.endings:
            in_endings = True
            if passno not in bar.endings:
                i += 1                    # another pass's ending
                continue
        elif in_endings:                  # past the endings: what follows is sung once
            section, passno, in_endings = i, 1, False
        order.append((i, passno))
        if bar.back:
            later = [e for b in bars[i + 1:] if b.endings for e in b.endings]
            if passno < bar.back or (bar.endings and any(e > passno for e in later)):
                passno += 1
                i, in_endings = section, False
                continue
            if not bar.endings:
                section, passno = i + 1, 1
        i += 1
    return order


def _expand_repeats(events: list[_Event], info: dict) -> list[_Event]:
    """The events in the order they are sung: repeated sections written out, each pass with its
    own ending (pass 1 ending 1, pass 2 ending 2) and its own verse of the words where the file
    has one per pass; the end of each pass a phrase end. What was done is told in
    ``info["repeats"]``."""
    import bisect

    bars = info.pop("_bars", None) or []
    if not bars:
        for ev in events:
            if ev.verses:
                ev.lyric = ev.verses[min(ev.verses)]
        return events
    order = _bar_order(bars)
    starts = [b.start for b in bars]
    by_bar: dict[int, list[_Event]] = {}
    before: list[_Event] = []
    for ev in events:
        k = bisect.bisect_right(starts, ev.onset + 1e-9) - 1
        (before if k < 0 else by_bar.setdefault(k, [])).append(ev)
    out = list(before)
    tempi = [(t, bpm) for t, bpm in info.get("tempi") or [] if t < starts[0]]
    pos = starts[0]
    for step, (k, passno) in enumerate(order):
        bar = bars[k]
        shift = pos - bar.start
        copies = []
        for ev in by_bar.get(k, []):
            copy = _Event(ev.pitch, ev.onset + shift, ev.duration, ev.beat, ev.measure, ev.tie,
                          ev.verses.get(passno, ev.verses[min(ev.verses)]) if ev.verses else ev.lyric,
                          ev.lyric_end, ev.phrase_end, ev.system_break, dict(ev.verses))
            copies.append(copy)
        nxt = order[step + 1][0] if step + 1 < len(order) else None
        if nxt is not None and nxt <= k:        # the music goes back: this pass ends a phrase
            last = next((c for c in reversed(copies) if c.pitch is not None), None)
            if last is not None and not last.phrase_end:
                last.phrase_end = "system"
        out.extend(copies)
        tempi.extend((t + shift, bpm) for t, bpm in info.get("tempi") or [] if bar.start <= t < bar.end)
        pos += bar.end - bar.start
    if tempi:
        info["tempi"] = sorted(set(tempi))
    if len(order) != len(bars) or any(p > 1 for _, p in order):
        runs = []                               # consecutive bars sung on one pass
        for step, (k, passno) in enumerate(order):
            if runs and runs[-1][1] == k - 1 and not bars[k - 1].back:
                runs[-1][1] = k
            else:
                runs.append([k, k])
        sung = ", ".join(f"{a + 1}-{b + 1}" if a != b else str(a + 1) for a, b in runs)
        endings = any(b.endings for b in bars)
        info["repeats"] = (f"repeats sung out: bars {sung} ({len(order)} bars sung of {len(bars)} written"
                           + ("; each ending on its own pass" if endings else "") + ")")
    return out


def _verses(el) -> dict[int, str]:
    """The note's syllable in each verse (number -> text; a trailing '-' when the word goes on,
    as ABC's w: writes it)."""
    out: dict[int, str] = {}
    for ly in el.lyrics or []:
        text = (ly.text or "").strip()
        if not text:
            continue
        if ly.syllabic in ("begin", "middle") and not text.endswith("-"):
            text += "-"          # the word goes on on the next syllable
        out.setdefault(int(ly.number or 1), text[:64])
    return out


def _why(e: Exception) -> str:
    """music21's reason in a few plain words: its first sentence, without the internal objects it
    names (``<music21.abcFormat.ABCNote 'C'>``), shortened at a word with an ellipsis, never cut
    mid-word."""
    text = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
    text = re.split(r"\s*(?:<music21\.|tPrev:|token:|\bin <)", text)[0].strip(" .:;,")
    text = text or type(e).__name__
    if len(text) > 120:
        text = text[:120].rsplit(" ", 1)[0].rstrip(" .,;:") + " …"
    return text


# ----------------------------------------------------------------------------------------------
# MIDI (music21's MIDI file reader; notes, tempo, metre and lyric/text events taken from the events)

def _read_midi(p: Path, data: bytes, part) -> tuple[list[_Event], dict]:
    m21 = _music21()
    from music21 import midi as m21midi

    if not data.startswith(b"MThd"):
        raise MelodyError(f"{p.name}: not a MIDI file (it does not start with MThd)")
    _check_chunks(p, data)
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
    drums = 0
    for ti, track in enumerate(mf.tracks):
        tick = 0
        name = ""
        on: dict[tuple[int, int], tuple[int, int]] = {}
        notes = []
        worded = False
        for ev in track.events:
            if isinstance(ev, m21midi.DeltaTime):
                tick += int(ev.time or 0)
                continue
            t = ev.type
            if t == m21midi.ChannelVoiceMessages.NOTE_ON and (ev.velocity or 0) > 0:
                if ev.channel == 10:
                    drums += 1        # General MIDI percussion: not a melody
                    continue
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
                worded = worded or bool(_decode(ev.data).strip())
            elif t == m21midi.MetaEvents.TEXT_EVENT:
                texts.append((tick / tpq, _decode(ev.data)))
        notes.sort()
        onsets = {}
        for start, _end, _pitch in notes:
            onsets[start] = onsets.get(start, 0) + 1
        tracks.append(_Candidate(name, notes, len(onsets), chords=sum(1 for k in onsets.values() if k > 1),
                                 words=worded))
    named = [c for c in tracks if c.notes]    # tracks are numbered among those with notes
    if not named:
        if drums:
            raise MelodyError(f"{p.name}: only percussion (General MIDI channel 10), no melody to sing")
        raise MelodyError(f"{p.name}: the MIDI file has no notes")
    info = {}
    i, name, notes = _pick(p, named, part, noun="track", info=info)
    metre = sorted(metres)[0][1] if metres else "4/4"
    info = {**info, "kind": "midi", "part": name or str(i + 1),
            "parts": [c.name or str(k + 1) for k, c in enumerate(named)] if len(named) > 1 else [],
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


def _check_chunks(p: Path, data: bytes) -> None:
    """A MIDI file cut off (a download that stopped, a copy cut short) is refused: its header and
    every chunk must be as long as they say, and the tracks as many as the header says. music21
    reads what is there and would give part of a song, or none, as if it were the whole."""
    def cut(where: str):
        return MelodyError(f"{p.name}: the file is cut off ({where}; it has {len(data):,} bytes)")

    if len(data) < 14:
        raise cut("its header ends early")
    header = int.from_bytes(data[4:8], "big")
    tracks = int.from_bytes(data[10:12], "big")
    at, found = 8 + header, 0
    while found < tracks:
        if at + 8 > len(data):
            raise cut(f"track {found + 1} of {tracks} is missing" if at >= len(data)
                      else f"track {found + 1} of {tracks} ends early")
        size = int.from_bytes(data[at + 4:at + 8], "big")
        if at + 8 + size > len(data):
            raise cut(f"track {found + 1} of {tracks} ends early")
        if data[at:at + 4] == b"MTrk":      # other chunk kinds are skipped, as the standard says
            found += 1
        at += 8 + size


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

    # Karaoke text runs on as it is shown: where the file starts (or ends) words with a space,
    # a syllable with no space between it and the one before goes on that word ("Whith" "er")
    spaced = any(w.lstrip("/\\")[:1] == " " or w.endswith(" ") for _, w in words)
    pending_mark = ""
    previous: _Event | None = None
    previous_raw = ""
    for t, w in words:
        mark = ""
        while w and w[0] in "/\\":
            mark = "\\" if (w[0] == "\\" or mark == "\\") else "/"
            w = w[1:]
        text = w.strip()
        if not text:
            pending_mark = mark or pending_mark
            continue
        goes_on = (spaced and previous is not None and not mark and not pending_mark
                   and not w[:1].isspace() and not previous_raw.endswith(" ")
                   and text[:1].isalpha() and (previous.lyric or "")[-1:].isalpha())
        k = bisect.bisect_left(onsets, t - 0.25)
        best = None
        for j in range(k, min(len(events), k + 8)):
            if abs(events[j].onset - t) <= 0.25 and (best is None or abs(events[j].onset - t) < abs(events[best].onset - t)):
                best = j
        if best is None or events[best].lyric is not None:
            continue
        if goes_on:
            previous.lyric = previous.lyric + "-"
        events[best].lyric = text[:64]
        previous, previous_raw = events[best], w
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

"""A melody line as Songwriter keeps it: sung notes, and which notes each slot of the template sings.

``Melody.notes`` are the line's notes in time order, tied notes already merged (one note per
sounded pitch), rests not listed but measured (``Note.rest_before``). ``Melody.lines`` is the
syllable map: per template line, per syllable, the indices of the notes that syllable is sung on
(one note, or several for a melisma). A note in no syllable is not sung (an unworded note of a
file with words). The JSON form (``to_dict``/``from_dict``) is versioned and lives in the
template's ``meta["melody"]``, so a ``.song`` project keeps its melody. No Qt, no torch, no music21.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from songwriter.template import MAX_LINE_SYLLABLES, MAX_LINES, MAX_TOTAL_SYLLABLES, TemplateError

FORMAT_ID = "songwriter-melody"
VERSION = 1
MAX_NOTES = 20_000
MAX_QUARTERS = 1_000_000.0
KINDS = ("musicxml", "midi", "abc")
PHRASE_MARKS = ("", "breath", "fermata", "system", "line")
# A note at least this strong is on a strong beat (music21's beat strengths: 1.0 the downbeat,
# 0.5 the middle of a 4/4 or 6/8 bar; 2/4's and 3/4's other beats are 0.5 too, and weak).
STRONG = 1.0
STRONG_MIDDLE = 0.5


class MelodyError(TemplateError):
    """A melody file that cannot be read, a melody that cannot become a template, or a broken
    melody record; the message says which file or field and why."""


@dataclass
class Note:
    pitch: int                  # MIDI number (60 = middle C); the top note of a chord
    onset: float                # quarter notes from the start of the piece
    duration: float             # quarter notes, ties merged
    beat: float = 1.0           # beat strength, 0-1 (music21's beatStrength): 1.0 the downbeat
    measure: int = 0            # bar number as the file gives it
    seconds: float = 0.0        # onset in seconds at the file's tempo
    rest_before: float = 0.0    # quarters of rest between the previous note's end and this onset
    phrase_end: str = ""        # the file's phrase mark after this note: breath (a breath mark or
                                # caesura), fermata, system (a new system follows), line (ABC line end)
    lyric: str | None = None    # the file's syllable on this note (None: none, or a melisma note)
    lyric_end: str = ""         # the file's line mark after that syllable: "/" line, "\\" stanza

    @property
    def end(self) -> float:
        return self.onset + self.duration

    def to_dict(self) -> dict:
        d = {"pitch": self.pitch, "onset": round(self.onset, 6), "duration": round(self.duration, 6),
             "beat": round(self.beat, 6), "measure": self.measure, "seconds": round(self.seconds, 4)}
        if self.rest_before:
            d["rest_before"] = round(self.rest_before, 6)
        if self.phrase_end:
            d["phrase_end"] = self.phrase_end
        if self.lyric is not None:
            d["lyric"] = self.lyric
        if self.lyric_end:
            d["lyric_end"] = self.lyric_end
        return d


@dataclass
class Melody:
    notes: list[Note]
    lines: list[list[list[int]]]          # line -> syllable -> note indices
    source: str = ""                      # the file's name
    kind: str = "musicxml"                # musicxml | midi | abc
    part: str = ""                        # the part or track read (its name, or "1")
    tune: int | None = None               # the ABC tune number
    title: str = ""
    tempo: float = 120.0                  # quarter notes per minute at the start
    time_signature: str = "4/4"
    key: str = ""                         # e.g. "G major", when the file says
    words: bool = False                   # the file had words (syllables from the file)
    tone_strength: float = 1.0            # how much tone fit steers generation: 0 off, 1 default
    meta: dict = field(default_factory=dict)

    # --- views ------------------------------------------------------------------------------
    def reading_notes(self) -> list[str]:
        """What reading the file did to the tune that the writer should know, one line each:
        the repeats sung out, then what could not be read or was guessed (warnings). The part
        taken of several (``meta["part_chosen"]``) is the caller's to say: how to take another
        differs between the command line and the window."""
        notes = [str(self.meta["repeats"])] if self.meta.get("repeats") else []
        return notes + [str(w) for w in self.meta.get("warnings") or []]

    def slot_notes(self, line: int, syllable: int) -> list[Note]:
        return [self.notes[k] for k in self.lines[line][syllable]]

    def line_lengths(self) -> list[int]:
        return [len(line) for line in self.lines]

    def matches(self, template) -> bool:
        """Does the syllable map fit the template (same lines, same syllables per line)?"""
        return self.line_lengths() == [ln.syllables for ln in template.lines]

    def strong(self, note: Note) -> bool:
        """Is the note on a strong beat: the downbeat, or the middle of a bar of four (4/4, 6/8,
        12/8: music21 gives those 0.5, as it gives 2/4's and 3/4's weak beats)?"""
        if note.beat >= STRONG:
            return True
        top = self.time_signature.split("/")[0]
        return note.beat >= STRONG_MIDDLE and top.isdigit() and int(top) in (4, 6, 12)

    def original_lines(self) -> list[str]:
        """The file's words per line as text ("" for a melody without words): Chinese syllables
        run together, English ones make words ("hal-" "le-" "lu-" "jah" -> "halleluiah")."""
        out = []
        for line in self.lines:
            text = ""
            for syllable in line:
                lyric = self.notes[syllable[0]].lyric or ""
                if text.endswith("-"):
                    text = text[:-1]
                elif text and lyric[:1].isascii() and lyric[:1].isalnum() and text[-1:].isascii():
                    text += " "
                text += lyric
            out.append(text.rstrip("-"))
        return out

    # --- JSON ---------------------------------------------------------------------------------
    def to_dict(self) -> dict:
        return {"format": FORMAT_ID, "version": VERSION, "source": self.source, "kind": self.kind,
                "part": self.part, "tune": self.tune, "title": self.title, "tempo": round(self.tempo, 4),
                "time_signature": self.time_signature, "key": self.key, "words": self.words,
                "tone_strength": self.tone_strength, "meta": dict(self.meta),
                "notes": [n.to_dict() for n in self.notes], "lines": [[list(s) for s in ln] for ln in self.lines]}

    @classmethod
    def from_dict(cls, data, where: str = "melody") -> "Melody":
        """A melody from its JSON form; MelodyError naming the field on anything malformed. A
        record of a newer version is refused (a later Songwriter may change what keys mean)."""
        from songwriter.validate import Fields

        f = Fields(data, where, MelodyError)
        version = f.integer("version", lo=1)
        if version > VERSION:
            raise MelodyError(f"{where}: written by a newer Songwriter (melody version {version}; "
                              f"this version reads up to {VERSION})")
        notes = []
        for nw, raw in f.items("notes", max_items=MAX_NOTES):
            nf = Fields(raw, nw, MelodyError)
            notes.append(Note(pitch=nf.integer("pitch", lo=0, hi=127),
                              onset=nf.number("onset", lo=0, hi=MAX_QUARTERS),
                              duration=nf.number("duration", lo=0, hi=MAX_QUARTERS),
                              beat=nf.number("beat", 1.0, lo=0, hi=1),
                              measure=nf.integer("measure", 0, lo=-1, hi=1_000_000),
                              seconds=nf.number("seconds", 0.0, lo=0, hi=360_000),
                              rest_before=nf.number("rest_before", 0.0, lo=0, hi=MAX_QUARTERS),
                              phrase_end=nf.string("phrase_end", "", choices=PHRASE_MARKS),
                              lyric=nf.string("lyric", None, max_len=64, null=True),
                              lyric_end=nf.string("lyric_end", "", choices=("", "/", "\\"))))
        lines = []
        total = 0
        for lw, raw in f.items("lines", max_items=MAX_LINES):
            if not isinstance(raw, list) or len(raw) > MAX_LINE_SYLLABLES:
                raise MelodyError(f"{lw}: expected a list of at most {MAX_LINE_SYLLABLES} syllables")
            line = []
            for k, syl in enumerate(raw):
                if not isinstance(syl, list) or not syl or not all(
                        isinstance(i, int) and not isinstance(i, bool) and 0 <= i < len(notes) for i in syl):
                    raise MelodyError(f"{lw}[{k}]: expected a non-empty list of note numbers below {len(notes)}")
                line.append(list(syl))
            total += len(line)
            lines.append(line)
        if total > MAX_TOTAL_SYLLABLES:
            raise MelodyError(f"{where}: {total} syllables is too many (at most {MAX_TOTAL_SYLLABLES})")
        meta = f.object("meta", None, null=True)
        return cls(notes=notes, lines=lines, source=f.string("source", "", max_len=1000),
                   kind=f.string("kind", "musicxml", choices=KINDS), part=f.string("part", "", max_len=200),
                   tune=f.integer("tune", None, lo=0, null=True), title=f.string("title", "", max_len=1000),
                   tempo=f.number("tempo", 120.0, lo=1, hi=2000),
                   time_signature=f.string("time_signature", "4/4", max_len=16),
                   key=f.string("key", "", max_len=64), words=f.boolean("words", False),
                   tone_strength=f.number("tone_strength", 1.0, lo=0, hi=10),
                   meta=dict(meta.data) if meta is not None else {})


META_KEY = "melody"


def melody_of(template) -> Melody | None:
    """The melody a template was made from (``template.meta["melody"]``), or None. A record that
    cannot be read raises MelodyError."""
    raw = template.meta.get(META_KEY) if isinstance(template.meta, dict) else None
    if raw is None:
        return None
    return Melody.from_dict(raw, "template.meta.melody")


def attach(template, melody: Melody) -> None:
    """Keep the melody with the template (and so with the project that holds the template)."""
    template.meta[META_KEY] = melody.to_dict()

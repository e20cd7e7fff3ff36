"""The song being written: template + text + locks + candidates + history, and ``.song`` files.

A ``.song`` file is UTF-8 JSON a person can read (see docs/file-format.md)::

    {"format": "songwriter-project", "schema_version": 1, "title": ..., "template": {...},
     "text": "line 1\\nline 2\\n...", "content": [...], "strength": 0.0,
     "candidates": [...], "history": [...], "original": {...} | null}

The text keeps exactly one line per template line (an unwritten line is an empty line); in
Chinese an empty cell inside a line is written ``_`` (as in the template notation). Locks live
in the template (``Slot.lock``). No Qt, no torch.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path

from songwriter.template import (
    FREE, MAX_LINES, MAX_NAME_CHARS, MAX_TIME_SECONDS, Line, Slot, Template, TemplateError, from_dict,
    is_hanzi, is_punct, syllable_units, to_dict,
)
from songwriter.validate import Fields, check_depth, parse_json

FORMAT_ID = "songwriter-project"
SCHEMA_VERSION = 1
SUFFIX = ".song"
MAX_FILE_BYTES = 50_000_000
MAX_CANDIDATES = 64      # kept in the project, newest first
MAX_HISTORY = 200
# What a project file may hold when read (more is refused, naming the field): room to spare over
# what Songwriter writes, small enough that nothing read can stall the app.
MAX_TEXT_CHARS = 2_000_000
MAX_CANDIDATES_READ = 10_000
MAX_HISTORY_READ = 100_000
MAX_CONTENT = 64
MAX_STRENGTH = 100.0
HOLE = FREE              # an empty Chinese cell in the text


class DocumentError(ValueError):
    """A project file that cannot be read, or an edit that cannot be made; the message says why."""


def now_iso() -> str:
    return datetime.now(timezone.utc).astimezone().isoformat(timespec="seconds")


# ----------------------------------------------------------------------------------------------
# Records kept with the project

@dataclass
class CandidateRecord:
    text: str
    lines: list[str]
    score: float
    ok: bool = True
    created: str = ""
    regenerated: list[int] | None = None   # line indices regenerated; None = the whole piece
    problems: int = 0
    form: str = ""            # form_signature() of the template it was written for ("" unknown)
    form_name: str = ""       # that form's name, to say which form it fits

    def to_dict(self) -> dict:
        return {"text": self.text, "lines": list(self.lines), "score": self.score, "ok": self.ok,
                "problems": self.problems, "created": self.created, "regenerated": self.regenerated,
                "form": self.form, "form_name": self.form_name}

    def fits_form(self, template: Template) -> bool:
        """Was it written for this form (line lengths, punctuation, rhymes, tones)? A record from
        before forms were recorded counts as fitting when its line count does."""
        if not self.form:
            return len(self.lines) == len(template.lines)
        return self.form == form_signature(template)

    @classmethod
    def from_dict(cls, d: dict, where: str = "candidate") -> "CandidateRecord":
        f = Fields(d, where, DocumentError)
        text = f.string("text", None, max_len=MAX_TEXT_CHARS, null=True)
        lines = f.strings("lines", None, max_items=MAX_LINES, max_len=MAX_TEXT_CHARS, null=True)
        if text is None and lines is None:
            f.fail("text", "the candidate's text")
        lines = lines if lines is not None else text.split("\n")
        return cls(text=text if text is not None else "\n".join(lines), lines=lines,
                   score=f.number("score", 0.0), ok=f.boolean("ok", True),
                   created=f.string("created", "", max_len=64),
                   regenerated=f.integers("regenerated", None, lo=0, hi=MAX_LINES, max_items=MAX_LINES, null=True),
                   problems=f.integer("problems", 0, lo=0),
                   form=f.string("form", "", max_len=64), form_name=f.string("form_name", "", max_len=MAX_NAME_CHARS))


@dataclass
class HistoryEntry:
    time: str
    text: str
    note: str = ""

    def to_dict(self) -> dict:
        return {"time": self.time, "note": self.note, "text": self.text}


@dataclass
class Original:
    """The song being re-lyricked, kept for reference: its raw text and its lines (with times)."""
    kind: str                 # "lyrics" | "lrc"
    text: str
    lines: list[str] = field(default_factory=list)
    times: list[float | None] = field(default_factory=list)
    name: str = ""

    def to_dict(self) -> dict:
        return {"kind": self.kind, "name": self.name,
                "lines": [{"text": t, "time": self.times[i] if i < len(self.times) else None}
                          for i, t in enumerate(self.lines)],
                "text": self.text}

    @classmethod
    def from_dict(cls, d: dict, where: str = "original") -> "Original":
        f = Fields(d, where, DocumentError)
        lines, times = [], []
        for line_where, item in f.items("lines", (), max_items=MAX_LINES * 4):
            lf = Fields(item, line_where, DocumentError)
            lines.append(lf.string("text", "", max_len=MAX_TEXT_CHARS))
            times.append(lf.number("time", None, lo=0, hi=MAX_TIME_SECONDS, null=True))
        return cls(kind=f.string("kind", choices=("lyrics", "lrc")), text=f.string("text", max_len=MAX_TEXT_CHARS),
                   lines=lines, times=times, name=f.string("name", "", max_len=MAX_NAME_CHARS * 20))


# ----------------------------------------------------------------------------------------------
# The document

@dataclass
class Document:
    template: Template
    lines: list[str] = field(default_factory=list)
    title: str = ""
    content: list[str] = field(default_factory=list)
    strength: float = 0.0
    candidates: list[CandidateRecord] = field(default_factory=list)
    history: list[HistoryEntry] = field(default_factory=list)
    original: Original | None = None
    notes: str = ""
    created: str = field(default_factory=now_iso)
    modified: str = ""

    def __post_init__(self):
        self.fit_lines()

    # --- text ---------------------------------------------------------------------------------
    @property
    def lang(self) -> str:
        return self.template.lang

    @property
    def text(self) -> str:
        """The piece as text: one line per template line (unwritten lines are empty)."""
        return "\n".join(self.lines)

    def fit_lines(self) -> None:
        n = len(self.template.lines)
        self.lines = [str(x) for x in self.lines[:n]] + [""] * max(0, n - len(self.lines))

    def set_text(self, text: str) -> None:
        self.lines = [ln.strip() for ln in text.split("\n")]
        self.fit_lines()

    def is_blank_line(self, i: int) -> bool:
        line = self.lines[i] if i < len(self.lines) else ""
        return not any(not ch.isspace() and ch != HOLE and not is_punct(ch) for ch in line)

    def check_text(self) -> str:
        """A text aligned line-for-line with the template, for ``checks.check``: each unwritten
        line becomes holes (so line numbers never shift); unwritten cells are holes."""
        out = []
        for i, tline in enumerate(self.template.lines):
            if self.is_blank_line(i):
                if self.lang == "zh":
                    out.append("".join(HOLE + s.punct for s in tline.slots))
                else:
                    out.append(HOLE)
            else:
                out.append(self.lines[i])
        return "\n".join(out)

    def check(self, rhyme_system: str | None = None):
        from songwriter.checks import check

        return check(self.check_text(), self.template, rhyme_system)

    # --- Chinese cells ------------------------------------------------------------------------
    def zh_cells(self, i: int) -> list[str]:
        """The characters in line i's slots ('' for empty), locks applied, then any overflow."""
        tline = self.template.lines[i]
        units = zh_units(self.lines[i])
        cells = [u for u, _ in units]
        cells = [("" if c == HOLE else c) for c in cells]
        cells += [""] * max(0, len(tline.slots) - len(cells))
        for k, slot in enumerate(tline.slots):
            if slot.lock is not None:
                cells[k] = slot.lock
        return cells

    def set_zh_cell(self, i: int, k: int, ch: str) -> None:
        cells = self.zh_cells(i)
        while len(cells) <= k:
            cells.append("")
        if k < len(self.template.lines[i].slots) and self.template.lines[i].slots[k].lock is not None:
            raise DocumentError(f"line {i + 1}, slot {k + 1} is locked")
        cells[k] = ch
        self.lines[i] = compose_zh(cells, self.template.lines[i])

    # --- locks --------------------------------------------------------------------------------
    def lock(self, i: int, k: int) -> None:
        """Lock what is written at line i, slot/word k (Chinese: slot k; English: word k)."""
        if self.lang == "zh":
            cells = self.zh_cells(i)
            ch = cells[k] if k < len(cells) else ""
            if not ch or not is_hanzi(ch):
                raise DocumentError(f"line {i + 1}, slot {k + 1}: nothing to lock (write a character first)")
            slot = self.template.lines[i].slots[k]
            self.template.lines[i].slots[k] = replace(slot, lock=ch)
            return
        _en_lock_word(self, i, k)

    def unlock(self, i: int, k: int) -> None:
        """Unlock line i, slot k (Chinese) or word k (English)."""
        if self.lang == "zh":
            self.unlock_slot(i, k)
            return
        words = en_word_layout(self.lines[i], self.template.lines[i])
        if k < len(words) and words[k].locked and words[k].slot is not None:
            self.unlock_slot(i, words[k].slot)

    def is_locked(self, i: int, k: int) -> bool:
        """Is line i's slot k (Chinese) or word k (English) locked?"""
        if self.lang == "zh":
            slots = self.template.lines[i].slots
            return k < len(slots) and slots[k].lock is not None
        words = en_word_layout(self.lines[i], self.template.lines[i])
        return k < len(words) and words[k].locked

    def unlock_slot(self, i: int, k: int) -> None:
        """Unlock template slot k of line i (an English locked word unlocks into its syllables)."""
        line = self.template.lines[i]
        slot = line.slots[k]
        if slot.lock is None:
            return
        if slot.span == 1:
            line.slots[k] = replace(slot, lock=None)
            return
        tones = _held_tones(self.template, i, _syllable_offset(line, k), slot.span)
        new = [Slot(tone=t) for t in tones]
        new[-1].punct = slot.punct
        line.slots[k:k + 1] = new

    def lock_line(self, i: int) -> int:
        """Lock everything written in line i; returns how many slots/words were locked."""
        n = 0
        if self.lang == "zh":
            for k, ch in enumerate(self.zh_cells(i)[: len(self.template.lines[i].slots)]):
                if ch and is_hanzi(ch) and self.template.lines[i].slots[k].lock is None:
                    self.lock(i, k)
                    n += 1
            return n
        w = 0
        while True:
            words = en_word_layout(self.lines[i], self.template.lines[i])
            if w >= len(words):
                return n
            if words[w].slot is None or self.template.lines[i].slots[words[w].slot].lock is None:
                try:
                    _en_lock_word(self, i, w)
                    n += 1
                except DocumentError:
                    pass
            w += 1

    def unlock_line(self, i: int) -> None:
        line = self.template.lines[i]
        k = len(line.slots) - 1
        while k >= 0:
            self.unlock_slot(i, k)
            k -= 1

    def line_complete(self, i: int) -> bool:
        """Is every syllable of line i written (Chinese: no empty cell, no overflow)?"""
        if self.is_blank_line(i):
            return False
        if self.lang != "zh":
            return True
        units = zh_units(self.lines[i])
        return len(units) == self.template.lines[i].syllables and all(u != HOLE for u, _ in units)

    def context_template(self, lines=None, skip: tuple[int, int] | None = None) -> Template:
        """A copy of the template with what is written locked as well (Chinese), for the engine:
        all lines, or only the given ones; ``skip`` leaves one (line, slot) free."""
        t = self.template.copy()
        if self.lang != "zh":
            return t
        for i in (range(len(t.lines)) if lines is None else lines):
            for k, ch in enumerate(self.zh_cells(i)[: len(t.lines[i].slots)]):
                if ch and is_hanzi(ch) and (i, k) != skip and t.lines[i].slots[k].lock is None:
                    t.lines[i].slots[k] = replace(t.lines[i].slots[k], lock=ch)
        if skip is not None:
            i, k = skip
            t.lines[i].slots[k] = replace(t.lines[i].slots[k], lock=None)
        return t

    def locked_count(self) -> int:
        return sum(1 for line in self.template.lines for s in line.slots if s.lock is not None)

    # --- template edits -----------------------------------------------------------------------
    def set_template(self, template: Template, keep_text: bool = True) -> None:
        template.validate()
        self.template = template
        if not keep_text:
            self.lines = []
        self.fit_lines()
        if self.lang == "zh":   # keep locks and text consistent: a lock shows in the text
            for i in range(len(self.lines)):
                if any(s.lock for s in template.lines[i].slots):
                    self.lines[i] = compose_zh(self.zh_cells(i), template.lines[i])

    def adopt_form(self, template: Template) -> "FormChange":
        """Take another form, keeping the text and the locks wherever it has room for them: line
        by line, slot by slot (Chinese), or word by word at the same syllable (English). Returns
        what was kept and what did not fit. A form in another language starts the text afresh."""
        template = template.copy()
        template.validate()
        old = self.template
        change = FormChange()
        if template.lang != old.lang:
            change.language_changed = True
            change.dropped_lines = [i for i in range(len(self.lines)) if not self.is_blank_line(i)]
            change.dropped_locks = self.locked_count()
            self.template, self.lines = template, []
            self.fit_lines()
            return change
        n = len(template.lines)
        change.dropped_lines = [i for i in range(n, len(self.lines)) if not self.is_blank_line(i)]
        change.dropped_locks = sum(1 for line in old.lines[n:] for s in line.slots if s.lock is not None)
        if self.lang == "zh":
            kept_lines = []
            for i, tline in enumerate(template.lines):
                if i >= len(old.lines):
                    kept_lines.append("")
                    continue
                cells, old_slots, room = self.zh_cells(i), old.lines[i].slots, len(tline.slots)
                for k, ch in enumerate(cells[room:], start=room):
                    if ch and ch != HOLE:
                        change.dropped_chars += 1
                        change.dropped_locks += k < len(old_slots) and old_slots[k].lock is not None
                for k in range(min(room, len(old_slots))):
                    if old_slots[k].lock is not None and tline.slots[k].lock is None:
                        tline.slots[k] = replace(tline.slots[k], lock=old_slots[k].lock)
                        change.kept_locks += 1
                kept = cells[:room] + [""] * max(0, room - len(cells))
                kept_lines.append(compose_zh(kept, tline))
            self.template, self.lines = template, kept_lines
            self.fit_lines()
            return change
        # English: the words stay as written; each locked word is locked again where a word of the
        # new line starts on the same syllable with the same spelling
        old_words = [[(w.start, w.word) for w in en_word_layout(self.lines[i], old.lines[i]) if w.locked]
                     for i in range(min(n, len(old.lines)))]
        self.template = template
        self.fit_lines()
        for i, locked in enumerate(old_words):
            for start, word in locked:
                layout = en_word_layout(self.lines[i], template.lines[i])
                at = next((w for w, p in enumerate(layout) if p.start == start and p.word == word), None)
                try:
                    if at is None:
                        raise DocumentError("no room")
                    _en_lock_word(self, i, at)
                    change.kept_locks += 1
                except DocumentError:
                    change.dropped_locks += 1
        return change

    def insert_line(self, at: int, like: int | None = None) -> None:
        t = self.template
        model = t.lines[like] if like is not None and 0 <= like < len(t.lines) else (
            t.lines[min(at, len(t.lines) - 1)] if t.lines else None)
        if model is not None:
            slots = [Slot(tone=s.tone if s.span == 1 else None, punct=s.punct) for s in model.slots]
            new = Line(slots=slots, rhyme=None, stanza=model.stanza)
        else:
            new = Line(slots=[Slot() for _ in range(5)], stanza=0)
            new.slots[-1].punct = "。" if t.lang == "zh" else "."
        t.lines.insert(at, new)
        self.lines.insert(at, "")
        t.validate()

    def remove_line(self, i: int) -> None:
        if len(self.template.lines) <= 1:
            raise DocumentError("a piece needs at least one line")
        del self.template.lines[i]
        del self.lines[i]

    def set_line_length(self, i: int, n: int) -> None:
        """Give line i n syllables: slots are added (free) or removed at the end; the closing
        punctuation stays on the last slot."""
        line = self.template.lines[i]
        if n < 1:
            raise DocumentError("a line needs at least one syllable")
        closing = line.punct
        line.slots[-1].punct = ""
        while line.syllables > n:
            last = line.slots[-1]
            if last.span > 1 and line.syllables - last.span < n:
                line.slots[-1].punct = closing
                raise DocumentError(f"line {i + 1}: a locked word is in the way; unlock it first")
            line.slots.pop()
        while line.syllables < n:
            line.slots.append(Slot())
        line.slots[-1].punct = closing
        self.template.validate()
        if self.lang == "zh" and self.lines[i]:
            cells = self.zh_cells(i)[:len(line.slots)]
            self.lines[i] = compose_zh(cells, line)

    def set_rhyme(self, i: int, label: str | None) -> None:
        if label is not None and (len(label) != 1 or not "A" <= label <= "Z"):
            raise DocumentError(f"a rhyme label is one capital letter, not {label!r}")
        self.template.lines[i].rhyme = label

    def set_tone(self, i: int, k: int, tone: str | None) -> None:
        slot = self.template.lines[i].slots[k]
        if slot.span > 1 and tone is not None:
            raise DocumentError("a locked word of several syllables takes no stress mark")
        allowed = ("平", "仄") if self.lang == "zh" else ("/", "x")
        if tone is not None and tone not in allowed:
            raise DocumentError(f"tone must be one of {', '.join(allowed)}")
        self.template.lines[i].slots[k] = replace(slot, tone=tone)

    def set_punct(self, i: int, k: int, punct: str) -> None:
        if any(not is_punct(c) for c in punct):
            raise DocumentError(f"{punct!r} is not punctuation")
        line = self.template.lines[i]
        line.slots[k] = replace(line.slots[k], punct=punct)
        if self.lang == "zh" and self.lines[i]:
            self.lines[i] = compose_zh(self.zh_cells(i), line)

    # --- candidates and history ---------------------------------------------------------------
    def add_candidates(self, records: list[CandidateRecord]) -> None:
        self.candidates = (list(records) + self.candidates)[:MAX_CANDIDATES]

    def apply_lines(self, new_lines: list[str], only: list[int] | None = None) -> None:
        """Take a candidate's lines: all of them, or only the given line indices."""
        for i in range(len(self.template.lines)):
            if only is not None and i not in only:
                continue
            if i < len(new_lines):
                self.lines[i] = new_lines[i].strip()

    def remember(self, note: str = "") -> bool:
        """Append the current text to the history unless it is the same as the last entry."""
        text = self.text
        if not text.strip() or (self.history and self.history[-1].text == text):
            return False
        self.history.append(HistoryEntry(now_iso(), text, note))
        del self.history[:-MAX_HISTORY]
        return True

    # --- serialisation ------------------------------------------------------------------------
    def to_dict(self) -> dict:
        return {
            "format": FORMAT_ID,
            "schema_version": SCHEMA_VERSION,
            "app_version": _app_version(),
            "title": self.title,
            "created": self.created,
            "modified": self.modified,
            "template": to_dict(self.template),
            "text": self.text,
            "content": list(self.content),
            "strength": self.strength,
            "notes": self.notes,
            "original": self.original.to_dict() if self.original else None,
            "candidates": [c.to_dict() for c in self.candidates],
            "history": [h.to_dict() for h in self.history],
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=1) + "\n"

    @classmethod
    def from_dict(cls, data: dict) -> "Document":
        """A project from its JSON form; DocumentError naming the field on anything malformed
        (every field is checked by the shared validation layer, ``songwriter.validate``)."""
        if not isinstance(data, dict):
            raise DocumentError("not a Songwriter project: the file holds no JSON object")
        if data.get("format") not in (FORMAT_ID, None) or "template" not in data:
            raise DocumentError("not a Songwriter project: it has no template")
        version = data.get("schema_version")
        if not isinstance(version, int) or isinstance(version, bool) or version < 1:
            raise DocumentError(f"not a Songwriter project: schema_version is {version!r}, not a whole number")
        if version > SCHEMA_VERSION:
            raise DocumentError(
                f"this project was written by a newer Songwriter (file format {version}; this version "
                f"reads up to {SCHEMA_VERSION}). Update Songwriter to open it; the file was not changed.")
        check_depth(data, "the project", DocumentError)
        f = Fields(data, "", DocumentError)
        try:
            template = from_dict(data["template"])
            from songwriter.melody.model import melody_of

            melody_of(template)        # a melody kept with the template (meta.melody) is checked too
        except TemplateError as e:
            raise DocumentError(f"the project's template is malformed: {e}") from None
        history = []
        for where, h in f.items("history", (), max_items=MAX_HISTORY_READ, null=True):
            hf = Fields(h, where, DocumentError)
            history.append(HistoryEntry(hf.string("time", "", max_len=64), hf.string("text", max_len=MAX_TEXT_CHARS),
                                        hf.string("note", "", max_len=MAX_NAME_CHARS)))
        candidates = [CandidateRecord.from_dict(c, where)
                      for where, c in f.items("candidates", (), max_items=MAX_CANDIDATES_READ, null=True)]
        original = f.object("original", None, null=True)
        doc = cls(template=template, title=f.string("title", "", max_len=MAX_NAME_CHARS, null=True) or "",
                  content=f.strings("content", [], max_items=MAX_CONTENT, max_len=MAX_TEXT_CHARS, null=True) or [],
                  strength=f.number("strength", 0.0, lo=-MAX_STRENGTH, hi=MAX_STRENGTH, null=True) or 0.0,
                  candidates=candidates[:MAX_CANDIDATES], history=history[-MAX_HISTORY:],
                  original=Original.from_dict(original.data, "original") if original else None,
                  notes=f.string("notes", "", max_len=MAX_TEXT_CHARS, null=True) or "",
                  created=f.string("created", "", max_len=64, null=True) or now_iso(),
                  modified=f.string("modified", "", max_len=64, null=True) or "")
        doc.set_text(f.string("text", "", max_len=MAX_TEXT_CHARS))
        return doc

    @classmethod
    def from_json(cls, text: str) -> "Document":
        return cls.from_dict(parse_json(text, "the project", error=DocumentError))

    def copy(self) -> "Document":
        return Document.from_dict(self.to_dict())


@dataclass
class FormChange:
    """What taking another form (``Document.adopt_form``) kept and dropped."""
    kept_locks: int = 0
    dropped_locks: int = 0
    dropped_chars: int = 0                  # characters past the end of the new lines (Chinese)
    dropped_lines: list[int] = field(default_factory=list)   # written lines the new form has no room for
    language_changed: bool = False

    @property
    def dropped_anything(self) -> bool:
        return bool(self.dropped_locks or self.dropped_chars or self.dropped_lines)


def form_signature(template: Template) -> str:
    """What a text must match to fit a form, as a short key: per line its syllables, the
    punctuation after each, its rhyme label and (Chinese) its tones; not the locks, the name or
    the line times. Candidates record it, so those of another form can be told apart."""
    import hashlib

    rows = []
    for line in template.lines:
        puncts: list[str] = []
        for slot in line.slots:
            puncts += [""] * (slot.span - 1) + [slot.punct]
        tones = [s.tone or "" for s in line.slots] if template.lang == "zh" else []
        rows.append([puncts, line.rhyme or "", tones])
    key = json.dumps([template.lang, rows], ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha1(key.encode("utf-8")).hexdigest()[:16]


def new_document(template: Template, title: str = "") -> Document:
    return Document(template=template.copy(), title=title)


# ----------------------------------------------------------------------------------------------
# Files

def load(path: str | os.PathLike) -> Document:
    """Read a .song file; DocumentError (with the file name) on anything wrong."""
    p = Path(path)
    try:
        size = p.stat().st_size
        if p.is_dir():
            raise DocumentError(f"{p.name} is a folder, not a project file")
        if size > MAX_FILE_BYTES:
            raise DocumentError(f"{p.name} is {size:,} bytes, too large for a project file")
        raw = p.read_bytes()
    except FileNotFoundError:
        raise DocumentError(f"{p}: no such file") from None
    except PermissionError:
        raise DocumentError(f"{p}: permission denied") from None
    except OSError as e:
        raise DocumentError(f"{p}: cannot read ({e.strerror or e})") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise DocumentError(f"{p.name} is not a Songwriter project: not UTF-8 text") from None
    try:
        return Document.from_json(text)
    except DocumentError as e:
        raise DocumentError(f"{p.name}: {e}") from None
    except RecursionError:
        raise DocumentError(f"{p.name} is not a Songwriter project: its JSON is nested too deeply") from None
    except (TypeError, ValueError, KeyError, AttributeError) as e:
        # a field of the wrong type that the checks above do not name yet: still a clear refusal
        raise DocumentError(f"{p.name}: the project is malformed ({type(e).__name__}: {e})") from None


def write_atomic(path: str | os.PathLike, data: str | bytes) -> None:
    """Write to a temporary file beside the target, flush it to disk, then rename over the target
    and flush the folder, so a crash leaves either the old file or the new one, never half of one.
    A new file gets the user's umask (an existing one keeps its mode); temporary files that
    interrupted saves of the same file left behind are removed."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    fd, tmp = tempfile.mkstemp(prefix=f"{_tmp_prefix(p)}{os.getpid()}.", suffix=TMP_SUFFIX, dir=p.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(payload)
            f.flush()
            os.fsync(f.fileno())
        try:
            os.chmod(tmp, (p.stat().st_mode & 0o777) if p.exists() else (0o666 & ~_umask()))
        except OSError:
            pass
        os.replace(tmp, p)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    _fsync_folder(p.parent)
    remove_stale_temporaries(p)


TMP_SUFFIX = ".tmp"


def _tmp_prefix(p: Path) -> str:
    return f".{p.name}."


def remove_stale_temporaries(path: str | os.PathLike) -> list[Path]:
    """Remove ``.<name>.<pid>.*.tmp`` files beside ``path`` whose writing process is gone (a save
    killed halfway). A temporary of a process still running is left alone: it may be saving."""
    p = Path(path)
    removed = []
    prefix = _tmp_prefix(p)
    try:
        candidates = list(p.parent.glob(f"{glob_escape(prefix)}*{TMP_SUFFIX}"))
    except OSError:
        return removed
    for tmp in candidates:
        pid_text = tmp.name[len(prefix):].split(".", 1)[0]
        if pid_text.isdigit():
            if int(pid_text) == os.getpid() or process_running(int(pid_text)):
                continue
        else:   # the names of older versions carry no process id: gone when an hour old
            try:
                if tmp.stat().st_mtime > time.time() - 3600:
                    continue
            except OSError:
                continue
        try:
            tmp.unlink()
            removed.append(tmp)
        except OSError:
            pass
    return removed


def glob_escape(text: str) -> str:
    return "".join(f"[{c}]" if c in "*?[" else c for c in text)


def process_running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:        # no permission to signal it: it exists
        return True
    return True


def _umask() -> int:
    """The process's umask, read without changing it where the system says it (Linux)."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _fsync_folder(folder: Path) -> None:
    """Flush the folder's entry for the renamed file (POSIX; elsewhere a no-op)."""
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def save(doc: Document, path: str | os.PathLike) -> None:
    doc.modified = now_iso()
    write_atomic(path, doc.to_json())


def _app_version() -> str:
    try:
        from importlib.metadata import version

        return version("songwriter")
    except Exception:
        return "0"


# ----------------------------------------------------------------------------------------------
# Chinese cells and English words

def zh_units(line_text: str) -> list[tuple[str, str]]:
    """Like template.syllable_units for Chinese, but a hole ``_`` is a unit too."""
    return syllable_units(line_text, "zh")


def compose_zh(cells: list[str], tline: Line) -> str:
    """Cells -> line text with the template's punctuation; '' when nothing is written."""
    if not any(cells):
        return ""
    out = []
    for k, ch in enumerate(cells):
        out.append(ch or HOLE)
        if k < len(tline.slots):
            out.append(tline.slots[k].punct)
    # Drop trailing holes beyond the template (overflow cells that were cleared).
    text = "".join(out)
    return text


@dataclass
class WordPlace:
    word: str
    punct: str
    start: int                # first syllable (0-based) of the line
    syllables: int
    slot: int | None          # index of the template slot it starts on (None past the end)
    locked: bool = False


def en_word_layout(line_text: str, tline: Line) -> list[WordPlace]:
    """Lay an English line's words over the template's syllables, left to right. A locked slot
    takes its locked word's span; a word with several pronunciations (every-, temp'rate) takes the
    syllable count that makes the line fit its form when one does, else its usual count."""
    from songwriter.prosody import english

    starts = {}
    off = 0
    for k, s in enumerate(tline.slots):
        starts[off] = k
        off += s.span
    total = off
    units = syllable_units(line_text, "en")

    def options(w: int, pos: int) -> list[tuple[int, bool]]:
        word = units[w][0]
        k = starts.get(pos)
        slot = tline.slots[k] if k is not None else None
        if slot is not None and slot.lock is not None and slot.lock.lower() == word.lower():
            return [(slot.span, True)]
        try:
            counts = [c for c in english.syllable_counts(word) if c >= 1] or [1]
        except Exception:
            counts = [1]
        return [(c, False) for c in dict.fromkeys(counts)]

    memo: dict[tuple[int, int], list[tuple[int, bool]] | None] = {}

    def fit(w: int, pos: int):
        if w == len(units):
            return [] if pos == total else None
        if pos >= total or (w, pos) in memo:
            return memo.get((w, pos))
        memo[(w, pos)] = None
        for n, locked in options(w, pos):
            rest = fit(w + 1, pos + n)
            if rest is not None:
                memo[(w, pos)] = [(n, locked)] + rest
                break
        return memo[(w, pos)]

    chosen = fit(0, 0) if units and len(units) <= 64 else None
    out: list[WordPlace] = []
    pos = 0
    for w, (word, punct) in enumerate(units):
        n, locked = chosen[w] if chosen is not None else options(w, pos)[0]
        out.append(WordPlace(word, punct, pos, max(1, n), starts.get(pos), locked))
        pos += max(1, n)
    return out


def _syllable_offset(line: Line, k: int) -> int:
    return sum(s.span for s in line.slots[:k])


def _held_key(i: int, start: int) -> str:
    return f"{i}:{start}"


def _held_tones(t: Template, i: int, start: int, span: int) -> list[str | None]:
    store = t.meta.get("held_tones")
    held = store.pop(_held_key(i, start), None) if isinstance(store, dict) else None
    if isinstance(held, list) and len(held) == span:
        return [x if x in ("/", "x") else None for x in held]
    return [None] * span


def _en_lock_word(doc: Document, i: int, w: int) -> None:
    line = doc.template.lines[i]
    words = en_word_layout(doc.lines[i], line)
    if w >= len(words):
        raise DocumentError(f"line {i + 1}: no word {w + 1} to lock")
    place = words[w]
    if place.locked:
        return
    k = place.slot
    if k is None:
        raise DocumentError(f"line {i + 1}: {place.word!r} does not start on a syllable of the form")
    covered, total, j = [], 0, k
    while total < place.syllables and j < len(line.slots):
        if line.slots[j].lock is not None:
            raise DocumentError(f"line {i + 1}: {place.word!r} overlaps a locked word")
        covered.append(line.slots[j])
        total += line.slots[j].span
        j += 1
    if total != place.syllables:
        raise DocumentError(f"line {i + 1}: {place.word!r} ({place.syllables} syllables) runs past the end of the line")
    if place.syllables > 1:
        held = doc.template.meta.setdefault("held_tones", {})
        held[_held_key(i, place.start)] = [s.tone for s in covered]
    punct = covered[-1].punct
    tone = covered[0].tone if place.syllables == 1 else None
    line.slots[k:j] = [Slot(lock=place.word, span=place.syllables, tone=tone, punct=punct)]


# ----------------------------------------------------------------------------------------------
# Per-line status for the editor, from a CheckReport

@dataclass
class LineStatus:
    state: str                                  # "empty" | "incomplete" | "ok" | "problem"
    problems: list = field(default_factory=list)   # checks.Problem, holes left out
    empty_slots: list[int] = field(default_factory=list)

    @property
    def bad_slots(self) -> set[int]:
        return {p.slot for p in self.problems if p.slot is not None}


def line_statuses(doc: Document, report) -> list[LineStatus]:
    """Turn a CheckReport on ``doc.check_text()`` into what the editor shows per line: empty cells
    are not errors (the line is just unfinished), everything else is a problem."""
    out = []
    for i in range(len(doc.template.lines)):
        c = report.lines[i] if i < len(report.lines) else None
        if doc.is_blank_line(i):
            out.append(LineStatus("empty"))
            continue
        holes, problems = [], []
        for p in (c.problems if c else []):
            if p.kind == "unknown" and HOLE in p.message and p.slot is not None:
                holes.append(p.slot)
            elif p.kind == "rhyme" and "is unknown" in p.message and doc.lang == "zh" and _ends_in_hole(doc.lines[i]):
                continue
            else:
                problems.append(p)
        if problems:
            state = "problem"
        elif holes:
            state = "incomplete"
        else:
            state = "ok"
        out.append(LineStatus(state, problems, holes))
    return out


def _ends_in_hole(line: str) -> bool:
    units = zh_units(line)
    return bool(units) and units[-1][0] == HOLE

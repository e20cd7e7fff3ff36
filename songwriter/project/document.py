"""The song being written: a template (the form, with the locks in its slots), the text (one
line per template line; an unwritten line is empty; in Chinese an empty cell is ``_``), what
it is about (content entries, the per-line plan, the song's theme: ``steering``), the candidates the engine wrote and the history of the text.

The lock and form-editing methods are short: their work is in ``locks`` and ``form_edits``; the
JSON form is in ``codec``."""

from __future__ import annotations

from dataclasses import dataclass, field

from songwriter.project import codec, form_edits, locks, steering
from songwriter.project.form_edits import FormChange
from songwriter.project.layout import compose_zh, zh_units
from songwriter.project.records import CandidateRecord, HistoryEntry, Original
from songwriter.project.schema import HOLE, MAX_CANDIDATES, MAX_HISTORY, DocumentError, now_iso
from songwriter.template import Template, is_punct, syllable_units


# a new piece's plan strength, by language: a Chinese line's keyword (CoCon) lands whole in its
# line three and a half times as often at 1 as at 0 (26 % of lines against 7 %), read as well or
# better in two blind files (docs/results.md); the English lean was tuned at 0
PLAN_STRENGTH = {"zh": 1.0, "en": 0.0}


@dataclass
class Document:
    template: Template
    lines: list[str] = field(default_factory=list)
    title: str = ""
    content: list[str] = field(default_factory=list)
    # the plan's strength (and an old file's, for every entry); None: PLAN_STRENGTH for the language
    strength: float | None = None
    content_strengths: list[float] = field(default_factory=list)   # one per content entry
    plan_topic: str = ""
    plan: list[str] = field(default_factory=list)   # one keyword per template line ("" none); [] no plan
    keep_theme: bool | None = None        # the original song's words as content; None: by the form
    theme_strength: float = 0.0
    candidates: list[CandidateRecord] = field(default_factory=list)
    history: list[HistoryEntry] = field(default_factory=list)
    original: Original | None = None
    notes: str = ""
    created: str = field(default_factory=now_iso)
    modified: str = ""

    def __post_init__(self):
        if self.strength is None:
            self.strength = PLAN_STRENGTH.get(self.lang, 0.0)
        self.fit_lines()
        steering.fit_strengths(self)

    # --- text ---------------------------------------------------------------------------------
    @property
    def lang(self) -> str:
        return self.template.lang

    @property
    def text(self) -> str:
        """The piece as text: one line per template line (unwritten lines are empty)."""
        return "\n".join(self.lines)

    def fit_lines(self) -> None:
        """One text line per template line: extra lines go, missing ones are empty."""
        n = len(self.template.lines)
        self.lines = [str(x) for x in self.lines[:n]] + [""] * max(0, n - len(self.lines))
        steering.fit_plan(self)

    def set_text(self, text: str) -> None:
        self.lines = [ln.strip() for ln in text.split("\n")]
        self.fit_lines()

    def echo_refrains(self, changed) -> None:
        """After the lines ``changed`` were written: each refrain tied to one of them
        (``Line.repeats``) reads its words, with its own closing mark (the first changed line of
        a refrain and its source decides when both changed)."""
        done: set[int] = set()
        for i in sorted(changed):
            if i in done or i >= len(self.template.lines):
                continue
            tied = self.template.tied_lines([i]) - {i}
            done |= tied | {i}
            for j in tied:
                self.lines[j] = self._as_line(j, i)

    def _as_line(self, j: int, i: int) -> str:
        """Line i's text as line j would read it: the same words (characters), line j's marks."""
        if self.lang == "zh":
            return compose_zh(self.zh_cells(i)[:len(self.template.lines[j].slots)], self.template.lines[j])
        units = syllable_units(self.lines[i], "en")
        if units and units[-1][1]:
            units[-1] = (units[-1][0], self.template.lines[j].punct or units[-1][1])
        return " ".join(w + p for w, p in units)

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
        from songwriter.checks import check     # checks reads the prosody tables: only when asked

        return check(self.check_text(), self.template, rhyme_system)

    def line_complete(self, i: int) -> bool:
        """Is every syllable of line i written (Chinese: no empty cell, no overflow)?"""
        if self.is_blank_line(i):
            return False
        if self.lang != "zh":
            return True
        units = zh_units(self.lines[i])
        return len(units) == self.template.lines[i].syllables and all(u != HOLE for u, _ in units)

    # --- Chinese cells ------------------------------------------------------------------------
    def zh_cells(self, i: int) -> list[str]:
        """The characters in line i's slots ('' for empty), locks applied, then any overflow."""
        tline = self.template.lines[i]
        cells = [("" if u == HOLE else u) for u, _ in zh_units(self.lines[i])]
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

    # --- locks (songwriter.project.locks) -----------------------------------------------------
    def lock(self, i: int, k: int) -> None:
        """Lock what is written at line i, slot/word k (Chinese: slot k; English: word k)."""
        locks.lock(self, i, k)

    def unlock(self, i: int, k: int) -> None:
        """Unlock line i, slot k (Chinese) or word k (English)."""
        locks.unlock(self, i, k)

    def is_locked(self, i: int, k: int) -> bool:
        """Is line i's slot k (Chinese) or word k (English) locked?"""
        return locks.is_locked(self, i, k)

    def unlock_slot(self, i: int, k: int) -> None:
        """Unlock template slot k of line i (an English locked word unlocks into its syllables)."""
        locks.unlock_slot(self.template, i, k)

    def lock_line(self, i: int) -> int:
        """Lock everything written in line i; returns how many slots/words were locked."""
        return locks.lock_line(self, i)

    def unlock_line(self, i: int) -> None:
        locks.unlock_line(self.template, i)

    def locked_count(self) -> int:
        return locks.locked_count(self.template)

    # --- the form (songwriter.project.form_edits) ---------------------------------------------
    def set_template(self, template: Template, keep_text: bool = True) -> None:
        form_edits.set_template(self, template, keep_text)

    def adopt_form(self, template: Template) -> FormChange:
        """Take another form, keeping the text and the locks wherever it has room for them;
        returns what was kept and what did not fit."""
        return form_edits.adopt_form(self, template)

    def follow_notes(self, template: Template) -> FormChange:
        """Take a template whose melody's notes were regrouped (a line break moved, syllables
        joined or split), every written syllable staying on its note."""
        return form_edits.follow_notes(self, template)

    def insert_line(self, at: int, like: int | None = None) -> None:
        form_edits.insert_line(self, at, like)

    def remove_line(self, i: int) -> None:
        form_edits.remove_line(self, i)

    def set_line_length(self, i: int, n: int) -> None:
        """Give line i n syllables (slots added or removed at the end)."""
        form_edits.set_line_length(self, i, n)

    def set_refrain(self, i: int, source: int | None) -> None:
        """Line i repeats the earlier line ``source`` (a refrain), or none with None."""
        form_edits.set_refrain(self, i, source)

    def set_rhyme(self, i: int, label: str | None) -> None:
        form_edits.set_rhyme(self, i, label)

    def set_tone(self, i: int, k: int, tone: str | None) -> None:
        form_edits.set_tone(self, i, k, tone)

    def set_punct(self, i: int, k: int, punct: str) -> None:
        form_edits.set_punct(self, i, k, punct)

    # --- candidates and history ---------------------------------------------------------------
    def add_candidates(self, records: list[CandidateRecord]) -> None:
        """Newest first; the oldest beyond MAX_CANDIDATES go."""
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

    # --- JSON (songwriter.project.codec) ------------------------------------------------------
    def to_dict(self) -> dict:
        return codec.to_dict(self)

    def to_json(self) -> str:
        return codec.to_json(self)

    @classmethod
    def from_dict(cls, data: dict) -> "Document":
        """A project from its JSON form; DocumentError naming the field on anything malformed."""
        return codec.from_dict(data, cls)

    @classmethod
    def from_json(cls, text: str) -> "Document":
        return codec.from_json(text, cls)

    def copy(self) -> "Document":
        """A deep copy, made through the JSON form so that nothing is shared."""
        return Document.from_dict(self.to_dict())


def new_document(template: Template, title: str = "") -> Document:
    return Document(template=template.copy(), title=title)

"""What a project keeps beside its text, each with its JSON form: the candidates the engine
wrote, the history of the text, the song being re-lyricked; and the form signature that tells
which form a candidate was written for."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field

from songwriter.project.schema import MAX_TEXT_CHARS, DocumentError
from songwriter.template import MAX_LINES, MAX_NAME_CHARS, MAX_TIME_SECONDS, Template
from songwriter.validate import Fields


def form_signature(template: Template) -> str:
    """What a text must match to fit a form, as a short key: per line its syllables, the
    punctuation after each, its rhyme label and (Chinese) its tones; not the locks, the name or
    the line times. Candidates record it, so those of another form can be told apart."""
    rows = []
    for line in template.lines:
        puncts: list[str] = []
        for slot in line.slots:
            puncts += [""] * (slot.span - 1) + [slot.punct]
        tones = [s.tone or "" for s in line.slots] if template.lang == "zh" else []
        rows.append([puncts, line.rhyme or "", tones])
    key = json.dumps([template.lang, rows], ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha1(key.encode("utf-8")).hexdigest()[:16]


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

    @classmethod
    def from_dict(cls, d: dict, where: str = "history entry") -> "HistoryEntry":
        f = Fields(d, where, DocumentError)
        return cls(f.string("time", "", max_len=64), f.string("text", max_len=MAX_TEXT_CHARS),
                   f.string("note", "", max_len=MAX_NAME_CHARS))


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

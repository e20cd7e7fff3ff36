"""What a piece is about, as the project keeps it (no Qt, no torch): content entries with a
strength each, the per-line plan (a topic and one keyword per template line), and whether a
re-lyric keeps the song's own theme. The session turns these into a request's ``content``,
``strengths``, ``strength`` and ``line_content`` (docs/cocon.md, docs/plan.md).

In a ``.song`` file (docs/file-format.md)::

    "content": ["明月", "故乡"], "content_strengths": [0.0, 1.5],
    "strength": 0.0,                         # the plan's keywords steer at this strength
    "plan": {"topic": "明月 故乡", "keywords": ["道路", "游子", "故乡", "明月"]},
    "keep_theme": null, "theme_strength": 0.0

Files written before these fields read as before: every entry at ``strength``, no plan, the
song's theme by its default."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from songwriter.project.schema import MAX_CONTENT, MAX_STRENGTH, DocumentError
from songwriter.validate import Fields, describe

if TYPE_CHECKING:
    from songwriter.project.document import Document
    from songwriter.template import Template

MAX_KEYWORD_CHARS = 200      # a plan's keyword is a word or two, not a passage
THEME_CHARS = 100            # the song's words go to the model in pieces of about this many characters
THEME_CONTENTS = 8           # and at most this many (a content holds 128 positions)


def check_strength(value) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
            or abs(value) > MAX_STRENGTH:
        raise DocumentError(f"a strength is a number from -{MAX_STRENGTH:g} to {MAX_STRENGTH:g}, not {value!r}")
    return round(float(value), 2)


def fit_strengths(doc: Document) -> None:
    """One strength per content entry: missing ones (a file of before) take ``doc.strength``."""
    n = len(doc.content)
    doc.content_strengths = [float(x) for x in doc.content_strengths[:n]]
    doc.content_strengths += [float(doc.strength)] * (n - len(doc.content_strengths))


def fit_plan(doc: Document) -> None:
    """A plan has one keyword per template line (none: no plan at all)."""
    if doc.plan:
        n = len(doc.template.lines)
        doc.plan = [str(k) for k in doc.plan[:n]] + [""] * max(0, n - len(doc.plan))


def has_plan(doc: Document) -> bool:
    return any(k.strip() for k in doc.plan)


# --- the song's own theme (a re-lyric) ---------------------------------------------------------

def looks_classical(template: Template) -> bool:
    """A classical form rather than a song: a shi, ci or qu template, or lyrics shaped like regulated
    verse (an even number of lines, all five or all seven characters)."""
    if template.kind in ("shi", "ci", "qu"):
        return True
    sizes = {line.syllables for line in template.lines}
    return template.lang == "zh" and len(sizes) == 1 and sizes <= {5, 7} and len(template.lines) % 2 == 0


def theme_by_default(template: Template) -> bool:
    """Whether a re-lyric keeps the song's theme unless the writer says: on for a Chinese song
    (CoCon steers by the old words), off for a classical form and for English, whose lean on the
    old words cost fluency and coherence in a blind reading (docs/results.md, "English content")."""
    return template.lang == "zh" and not looks_classical(template)


def theme_pieces(lines: list[str]) -> list[str]:
    """A song's lines as contents: pieces of about THEME_CHARS characters cut at line ends, at most
    THEME_CONTENTS of them."""
    out: list[str] = []
    cur = ""
    for ln in (x.strip() for x in lines):
        if not ln:
            continue
        if cur and len(cur) + len(ln) > THEME_CHARS:
            out.append(cur)
            cur = ""
        cur = f"{cur}\n{ln}" if cur else ln
    if cur:
        out.append(cur)
    return out[:THEME_CONTENTS]


def keeps_theme(doc: Document, song: list[str]) -> bool:
    """Whether the song's own words (``song``: its lines) steer the piece: never without words; as
    the writer set it, else ``theme_by_default``."""
    if not any(x.strip() for x in song):
        return False
    return doc.keep_theme if doc.keep_theme is not None else theme_by_default(doc.template)


# --- JSON --------------------------------------------------------------------------------------

def to_dict(doc: Document) -> dict:
    return {"content_strengths": list(doc.content_strengths),
            "plan": {"topic": doc.plan_topic, "keywords": list(doc.plan)} if doc.plan or doc.plan_topic else None,
            "keep_theme": doc.keep_theme, "theme_strength": doc.theme_strength}


def from_fields(f: Fields) -> dict:
    """The steering fields of a project read back (absent ones: their defaults), checked."""
    strengths = []
    for where, x in f.items("content_strengths", (), max_items=MAX_CONTENT, null=True):
        if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x) or abs(x) > MAX_STRENGTH:
            raise DocumentError(f"{where}: expected a finite number from -{MAX_STRENGTH:g} to {MAX_STRENGTH:g}, "
                                f"got {describe(x)}")
        strengths.append(float(x))
    plan = f.object("plan", None, null=True)
    keep = f.data.get("keep_theme")
    if keep is not None and not isinstance(keep, bool):
        f.fail("keep_theme", "true, false or null", keep)
    return {"content_strengths": strengths,
            "plan_topic": (plan.string("topic", "", max_len=MAX_KEYWORD_CHARS * 4, null=True) or "") if plan else "",
            "plan": (plan.strings("keywords", [], max_items=10_000, max_len=MAX_KEYWORD_CHARS, null=True) or [])
            if plan else [],
            "keep_theme": keep,
            "theme_strength": f.number("theme_strength", 0.0, lo=-MAX_STRENGTH, hi=MAX_STRENGTH, null=True) or 0.0}

"""The 词牌 (cipai) library: standard formats of ci tunes, derived from the Song ci corpus.

    find_form("鹧鸪天").lines[0]  -> CipaiLine(length=7, punct="。", rhyme=True, tones="中仄平平中仄平",
                                              rhyme_label="A")
    find_form("酹江月").name      -> "念奴娇"            (aliases resolve to the tune)
    canonical_tune("丑奴儿・采桑子") -> "采桑子"        (any corpus name -> its tune group)
    search("江")                  -> forms whose name or an alias contains 江, most examples first

The table is assets/cipai.json, rebuilt by scripts/build_cipai.py (how: docs/cipai.md). Each
line of a form is one sentence of the ci, closed by its mark (，。、？！；：); ``tones`` has one of
平 / 仄 / 中 (either) per character; ``rhyme`` marks line ends that rhyme, and ``rhyme_label``
says which rhyme (A, B, ...: a ci that changes rhyme, like 菩萨蛮, has several).
No Qt, no torch.
"""
from __future__ import annotations

import difflib
import functools
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "CipaiLine", "CipaiVariant", "CipaiForm", "load_library", "find_form", "search",
    "canonical_tune", "alias_table", "library_info", "ASSET",
]

ASSET = Path(os.environ.get("SONGWRITER_CIPAI",
                            Path(__file__).resolve().parents[2] / "assets" / "cipai.json"))

_LINE = re.compile(r"([平仄中]+)([，。、？！；：])([A-Za-z]?)")
_SEPARATORS = re.compile(r"[·•‧･・∙⋅/／|｜]+|\s+")
_QUOTED = re.compile(r"“[^”]*”|\"[^\"]*\"|「[^」]*」")
_BRACKETED = re.compile(r"（[^）]*）|\([^)]*\)|〔[^〕]*〕|【[^】]*】|\[[^\]]*\]")


@dataclass(frozen=True)
class CipaiLine:
    """One sentence of a ci: its length in characters, closing mark, rhyme and 平仄 per slot."""
    length: int
    punct: str
    rhyme: bool
    tones: str                 # one of 平 / 仄 / 中 per character
    rhyme_label: str = ""      # lines with the same label rhyme together; "" when no rhyme

    @property
    def rhyme_tone(self) -> str:
        """平 or 仄 for a rhyme line whose last slot is clearly one of them, else ""."""
        return self.tones[-1] if self.rhyme and self.tones[-1:] in ("平", "仄") else ""


@dataclass(frozen=True)
class CipaiVariant:
    """Another format of a tune seen in the corpus (at least twice)."""
    lines: tuple[CipaiLine, ...]
    examples: int
    stanza_break: int | None = None

    @property
    def length(self) -> int:
        return sum(ln.length for ln in self.lines)


@dataclass(frozen=True)
class CipaiForm:
    """A tune: its standard format (the corpus's most common one), aliases and variants."""
    name: str
    aliases: tuple[str, ...]
    examples: int              # corpus pieces in exactly the standard format
    lines: tuple[CipaiLine, ...]
    stanza_break: int | None   # index of the first line of the second stanza (None: one stanza)
    variants: tuple[CipaiVariant, ...]
    total: int = 0             # all usable corpus pieces of the tune, any format

    @property
    def length(self) -> int:
        """Characters in the standard format."""
        return sum(ln.length for ln in self.lines)

    @property
    def line_lengths(self) -> tuple[int, ...]:
        return tuple(ln.length for ln in self.lines)

    @property
    def rhyme_lines(self) -> tuple[int, ...]:
        """0-based indices of the lines whose ends rhyme."""
        return tuple(i for i, ln in enumerate(self.lines) if ln.rhyme)

    @property
    def stanzas(self) -> tuple[tuple[CipaiLine, ...], ...]:
        if self.stanza_break is None:
            return (self.lines,)
        return (self.lines[: self.stanza_break], self.lines[self.stanza_break:])

    def pattern(self) -> str:
        """Compact text of the format: lengths with marks, rhymes as *, stanzas split by |."""
        out = []
        for i, ln in enumerate(self.lines):
            if i == self.stanza_break:
                out.append("|")
            out.append(f"{ln.length}{ln.punct}{'*' if ln.rhyme else ''}")
        return "".join(out)


def _parse_lines(encoded: str) -> tuple[CipaiLine, ...]:
    lines = []
    pos = 0
    for m in _LINE.finditer(encoded):
        if m.start() != pos:
            raise ValueError(f"bad line encoding at {pos}: {encoded[pos:pos + 20]!r}")
        tones, punct, label = m.groups()
        lines.append(CipaiLine(len(tones), punct, bool(label), tones, label))
        pos = m.end()
    if pos != len(encoded) or not lines:
        raise ValueError(f"bad line encoding: {encoded[pos:pos + 20]!r}")
    return tuple(lines)


@functools.lru_cache(maxsize=1)
def _raw() -> dict:
    try:
        with open(ASSET, encoding="utf-8") as fh:
            data = json.load(fh)
    except FileNotFoundError:
        raise FileNotFoundError(f"cipai library {ASSET} is missing: run scripts/build_cipai.py") from None
    if data.get("format") != "songwriter-cipai":
        raise ValueError(f"{ASSET} is not a cipai library")
    return data


@functools.lru_cache(maxsize=1)
def alias_table() -> dict[str, str]:
    """Every corpus name (and alias part of a compound name) that is not itself a tune's
    canonical name -> the canonical name of its tune group."""
    return dict(_raw()["aliases"])


@functools.lru_cache(maxsize=1)
def _groups() -> frozenset[str]:
    return frozenset(_raw()["groups"])


def library_info() -> dict:
    """Source, prosody used, thresholds and coverage figures of the shipped table."""
    raw = _raw()
    return {k: raw[k] for k in ("source", "prosody", "thresholds", "stats") if k in raw}


@functools.lru_cache(maxsize=1)
def load_library() -> dict[str, CipaiForm]:
    """Canonical tune name -> form, most examples first. Cached: the objects are shared."""
    raw = _raw()
    members: dict[str, list[str]] = {}
    for alias, canon in raw["aliases"].items():
        members.setdefault(canon, []).append(alias)
    out: dict[str, CipaiForm] = {}
    for name, entry in raw["forms"].items():
        names = members.get(name, [])
        simple = sorted(n for n in names if "・" not in n and "□" not in n)
        compound = sorted(n for n in names if "・" in n or "□" in n)
        variants = tuple(CipaiVariant(_parse_lines(enc), int(cnt), brk)
                         for cnt, enc, brk in entry.get("variants", ()))
        out[name] = CipaiForm(name=name, aliases=tuple(simple + compound), examples=int(entry["n"]),
                              lines=_parse_lines(entry["lines"]), stanza_break=entry.get("break"),
                              variants=variants, total=int(entry.get("total", entry["n"])))
    return out


def _clean(name: str) -> str:
    name = _QUOTED.sub("", name.strip())
    name = _SEPARATORS.sub("・", name)
    return name.strip("・")


def _lookup(name: str) -> str | None:
    if name in _groups():
        return name
    return alias_table().get(name)


def canonical_tune(name: str) -> str:
    """The canonical tune (group) name for any tune name, as written in the corpus or by a user.

    Corpus names and known aliases map to their group ('酹江月・念奴娇', '酹江月', '念奴娇' ->
    '念奴娇'). Other compound names resolve through their known part ('念奴娇・赤壁怀古',
    '念奴娇 (赤壁怀古)'); a name the table does not know is its own group (returned cleaned)."""
    if not isinstance(name, str):
        raise TypeError("tune name must be a str")
    found = _lookup(name) or _lookup(name.strip())
    if found:
        return found
    cleaned = _clean(name)
    found = _lookup(cleaned)
    if found:
        return found
    unbracketed = _clean(_BRACKETED.sub("・", name))
    found = _lookup(unbracketed)
    if found:
        return found
    parts = [p for p in unbracketed.split("・") if p]
    known = [_lookup(p) for p in parts]
    known = [k for k in known if k]
    if known:
        # the corpus writes 'alias・tune': prefer the last known part, but a tune with a form
        # in the library over a name without one
        library = load_library()
        with_form = [k for k in known if k in library]
        return (with_form or known)[-1]
    return cleaned or name.strip()


def find_form(name: str) -> CipaiForm:
    """A form by canonical name or alias; KeyError with close-match suggestions otherwise."""
    library = load_library()
    form = library.get(name) or library.get(name.strip())
    if form is not None:
        return form
    canon = canonical_tune(name)
    if canon in library:
        return library[canon]
    if canon in _groups():
        raise KeyError(f"{name!r} ({canon}) is in the corpus, but with too few pieces in one "
                       f"format for a standard form")
    names = list(library) + [a for a, c in alias_table().items() if c in library and "・" not in a]
    close = difflib.get_close_matches(_clean(name), names, n=5, cutoff=0.5)
    shown = [c if c in library else f"{c} ({alias_table()[c]})" for c in close]
    hint = f"; did you mean {', '.join(shown)}?" if shown else ""
    raise KeyError(f"unknown 词牌 {name!r}{hint}")


def search(query: str) -> list[CipaiForm]:
    """Forms whose name or an alias contains the query (or that the query names), most
    examples first; every form for an empty query."""
    library = load_library()
    q = _clean(query)
    if not q:
        return sorted(library.values(), key=lambda f: (-f.examples, f.name))
    hits = {f.name: f for f in library.values()
            if q in f.name or any(q in a for a in f.aliases)}
    canon = canonical_tune(query)
    if canon in library:
        hits[canon] = library[canon]
    return sorted(hits.values(), key=lambda f: (-f.examples, f.name))

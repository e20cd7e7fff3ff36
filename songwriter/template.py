"""The Template: lines of syllable slots with punctuation, locks, rhyme labels and tones.

Everything in Songwriter produces or consumes a Template (see DESIGN.md). A slot is one syllable:
one character in Chinese, one syllable in English. An English locked word may span several
syllables (``Slot.span``). Punctuation belongs to the slot it follows, so a line's closing mark
is the punctuation of its last slot.

This module knows the model and the compact notation; named forms live in ``forms.py`` and the
lyric/LRC parsers in ``lyrics.py``. No Qt, no torch.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

LANGS = ("zh", "en")
LANG_NAMES = {"zh": "Chinese", "en": "English"}
TONE_LEVEL = "平"
TONE_OBLIQUE = "仄"
STRESSED = "/"
UNSTRESSED = "x"
ZH_TONES = (TONE_LEVEL, TONE_OBLIQUE)
EN_STRESSES = (STRESSED, UNSTRESSED)

# Sizes beyond these are refused with a message rather than slowing everything to a crawl.
MAX_LINES = 400
MAX_LINE_SYLLABLES = 64
MAX_TOTAL_SYLLABLES = 4000
MAX_WORD_SYLLABLES = 12          # an English locked word (the notation's word:N)
MAX_LOCK_CHARS = 64
MAX_PUNCT_CHARS = 16
MAX_NAME_CHARS = 200
MAX_TIME_SECONDS = 360_000       # an LRC time: 100 hours
TONE_SYSTEMS = ("modern", "classical")

ZH_PUNCT = "，。、；：？！…—·「」『』“”‘’（）《》,.;:?!"
EN_PUNCT = ",.;:?!—–-…\"'()"
# Marks written in the notation for free slots.
FREE = "_"
ZH_TONE_MARKS = {"-": TONE_LEVEL, "○": TONE_LEVEL, "|": TONE_OBLIQUE, "●": TONE_OBLIQUE}
ZH_TONE_WRITE = {TONE_LEVEL: "-", TONE_OBLIQUE: "|"}
EN_STRESS_MARKS = {"/": STRESSED, "x": UNSTRESSED}

_TIME_RE = re.compile(r"^\[(\d{1,3}):(\d{1,2}(?:\.\d{1,3})?)\]")
_RHYME_RE = re.compile(r"@([A-Z])\s*$")
_REPEATS_RE = re.compile(r"\s*=(\d{1,3})\s*$")
_HEADER_RE = re.compile(r"^#\s*([a-z-]+)\s*:\s*(.*?)\s*$")
# Kinds of piece, by language: classical shi, ci and qu; a lyric or poem in Chinese is modern
# Chinese. English: a poem, a song lyric or a hymn (the register the English model writes in).
KINDS_BY_LANG = {"zh": ("shi", "ci", "qu", "lyric", "poem"), "en": ("poem", "lyric", "hymn")}
KINDS = ("shi", "ci", "qu", "lyric", "poem", "hymn")
HEADER_KEYS = ("name", "lang", "kind", "rhyme-system", "tones")


class TemplateError(ValueError):
    """Bad template input; ``line`` is 1-based when the problem has a place."""

    def __init__(self, message: str, line: int | None = None):
        self.line = line
        super().__init__(f"line {line}: {message}" if line else message)


@dataclass
class Slot:
    lock: str | None = None   # locked text: one character (zh) or one whole word (en)
    span: int = 1             # syllables taken: >1 only for an English locked word
    tone: str | None = None   # zh: 平/仄, en: "/" stressed or "x" unstressed; None = any
    punct: str = ""           # punctuation written right after this slot

    @property
    def free(self) -> bool:
        return self.lock is None


@dataclass
class Line:
    slots: list[Slot]
    rhyme: str | None = None      # rhyme label, "A".."Z": lines with one label rhyme together
    stanza: int = 0               # stanza index; a blank line in notation starts a new one
    time: float | None = None     # LRC start time in seconds (re-lyricking)
    repeats: int | None = None    # a refrain: the (0-based) earlier line whose words this one repeats

    @property
    def syllables(self) -> int:
        return sum(s.span for s in self.slots)

    def shape(self) -> list[tuple]:
        """What a line that repeats this one must share with it: each slot's span, lock and tone,
        and whether a mark follows it inside the line (a word never runs over one)."""
        return [(s.span, s.lock, s.tone, bool(s.punct) and k < len(self.slots) - 1)
                for k, s in enumerate(self.slots)]

    @property
    def punct(self) -> str:
        return self.slots[-1].punct if self.slots else ""

    @property
    def puncts(self) -> list[str]:
        """The line's punctuation marks in order (SongNet's Format measure compares these)."""
        return [s.punct for s in self.slots if s.punct]

    def tones(self) -> list[str | None]:
        """Tone/stress requirement per syllable (a locked multi-syllable word gives None each)."""
        out: list[str | None] = []
        for s in self.slots:
            out.extend([s.tone] if s.span == 1 else [None] * s.span)
        return out


@dataclass
class Template:
    lines: list[Line]
    lang: str = "zh"
    rhyme_system: str | None = None   # None: the default for the kind of piece
    tone_system: str = "modern"       # zh: "modern" (普通话) or "classical" (平水韵, 入声 is 仄)
    name: str = ""
    kind: str = "lyric"               # one of KINDS: picks the default rhyme system and the register
    meta: dict = field(default_factory=dict)

    def __post_init__(self):
        if self.lang not in LANGS:
            raise TemplateError(f"unknown language {self.lang!r}; use one of {', '.join(LANGS)}")
        if self.kind not in KINDS_BY_LANG[self.lang]:
            raise TemplateError(f"{self.kind!r} is not a kind of {LANG_NAMES[self.lang]} piece; "
                                f"use one of {', '.join(KINDS_BY_LANG[self.lang])}")

    @property
    def syllables(self) -> int:
        return sum(line.syllables for line in self.lines)

    def rhyme_groups(self) -> dict[str, list[int]]:
        """Rhyme label -> indices of the lines carrying it, in order."""
        groups: dict[str, list[int]] = {}
        for i, line in enumerate(self.lines):
            if line.rhyme:
                groups.setdefault(line.rhyme, []).append(i)
        return groups

    def effective_rhyme_system(self) -> str:
        if self.rhyme_system:
            return self.rhyme_system
        if self.lang == "en":
            return "perfect"
        return {"shi": "pingshui", "ci": "cilin"}.get(self.kind, "xinyun")

    def tied_lines(self, lines) -> set[int]:
        """``lines`` with the lines tied to them by a repeat: a refrain line and the line it
        repeats are written together (regenerating either writes both)."""
        out = set(lines)
        out |= {line.repeats for i, line in enumerate(self.lines) if i in out and line.repeats is not None}
        return out | {i for i, line in enumerate(self.lines) if line.repeats in out}

    def refrain_sources(self, i: int) -> list[int]:
        """The lines line i may repeat: earlier lines that are no refrains themselves (none when
        a later line repeats line i: a refrain's source is no refrain)."""
        if any(line.repeats == i for line in self.lines):
            return []
        return [j for j in range(min(i, len(self.lines))) if self.lines[j].repeats is None]

    def copy(self) -> "Template":
        return from_dict(to_dict(self))

    def validate(self) -> "Template":
        if not self.lines:
            raise TemplateError("the template has no lines")
        if len(self.lines) > MAX_LINES:
            raise TemplateError(f"{len(self.lines)} lines is too many (at most {MAX_LINES})")
        total = 0
        for i, line in enumerate(self.lines, 1):
            if not line.slots:
                raise TemplateError("the line has no syllables", i)
            if line.syllables > MAX_LINE_SYLLABLES:
                raise TemplateError(
                    f"{line.syllables} syllables is too long for one line (at most {MAX_LINE_SYLLABLES})", i)
            if line.rhyme is not None and not re.fullmatch(r"[A-Z]", line.rhyme):
                raise TemplateError(f"rhyme label {line.rhyme!r} must be one capital letter", i)
            for s in line.slots:
                allowed = ZH_TONES if self.lang == "zh" else EN_STRESSES
                if s.tone is not None and s.tone not in allowed:
                    raise TemplateError(f"tone mark {s.tone!r} is not one of {'/'.join(allowed)}", i)
                if s.span < 1:
                    raise TemplateError("a slot must take at least one syllable", i)
                if s.lock is not None and (not s.lock.strip() or (self.lang == "zh" and len(s.lock) != 1)):
                    raise TemplateError(f"locked text {s.lock!r} must be one character (zh) or a word (en)", i)
            total += line.syllables
            self._validate_repeat(i - 1)
        if total > MAX_TOTAL_SYLLABLES:
            raise TemplateError(f"{total} syllables in all is too many (at most {MAX_TOTAL_SYLLABLES})")
        if self.tone_system not in TONE_SYSTEMS:
            raise TemplateError(f"tone system {self.tone_system!r} is not one of {', '.join(TONE_SYSTEMS)}")
        if self.rhyme_system is not None:
            if self.lang == "zh":
                from songwriter.prosody.zh_rhyme import resolve_rhyme_system
            else:
                from songwriter.prosody.english import resolve_rhyme_system
            try:
                resolve_rhyme_system(self.rhyme_system)
            except ValueError as e:
                raise TemplateError(str(e)) from None
        return self

    def _validate_repeat(self, i: int) -> None:
        """Which line a refrain repeats: an earlier one that is no refrain itself. Its shape is
        ``refrain_problems``' to judge, not this: a lock or a melody's edit may make a refrain
        differ from its source for a while, and a template must still copy and save then."""
        j = self.lines[i].repeats
        if j is None:
            return
        if not isinstance(j, int) or isinstance(j, bool) or not 0 <= j < i:
            shown = j + 1 if isinstance(j, int) and not isinstance(j, bool) else repr(j)
            raise TemplateError(f"a line can repeat only an earlier line, not line {shown}", i + 1)
        source = self.lines[j]
        if source.repeats is not None:
            raise TemplateError(f"line {j + 1} repeats line {source.repeats + 1}: repeat that line instead", i + 1)

    def untie_refrains_that_differ(self) -> list[int]:
        """A refrain that no longer has its line's shape (a melody's phrases edited apart) becomes
        a line of its own; returns those lines."""
        apart = [i for i, line in enumerate(self.lines)
                 if line.repeats is not None and line.shape() != self.lines[line.repeats].shape()]
        for i in apart:
            self.lines[i].repeats = None
        return apart

    def refrain_problems(self) -> list[str]:
        """Each refrain that cannot be sung with its source line's words, said in a sentence
        naming both lines: a refrain must have its source's syllables, locks, stresses or tones
        and marks inside the line, and its rhyme label or none."""
        out = []
        for i, line in enumerate(self.lines):
            j = line.repeats
            if j is None:
                continue
            source = self.lines[j]
            if line.shape() != source.shape():
                out.append(f"line {i + 1} repeats line {j + 1} but differs from it in its syllables, locks, "
                           "stresses or marks inside the line")
            elif line.rhyme is not None and line.rhyme != source.rhyme:
                out.append(f"line {i + 1} repeats line {j + 1} but has rhyme {line.rhyme}, not "
                           f"{source.rhyme or 'none'}")
        return out


# ----------------------------------------------------------------------------------------------
# Characters

def is_hanzi(ch: str) -> bool:
    o = ord(ch)
    return (0x4E00 <= o <= 0x9FFF or 0x3400 <= o <= 0x4DBF or 0x20000 <= o <= 0x2FA1F
            or 0xF900 <= o <= 0xFAFF)


def is_punct(ch: str) -> bool:
    return ch in ZH_PUNCT or ch in EN_PUNCT or (not ch.isalnum() and not ch.isspace() and ch not in "_@")


# A song's marks as the other language writes them: re-lyricked in that language, the new words
# pause where the old ones did, in their own marks (a Chinese line ends "，", an English one ",").
_MARKS_IN = {
    "en": str.maketrans({"，": ",", "。": ".", "！": "!", "？": "?", "；": ";", "：": ":", "、": ",",
                         "（": "(", "）": ")", "“": '"', "”": '"', "「": '"', "」": '"', "『": '"',
                         "』": '"', "《": '"', "》": '"', "‘": "'", "’": "'", "·": ""}),
    "zh": str.maketrans({",": "，", ".": "。", "!": "！", "?": "？", ";": "；", ":": "：",
                         "(": "（", ")": "）"}),
}


def marks_for_lang(punct: str, lang: str) -> str:
    """``punct`` (a slot's marks) in the marks ``lang`` writes: "，。" -> ",." for English,
    "?!" -> "？！" for Chinese; marks both write (… —) and those with no counterpart stay."""
    if lang == "zh":
        punct = punct.replace("...", "…")
    else:
        punct = punct.replace("——", "—").replace("……", "…")
    return punct.translate(_MARKS_IN[lang]) if lang in _MARKS_IN else punct


def detect_lang(text: str) -> str:
    """zh for Chinese characters, full-width punctuation or run-together slot marks ("___");
    en for words or space-separated marks ("_ _ _")."""
    if any(is_hanzi(c) or c in "，。、；：？！○●" for c in text):
        return "zh"
    if re.search(r"[A-Za-z]{2,}|(?:^|\s)[_x/](?:\s|$)", text, re.M):
        return "en"
    return "zh"


# ----------------------------------------------------------------------------------------------
# Notation: one line of text per line of the piece (see docs/notation.md)

def _implied_kind(tone_system: str) -> str:
    """The kind a notation without a kind header is: a shi with classical tones, else a lyric."""
    return "shi" if tone_system == "classical" else "lyric"


def parse_notation(text: str, lang: str | None = None) -> Template:
    """Parse the compact notation. Raises TemplateError naming the line and the problem."""
    if text is None or not text.strip():
        raise TemplateError("the template is empty")
    headers: dict[str, str] = {}
    body: list[tuple[int, str]] = []
    for n, raw in enumerate(text.splitlines(), 1):
        stripped = raw.strip()
        m = _HEADER_RE.match(stripped)
        if m and m.group(1) in HEADER_KEYS:
            headers[m.group(1)] = m.group(2)
            continue
        if stripped.startswith("#"):
            continue  # a comment
        body.append((n, stripped))
    lang = lang or headers.get("lang") or detect_lang("".join(t for _, t in body))
    if lang not in LANGS:
        raise TemplateError(f"unknown language {lang!r}; use zh or en")
    lines: list[Line] = []
    stanza = 0
    for n, stripped in body:
        if not stripped:
            if lines and lines[-1].stanza == stanza:
                stanza += 1
            continue
        line = _parse_zh_line(stripped, n) if lang == "zh" else _parse_en_line(stripped, n)
        line.stanza = stanza
        lines.append(line)
    if not lines:
        raise TemplateError("the template has no lines")
    tones = headers.get("tones", "modern")
    if tones not in ("modern", "classical"):
        raise TemplateError(f"tones must be modern or classical, not {tones!r}")
    kind = headers.get("kind") or _implied_kind(tones)
    template = Template(lines=lines, lang=lang, rhyme_system=headers.get("rhyme-system") or None,
                        tone_system=tones, name=headers.get("name", ""), kind=kind)
    template.validate()
    problems = template.refrain_problems()
    if problems:
        raise TemplateError(problems[0])
    return template


def _split_repeat(text: str, n: int) -> tuple[str, int | None]:
    """A line's closing ``=N``: it repeats line N (1-based) of the piece."""
    m = _REPEATS_RE.search(text)
    if not m:
        return text, None
    number = int(m.group(1))
    if number < 1:
        raise TemplateError("a repeat is = and the number of an earlier line, like =1", n)
    return text[:m.start()], number - 1


def _split_time_and_rhyme(text: str, n: int) -> tuple[str, float | None, str | None]:
    time = None
    m = _TIME_RE.match(text)
    if m:
        time = round(int(m.group(1)) * 60 + float(m.group(2)), 3)
        text = text[m.end():].strip()
    rhyme = None
    m = _RHYME_RE.search(text)
    if m:
        rhyme = m.group(1)
        text = text[:m.start()].rstrip()
    if "@" in text:
        raise TemplateError("a rhyme label is @ and one capital letter at the end of the line, like @A", n)
    return text, time, rhyme


def _parse_zh_line(text: str, n: int) -> Line:
    text, repeats = _split_repeat(text, n)
    text, time, rhyme = _split_time_and_rhyme(text, n)
    slots: list[Slot] = []
    for ch in text:
        if ch.isspace():
            continue
        if ch == FREE:
            slots.append(Slot())
        elif ch in ZH_TONE_MARKS:
            slots.append(Slot(tone=ZH_TONE_MARKS[ch]))
        elif is_hanzi(ch):
            slots.append(Slot(lock=ch))
        elif is_punct(ch):
            if not slots:
                raise TemplateError(f"the line starts with punctuation {ch!r}; punctuation follows a syllable", n)
            slots[-1].punct += ch
        else:
            raise TemplateError(
                f"{ch!r} is not a Chinese character, a slot mark (_ - |) or punctuation", n)
    if not slots:
        raise TemplateError("the line has no syllables", n)
    return Line(slots=slots, rhyme=rhyme, time=time, repeats=repeats)


_EN_TOKEN_RE = re.compile(r"^(.*?)([" + re.escape(EN_PUNCT.replace("'", "").replace("-", "")) + r"]*)$")


def _parse_en_line(text: str, n: int) -> Line:
    from songwriter.prosody import english

    text, repeats = _split_repeat(text, n)
    text, time, rhyme = _split_time_and_rhyme(text, n)
    slots: list[Slot] = []
    for token in text.split():
        core, punct = _EN_TOKEN_RE.match(token).groups()
        if core not in EN_STRESS_MARKS and all(is_punct(c) for c in token):
            if not slots:
                raise TemplateError(f"the line starts with punctuation {token!r}", n)
            slots[-1].punct += token
            continue
        if core == FREE:
            slots.append(Slot(punct=punct))
        elif core in EN_STRESS_MARKS:
            slots.append(Slot(tone=EN_STRESS_MARKS[core], punct=punct))
        else:
            word, _, count = core.partition(":")
            if not word or not any(c.isalpha() for c in word):
                raise TemplateError(f"{token!r} is neither a word nor a slot mark (_ x /)", n)
            if count:
                if not count.isdigit() or not 1 <= int(count) <= 12:
                    raise TemplateError(f"{token!r}: the syllable count after ':' must be 1-12", n)
                span = int(count)
            else:
                span = english.syllable_counts(word)[0]
            slots.append(Slot(lock=word, span=span, punct=punct))
    if not slots:
        raise TemplateError("the line has no syllables", n)
    return Line(slots=slots, rhyme=rhyme, time=time, repeats=repeats)


def format_notation(template: Template, headers: bool = True) -> str:
    """The inverse of parse_notation: parse_notation(format_notation(t)) == t."""
    out: list[str] = []
    if headers:
        if template.name:
            out.append(f"# name: {template.name}")
        out.append(f"# lang: {template.lang}")
        if template.kind != "lyric" or _implied_kind(template.tone_system) != "lyric":
            out.append(f"# kind: {template.kind}")
        if template.rhyme_system:
            out.append(f"# rhyme-system: {template.rhyme_system}")
        if template.tone_system != "modern":
            out.append(f"# tones: {template.tone_system}")
    previous_stanza = template.lines[0].stanza if template.lines else 0
    for line in template.lines:
        if line.stanza != previous_stanza:
            out.append("")
            previous_stanza = line.stanza
        out.append(format_line(line, template.lang))
    return "\n".join(out) + "\n"


def _punct_gap(mark: str, punct: str, lang: str) -> str:
    """A space between an English slot's mark and its punctuation where, written together, they
    would read back otherwise ("_-" is no slot mark, "AA:-" a word with a syllable count)."""
    if lang != "en" or not punct:
        return ""
    return "" if _EN_TOKEN_RE.match(mark + punct).groups() == (mark, punct) else " "


def format_line(line: Line, lang: str) -> str:
    parts: list[str] = []
    for s in line.slots:
        if s.lock is not None:
            mark = s.lock
            if lang == "en" and s.span != _default_span(s.lock):
                mark = f"{s.lock}:{s.span}"
        elif s.tone is None:
            mark = FREE
        elif lang == "zh":
            mark = ZH_TONE_WRITE[s.tone]
        else:
            mark = s.tone
        parts.append(mark + _punct_gap(mark, s.punct, lang) + s.punct)
    body = ("" if lang == "zh" else " ").join(parts)
    if line.time is not None:
        body = f"[{format_time(line.time)}]" + body
    if line.rhyme:
        body += (" " if lang == "en" else "") + f"@{line.rhyme}"
    if line.repeats is not None:
        body += (" " if lang == "en" else "") + f"={line.repeats + 1}"
    return body


def _default_span(word: str) -> int:
    from songwriter.prosody import english

    return english.syllable_counts(word)[0]


def format_time(seconds: float) -> str:
    minutes, secs = divmod(round(seconds * 100) / 100, 60)
    return f"{int(minutes):02d}:{secs:05.2f}"


# ----------------------------------------------------------------------------------------------
# JSON form (project files and --json)

def to_dict(template: Template) -> dict:
    return {
        "name": template.name,
        "lang": template.lang,
        "kind": template.kind,
        "rhyme_system": template.rhyme_system,
        "tone_system": template.tone_system,
        "meta": dict(template.meta),
        "lines": [
            {
                "slots": [_slot_dict(s) for s in line.slots],
                "rhyme": line.rhyme,
                "stanza": line.stanza,
                "time": line.time,
                **({"repeats": line.repeats} if line.repeats is not None else {}),
            }
            for line in template.lines
        ],
        "notation": format_notation(template, headers=False),
    }


def _slot_dict(s: Slot) -> dict:
    d: dict = {}
    if s.lock is not None:
        d["lock"] = s.lock
    if s.span != 1:
        d["span"] = s.span
    if s.tone is not None:
        d["tone"] = s.tone
    if s.punct:
        d["punct"] = s.punct
    return d


def from_dict(data: dict, where: str = "template") -> Template:
    """Build a Template from its JSON form; TemplateError naming the field on anything malformed
    (each field is checked by the shared validation layer, ``songwriter.validate``)."""
    from songwriter.validate import Fields, check_depth

    f = Fields(data, where, TemplateError)
    lines = []
    for line_where, raw in f.items("lines", max_items=MAX_LINES):
        lf = Fields(raw, line_where, TemplateError)
        slots = []
        for slot_where, s in lf.items("slots", max_items=MAX_LINE_SYLLABLES):
            sf = Fields(s, slot_where, TemplateError)
            slots.append(Slot(lock=sf.string("lock", None, max_len=MAX_LOCK_CHARS, null=True, nonempty=True),
                              span=sf.integer("span", 1, lo=1, hi=MAX_WORD_SYLLABLES),
                              tone=sf.string("tone", None, choices=ZH_TONES + EN_STRESSES, null=True),
                              punct=sf.string("punct", "", max_len=MAX_PUNCT_CHARS)))
        lines.append(Line(slots=slots, rhyme=lf.string("rhyme", None, max_len=1, null=True,
                                                            expected="a rhyme label A-Z or null"),
                          stanza=lf.integer("stanza", 0, lo=0, hi=MAX_LINES),
                          time=lf.number("time", None, lo=0, hi=MAX_TIME_SECONDS, null=True),
                          repeats=lf.integer("repeats", None, lo=0, hi=MAX_LINES, null=True)))
    meta = f.object("meta", {}, null=True)
    meta = dict(meta.data) if meta is not None else {}
    check_depth(meta, f.path("meta"), TemplateError, limit=8)
    t = Template(lines=lines, lang=f.string("lang", "zh", choices=LANGS),
                 rhyme_system=f.string("rhyme_system", None, max_len=32, null=True),
                 tone_system=f.string("tone_system", "modern", choices=TONE_SYSTEMS),
                 name=f.string("name", "", max_len=MAX_NAME_CHARS, null=True) or "",
                 kind=f.string("kind", "lyric", choices=KINDS), meta=meta)
    return t.validate()


# ----------------------------------------------------------------------------------------------
# Text against a template

def text_lines(text: str, template: Template) -> list[str]:
    """Split a piece of text into the template's lines.

    Lines are the text's own lines; when their number does not match and the piece is Chinese,
    sentences are cut after each closing punctuation instead (a ci is often written as one
    paragraph per stanza)."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    if template.lang == "zh" and len(lines) != len(template.lines):
        cut = split_sentences("".join(lines))
        if len(cut) == len(template.lines) or len(lines) < len(template.lines):
            lines = cut
    if template.lang == "zh" and template.kind == "ci":
        return _ci_reading(lines, template) or lines
    return lines


def _ci_reading(lines: list[str], template: Template) -> list[str] | None:
    """A ci punctuated by another edition, cut at the form's lines; None when it cannot be.

    Editions punctuate the same ci differently: a 领字 cut off by 、 or not (更能消、几番风雨 or
    更能消几番风雨), 5，5 read as 3、7, a comma for a full stop. When the text's sentences do not
    have the form's lengths but its characters are as many as the form's, and every rhyme of the
    form (and the stanza's end) closes a sentence of the text, the text is read at the form's
    line ends instead: its rhymes, tones and characters are then checked where the form has them.
    A text with a character too many or too few is not re-read (its lines stay as written)."""
    want = [ln.syllables for ln in template.lines]
    units = [syllable_units(ln, "zh") for ln in lines]
    if [len(u) for u in units] == want:
        return None
    flat = [u for line in units for u in line]
    if len(flat) != sum(want) or not flat:
        return None
    ends, pos = set(), 0
    for line in units:               # where the text closes a sentence: a mark or its own line end
        for k, (_, punct) in enumerate(line):
            if punct or k == len(line) - 1:
                ends.add(pos + k + 1)
        pos += len(line)
    out, pos = [], 0
    for i, (tline, n) in enumerate(zip(template.lines, want)):
        pos += n
        closes = tline.rhyme is not None or (i + 1 < len(template.lines)
                                               and template.lines[i + 1].stanza != tline.stanza)
        if closes and pos not in ends:
            return None
        out.append("".join(ch + punct for ch, punct in flat[pos - n:pos]))
    return out


def split_sentences(text: str) -> list[str]:
    """Chinese text -> sentences, each ending after its run of punctuation."""
    out: list[str] = []
    current: list[str] = []          # a list, not a growing string: linear in the text's length
    for i, ch in enumerate(text):
        if ch.isspace():
            continue
        current.append(ch)
        nxt = text[i + 1] if i + 1 < len(text) else ""
        if is_punct(ch) and not (nxt and is_punct(nxt)) and ch not in "「『“‘（《":
            out.append("".join(current))
            current = []
    if current:
        out.append("".join(current))
    return out


def syllable_units(line_text: str, lang: str) -> list[tuple[str, str]]:
    """A line of text -> [(syllable unit, punctuation after it)].

    Chinese: each character is a unit. English: each word is a unit (it may span several slots)."""
    units: list[tuple[str, str]] = []
    if lang == "zh":
        for ch in line_text:
            if ch.isspace():
                continue
            if is_punct(ch):
                if units:
                    units[-1] = (units[-1][0], units[-1][1] + ch)
                continue
            units.append((ch, ""))
        return units
    for token in line_text.split():
        core, punct = _EN_TOKEN_RE.match(token).groups()
        core = core.strip("\"'“”‘’(")
        if not core:
            if units:
                units[-1] = (units[-1][0], units[-1][1] + token)
            continue
        units.append((core, punct))
    return units


def lock_text(template: Template, text: str, where: list[tuple[int, int]] | None = None) -> Template:
    """Return a copy with the given (line, slot) positions locked to the text's characters.

    ``where=None`` locks every slot. Chinese only: English locks are whole words set by the editor."""
    t = template.copy()
    lines = text_lines(text, t)
    for li, line in enumerate(t.lines):
        if li >= len(lines):
            break
        units = syllable_units(lines[li], t.lang)
        for si, slot in enumerate(line.slots):
            if si < len(units) and (where is None or (li, si) in where):
                line.slots[si] = replace(slot, lock=units[si][0])
    return t


def clear_locks(template: Template) -> Template:
    t = template.copy()
    for line in t.lines:
        slots: list[Slot] = []
        for slot in line.slots:
            if slot.lock is None:
                slots.append(slot)
            else:  # an English word over several syllables unlocks into as many free slots
                slots.extend(Slot() for _ in range(slot.span - 1))
                slots.append(Slot(tone=slot.tone if slot.span == 1 else None, punct=slot.punct))
        line.slots = slots
    return t

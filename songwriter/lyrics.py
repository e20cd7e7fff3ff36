"""Templates from existing songs, for re-lyricking: plain lyrics or LRC with timestamps.

The template keeps each line's length in syllables, its punctuation, rhyme labels found from which
line ends actually rhyme (English: perfect rhymes, then slant ones between near lines), and
(English) the metre its words read to; a line that repeats an earlier one word for word (a
refrain, a chorus sung again) is marked to repeat it (``Line.repeats``), so the new words repeat
there too. Every word is free: the new words are the writer's (and the engine's); the original
stays with the project for reference.
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass

from songwriter.template import (
    MAX_LINES, Line, Slot, Template, TemplateError, detect_lang, is_hanzi, is_punct, marks_for_lang,
)

MAX_LYRICS_CHARS = 200_000
_LRC_TIME = re.compile(r"\[(\d{1,3}):(\d{1,2})(?:[.:](\d{1,3}))?\]")
_LRC_TAG = re.compile(r"^\[([a-zA-Z#]+):(.*)\]$")
_SECTION = re.compile(r"^[\[(（【].{0,30}[\])）】]$|^(verse|chorus|bridge|pre-chorus|intro|outro|hook|refrain)\b.{0,12}:?$|^(主歌|副歌|桥段|前奏|间奏|尾奏|合唱)[\w\s]{0,6}[:：]?$", re.I)


class LyricsError(TemplateError):
    """Lyrics or LRC that cannot become a template; names the line and the problem."""


@dataclass
class LyricLine:
    text: str
    number: int               # 1-based line number in the source file
    time: float | None = None
    stanza: int = 0


def template_from_lyrics(text: str, lang: str | None = None, rhyme_system: str | None = None) -> Template:
    """Plain lyrics (one sung line per text line; blank lines between stanzas) -> Template."""
    return _build(_plain_lines(text), lang, rhyme_system, text)


def template_from_lrc(text: str, lang: str | None = None, rhyme_system: str | None = None) -> Template:
    """An LRC file -> Template whose lines carry their start times."""
    return _build(parse_lrc(text), lang, rhyme_system, text)


def looks_like_lrc(text: str) -> bool:
    """True when at least two lines start with an LRC time stamp ([mm:ss.xx]); section labels
    such as [Verse] do not make lyrics an LRC file."""
    return sum(1 for line in text.splitlines() if _LRC_TIME.match(line.strip())) >= 2


def _check_size(text: str) -> None:
    if text is None or not text.strip():
        raise LyricsError("the lyrics are empty")
    if len(text) > MAX_LYRICS_CHARS:
        raise LyricsError(f"{len(text):,} characters is too long for one song (at most {MAX_LYRICS_CHARS:,})")


def _plain_lines(text: str) -> list[LyricLine]:
    _check_size(text)
    out: list[LyricLine] = []
    stanza = 0
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line:
            if out and out[-1].stanza == stanza:
                stanza += 1
            continue
        if _SECTION.match(line):
            if out and out[-1].stanza == stanza:
                stanza += 1
            continue
        out.append(LyricLine(line, n, stanza=stanza))
    return out


def lrc_stamped_lines(text: str) -> list[tuple[int, list[float], str]]:
    """An LRC text's stamped lines as (line number, times in seconds with [offset:ms] applied, the
    words after the stamps: '' for an instrumental break). Tags ([ti:...]) and blank lines are
    left out; a broken stamp or a line without one is a LyricsError that names the line."""
    _check_size(text)
    offset = 0.0
    out: list[tuple[int, list[float], str]] = []
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line:
            continue
        tag = _LRC_TAG.match(line)
        if tag and not _LRC_TIME.match(line):
            if tag.group(1).lower() == "offset":
                try:
                    offset = int(tag.group(2).strip()) / 1000.0
                except ValueError:
                    raise LyricsError(f"offset {tag.group(2)!r} is not a whole number of milliseconds", n) from None
            continue
        stamps = []
        rest = line
        while True:
            m = _LRC_TIME.match(rest)
            if not m:
                break
            minutes, seconds, frac = m.group(1), m.group(2), m.group(3) or "0"
            if int(seconds) >= 60:
                raise LyricsError(f"timestamp [{m.group(0)[1:-1]}] has {seconds} seconds (must be under 60)", n)
            stamps.append(int(minutes) * 60 + int(seconds) + int(frac) / 10 ** len(frac))
            rest = rest[m.end():]
        if not stamps:
            if line.startswith("["):
                raise LyricsError(f"broken timestamp in {line[:30]!r}; LRC times look like [01:23.45]", n)
            raise LyricsError(f"the line has no timestamp: {line[:30]!r}", n)
        out.append((n, [max(0.0, t - offset) for t in stamps], rest.strip()))
    return out


def parse_lrc(text: str) -> list[LyricLine]:
    """LRC lines with times; several stamps on a line repeat it; [offset:ms] is applied."""
    timed: list[LyricLine] = []
    for n, times, lyric in lrc_stamped_lines(text):
        if not lyric:
            continue  # an instrumental gap: nothing to sing
        timed.extend(LyricLine(lyric, n, t) for t in times)
    if not timed:
        raise LyricsError("the LRC file has no timed lyric lines")
    timed.sort(key=lambda ln: ln.time)
    # A long pause (over 8 s) between lines reads as a new stanza.
    stanza = 0
    for prev, cur in zip([None] + timed[:-1], timed):
        if prev is not None and cur.time - prev.time > 8.0:
            stanza += 1
        cur.stanza = stanza
    return timed


def _build(lines: list[LyricLine], lang: str | None, rhyme_system: str | None, source: str) -> Template:
    if not lines:
        raise LyricsError("no lyric lines found (only blank lines or section labels)")
    if len(lines) > MAX_LINES:
        raise LyricsError(f"{len(lines)} lines is too many for one song (at most {MAX_LINES})")
    lang = lang or detect_lang(source)
    out: list[Line] = []
    for ll in lines:
        # a Chinese line takes a syllable per character in either language, as a melody's notes
        # give them: English words to a Chinese song (a cover) sing its lines' lengths
        chinese = lang == "zh" or any(is_hanzi(c) for c in ll.text)
        slots = _zh_slots(ll) if chinese else _en_slots(ll)
        for slot in slots:
            slot.punct = marks_for_lang(slot.punct, lang)
        out.append(Line(slots=slots, stanza=ll.stanza, time=ll.time))
    template = Template(lines=out, lang=lang, rhyme_system=rhyme_system, kind="lyric")
    mark_refrains(template, [ll.text for ll in lines])
    label_rhymes(template, [ll.text for ll in lines])
    return template.validate()


def _refrain_key(text: str) -> str:
    """What makes two lines the same line sung again: their letters and digits, in any case."""
    return "".join(ch.lower() for ch in text if ch.isalnum())


def mark_refrains(template: Template, texts: list[str]) -> None:
    """A line whose words are an earlier line's (letters and digits, any case) repeats the first
    such line; it takes that line's marks inside the line (a word of the new text never runs over
    a mark, so the two must have them at the same places) and keeps its own closing mark."""
    first: dict[str, int] = {}
    for i, (line, text) in enumerate(zip(template.lines, texts)):
        key = _refrain_key(text)
        j = first.setdefault(key, i) if key else i
        if j == i or template.lines[j].syllables != line.syllables:
            continue
        source = template.lines[j]
        for slot, theirs in zip(line.slots[:-1], source.slots[:-1]):
            slot.punct = theirs.punct
        line.repeats = j


def _zh_slots(ll: LyricLine) -> list[Slot]:
    from songwriter.prosody import english

    slots: list[Slot] = []
    latin = ""

    def flush_latin() -> None:
        nonlocal latin
        if latin:  # an English word sung in a Chinese song takes its syllables
            slots.extend(Slot() for _ in range(english.syllable_counts(latin)[0]))
            latin = ""

    for ch in ll.text:
        if ch in string.ascii_letters or (latin and ch == "'"):
            latin += ch
            continue
        flush_latin()
        if is_hanzi(ch) or ch.isdigit():
            slots.append(Slot())
        elif ch.isspace():
            continue  # a breath between sung phrases; it carries no mark
        elif is_punct(ch):
            if slots:
                slots[-1].punct += ch
        else:
            raise LyricsError(f"{ch!r} is neither a Chinese character, a word nor punctuation", ll.number)
    flush_latin()
    if not slots:
        raise LyricsError(f"the line has no syllables: {ll.text[:30]!r}", ll.number)
    return slots


def _en_slots(ll: LyricLine) -> list[Slot]:
    """A line's syllables, each word its usual count, and the line's metre as the slots' stresses
    where its words read to one (``english.scan_words``: then each word as that reading counts it,
    "our" in one syllable in "O God, our help in ages past"), so the new words' stressed
    syllables fall where the old ones' did, on the tune's strong beats."""
    from songwriter.prosody import english

    tokens: list[tuple[list[str], str]] = []     # (the word's parts between hyphens, its marks)
    # full-width marks typed after English words ("best，") read as the marks they are
    for token in marks_for_lang(ll.text, "en").split():
        word = token.strip(string.punctuation + "“”‘’—…")
        trail = token[len(token.rstrip(string.punctuation + "“”’—…")):]
        parts = [p for p in re.split(r"[-–]", word) if p] if word and any(c.isalpha() for c in word) else []
        tokens.append((parts, "".join(c for c in trail if c in ",.;:?!")))
    all_parts = [p for parts, _ in tokens for p in parts]
    counts, metre = english.scan_words(all_parts) if all_parts else ([], None)
    if metre is None:
        counts = [english.syllable_counts(p)[0] for p in all_parts]
    slots: list[Slot] = []
    at = 0
    for parts, mark in tokens:
        if parts:
            n = sum(counts[at:at + len(parts)])
            at += len(parts)
            slots.extend(Slot() for _ in range(max(1, n)))
        if mark and slots:
            slots[-1].punct = mark
    if not slots:
        raise LyricsError(f"the line has no syllables: {ll.text[:30]!r}", ll.number)
    if metre is not None and len(metre) == len(slots):
        for slot, beat in zip(slots, metre):
            slot.tone = beat
        # an article the metre sets on a beat is no stressed syllable the tune asks for there
        # ("To the last syllable"): the new words may put either stress in its slot
        at = 0
        for part, n in zip(all_parts, counts):
            if part.lower() in english.ARTICLES and metre[at] == "/":
                slots[at].tone = None
            at += n
    return slots


def label_rhymes(template: Template, texts: list[str]) -> None:
    """Give lines whose ends rhyme a shared label (A, B, ...), in order of first appearance.

    A line joins the earliest earlier group it rhymes with; lines that rhyme with nothing keep no
    label. Repeated identical end words count (songs repeat hooks). A refrain line
    (``Line.repeats``) takes the label of the line it repeats: its end word is that line's. The
    old words rhyme by the rules of the language they are in (``words_language``): a Chinese
    song re-lyricked in English keeps the scheme its Chinese rhymes make, and the other way."""
    from songwriter.checks import rhyme_groups_of

    words_lang = words_language(texts, template.lang)
    # the other language's words rhyme as a lyric in it does by default (Template.effective_rhyme_system)
    system = template.effective_rhyme_system() if words_lang == template.lang else \
        "perfect" if words_lang == "en" else "xinyun"
    groups: list[tuple[frozenset, list[int]]] = []
    for i, text in enumerate(texts):
        if template.lines[i].repeats is not None:
            continue
        g = rhyme_groups_of(text, words_lang, system)
        if not g:
            continue
        for k, (keys, members) in enumerate(groups):
            if keys & g:
                members.append(i)
                groups[k] = (keys & g, members)
                break
        else:
            groups.append((g, [i]))
    labels = iter("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
    for _, members in groups:
        if len(members) < 2:
            continue
        label = next(labels, None)
        if label is None:
            break
        for i in members:
            template.lines[i].rhyme = label
    if template.lang == "en" and words_lang == "en" and template.rhyme_system is None:
        _label_slant_rhymes(template, texts, labels)
    for line in template.lines:
        if line.repeats is not None:
            line.rhyme = template.lines[line.repeats].rhyme


def words_language(texts: list[str], default: str) -> str:
    """The language a song's words are in: zh where a line has a Chinese character (English
    words inside a Chinese song are common), en where they have letters, else ``default``. Its
    marks do not decide it: English lines with full-width commas are English."""
    joined = "".join(texts)
    if any(is_hanzi(c) for c in joined):
        return "zh"
    return "en" if re.search(r"[A-Za-z]", joined) else default


SLANT_PARTNER_LINES = 3   # a slant rhyme is heard between lines at most this far apart in a stanza


def _label_slant_rhymes(template: Template, texts: list[str], labels) -> None:
    """English: lines the perfect rhymes left unlabelled whose ends rhyme slant (come / home, love
    / move, the hymn books' rhymes) with a line near them in the same stanza get a label of their
    own, and the template takes slant rhymes, so the new words rhyme where the old ones did. A
    perfect group is never joined to another."""
    from songwriter.checks import rhyme_groups_of

    free = [i for i, line in enumerate(template.lines) if line.rhyme is None and line.repeats is None]
    keys = {i: rhyme_groups_of(texts[i], "en", "slant") for i in free}
    paired = False
    for n, i in enumerate(free):
        if template.lines[i].rhyme is not None or not keys[i]:
            continue
        partner = next((j for j in free[n + 1:] if template.lines[j].rhyme is None
                        and j - i <= SLANT_PARTNER_LINES and template.lines[j].stanza == template.lines[i].stanza
                        and keys[i] & keys[j]), None)
        if partner is None:
            continue
        label = next(labels, None)
        if label is None:
            return
        template.lines[i].rhyme = template.lines[partner].rhyme = label
        paired = True
    if paired:
        template.rhyme_system = "slant"

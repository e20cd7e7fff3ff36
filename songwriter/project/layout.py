"""How a line's text lies over the template's slots: Chinese characters one per cell (a hole
``_`` for an empty one), English words over the syllables they fill. The editor, the locks, the
exports and the melody fitting all read a line through these, so they agree on where a word is."""

from __future__ import annotations

from dataclasses import dataclass

from songwriter.project.schema import HOLE
from songwriter.template import Line, syllable_units


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
    return "".join(out)


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

    # a depth-first search for the readings that end exactly at the line end, memoised so that a
    # line of many words with several readings each stays linear
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

    # past 64 words the recursion could run deep: such a line cannot fit a form anyway
    chosen = fit(0, 0) if units and len(units) <= 64 else None
    out: list[WordPlace] = []
    pos = 0
    for w, (word, punct) in enumerate(units):
        n, locked = chosen[w] if chosen is not None else options(w, pos)[0]
        out.append(WordPlace(word, punct, pos, max(1, n), starts.get(pos), locked))
        pos += max(1, n)
    return out

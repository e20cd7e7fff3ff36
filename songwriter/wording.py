"""Counts in English messages: "1 syllable", "2 syllables", never "1 syllables" or "syllable(s)".
No imports: any module may use it (the checks, the exporters, the command line)."""

from __future__ import annotations


def plural(n: int, word: str, many: str | None = None) -> str:
    """``n`` and the word for that many: plural(1, "line") is "1 line", plural(9, "line") "9 lines",
    plural(2, "entry", "entries") "2 entries"; thousands are grouped (1,200 syllables)."""
    return f"{n:,} {word if n == 1 else (many or word + 's')}"


def verb(n: int, one: str, many: str) -> str:
    """The verb agreeing with a count: verb(1, "fits", "fit") is "fits"."""
    return one if n == 1 else many

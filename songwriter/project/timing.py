"""When each line of a re-lyricked song is sung, and which line of the original it stands for.

An LRC file gives each sung line a start time; importing it makes one template line per timed
line (``Line.time``) and keeps the song as the project's ``Original``. The times belong to the
song's lines, so they go with the piece's lines only while those still stand for the song's, line
for line (``follows_original``): the form made from the song, or another of as many lines. A form
of another length (鹧鸪天's nine lines for a song of five) is no longer sung to them: pairing the
song's times (or its words) with its first lines by position would be wrong, so none is paired.
A line's own time (from the LRC, or given in the notation) is always its own.

``line_times`` is what the LRC and JSON exports write; ``original_lines`` what the editor shows
beside each line; ``original_breaks`` the song's empty stamped lines (an instrumental break),
which an LRC export keeps while the lines follow the song's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from songwriter.project.document import Document


def follows_original(doc: Document) -> bool:
    """Do the piece's lines still stand for the original song's, line for line? True while the
    piece has as many lines as the song it was made from."""
    return doc.original is not None and len(doc.original.lines) == len(doc.template.lines)


def line_times(doc: Document) -> list[float | None]:
    """Each line's start time in seconds: its own (``Line.time``), else, while the piece's lines
    follow the song's, the song's line's at the same place; None where there is neither."""
    song = doc.original.times if follows_original(doc) else []
    return [line.time if line.time is not None else (song[i] if i < len(song) else None)
            for i, line in enumerate(doc.template.lines)]


def untimed_lines(doc: Document) -> list[int]:
    """The lines (0-based) that have no start time."""
    return [i for i, t in enumerate(line_times(doc)) if t is None]


def original_lines(doc: Document) -> list[str | None]:
    """The original song's line beside each line while the piece's lines follow the song's; None
    for every line otherwise (and without an original)."""
    if not follows_original(doc):
        return [None] * len(doc.template.lines)
    return list(doc.original.lines)


def original_breaks(doc: Document) -> list[float]:
    """The times of the original LRC file's empty stamped lines (``[00:18.00]`` alone: an
    instrumental break, which importing leaves out, since nothing is sung there), while the
    piece's lines follow the song's; [] otherwise."""
    if not follows_original(doc) or doc.original.kind != "lrc":
        return []
    return lrc_breaks(doc.original.text)


def lrc_breaks(text: str) -> list[float]:
    """The times of an LRC text's stamped lines with no words (``lyrics.lrc_stamped_lines``); []
    for a text that no longer reads as LRC."""
    from songwriter.lyrics import LyricsError, lrc_stamped_lines

    try:
        return sorted(t for _, times, words in lrc_stamped_lines(text) if not words for t in times)
    except LyricsError:
        return []

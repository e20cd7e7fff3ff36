"""LRC: the new words at the original song's timestamps (re-lyricking), or, for a piece written
to a melody, at the onset of each line's first note at the melody file's tempo."""

from __future__ import annotations

from songwriter.template import format_time

from .common import shown_line, title_of


def line_times(doc) -> list[float | None]:
    melody_times = _melody_line_times(doc)
    if melody_times is not None:
        return melody_times
    times = []
    original = doc.original.times if doc.original else []
    for i, tline in enumerate(doc.template.lines):
        t = tline.time
        if t is None and i < len(original):
            t = original[i]
        times.append(t)
    return times


def _melody_line_times(doc) -> list[float] | None:
    """Each line's first note's onset in seconds (the file's tempo marks, else 120 a minute), when
    the piece has a melody whose phrases still match its lines; else None."""
    from songwriter.melody.model import MelodyError, melody_of

    try:
        melody = melody_of(doc.template)
    except MelodyError:
        return None
    if melody is None or not melody.matches(doc.template):
        return None
    return [round(melody.notes[line[0][0]].seconds, 3) if line else None for line in melody.lines]


def to_lrc(doc) -> str:
    from . import ExportError

    times = line_times(doc)
    if all(t is None for t in times):
        raise ExportError("the piece has no timestamps: LRC export needs a song imported from an LRC "
                          "file (File > Import LRC) or a piece made from a melody file")
    out = [f"[ti:{title_of(doc)}]", "[re:Songwriter]"]
    for i, t in enumerate(times):
        if t is None:
            continue
        out.append(f"[{format_time(t)}]{shown_line(doc, i)}")
    return "\n".join(out) + "\n"

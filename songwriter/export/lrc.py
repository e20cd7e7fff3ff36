"""LRC: the new words at the original song's timestamps (re-lyricking)."""

from __future__ import annotations

from songwriter.template import format_time

from .common import shown_line, title_of


def line_times(doc) -> list[float | None]:
    times = []
    original = doc.original.times if doc.original else []
    for i, tline in enumerate(doc.template.lines):
        t = tline.time
        if t is None and i < len(original):
            t = original[i]
        times.append(t)
    return times


def to_lrc(doc) -> str:
    from . import ExportError

    times = line_times(doc)
    if all(t is None for t in times):
        raise ExportError("the piece has no timestamps: LRC export needs a song imported from an LRC "
                          "file (File > Import LRC)")
    out = [f"[ti:{title_of(doc)}]", "[re:Songwriter]"]
    for i, t in enumerate(times):
        if t is None:
            continue
        out.append(f"[{format_time(t)}]{shown_line(doc, i)}")
    return "\n".join(out) + "\n"

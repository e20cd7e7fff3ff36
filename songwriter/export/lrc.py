"""LRC: the new words at the original song's timestamps (re-lyricking), or, for a piece written
to a melody, at the onset of each line's first note at the melody file's tempo.

Every line is written or none: a line without a time (the piece's form is no longer the song's,
a line was added) refuses the export with the lines and what to do, since an LRC line without a
time is not shown by a player and a time made up for it would be sung wrong. The song's empty
stamped lines (an instrumental break) are written again while the lines follow the song's."""

from __future__ import annotations

from songwriter.project import timing
from songwriter.template import format_time
from songwriter.wording import plural

from .common import shown_line, title_of


def line_times(doc) -> list[float | None]:
    melody_times = _melody_line_times(doc)
    if melody_times is not None:
        return melody_times
    return timing.line_times(doc)


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

    melody_times = _melody_line_times(doc)
    times = melody_times if melody_times is not None else timing.line_times(doc)
    untimed = [i for i, t in enumerate(times) if t is None]
    song_times = doc.original is not None and any(t is not None for t in doc.original.times)
    if len(untimed) == len(times) and not song_times:
        raise ExportError("the piece has no timestamps: LRC export needs a song imported from an LRC "
                          "file (File > Import LRC) or a piece made from a melody file")
    if untimed:
        raise ExportError(untimed_message(doc, untimed))
    breaks = timing.original_breaks(doc) if melody_times is None else []
    out = [f"[ti:{title_of(doc)}]", "[re:Songwriter]"]
    for i, t in enumerate(times):
        # a break goes before the first line sung after it (the lines keep the piece's order)
        while breaks and breaks[0] < t:
            out.append(f"[{format_time(breaks.pop(0))}]")
        if breaks and breaks[0] == t:
            breaks.pop(0)
        out.append(f"[{format_time(t)}]{shown_line(doc, i)}")
    out += [f"[{format_time(b)}]" for b in breaks]
    return "\n".join(out) + "\n"


def untimed_message(doc, untimed: list[int]) -> str:
    """Which lines have no time, why, and what to do."""
    n = len(doc.template.lines)
    if len(untimed) == n:
        which = f"none of the {n} lines has a time" if n > 1 else "the line has no time"
    else:
        which = f"{line_list(untimed)} {'has' if len(untimed) == 1 else 'have'} no time"
    song = doc.original
    form_changed = (song is not None and not timing.follows_original(doc) and any(t is not None for t in song.times)
                    and all(line.time is None for line in doc.template.lines))
    if form_changed:        # another form's lines, none of them the song's
        name = f" ({song.name})" if song.name else ""
        form = f" ({doc.template.name})" if doc.template.name else ""
        return (f"{which}: the piece's form{form} has {plural(n, 'line')} and the song it was made from{name} "
                f"{len(song.lines)}, so the song's times no longer fit them. To export LRC, go back to the "
                f"song's form (Undo the form change, or import the song again) or give every line a time in "
                f"the form's notation ([mm:ss.xx] before the line); txt, md or pdf export the words without times")
    return (f"{which}, and every line of an LRC file needs one: give "
            f"{'it' if len(untimed) == 1 else 'them'} a time in the form's notation ([mm:ss.xx] before the "
            f"line), or export as txt, md or pdf without times")


def line_list(indices: list[int]) -> str:
    """'line 3', 'lines 6–9', 'lines 2, 4 and 7–8' for 0-based line indices."""
    runs: list[list[int]] = []
    for i in sorted(indices):
        if runs and i == runs[-1][1] + 1:
            runs[-1][1] = i
        else:
            runs.append([i, i])
    parts = [f"{a + 1}" if a == b else f"{a + 1}–{b + 1}" for a, b in runs]
    words = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    return ("line " if len(indices) == 1 else "lines ") + words

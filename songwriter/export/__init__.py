"""Exporters: a Document to txt, md, pdf, png (poem card), lrc (re-lyricking), json, and for a
piece written to a melody musicxml, kar (karaoke MIDI) and a lead sheet (svg, sheet.pdf).

``export(doc, path, fmt=None)`` picks the writer by format or file suffix. txt/md/lrc/json are
plain Python; pdf/png paint with Qt (imported lazily, with the bundled CJK font); musicxml/kar
write with music21 and the lead sheet is engraved by verovio (music.py, leadsheet.py).
"""

from __future__ import annotations

import os
from pathlib import Path

FORMATS = {
    "txt": "Plain text",
    "md": "Markdown",
    "pdf": "PDF page",
    "png": "PNG poem card",
    "lrc": "LRC lyrics with the original timestamps",
    "json": "JSON (text, lines, checks, template)",
    "musicxml": "MusicXML: the melody with the words under its notes",
    "kar": "Karaoke MIDI: the melody with the words as lyric events",
    "svg": "Lead sheet (SVG): the melody engraved with the words under its notes",
    "sheet.pdf": "Lead sheet (PDF)",
}
# Formats whose files are not UTF-8 text (cannot go to stdout).
BINARY = ("pdf", "png", "kar", "sheet.pdf")
# Other names for a format, as a suffix or a --format value.
ALIASES = {"markdown": "md", "xml": "musicxml", "leadsheet.pdf": "sheet.pdf"}


class ExportError(ValueError):
    """The document cannot be written in that format; the message says why."""


def format_for(path: str | os.PathLike, fmt: str | None = None) -> str:
    if fmt:
        fmt = fmt.lower().lstrip(".")
        fmt = ALIASES.get(fmt, fmt)
        if fmt not in FORMATS:
            raise ExportError(f"unknown export format {fmt!r}; use one of {', '.join(FORMATS)}")
        return fmt
    name = Path(path).name.lower()
    # A two-part suffix (song.sheet.pdf) names the lead sheet; a plain .pdf is the text page.
    suffix = "".join(Path(name).suffixes[-2:]).lstrip(".")
    suffix = ALIASES.get(suffix, suffix)
    if suffix not in FORMATS:
        suffix = ALIASES.get(Path(name).suffix.lstrip("."), Path(name).suffix.lstrip("."))
    if suffix not in FORMATS:
        raise ExportError(f"cannot tell the format from {Path(path).name!r}; give one of {', '.join(FORMATS)}")
    return suffix


def render(doc, fmt: str) -> bytes:
    """The exported file's bytes."""
    fmt = format_for("", fmt)
    if fmt == "txt":
        from .text import to_text
        return to_text(doc).encode("utf-8")
    if fmt == "md":
        from .markdown import to_markdown
        return to_markdown(doc).encode("utf-8")
    if fmt == "lrc":
        from .lrc import to_lrc
        return to_lrc(doc).encode("utf-8")
    if fmt == "json":
        from .jsonout import to_json
        return to_json(doc).encode("utf-8")
    if fmt == "pdf":
        from .pdf import to_pdf
        return to_pdf(doc)
    if fmt == "musicxml":
        from .music import to_musicxml
        return to_musicxml(doc)
    if fmt == "kar":
        from .music import to_kar
        return to_kar(doc)
    if fmt == "svg":
        from .leadsheet import to_svg
        return to_svg(doc)
    if fmt == "sheet.pdf":
        from .leadsheet import to_pdf as lead_sheet_pdf
        return lead_sheet_pdf(doc)
    from .png import to_png
    return to_png(doc)


def export(doc, path: str | os.PathLike, fmt: str | None = None) -> Path:
    """Write doc to path (atomically); returns the path."""
    from songwriter.document import write_atomic

    fmt = format_for(path, fmt)
    data = render(doc, fmt)
    p = Path(path)
    try:
        write_atomic(p, data)
    except OSError as e:
        raise ExportError(f"cannot write {p}: {e.strerror or e}") from None
    return p

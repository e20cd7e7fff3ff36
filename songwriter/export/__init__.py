"""Exporters: a Document to txt, md, pdf, png (poem card), lrc (re-lyricking) and json.

``export(doc, path, fmt=None)`` picks the writer by format or file suffix. txt/md/lrc/json are
plain Python; pdf/png paint with Qt (imported lazily, with the bundled CJK font).
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
}


class ExportError(ValueError):
    """The document cannot be written in that format; the message says why."""


def format_for(path: str | os.PathLike, fmt: str | None = None) -> str:
    if fmt:
        fmt = fmt.lower().lstrip(".")
        if fmt == "markdown":
            fmt = "md"
        if fmt not in FORMATS:
            raise ExportError(f"unknown export format {fmt!r}; use one of {', '.join(FORMATS)}")
        return fmt
    suffix = Path(path).suffix.lower().lstrip(".")
    if suffix == "markdown":
        suffix = "md"
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

"""Shared painting for the PDF page and the PNG card: blocks of text laid out with the bundled
CJK font (Qt is imported here; only pdf.py and png.py import this module)."""

from __future__ import annotations

from dataclasses import dataclass

from .common import stanzas, subtitle_of, title_of


@dataclass
class Block:
    kind: str     # title | subtitle | line | gap
    text: str = ""
    line: int | None = None    # a line's index in the template (the PDF keeps couplets together)


def blocks(doc) -> list[Block]:
    out = [Block("title", title_of(doc))]
    sub = subtitle_of(doc)
    if sub:
        out.append(Block("subtitle", sub))
    out.append(Block("gap"))
    for k, stanza in enumerate(stanzas(doc)):
        if k and out[-1].kind != "gap":
            out.append(Block("gap"))
        for i, text in stanza:
            if not doc.is_blank_line(i):
                out.append(Block("line", text, i))
    while out and out[-1].kind == "gap":
        out.pop()
    return out


def fonts_for(base_pt: float):
    from .fonts import font

    return {
        "title": font(base_pt * 1.8, bold=True),
        "subtitle": font(base_pt * 0.85),
        "line": font(base_pt),
        "gap": font(base_pt * 0.8),
    }


def block_left(blocks_: list[Block], fm_line, width: float) -> float:
    """Left edge that centres the widest line (English is set flush left inside a centred block)."""
    widest = max((fm_line.horizontalAdvance(b.text) for b in blocks_ if b.kind == "line"), default=0.0)
    return max(0.0, (width - widest) / 2)


def wrapped_height(fm, text: str, width: float, spacing: float) -> float:
    """The height ``text`` takes wrapped to ``width`` (a long title, a long line): ``spacing``
    times the font's height for its first line, the font's line spacing for each further one."""
    from PySide6.QtCore import QRectF, Qt

    box = fm.boundingRect(QRectF(0, 0, max(1.0, width), 1e7), int(Qt.TextWordWrap), text)
    lines = max(1, round(box.height() / fm.lineSpacing()))
    return fm.height() * spacing + fm.lineSpacing() * (lines - 1)

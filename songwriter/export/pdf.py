"""PDF: an A4 page (more if the piece is long) typeset with QPdfWriter and the bundled CJK font.

A piece is set on one page in the largest type that fits it there; a longer one goes over pages
that end between stanzas, never leaving a line alone or parting a couplet where that can be helped
(``page_starts``). Only ``to_pdf`` and ``a4_pdf`` import Qt."""

from __future__ import annotations

import os
import tempfile


def a4_pdf(title: str, creator: str, margins_mm: tuple[float, float, float, float], draw) -> bytes:
    """The bytes of a PDF of A4 portrait pages at 300 dpi (margins left, top, right, bottom in mm)
    that ``draw(writer, painter)`` paints, as both PDF exports (the text page, the lead sheet)
    write them: through a QPdfWriter on a temporary file, removed after."""
    from PySide6.QtCore import QMarginsF
    from PySide6.QtGui import QPageLayout, QPageSize, QPainter, QPdfWriter

    from . import ExportError

    fd, tmp = tempfile.mkstemp(suffix=".pdf")
    os.close(fd)
    try:
        writer = QPdfWriter(tmp)
        writer.setResolution(300)
        writer.setTitle(title)
        writer.setCreator(creator)
        writer.setPageLayout(QPageLayout(QPageSize(QPageSize.A4), QPageLayout.Portrait, QMarginsF(*margins_mm),
                                         QPageLayout.Millimeter))
        painter = QPainter()
        if not painter.begin(writer):
            raise ExportError("cannot start the PDF writer")
        try:
            draw(writer, painter)
        finally:
            painter.end()
        with open(tmp, "rb") as f:
            return f.read()
    finally:
        os.unlink(tmp)


# Type size (pt) and line spacing tried in turn for a piece to fit one A4 page, largest first: a
# sonnet with its title and subtitle does not fit at 16 pt and 1.7 (its 14th line went alone onto a
# second page) and fits at 16 pt and 1.5. Each length starts at its own largest size; a piece that
# fits none is set over pages at that size.
PAGE_SIZES = (16.0, 15.0, 14.0, 13.0, 12.0, 11.0)
LINE_SPACINGS = (1.7, 1.5, 1.4)
TOP_SHARE = 0.08               # of the page height left above a piece that has room for it
MIN_LINES_AT_A_BREAK = 2       # a stanza split over pages keeps this many lines on each side


def largest_size(n_lines: int) -> float:
    """The type size a piece of n lines is set in where it fits (and over pages where it does not)."""
    return 16.0 if n_lines <= 16 else 13.0 if n_lines <= 30 else 11.0


def stanza_of(items) -> list[int | None]:
    """Per block, the number of the stanza it belongs to (the blocks between gaps; the title and
    subtitle none)."""
    out: list[int | None] = []
    stanza = 0
    for b in items:
        if b.kind == "gap":
            stanza += 1 if out and out[-1] is not None else 0
        out.append(stanza if b.kind == "line" else None)
    return out


def couplets(rhymes: dict[int, str | None]) -> set[int]:
    """The lines i that open a couplet with line i + 1: the two rhyme alike and the lines around
    them do not (a sonnet's closing pair, heroic couplets; in a song whose every line rhymes A no
    two lines are a couplet)."""
    return {i for i, label in rhymes.items()
            if label is not None and rhymes.get(i + 1) == label
            and rhymes.get(i - 1) != label and rhymes.get(i + 2) != label}


def page_starts(items, heights: list[float], room: float, rhymes: dict[int, str | None] | None = None) -> list[int]:
    """The blocks that open a new page when ``items`` of ``heights`` are set on pages of ``room``:
    a page ends before a stanza that would run over it where the stanza fits a page of its own;
    a stanza longer than what is left is split where MIN_LINES_AT_A_BREAK lines stay on each
    side and no couplet (two lines together rhyming alike, ``rhymes`` by line index) is parted;
    only where no such place is on the page does a page end at the first line that does not fit.
    The title never ends a page alone; a gap opening a page takes no room (the caller skips it)."""
    pairs = couplets(rhymes or {})
    stanzas = stanza_of(items)
    lines_of: dict[int, list[int]] = {}
    for k, st in enumerate(stanzas):
        if st is not None:
            lines_of.setdefault(st, []).append(k)

    def stanza_height(st: int) -> float:
        ks = lines_of[st]
        return sum(heights[ks[0]:ks[-1] + 1])

    def breakable_before(k: int) -> bool:
        """A page may end inside a stanza just before line block k."""
        ks = lines_of[stanzas[k]]
        at = ks.index(k)
        if at < MIN_LINES_AT_A_BREAK or len(ks) - at < MIN_LINES_AT_A_BREAK:
            return False
        return items[ks[at - 1]].line not in pairs

    starts: list[int] = []
    top, y = 0, 0.0
    k = 0
    while k < len(items):
        h = 0.0 if (items[k].kind == "gap" and k == top) else heights[k]
        if items[k].kind != "line" or y + h <= room or k == top:
            y += h
            k += 1
            continue
        st = stanzas[k]
        first = lines_of[st][0]
        has_lines_above = any(stanzas[j] is not None for j in range(top, first))
        inside = [j for j in range(max(first, top) + 1, k + 1) if breakable_before(j)]
        if first > top and has_lines_above and (stanza_height(st) <= room or not inside):
            brk = first
        elif inside:
            brk = inside[-1]
        else:
            brk = k
        starts.append(brk)
        top, y, k = brk, 0.0, brk
    return starts


def to_pdf(doc) -> bytes:
    from PySide6.QtCore import QRectF, Qt
    from PySide6.QtGui import QColor, QFontMetricsF

    from .fonts import ensure_gui_app
    from .paint import block_left, blocks, fonts_for, wrapped_height

    ensure_gui_app()
    items = blocks(doc)
    rhymes = {i: line.rhyme for i, line in enumerate(doc.template.lines)}
    centred = doc.lang == "zh"

    def draw(writer, painter) -> None:
        page = QRectF(writer.pageLayout().paintRectPixels(writer.resolution()))
        page.moveTo(0, 0)

        def measure(base: float, spacing: float):
            """The fonts, each block's height and left edge, and the room for the blocks on a
            page above its number (in the subtitle's type, two of its lines kept for it)."""
            fonts = fonts_for(base)
            left = block_left(items, QFontMetricsF(fonts["line"], writer), page.width())
            heights, lefts = [], []
            for b in items:
                fm = QFontMetricsF(fonts[b.kind], writer)
                x0 = left if (b.kind == "line" and not centred) else 0.0
                lefts.append(x0)
                heights.append(fm.height() * 0.8 if b.kind == "gap" else wrapped_height(
                    fm, b.text, page.width() - x0, spacing if b.kind == "line" else 1.3 if b.kind == "title" else 1.0))
            room = page.height() - QFontMetricsF(fonts["subtitle"], writer).height() * 2
            return fonts, heights, lefts, room

        largest = largest_size(len(doc.template.lines))
        for base in (b for b in PAGE_SIZES if b <= largest):
            for spacing in LINE_SPACINGS:
                fonts, heights, lefts, room = measure(base, spacing)
                if sum(heights) <= room:          # the whole piece on one page
                    starts, top = [], min(page.height() * TOP_SHARE, room - sum(heights))
                    break
            else:
                continue
            break
        else:
            fonts, heights, lefts, room = measure(largest, LINE_SPACINGS[0])
            starts, top = page_starts(items, heights, room, rhymes), 0.0

        number = 1

        def footer():
            painter.setFont(fonts["subtitle"])
            painter.setPen(QColor("#888888"))
            fm = QFontMetricsF(fonts["subtitle"], writer)
            painter.drawText(QRectF(0, page.height() - fm.height(), page.width(), fm.height()),
                             Qt.AlignHCenter, str(number))

        y = top
        for k, b in enumerate(items):
            if k in starts:
                footer()
                writer.newPage()
                number += 1
                y = 0.0
            if b.kind == "gap":
                y += 0.0 if y == 0.0 else heights[k]
                continue
            x0, h = lefts[k], heights[k]
            painter.setFont(fonts[b.kind])
            painter.setPen(QColor("#111111") if b.kind != "subtitle" else QColor("#666666"))
            align = Qt.AlignHCenter if (centred or b.kind != "line") else Qt.AlignLeft
            painter.drawText(QRectF(x0, y, page.width() - x0, h), align | Qt.AlignVCenter | Qt.TextWordWrap, b.text)
            y += h
        footer()

    return a4_pdf(items[0].text, "Songwriter", (20, 22, 20, 22), draw)

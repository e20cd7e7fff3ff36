"""PDF: an A4 page (more if the piece is long) typeset with QPdfWriter and the bundled CJK font."""

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


def to_pdf(doc) -> bytes:
    from PySide6.QtCore import QRectF, Qt
    from PySide6.QtGui import QColor, QFontMetricsF

    from .fonts import ensure_gui_app
    from .paint import block_left, blocks, fonts_for, wrapped_height

    ensure_gui_app()
    items = blocks(doc)

    def draw(writer, painter) -> None:
        page = QRectF(writer.pageLayout().paintRectPixels(writer.resolution()))
        page.moveTo(0, 0)
        n_lines = len(doc.template.lines)
        base = 16.0 if n_lines <= 16 else 13.0 if n_lines <= 30 else 11.0
        fonts = fonts_for(base)
        centred = doc.lang == "zh"
        left = block_left(items, QFontMetricsF(fonts["line"], writer), page.width())
        y = page.height() * (0.08 if n_lines <= 16 else 0.0)
        number = 1

        def footer():
            painter.setFont(fonts["subtitle"])
            painter.setPen(QColor("#888888"))
            fm = QFontMetricsF(fonts["subtitle"], writer)
            painter.drawText(QRectF(0, page.height() - fm.height(), page.width(), fm.height()),
                             Qt.AlignHCenter, str(number))

        for b in items:
            f = fonts[b.kind]
            fm = QFontMetricsF(f, writer)
            if b.kind == "gap":
                y += fm.height() * 0.8
                continue
            x0 = left if (b.kind == "line" and not centred) else 0.0
            h = wrapped_height(fm, b.text, page.width() - x0, 1.7 if b.kind == "line" else 1.3 if b.kind == "title" else 1.0)
            if y + h > page.height() - fm.height() * 2:
                footer()
                writer.newPage()
                number += 1
                y = 0.0
            painter.setFont(f)
            painter.setPen(QColor("#111111") if b.kind != "subtitle" else QColor("#666666"))
            align = Qt.AlignHCenter if (centred or b.kind != "line") else Qt.AlignLeft
            painter.drawText(QRectF(x0, y, page.width() - x0, h), align | Qt.AlignVCenter | Qt.TextWordWrap, b.text)
            y += h
        footer()

    return a4_pdf(items[0].text, "Songwriter", (20, 22, 20, 22), draw)

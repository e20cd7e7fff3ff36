"""PNG poem card: the piece on a paper-coloured card, with the bundled CJK font."""

from __future__ import annotations

WIDTH = 1200
MAX_HEIGHT = 40_000     # 1200 x 40000 RGB32 is 192 MB: room for 400 lines, well under 1 GB in all


def to_png(doc, width: int = WIDTH) -> bytes:
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QRectF, Qt
    from PySide6.QtGui import QColor, QFontMetricsF, QImage, QPainter, QPen

    from .fonts import ensure_gui_app
    from .paint import block_left, blocks, wrapped_height

    ensure_gui_app()
    items = blocks(doc)
    from .fonts import font

    longest = max((len(b.text) for b in items if b.kind == "line"), default=10)
    line_px = 44 if doc.lang == "zh" else 34
    if doc.lang == "zh" and longest > 16:
        line_px = max(24, int(44 * 16 / longest))
    fonts = {"title": font(pixel_size=int(line_px * 1.45), bold=True),
             "subtitle": font(pixel_size=max(16, int(line_px * 0.55))),
             "line": font(pixel_size=line_px), "gap": font(pixel_size=int(line_px * 0.6))}
    margin = 90
    inner = width - 2 * margin
    centred = doc.lang == "zh"
    left = block_left(items, QFontMetricsF(fonts["line"]), inner)
    heights = []
    for b in items:
        fm = QFontMetricsF(fonts[b.kind])
        if b.kind == "gap":
            heights.append(fm.height())
        else:       # wrapped where too long for the card: a title of many words, a long line
            room = inner - (left if (b.kind == "line" and not centred) else 0)
            heights.append(wrapped_height(fm, b.text, room, 1.75 if b.kind == "line" else 1.5))
    footer_h = 60
    height = int(margin + sum(heights) + footer_h + margin)
    if height > MAX_HEIGHT:
        from . import ExportError

        raise ExportError(f"the poem card would be {height:,} pixels tall (at most {MAX_HEIGHT:,}): "
                          "the piece is too long for a card; export it as PDF or text")
    img = QImage(width, height, QImage.Format_RGB32)
    img.fill(QColor("#f6f0e1"))
    p = QPainter(img)
    p.setRenderHint(QPainter.Antialiasing)
    p.setRenderHint(QPainter.TextAntialiasing)
    p.setPen(QPen(QColor("#c9b68f"), 3))
    p.drawRect(QRectF(28, 28, width - 56, height - 56))
    p.setPen(QPen(QColor("#e2d5b8"), 1))
    p.drawRect(QRectF(40, 40, width - 80, height - 80))
    y = float(margin)
    for b, h in zip(items, heights):
        if b.kind == "gap":
            y += h
            continue
        p.setFont(fonts[b.kind])
        p.setPen(QColor({"title": "#3a2a18", "subtitle": "#8a7456", "line": "#2b2118"}[b.kind]))
        align = Qt.AlignHCenter if (centred or b.kind != "line") else Qt.AlignLeft
        x0 = margin + (left if (b.kind == "line" and not centred) else 0)
        p.drawText(QRectF(x0, y, inner - (x0 - margin), h), align | Qt.AlignVCenter | Qt.TextWordWrap, b.text)
        y += h
    p.setFont(fonts["subtitle"])
    p.setPen(QColor("#b0997a"))
    p.drawText(QRectF(margin, height - margin - 10, inner, footer_h), Qt.AlignRight | Qt.AlignVCenter,
               "Songwriter")
    p.end()
    data = QByteArray()
    buf = QBuffer(data)
    buf.open(QIODevice.WriteOnly)
    img.save(buf, "PNG")
    buf.close()
    return bytes(data.data())

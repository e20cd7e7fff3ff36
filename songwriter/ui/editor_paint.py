"""How the editor looks: cells and word boxes, locks on amber, the required tone or stress
marks, punctuation, rhyme labels, each line's check in the gutter, the cursor and the legend.
Reads the view's layout (ui/editor_layout.py) and state; changes nothing."""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPainterPath, QPen

from songwriter.export.fonts import font

from .editor_layout import GUTTER, Row, Unit
from .i18n import tr
from .wording import joined_bits

RHYME_COLOURS = ["#1e88e5", "#43a047", "#8e24aa", "#f4511e", "#00897b", "#c0ca33", "#6d4c41",
                 "#d81b60", "#3949ab", "#7cb342", "#5e35b1", "#fb8c00"]
C_LOCK_FILL = QColor("#ffe7bf")
C_LOCK_EDGE = QColor("#d9912b")
C_LOCK_TEXT = QColor("#6b3a00")
C_CELL_EDGE = QColor("#cfd8dc")
C_EMPTY = QColor("#f7f9fa")
C_TEXT = QColor("#1b1b1b")
C_MUTED = QColor("#90a4ae")
C_BAD = QColor("#d32f2f")
C_WARN = QColor("#f9a825")
C_OK = QColor("#43a047")
C_CURSOR = QColor("#1565c0")
C_SELECT = QColor(21, 101, 192, 40)
C_CURRENT = QColor("#f2f6fb")
C_PREVIEW = QColor("#1565c0")
C_BUSY = QColor(255, 213, 79, 60)
C_PLAYING = QColor(255, 152, 0, 55)
C_PLAYING_EDGE = QColor("#e65100")


def rhyme_colour(label: str) -> QColor:
    return QColor(RHYME_COLOURS[(ord(label[0]) - ord("A")) % len(RHYME_COLOURS)])


class PiecePainter:
    """Paints a PieceView."""

    def __init__(self, view):
        self.view = view

    def paint(self, event) -> None:
        v = self.view
        p = QPainter(v)
        p.setRenderHint(QPainter.Antialiasing)
        p.setRenderHint(QPainter.TextAntialiasing)
        p.fillRect(v.rect(), QColor("white"))
        exposed = event.rect()
        originals = v._originals
        shift = v.gutter_shift()
        selected = set(v.selected_units()) if v.has_selection() else set()
        for row in v.rows:
            if row.y > exposed.bottom() or row.y + row.h < exposed.top():
                continue
            i = row.index
            self._paint_band(p, row, QRectF(0, row.y, v.width(), row.h))
            if not shift:
                self._paint_gutter(p, row)
            if v.melody_strip is not None:
                playing = v.playing[1] if v.playing is not None and v.playing[0] == i else None
                v.melody_strip.paint(p, row, playing, v.fit_marks.get(i))
            status = v.statuses[i] if v.statuses and i < len(v.statuses) else None
            bad = status.bad_slots if status else set()
            for u in row.units:
                self._paint_unit(p, row, u, bad, (i, u.unit) in selected)
            if v.playing is not None and v.playing[0] == i:
                lit = v.unit_rect_of_syllable(i, v.playing[1])
                if lit is not None:
                    p.setPen(QPen(C_PLAYING_EDGE, 2.4))
                    p.setBrush(C_PLAYING)
                    p.drawRoundedRect(lit.adjusted(-1, -1, 1, 1), 5, 5)
            p.setFont(v.cell_font if v.doc.lang == "zh" else v.word_font)
            for rect, punct, state in row.puncts:
                p.setPen(C_BAD if state == "wrong" else C_TEXT if state == "text" else QColor("#b0bec5"))
                p.drawText(rect, Qt.AlignLeft | Qt.AlignVCenter, punct)
            if row.rhyme_rect is not None:
                self._paint_rhyme(p, row)
            if row.refrain_rect is not None:
                self._paint_refrain(p, row)
            if i < len(originals) and originals[i]:
                p.setFont(v.orig_font)
                p.setPen(QColor("#9e9e9e"))
                bottom = max(u.rect.bottom() for u in row.units) if row.units else row.y + row.h - 20
                if v.doc.lang == "en":
                    bottom += 12
                p.drawText(QRectF(v.orig_x, bottom + 2, v.width() - v.orig_x, 18),
                           Qt.AlignLeft | Qt.AlignVCenter, "♪ " + originals[i])
        p.setFont(v.small_font)
        p.setPen(QColor("#9aa7ad"))
        p.drawText(v.legend_rect.adjusted(0, 0, 4, 4), Qt.AlignLeft | Qt.TextWordWrap, self.legend())
        self._paint_cursor(p)
        if shift:
            # scrolled sideways (a long English line): the gutter stays at the left edge of what
            # shows, over the words that pass under it, so the line numbers, marks and locks stay
            p.translate(shift, 0)
            for row in v.rows:
                if exposed.top() <= row.y + row.h and row.y <= exposed.bottom():
                    self._paint_band(p, row, QRectF(0, row.y, GUTTER, row.h), opaque=True)
                    self._paint_gutter(p, row)
            p.setPen(QPen(QColor("#e0e6ea"), 1))
            p.drawLine(QPointF(GUTTER - 0.5, exposed.top()), QPointF(GUTTER - 0.5, exposed.bottom() + 1))
        p.end()

    def _paint_band(self, p: QPainter, row: Row, band: QRectF, opaque: bool = False) -> None:
        """A line's background: the current line, a line being generated, a previewed one
        (``opaque``: on white first, for the gutter drawn over the words)."""
        v = self.view
        i = row.index
        if opaque:
            p.fillRect(band, QColor("white"))
        if i == v.cursor[0] and v.hasFocus():
            p.fillRect(band, C_CURRENT)
        if i in v.busy_lines:
            p.fillRect(band, C_BUSY)
        if v.preview and i in v.preview:
            p.fillRect(band, QColor(21, 101, 192, 18))

    def legend(self) -> str:
        """The marks and keys, wrapped between two entries only (never "Ctrl+G / generate")."""
        v = self.view
        if v.doc.lang == "zh":
            text = tr("○ 平 level · ● 仄 oblique · amber = locked · Ctrl+L lock · Enter edit line · Ctrl+G generate")
        else:
            text = tr("˘ unstressed · / stressed · dots = syllables · amber = locked · Ctrl+L lock · type to edit · "
                      "Ctrl+G generate")
        bits = text.split(" · ")
        if v.melody_strip is not None:
            # the fit to the tune is framed in amber and red too: say which frame is which, so that
            # a weak fit is not taken for a lock
            bits = [tr("amber fill = locked") if b == tr("amber = locked") else b for b in bits]
            at = bits.index(tr("amber fill = locked")) + 1 if tr("amber fill = locked") in bits else len(bits)
            bits[at:at] = [tr("dashed amber frame = a weak fit to the tune"),
                           tr("red frame 倒 = the tone sung against the tune") if v.doc.lang == "zh" else
                           tr("red frame = a stress sung against the beat")]
        return joined_bits(bits)

    def _paint_gutter(self, p: QPainter, row: Row) -> None:
        v = self.view
        i = row.index
        mid = row.units[0].rect.center().y() if row.units else row.y + row.h / 2
        # lock toggle for the whole line
        slots = v.doc.template.lines[i].slots
        all_locked = bool(slots) and all(s.lock is not None for s in slots)
        some_locked = any(s.lock is not None for s in slots)
        lock_rect = QRectF(6, mid - 8, 14, 16)
        if all_locked or some_locked or v._hover_gutter == i:
            self._paint_lock_icon(p, lock_rect, C_LOCK_EDGE if all_locked else
                                  QColor("#e0b070") if some_locked else QColor("#b0bec5"), filled=all_locked)
        # status mark
        status = v.statuses[i] if v.statuses and i < len(v.statuses) else None
        c = QPointF(32, mid)
        if status is not None:
            if status.state == "ok":
                p.setPen(QPen(C_OK, 2.2))
                path = QPainterPath(QPointF(c.x() - 5, c.y()))
                path.lineTo(c.x() - 1.5, c.y() + 4)
                path.lineTo(c.x() + 5.5, c.y() - 4.5)
                p.setBrush(Qt.NoBrush)
                p.drawPath(path)
            elif status.state == "problem":
                p.setPen(Qt.NoPen)
                p.setBrush(C_BAD)
                p.drawEllipse(c, 7, 7)
                p.setPen(QPen(QColor("white"), 2))
                p.drawLine(QPointF(c.x(), c.y() - 3.5), QPointF(c.x(), c.y() + 0.8))
                p.drawPoint(QPointF(c.x(), c.y() + 3.6))
            elif status.state == "incomplete":
                p.setPen(QPen(C_WARN, 2))
                p.setBrush(Qt.NoBrush)
                p.drawEllipse(c, 5.5, 5.5)
            else:
                p.setPen(QPen(QColor("#cfd8dc"), 1.5))
                p.setBrush(Qt.NoBrush)
                p.drawEllipse(c, 4.5, 4.5)
        p.setFont(v.num_font)
        p.setPen(C_MUTED)
        p.drawText(QRectF(40, mid - 10, 30, 20), Qt.AlignRight | Qt.AlignVCenter, str(i + 1))

    @staticmethod
    def _paint_lock_icon(p: QPainter, r: QRectF, colour: QColor, filled: bool) -> None:
        p.setPen(QPen(colour, 1.6))
        p.setBrush(Qt.NoBrush)
        shackle = QRectF(r.x() + 3, r.y(), r.width() - 6, r.height() * 0.75)
        p.drawArc(shackle, 0, 180 * 16)
        p.drawLine(QPointF(shackle.left(), shackle.center().y()), QPointF(shackle.left(), r.y() + r.height() * 0.45))
        p.drawLine(QPointF(shackle.right(), shackle.center().y()), QPointF(shackle.right(), r.y() + r.height() * 0.45))
        body = QRectF(r.x(), r.y() + r.height() * 0.45, r.width(), r.height() * 0.55)
        p.setBrush(colour if filled else Qt.NoBrush)
        p.drawRoundedRect(body, 2, 2)

    def _paint_unit(self, p: QPainter, row: Row, u: Unit, bad: set, selected: bool) -> None:
        v = self.view
        zh = v.doc.lang == "zh"
        r = u.rect
        preview = bool(v.preview and row.index in v.preview)
        if u.kind == "overflow":
            p.setPen(QPen(C_BAD, 1.2, Qt.DashLine))
            p.setBrush(QColor("#ffebee"))
        elif u.locked:
            p.setPen(QPen(C_LOCK_EDGE, 1.6))
            p.setBrush(C_LOCK_FILL)
        elif u.kind == "empty" or not u.text:
            p.setPen(QPen(C_CELL_EDGE, 1, Qt.DashLine if not zh else Qt.SolidLine))
            p.setBrush(C_EMPTY)
        else:
            p.setPen(QPen(C_CELL_EDGE, 1))
            p.setBrush(QColor("white"))
        p.drawRoundedRect(r, 4, 4)
        if selected:
            p.fillRect(r, C_SELECT)
        if u.text:
            p.setFont(v.cell_font if zh else v.word_font)
            colour = C_PREVIEW if preview else C_LOCK_TEXT if u.locked else C_BAD if u.kind == "overflow" else C_TEXT
            p.setPen(colour)
            f = p.font()
            f.setItalic(preview and not zh)
            p.setFont(f)
            p.drawText(r, Qt.AlignCenter, u.text)
        if u.locked:
            self._paint_lock_icon(p, QRectF(r.left() + 3, r.top() + 3, 7, 8), C_LOCK_EDGE, True)
        # tone / stress requirements
        if zh:
            tone = u.tones[0] if u.tones else None
            if tone and u.kind == "cell":
                wrong = u.slot in bad and self._slot_has(row.index, u.slot, "tone")
                colour = C_BAD if wrong else QColor("#78909c")
                c = QPointF(r.right() - 7, r.top() + 7)
                p.setPen(QPen(colour, 1.3))
                p.setBrush(colour if tone == "仄" else Qt.NoBrush)
                p.drawEllipse(c, 3.6, 3.6)
        else:
            n = max(1, len(u.tones))
            for s, tone in enumerate(u.tones):
                if tone is None:
                    continue
                cx = r.left() + r.width() * (s + 0.5) / n
                cy = r.top() - 7
                p.setPen(QPen(QColor("#78909c"), 1.4))
                p.setBrush(Qt.NoBrush)
                if tone == "/":
                    p.drawLine(QPointF(cx - 2.5, cy + 4), QPointF(cx + 2.5, cy - 4))
                else:
                    p.drawArc(QRectF(cx - 4, cy - 5, 8, 8), 200 * 16, 140 * 16)
            if u.kind in ("word", "overflow") and u.syllables:
                p.setFont(v.small_font)
                p.setPen(C_BAD if u.kind == "overflow" else QColor("#78909c"))
                p.drawText(QRectF(r.left(), r.bottom() + 1, r.width(), 14), Qt.AlignCenter,
                           "·" * u.syllables if u.syllables <= 4 else str(u.syllables))
        if u.slot is not None and u.slot in bad and u.kind != "overflow":
            p.setPen(QPen(C_BAD, 2.4))
            p.drawLine(QPointF(r.left() + 4, r.bottom() + (3 if zh else 15)),
                       QPointF(r.right() - 4, r.bottom() + (3 if zh else 15)))
        self._paint_fit(p, row, u)

    def _paint_fit(self, p: QPainter, row: Row, u: Unit) -> None:
        """A syllable whose words do not fit the melody: a red 倒 in the cell's corner and a red
        frame for a 倒字 (the tone sung against its direction), an amber dashed frame for a weak
        fit (a weak tone pair, a function word on a strong beat, a word cut by a rest)."""
        marks = self.view.fit_slots.get(row.index)
        first = u.slot if u.kind == "cell" else u.syl_start if u.kind in ("word", "empty") else None
        if not marks or first is None:
            return
        grades = [marks.get(k) for k in range(first, first + max(1, u.syllables))]
        if "bad" in grades:
            p.setPen(QPen(C_BAD, 1.8))
            p.setBrush(Qt.NoBrush)
            p.drawRoundedRect(u.rect.adjusted(1, 1, -1, -1), 4, 4)
            p.setFont(self.view.small_font)
            p.drawText(QRectF(u.rect.left() + 2, u.rect.bottom() - 15, 14, 14), Qt.AlignCenter, "倒")
        elif "poor" in grades:
            p.setPen(QPen(C_WARN, 1.6, Qt.DashLine))
            p.setBrush(Qt.NoBrush)
            p.drawRoundedRect(u.rect.adjusted(1, 1, -1, -1), 4, 4)

    def _slot_has(self, line: int, slot: int, kind: str) -> bool:
        v = self.view
        st = v.statuses[line] if v.statuses and line < len(v.statuses) else None
        return bool(st) and any(p.slot == slot and p.kind == kind for p in st.problems)

    def _paint_rhyme(self, p: QPainter, row: Row) -> None:
        v = self.view
        label = v.doc.template.lines[row.index].rhyme
        st = v.statuses[row.index] if v.statuses and row.index < len(v.statuses) else None
        wrong = bool(st) and any(pr.kind == "rhyme" for pr in st.problems)
        colour = rhyme_colour(label)
        p.setPen(QPen(C_BAD, 2) if wrong else Qt.NoPen)
        p.setBrush(colour)
        p.drawRoundedRect(row.rhyme_rect, 11, 11)
        p.setPen(QColor("white"))
        f = font(pixel_size=13, bold=True)
        p.setFont(f)
        p.drawText(row.rhyme_rect, Qt.AlignCenter, label)

    def _paint_refrain(self, p: QPainter, row: Row) -> None:
        """"= N" after a refrain line: grey, red when its words are not line N's."""
        v = self.view
        st = v.statuses[row.index] if v.statuses and row.index < len(v.statuses) else None
        wrong = bool(st) and any(pr.kind == "repeat" for pr in st.problems)
        p.setPen(C_BAD if wrong else QColor("#78909c"))
        p.setFont(font(pixel_size=13, bold=True))
        p.drawText(row.refrain_rect, Qt.AlignLeft | Qt.AlignVCenter,
                   f"= {v.doc.template.lines[row.index].repeats + 1}")

    def _paint_cursor(self, p: QPainter) -> None:
        v = self.view
        r = v.unit_rect(*v.cursor)
        if r is None:
            return
        p.setBrush(Qt.NoBrush)
        p.setPen(QPen(C_CURSOR if v.hasFocus() else QColor("#90caf9"), 2.2))
        p.drawRoundedRect(r.adjusted(-2, -2, 2, 2), 5, 5)

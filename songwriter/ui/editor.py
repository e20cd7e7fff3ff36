"""The editor: the piece line by line, every syllable slot visible.

Chinese lines are a grid of cells (one character each, its required tone as ○ 平 / ● 仄 in the
corner, punctuation between cells, the rhyme label at the end). English lines are word boxes over
the line's syllables, with the metre's stresses above (˘ unstressed, / stressed) and each word's
syllable count below. Locked text is drawn on amber; a line's checks show as a mark in the
gutter, with the problems in its tooltip; cells with a problem are underlined red.

The view never changes the document itself: it asks the window (``controller``) to make each
change as an undoable command.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from PySide6.QtCore import QEvent, QPointF, QRect, QRectF, QSize, Qt, Signal
from PySide6.QtGui import (
    QColor, QFontMetricsF, QKeySequence, QPainter, QPainterPath, QPen, QGuiApplication,
)
from PySide6.QtWidgets import QLineEdit, QMenu, QScrollArea, QToolTip, QWidget

from songwriter.document import HOLE, en_word_layout
from songwriter.export.fonts import font
from songwriter.template import format_time, is_hanzi, is_punct

from .i18n import tr
from .wording import kind_text, problem_text

GUTTER = 78          # lock toggle, status mark, line number
ZH_CELL = 46
ZH_PUNCT_W = 24
ZH_GAP = 4
EN_SYL = 30
EN_BOX_H = 38
TOP_PAD = 10
STANZA_GAP = 16
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


def punct_at_syllable(tline, syllable: int) -> str:
    """The form's punctuation after a syllable of the line ('' inside a multi-syllable slot)."""
    off = 0
    for s in tline.slots:
        off += s.span
        if off - 1 == syllable:
            return s.punct
        if off - 1 > syllable:
            return ""
    return ""


def rhyme_colour(label: str) -> QColor:
    return QColor(RHYME_COLOURS[(ord(label[0]) - ord("A")) % len(RHYME_COLOURS)])


@dataclass
class Unit:
    rect: QRectF
    kind: str                 # cell | word | empty | overflow
    unit: int                 # the unit index (zh: slot; en: word, len(words) for the empty tail)
    slot: int | None          # template slot index (zh slot; en slot the word starts on)
    text: str = ""
    punct: str = ""
    locked: bool = False
    syllables: int = 1
    tones: list = field(default_factory=list)   # required tone/stress per syllable
    syl_start: int = 0


@dataclass
class Row:
    index: int
    y: float
    h: float
    units: list[Unit] = field(default_factory=list)
    puncts: list[tuple[QRectF, str, str]] = field(default_factory=list)   # rect, mark, form|text|wrong
    rhyme_rect: QRectF | None = None
    right: float = 0.0
    n_words: int = 0

    def unit_at(self, pos: QPointF) -> Unit | None:
        for u in self.units:
            if u.rect.adjusted(-2, -TOP_PAD, 2, 8).contains(pos):
                return u
        return None


class PieceView(QWidget):
    cursorMoved = Signal(int, int)        # line, unit
    previewCleared = Signal()

    def __init__(self, controller, parent=None):
        super().__init__(parent)
        self.controller = controller
        self.setFocusPolicy(Qt.StrongFocus)
        self.setAttribute(Qt.WA_InputMethodEnabled, True)
        self.setMouseTracking(True)
        self.rows: list[Row] = []
        self.statuses = None
        self.preview: dict[int, str] | None = None
        self.busy_lines: set[int] = set()
        self.cursor = (0, 0)
        self.anchor: tuple[int, int] | None = None
        self.inline: QLineEdit | None = None
        self._inline_line = -1
        self._hover_gutter = -1
        self.cell_font = font(pixel_size=26)
        self.word_font = font(pixel_size=17)
        self.small_font = font(pixel_size=11)
        self.num_font = font(pixel_size=13)
        self.orig_font = font(pixel_size=13)
        self._originals: list[str] = []
        self.orig_x = 0.0
        self.legend_y = 0.0
        self.setMinimumHeight(200)
        self.relayout()

    # ------------------------------------------------------------------------------------------
    @property
    def doc(self):
        return self.controller.doc

    def set_statuses(self, statuses) -> None:
        self.statuses = statuses
        self.update()

    def set_preview(self, lines: dict[int, str] | None) -> None:
        self.preview = lines
        self.relayout()

    def set_busy(self, lines) -> None:
        self.busy_lines = set(lines or [])
        self.update()

    # --- layout -------------------------------------------------------------------------------
    def relayout(self) -> None:
        doc = self.doc
        self.rows = []
        y = 8.0
        prev_stanza = None
        fm_word = QFontMetricsF(self.word_font)
        self._originals = self._original_texts()
        has_original = any(self._originals)
        for i, tline in enumerate(doc.template.lines):
            if prev_stanza is not None and tline.stanza != prev_stanza:
                y += STANZA_GAP
            prev_stanza = tline.stanza
            text = self.preview[i] if self.preview and i in self.preview else doc.lines[i]
            if doc.lang == "zh":
                row = self._layout_zh(i, y, text)
            else:
                row = self._layout_en(i, y, text, fm_word)
            if has_original:
                row.h += 18
            self.rows.append(row)
            y += row.h
        self.orig_x = float(GUTTER)
        self.legend_y = y + 14
        y += 40
        width = max([r.right + 24 for r in self.rows]
                    + [GUTTER + self._orig_width() + 24,
                       GUTTER + QFontMetricsF(self.small_font).horizontalAdvance(self.legend()) + 40])
        viewport = self.parentWidget()
        if viewport is not None:
            width = max(width, viewport.width())
        self.setMinimumSize(QSize(int(width), int(y + 16)))
        self.resize(int(width), int(y + 16))
        cl, cu = self.cursor
        self.cursor = (min(cl, len(self.rows) - 1), cu) if self.rows else (0, 0)
        self.cursor = self._clamp(*self.cursor)
        self._place_inline()
        self.update()

    def _orig_width(self) -> float:
        texts = self._original_texts()
        if not any(texts):
            return 0.0
        fm = QFontMetricsF(self.orig_font)
        return max(fm.horizontalAdvance("♪ " + t) for t in texts if t) if texts else 0.0

    def _original_texts(self) -> list[str]:
        doc = self.doc
        out = []
        orig = doc.original
        for i, tline in enumerate(doc.template.lines):
            t = tline.time
            text = ""
            if orig is not None and i < len(orig.lines):
                text = orig.lines[i]
                if t is None and i < len(orig.times):
                    t = orig.times[i]
            if t is not None:
                text = f"[{format_time(t)}] {text}".rstrip()
            out.append(text)
        return out

    def _layout_zh(self, i: int, y: float, text: str) -> Row:
        doc = self.doc
        tline = doc.template.lines[i]
        row = Row(i, y, ZH_CELL + TOP_PAD + 12)
        from songwriter.document import zh_units

        units = zh_units(text)
        x = float(GUTTER)
        top = y + TOP_PAD
        for k, slot in enumerate(tline.slots):
            ch = units[k][0] if k < len(units) else ""
            if ch == HOLE:
                ch = ""
            if slot.lock is not None and not (self.preview and i in self.preview):
                ch = slot.lock
            row.units.append(Unit(QRectF(x, top, ZH_CELL, ZH_CELL), "cell", k, k, ch, slot.punct,
                                  slot.lock is not None, 1, [slot.tone]))
            x += ZH_CELL
            typed = units[k][1] if k < len(units) else ""
            shown = typed or slot.punct
            if shown:
                w = ZH_PUNCT_W * max(1, len(shown))
                state = "wrong" if typed and typed != slot.punct else "text" if typed else "form"
                row.puncts.append((QRectF(x, top, w, ZH_CELL), shown, state))
                x += w
            else:
                x += ZH_GAP
        for k in range(len(tline.slots), len(units)):
            row.units.append(Unit(QRectF(x, top, ZH_CELL, ZH_CELL), "overflow", k, None, units[k][0], units[k][1]))
            x += ZH_CELL
            if units[k][1]:
                w = ZH_PUNCT_W * len(units[k][1])
                row.puncts.append((QRectF(x, top, w, ZH_CELL), units[k][1], "wrong"))
                x += w
            else:
                x += ZH_GAP
        if tline.rhyme:
            row.rhyme_rect = QRectF(x + 6, top + ZH_CELL / 2 - 11, 22, 22)
            x += 34
        row.right = x
        return row

    def _layout_en(self, i: int, y: float, text: str, fm: QFontMetricsF) -> Row:
        doc = self.doc
        tline = doc.template.lines[i]
        row = Row(i, y, EN_BOX_H + TOP_PAD + 26)
        top = y + TOP_PAD + 6
        tones = tline.tones()
        total = tline.syllables
        words = en_word_layout(text, tline)
        row.n_words = len(words)
        x = float(GUTTER)
        used = 0
        for w, place in enumerate(words):
            label = place.word
            width = max(place.syllables * EN_SYL, fm.horizontalAdvance(label) + 16)
            kind = "word" if place.start + place.syllables <= total else "overflow"
            row.units.append(Unit(QRectF(x, top, width, EN_BOX_H), kind, w, place.slot, place.word,
                                  place.punct, place.locked, place.syllables,
                                  [tones[s] if s < len(tones) else None
                                   for s in range(place.start, place.start + place.syllables)],
                                  place.start))
            x += width
            want = punct_at_syllable(tline, place.start + place.syllables - 1)
            shown = place.punct or want
            if shown:
                pw = fm.horizontalAdvance(shown) + 4
                state = "form" if not place.punct else ("text" if place.punct == want else "wrong")
                row.puncts.append((QRectF(x, top, pw, EN_BOX_H), shown, state))
                x += pw
            x += 5
            used = place.start + place.syllables
        for s in range(used, total):
            row.units.append(Unit(QRectF(x, top, EN_SYL - 4, EN_BOX_H), "empty", len(words), None, "", "",
                                  False, 1, [tones[s] if s < len(tones) else None], s))
            x += EN_SYL
        if used < total and tline.punct:
            row.puncts.append((QRectF(x, top, 12, EN_BOX_H), tline.punct, "form"))
            x += 14
        if tline.rhyme:
            row.rhyme_rect = QRectF(x + 6, top + EN_BOX_H / 2 - 11, 22, 22)
            x += 34
        row.right = x
        return row

    # --- geometry helpers ---------------------------------------------------------------------
    def n_units(self, line: int) -> int:
        """How many cursor positions line has (zh: slots+overflow; en: words + the empty tail)."""
        if not self.rows or line >= len(self.rows):
            return 1
        row = self.rows[line]
        if self.doc.lang == "zh":
            return max(1, len(row.units))
        has_tail = any(u.kind == "empty" for u in row.units)
        return max(1, row.n_words + (1 if has_tail or row.n_words == 0 else 0))

    def _clamp(self, line: int, unit: int) -> tuple[int, int]:
        line = max(0, min(line, len(self.rows) - 1)) if self.rows else 0
        return line, max(0, min(unit, self.n_units(line) - 1))

    def row_at(self, y: float) -> Row | None:
        for r in self.rows:
            if r.y <= y < r.y + r.h:
                return r
        return None

    def unit_rect(self, line: int, unit: int) -> QRectF | None:
        if line >= len(self.rows):
            return None
        rects = [u.rect for u in self.rows[line].units if u.unit == unit]
        if not rects:
            return None
        r = rects[0]
        for other in rects[1:]:
            r = r.united(other)
        return r

    def selected_lines(self) -> list[int]:
        if self.anchor is None:
            return [self.cursor[0]]
        a, b = sorted((self.anchor[0], self.cursor[0]))
        return list(range(a, b + 1))

    def selected_units(self) -> list[tuple[int, int]]:
        """(line, unit) pairs in the selection (the cursor's alone when nothing is selected)."""
        if self.anchor is None:
            return [self.cursor]
        start, end = sorted((self.anchor, self.cursor))
        out = []
        for line in range(start[0], end[0] + 1):
            lo = start[1] if line == start[0] else 0
            hi = end[1] if line == end[0] else self.n_units(line) - 1
            out.extend((line, u) for u in range(lo, hi + 1))
        return out

    def has_selection(self) -> bool:
        return self.anchor is not None and self.anchor != self.cursor

    def current_slot(self) -> tuple[int, int] | None:
        """The template (line, slot) at the cursor, for word suggestions."""
        line, unit = self.cursor
        if line >= len(self.rows):
            return None
        for u in self.rows[line].units:
            if u.unit == unit:
                if u.kind == "empty":
                    return line, self._slot_for_syllable(line, u.syl_start)
                return (line, u.slot) if u.slot is not None else None
        return None

    def _slot_for_syllable(self, line: int, syl: int) -> int | None:
        off = 0
        for k, s in enumerate(self.doc.template.lines[line].slots):
            if off == syl:
                return k
            off += s.span
        return None

    def set_cursor(self, line: int, unit: int, extend: bool = False) -> None:
        new = self._clamp(line, unit)
        if extend:
            if self.anchor is None:
                self.anchor = self.cursor
        else:
            self.anchor = None
        if new != self.cursor:
            self.cursor = new
            self.cursorMoved.emit(*new)
        self.update()
        r = self.unit_rect(*self.cursor)
        if r is not None:
            self._ensure_visible(r)

    def _ensure_visible(self, r: QRectF) -> None:
        from PySide6.QtWidgets import QScrollArea

        p = self.parent()
        while p is not None and not isinstance(p, QScrollArea):
            p = p.parent()
        if p is not None:
            p.ensureVisible(int(r.center().x()), int(r.center().y()), int(r.width()), int(r.height()) + 20)

    # --- painting -----------------------------------------------------------------------------
    def paintEvent(self, event) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.Antialiasing)
        p.setRenderHint(QPainter.TextAntialiasing)
        p.fillRect(self.rect(), QColor("white"))
        exposed = event.rect()
        originals = self._originals
        selected = set(self.selected_units()) if self.has_selection() else set()
        for row in self.rows:
            if row.y > exposed.bottom() or row.y + row.h < exposed.top():
                continue
            i = row.index
            band = QRectF(0, row.y, self.width(), row.h)
            if i == self.cursor[0] and self.hasFocus():
                p.fillRect(band, C_CURRENT)
            if i in self.busy_lines:
                p.fillRect(band, C_BUSY)
            if self.preview and i in self.preview:
                p.fillRect(band, QColor(21, 101, 192, 18))
            self._paint_gutter(p, row)
            status = self.statuses[i] if self.statuses and i < len(self.statuses) else None
            bad = status.bad_slots if status else set()
            for u in row.units:
                self._paint_unit(p, row, u, bad, (i, u.unit) in selected)
            p.setFont(self.cell_font if self.doc.lang == "zh" else self.word_font)
            for rect, punct, state in row.puncts:
                p.setPen(C_BAD if state == "wrong" else C_TEXT if state == "text" else QColor("#b0bec5"))
                p.drawText(rect, Qt.AlignLeft | Qt.AlignVCenter, punct)
            if row.rhyme_rect is not None:
                self._paint_rhyme(p, row)
            if i < len(originals) and originals[i]:
                p.setFont(self.orig_font)
                p.setPen(QColor("#9e9e9e"))
                bottom = max(u.rect.bottom() for u in row.units) if row.units else row.y + row.h - 20
                if self.doc.lang == "en":
                    bottom += 12
                p.drawText(QRectF(self.orig_x, bottom + 2, self.width() - self.orig_x, 18),
                           Qt.AlignLeft | Qt.AlignVCenter, "♪ " + originals[i])
        p.setFont(self.small_font)
        p.setPen(QColor("#9aa7ad"))
        p.drawText(QRectF(GUTTER, self.legend_y, self.width() - GUTTER, 18), Qt.AlignLeft | Qt.AlignVCenter, self.legend())
        self._paint_cursor(p)
        p.end()

    def legend(self) -> str:
        if self.doc.lang == "zh":
            return tr("○ 平 level · ● 仄 oblique · amber = locked · Ctrl+L lock · Enter edit line · Ctrl+G generate")
        return tr("˘ unstressed · / stressed · dots = syllables · amber = locked · Ctrl+L lock · type to edit · Ctrl+G generate")

    def _paint_gutter(self, p: QPainter, row: Row) -> None:
        i = row.index
        mid = row.units[0].rect.center().y() if row.units else row.y + row.h / 2
        # lock toggle for the whole line
        slots = self.doc.template.lines[i].slots
        all_locked = bool(slots) and all(s.lock is not None for s in slots)
        some_locked = any(s.lock is not None for s in slots)
        lock_rect = QRectF(6, mid - 8, 14, 16)
        if all_locked or some_locked or self._hover_gutter == i:
            self._paint_lock_icon(p, lock_rect, C_LOCK_EDGE if all_locked else
                                  QColor("#e0b070") if some_locked else QColor("#b0bec5"), filled=all_locked)
        # status mark
        status = self.statuses[i] if self.statuses and i < len(self.statuses) else None
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
        p.setFont(self.num_font)
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
        zh = self.doc.lang == "zh"
        r = u.rect
        preview = bool(self.preview and row.index in self.preview)
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
            p.setFont(self.cell_font if zh else self.word_font)
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
                p.setFont(self.small_font)
                p.setPen(C_BAD if u.kind == "overflow" else QColor("#78909c"))
                p.drawText(QRectF(r.left(), r.bottom() + 1, r.width(), 14), Qt.AlignCenter,
                           "·" * u.syllables if u.syllables <= 4 else str(u.syllables))
        if u.slot is not None and u.slot in bad and u.kind != "overflow":
            p.setPen(QPen(C_BAD, 2.4))
            p.drawLine(QPointF(r.left() + 4, r.bottom() + (3 if zh else 15)),
                       QPointF(r.right() - 4, r.bottom() + (3 if zh else 15)))

    def _slot_has(self, line: int, slot: int, kind: str) -> bool:
        st = self.statuses[line] if self.statuses and line < len(self.statuses) else None
        return bool(st) and any(p.slot == slot and p.kind == kind for p in st.problems)

    def _paint_rhyme(self, p: QPainter, row: Row) -> None:
        label = self.doc.template.lines[row.index].rhyme
        st = self.statuses[row.index] if self.statuses and row.index < len(self.statuses) else None
        wrong = bool(st) and any(pr.kind == "rhyme" for pr in st.problems)
        colour = rhyme_colour(label)
        p.setPen(QPen(C_BAD, 2) if wrong else Qt.NoPen)
        p.setBrush(colour)
        p.drawRoundedRect(row.rhyme_rect, 11, 11)
        p.setPen(QColor("white"))
        f = font(pixel_size=13, bold=True)
        p.setFont(f)
        p.drawText(row.rhyme_rect, Qt.AlignCenter, label)

    def _paint_cursor(self, p: QPainter) -> None:
        r = self.unit_rect(*self.cursor)
        if r is None:
            return
        p.setBrush(Qt.NoBrush)
        p.setPen(QPen(C_CURSOR if self.hasFocus() else QColor("#90caf9"), 2.2))
        p.drawRoundedRect(r.adjusted(-2, -2, 2, 2), 5, 5)

    # --- tooltips -----------------------------------------------------------------------------
    def event(self, e) -> bool:
        if e.type() == QEvent.ToolTip:
            text = self.tooltip_at(QPointF(e.pos()))
            if text:
                QToolTip.showText(e.globalPos(), text, self)
            else:
                QToolTip.hideText()
                e.ignore()
            return True
        return super().event(e)

    def tooltip_at(self, pos: QPointF) -> str:
        row = self.row_at(pos.y())
        if row is None:
            return ""
        i = row.index
        status = self.statuses[i] if self.statuses and i < len(self.statuses) else None
        if pos.x() < 24:
            return tr("Click to lock or unlock the whole line (Ctrl+Shift+L)")
        if pos.x() < GUTTER:
            return self.line_summary(i, status)
        if row.rhyme_rect is not None and row.rhyme_rect.adjusted(-3, -3, 3, 3).contains(pos):
            label = self.doc.template.lines[i].rhyme
            others = [str(j + 1) for j in self.doc.template.rhyme_groups().get(label, []) if j != i]
            text = tr("Rhyme {label}").format(label=label)
            if others:
                text += " · " + tr("rhymes with line(s) {lines}").format(lines=", ".join(others))
            return text
        u = row.unit_at(pos)
        if u is None:
            return ""
        return self.unit_summary(i, u, status)

    def line_summary(self, i: int, status) -> str:
        tline = self.doc.template.lines[i]
        head = tr("Line {n}: {syl} syllables").format(n=i + 1, syl=tline.syllables)
        if tline.rhyme:
            head += " · " + tr("rhyme {label}").format(label=tline.rhyme)
        if status is None:
            return head
        if status.state == "empty":
            return head + "\n" + tr("Not written yet")
        lines = [head]
        if status.empty_slots:
            lines.append(tr("{n} empty slot(s)").format(n=len(status.empty_slots)))
        for prob in status.problems:
            where = tr(" (syllable {n})").format(n=prob.slot + 1) if prob.slot is not None else ""
            lines.append(f"• {kind_text(prob.kind)}{where}: {problem_text(prob.message)}")
        if status.state == "ok":
            lines.append("✓ " + tr("fits the form"))
        return "\n".join(lines)

    def unit_summary(self, i: int, u: Unit, status) -> str:
        parts = []
        if u.kind == "overflow":
            return tr("Beyond the end of the line: the form has {n} syllables here").format(
                n=self.doc.template.lines[i].syllables)
        if self.doc.lang == "zh":
            tone = u.tones[0] if u.tones else None
            parts.append(tr("Slot {n}").format(n=u.unit + 1) + (f" · {tone}" if tone else " · " + tr("any tone")))
        else:
            if u.kind == "empty":
                parts.append(tr("Syllable {n} (empty)").format(n=u.syl_start + 1))
            else:
                parts.append(tr("{word}: {n} syllable(s)").format(word=u.text, n=u.syllables))
            meter = "".join({"/": "/", "x": "˘"}.get(t, "·") for t in u.tones)
            if meter.strip("·"):
                parts.append(tr("metre") + " " + meter)
        if u.locked:
            parts.append(tr("locked (Ctrl+L or Ctrl+click to unlock)"))
        if status is not None and u.slot is not None:
            for prob in status.problems:
                if prob.slot == u.slot:
                    parts.append(f"• {prob.message}")
        return "\n".join(parts)

    # --- mouse --------------------------------------------------------------------------------
    def mousePressEvent(self, e) -> None:
        self.setFocus(Qt.MouseFocusReason)
        pos = QPointF(e.position())
        row = self.row_at(pos.y())
        if row is None:
            return super().mousePressEvent(e)
        if e.button() == Qt.LeftButton and pos.x() < 24:
            self.controller.toggle_line_lock([row.index])
            return
        if pos.x() < GUTTER:
            if e.button() == Qt.LeftButton:
                self.anchor = (row.index, 0)
                self.cursor = self._clamp(row.index, self.n_units(row.index) - 1)
                self.cursorMoved.emit(*self.cursor)
                self.update()
            return
        u = row.unit_at(pos)
        unit = u.unit if u is not None else (self.n_units(row.index) - 1 if pos.x() > GUTTER else 0)
        if e.button() == Qt.LeftButton:
            if e.modifiers() & Qt.ControlModifier and u is not None:
                self.set_cursor(row.index, unit)
                self.controller.toggle_lock([(row.index, unit)])
                return
            self.set_cursor(row.index, unit, extend=bool(e.modifiers() & Qt.ShiftModifier))
        elif e.button() == Qt.RightButton:
            if (row.index, unit) not in self.selected_units():
                self.set_cursor(row.index, unit)

    def mouseMoveEvent(self, e) -> None:
        pos = QPointF(e.position())
        row = self.row_at(pos.y())
        hover = row.index if row is not None and pos.x() < GUTTER else -1
        if hover != self._hover_gutter:
            self._hover_gutter = hover
            self.update()
        if e.buttons() & Qt.LeftButton and row is not None and pos.x() >= GUTTER:
            u = row.unit_at(pos)
            if u is not None and (row.index, u.unit) != self.cursor:
                self.set_cursor(row.index, u.unit, extend=True)

    def leaveEvent(self, e) -> None:
        if self._hover_gutter != -1:
            self._hover_gutter = -1
            self.update()

    def mouseDoubleClickEvent(self, e) -> None:
        pos = QPointF(e.position())
        row = self.row_at(pos.y())
        if row is not None and pos.x() >= GUTTER:
            self.start_inline_edit(row.index)

    def contextMenuEvent(self, e) -> None:
        menu = self.controller.editor_context_menu(self)
        if menu is not None:
            menu.exec(e.globalPos())

    # --- keyboard -----------------------------------------------------------------------------
    def keyPressEvent(self, e) -> None:
        key, mods = e.key(), e.modifiers()
        line, unit = self.cursor
        shift = bool(mods & Qt.ShiftModifier)
        if e.matches(QKeySequence.Paste):
            text = QGuiApplication.clipboard().text()
            if text:
                self.controller.paste_text(text)
            return
        if e.matches(QKeySequence.Copy):
            lines = self.selected_lines()
            QGuiApplication.clipboard().setText("\n".join(self.doc.lines[i] for i in lines))
            return
        if key == Qt.Key_Left:
            if unit > 0:
                self.set_cursor(line, unit - 1, shift)
            elif line > 0:
                self.set_cursor(line - 1, self.n_units(line - 1) - 1, shift)
        elif key == Qt.Key_Right:
            if unit < self.n_units(line) - 1:
                self.set_cursor(line, unit + 1, shift)
            elif line < len(self.rows) - 1:
                self.set_cursor(line + 1, 0, shift)
        elif key == Qt.Key_Up:
            self.set_cursor(line - 1, unit, shift)
        elif key == Qt.Key_Down:
            self.set_cursor(line + 1, unit, shift)
        elif key == Qt.Key_Home:
            self.set_cursor(0 if mods & Qt.ControlModifier else line, 0, shift)
        elif key == Qt.Key_End:
            last = len(self.rows) - 1 if mods & Qt.ControlModifier else line
            self.set_cursor(last, self.n_units(last) - 1, shift)
        elif key == Qt.Key_Tab:
            self.set_cursor(line + 1, 0)
        elif key == Qt.Key_Backtab:
            self.set_cursor(line - 1, 0)
        elif key in (Qt.Key_Return, Qt.Key_Enter, Qt.Key_F2):
            self.start_inline_edit(line)
        elif key == Qt.Key_Escape:
            if self.preview:
                self.previewCleared.emit()
            self.anchor = None
            self.update()
        elif key == Qt.Key_Backspace:
            self.controller.erase(backward=True)
        elif key == Qt.Key_Delete:
            self.controller.erase(backward=False)
        elif e.text() and e.text().isprintable() and not (mods & (Qt.ControlModifier | Qt.AltModifier)):
            self.type_text(e.text())
        else:
            super().keyPressEvent(e)

    def type_text(self, text: str) -> None:
        if self.doc.lang == "zh":
            chars = [c for c in text if is_hanzi(c)]
            if chars:
                self.controller.type_chars("".join(chars))
            elif text.strip() and not all(is_punct(c) for c in text):
                self.controller.status_hint(tr("Type Chinese characters here (with an input method), or press Enter to edit the line as text"))
        else:
            self.start_inline_edit(self.cursor[0], append=text)

    def inputMethodEvent(self, e) -> None:
        if e.commitString():
            self.type_text(e.commitString())
        e.accept()

    def inputMethodQuery(self, query):
        if query == Qt.ImCursorRectangle:
            r = self.unit_rect(*self.cursor)
            return r.toRect() if r is not None else QRect()
        if query == Qt.ImEnabled:
            return True
        return super().inputMethodQuery(query)

    def focusInEvent(self, e) -> None:
        self.update()
        super().focusInEvent(e)

    def focusOutEvent(self, e) -> None:
        self.update()
        super().focusOutEvent(e)

    # --- inline line editor -------------------------------------------------------------------
    def start_inline_edit(self, line: int, append: str = "") -> None:
        if line >= len(self.rows):
            return
        self.finish_inline_edit(commit=True)
        self._inline_line = line
        ed = _InlineEdit(self)
        ed.setFont(self.word_font if self.doc.lang == "en" else font(pixel_size=22))
        text = self.doc.lines[line]
        if append and text and not text.endswith(" ") and not append.isspace():
            append = " " + append
        ed.setText(text + (append or ""))
        ed.setPlaceholderText(tr("Type the line; Enter to keep, Esc to cancel"))
        ed.committed.connect(lambda: self.finish_inline_edit(commit=True))
        ed.cancelled.connect(lambda: self.finish_inline_edit(commit=False))
        self.inline = ed
        self._place_inline()
        ed.show()
        ed.setFocus()
        ed.end(False)

    def _place_inline(self) -> None:
        if self.inline is None or self._inline_line >= len(self.rows):
            return
        row = self.rows[self._inline_line]
        right = max(row.right, GUTTER + 360)
        self.inline.setGeometry(int(GUTTER - 4), int(row.y + 4), int(right - GUTTER + 8), int(row.h - 8))

    def finish_inline_edit(self, commit: bool) -> None:
        ed, line = self.inline, self._inline_line
        if ed is None:
            return
        self.inline = None
        self._inline_line = -1
        text = ed.text()
        ed.hide()
        ed.deleteLater()
        if commit and line < len(self.doc.lines) and text.strip() != self.doc.lines[line]:
            self.controller.set_line_text(line, text)
        self.setFocus()

    @property
    def editing_inline(self) -> bool:
        return self.inline is not None


class EditorScroll(QScrollArea):
    """The editor's scroll area: the view is at least as wide as what shows of it."""

    def resizeEvent(self, e) -> None:
        super().resizeEvent(e)
        view = self.widget()
        if isinstance(view, PieceView):
            view.relayout()


class _InlineEdit(QLineEdit):
    committed = Signal()
    cancelled = Signal()

    def keyPressEvent(self, e) -> None:
        if e.key() in (Qt.Key_Return, Qt.Key_Enter):
            self.committed.emit()
            return
        if e.key() == Qt.Key_Escape:
            self.cancelled.emit()
            return
        super().keyPressEvent(e)

    def focusOutEvent(self, e) -> None:
        super().focusOutEvent(e)
        if e.reason() not in (Qt.PopupFocusReason, Qt.ActiveWindowFocusReason):
            self.committed.emit()


def build_context_menu(view: PieceView, actions) -> QMenu:
    menu = QMenu(view)
    for name in ("toggle_lock", "toggle_line_lock", None, "regenerate", "edit_line", None,
                 "insert_line_above", "insert_line_below", "remove_line", "line_length"):
        if name is None:
            menu.addSeparator()
        else:
            menu.addAction(actions[name])
    menu.addMenu(actions.menus["rhyme"])
    menu.addMenu(actions.menus["tone"])
    menu.addMenu(actions.menus["punct"])
    return menu

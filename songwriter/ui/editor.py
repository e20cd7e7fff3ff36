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

from PySide6.QtCore import QEvent, QPointF, QRect, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QFontMetricsF, QGuiApplication, QKeySequence
from PySide6.QtWidgets import QLineEdit, QMenu, QScrollArea, QToolTip, QWidget

from songwriter.export.fonts import font
from songwriter.template import is_hanzi, is_punct

from .editor_layout import (
    EN_FONT_PX, EN_SYL, GUTTER, MIN_EN_SCALE, STANZA_GAP, ZH_CELL, Row, Unit, en_scale, layout_en, layout_zh, original_texts,
    slot_for_syllable, zh_cell_size,
)
from .editor_paint import PiecePainter
from .i18n import tr
from .melody_strip import STRIP_H, MelodyStrip, melody_for
from .wording import counted, fit_text, kind_text, problem_text


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
        self.melody_strip: MelodyStrip | None = None    # the notes over the cells, for a melody
        self.playing: tuple[int, int] | None = None     # (line, syllable) being played
        self.fit_marks: dict[int, dict[int, str]] = {}  # tone pairs: line -> syllable -> "bad" | "poor"
        self.fit_slots: dict[int, dict[int, str]] = {}  # any misfit: line -> syllable -> worst grade
        self.fit_report = None                          # melody.fit.FitReport
        self.cursor = (0, 0)
        self.anchor: tuple[int, int] | None = None
        self.inline: QLineEdit | None = None
        self._inline_line = -1
        self._hover_gutter = -1
        self.cell = ZH_CELL
        self.cell_font = font(pixel_size=26)
        self.word_scale = 1.0
        self.word_font = font(pixel_size=EN_FONT_PX)
        self.small_font = font(pixel_size=11)
        self.num_font = font(pixel_size=13)
        self.orig_font = font(pixel_size=13)
        self._originals: list[str] = []
        self.orig_x = 0.0
        self.legend_rect = QRectF()
        self.painter = PiecePainter(self)
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

    def set_playing(self, at: tuple[int, int] | None) -> None:
        """Light the syllable being played (None: nothing plays); it is scrolled into view."""
        if at != self.playing:
            self.playing = at
            self.update()
            if at is not None:
                r = self.unit_rect_of_syllable(*at)
                if r is not None:
                    self._ensure_visible(r)

    def set_fit(self, report) -> None:
        """The words' fit to the melody (a melody.fit.FitReport, or None): a tone pair that does
        not fit colours the notes' contour into its second syllable, and every misfit marks the
        syllable's cell (red for a 倒字, amber for a weak fit), the reason in its tooltip."""
        self.fit_report = report if report is not None and report.matched else None
        self.fit_marks, self.fit_slots = {}, {}
        for prob in (self.fit_report.problems if self.fit_report is not None else []):
            for table, wanted in ((self.fit_marks, prob.kind == "tone"), (self.fit_slots, True)):
                if wanted:
                    line = table.setdefault(prob.line, {})
                    if line.get(prob.slot) != "bad":
                        line[prob.slot] = prob.grade
        self.update()

    def fit_problems(self, line: int, first: int, count: int = 1) -> list:
        """The misfits to the melody of the syllables first .. first + count - 1 of a line."""
        if self.fit_report is None:
            return []
        return [p for p in self.fit_report.problems if p.line == line and first <= p.slot < first + count]

    def set_busy(self, lines) -> None:
        self.busy_lines = set(lines or [])
        self.update()


    # --- layout (ui/editor_layout.py) ---------------------------------------------------------
    def relayout(self) -> None:
        doc = self.doc
        self.rows = []
        y = 8.0
        prev_stanza = None
        fm_word = QFontMetricsF(self.word_font)
        self._originals = original_texts(doc)
        has_original = any(self._originals)
        viewport = self.parentWidget()
        texts = [self.preview[i] if self.preview and i in self.preview else doc.lines[i]
                 for i in range(len(doc.template.lines))]
        melody = melody_for(doc.template)
        if melody is None:
            self.melody_strip = None
        elif self.melody_strip is None or self.melody_strip.melody is not melody:
            self.melody_strip = MelodyStrip(melody)
        if doc.lang == "zh":
            self._set_cell(zh_cell_size(doc.template, texts, viewport.width()) if viewport is not None else ZH_CELL)
        else:
            fm_word = self._fit_words(doc.template, texts, viewport.width() if viewport is not None else 0)
        # the notes' strip grows with the cells (taller in a big window)
        scale = self.cell / ZH_CELL if doc.lang == "zh" else self.word_scale
        strip = max(STRIP_H - 6, min(STRIP_H + 14, round(STRIP_H * scale))) if self.melody_strip is not None else 0.0
        for i, tline in enumerate(doc.template.lines):
            if prev_stanza is not None and tline.stanza != prev_stanza:
                y += STANZA_GAP
            prev_stanza = tline.stanza
            if doc.lang == "zh":
                row = layout_zh(tline, i, y, texts[i], bool(self.preview and i in self.preview), self.cell, strip)
            else:
                row = layout_en(tline, i, y, texts[i], fm_word, EN_SYL * self.word_scale, strip)
            if has_original:
                row.h += 18
            self.rows.append(row)
            y += row.h
        self.orig_x = float(GUTTER)
        width = max([r.right + 8 for r in self.rows] + [GUTTER + self._orig_width() + 24])
        if viewport is not None:
            width = max(width, viewport.width())
        # the legend wraps to the width there is (it never widens the view)
        self.legend_rect = QFontMetricsF(self.small_font).boundingRect(
            QRectF(GUTTER, y + 14, width - GUTTER - 16, 1000), Qt.AlignLeft | Qt.TextWordWrap, self.legend())
        y = self.legend_rect.bottom() + 12
        self.setMinimumSize(QSize(int(width), int(y + 16)))
        self.resize(int(width), int(y + 16))
        cl, cu = self.cursor
        self.cursor = (min(cl, len(self.rows) - 1), cu) if self.rows else (0, 0)
        self.cursor = self._clamp(*self.cursor)
        self._place_inline()
        self.update()

    def _fit_words(self, template, texts: list[str], width: float) -> QFontMetricsF:
        """English words at the size at which the longest line fits ``width`` (ui/editor_layout)."""
        scale = 1.0
        for _ in range(3):      # the boxes' padding does not shrink with the text: correct twice
            fm = QFontMetricsF(font(pixel_size=round(EN_FONT_PX * scale)))
            widest = max((layout_en(t, i, 0, x, fm, EN_SYL * scale).right
                          for i, (t, x) in enumerate(zip(template.lines, texts))), default=0.0)
            step = en_scale(widest, width) if width else 1.0
            if step >= 1.0 or scale <= MIN_EN_SCALE:
                break
            scale = max(MIN_EN_SCALE, scale * step * 0.98)
        if scale != self.word_scale:
            self.word_scale = scale
            self.word_font = font(pixel_size=round(EN_FONT_PX * scale))
        return QFontMetricsF(self.word_font)

    def _set_cell(self, cell: int) -> None:
        """Cells of ``cell`` px, the character and its marks scaled with them."""
        if cell != self.cell:
            self.cell = cell
            self.cell_font = font(pixel_size=max(15, round(26 * cell / ZH_CELL)))

    def _orig_width(self) -> float:
        if not any(self._originals):
            return 0.0
        fm = QFontMetricsF(self.orig_font)
        return max(fm.horizontalAdvance("♪ " + t) for t in self._originals if t)

    def _original_texts(self) -> list[str]:
        return original_texts(self.doc)

    def legend(self) -> str:
        return self.painter.legend()

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

    def unit_rect_of_syllable(self, line: int, syllable: int) -> QRectF | None:
        """The cell or word box of a line's syllable (for the one being played)."""
        if line >= len(self.rows):
            return None
        for u in self.rows[line].units:
            first = u.slot if u.kind == "cell" else u.syl_start if u.kind in ("word", "empty") else None
            if first is not None and first <= syllable < first + max(1, u.syllables):
                return u.rect
        return None

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
        return slot_for_syllable(self.doc.template.lines[line], syl)

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
        p = self.parent()
        while p is not None and not isinstance(p, QScrollArea):
            p = p.parent()
        if p is not None:
            # room for the gutter too, which stays over the left edge of what shows
            p.ensureVisible(int(r.center().x()), int(r.center().y()), int(r.width() / 2 + GUTTER + 8), int(r.height()) + 20)

    def gutter_shift(self) -> float:
        """How far the view is scrolled sideways: the gutter is drawn (and clicked) that much to
        the right, at the left edge of what shows."""
        return float(max(0, -self.x())) if self.parentWidget() is not None else 0.0

    # --- painting (ui/editor_paint.py) --------------------------------------------------------
    def paintEvent(self, event) -> None:
        self.painter.paint(event)

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
        gx = pos.x() - self.gutter_shift()      # where in the gutter, which stays in view
        if gx < 24:
            return tr("Click to lock or unlock the whole line (Ctrl+Shift+L)")
        if gx < GUTTER:
            return self.line_summary(i, status)
        if row.rhyme_rect is not None and row.rhyme_rect.adjusted(-3, -3, 3, 3).contains(pos):
            label = self.doc.template.lines[i].rhyme
            others = [str(j + 1) for j in self.doc.template.rhyme_groups().get(label, []) if j != i]
            text = tr("Rhyme {label}").format(label=label)
            if others:
                text += " · " + counted("rhymes with line(s) {lines}", len(others), lines=", ".join(others))
            return text
        if row.refrain_rect is not None and row.refrain_rect.adjusted(-3, -3, 3, 3).contains(pos):
            return tr("A refrain: it repeats the words of line {n}").format(
                n=self.doc.template.lines[i].repeats + 1)
        if self.melody_strip is not None:
            notes = self.melody_strip.tooltip(row, pos)
            if notes:
                return notes
        u = row.unit_at(pos)
        if u is None:
            return ""
        return self.unit_summary(i, u, status)

    def line_summary(self, i: int, status) -> str:
        tline = self.doc.template.lines[i]
        head = tr("Line {n}: {syl} syllables").format(n=i + 1, syl=tline.syllables)
        if tline.rhyme:
            head += " · " + tr("rhyme {label}").format(label=tline.rhyme)
        if tline.repeats is not None:
            head += " · " + tr("repeats line {n}").format(n=tline.repeats + 1)
        if status is None:
            return head
        if status.state == "empty":
            return head + "\n" + tr("Not written yet")
        lines = [head]
        if status.empty_slots:
            lines.append(counted("{n} empty slot(s)", len(status.empty_slots), n=len(status.empty_slots)))
        for prob in status.problems:
            where = tr(" (syllable {n})").format(n=prob.slot + 1) if prob.slot is not None else ""
            lines.append(f"• {kind_text(prob.kind)}{where}: {problem_text(prob.message)}")
        if status.state == "ok":
            lines.append("✓ " + tr("fits the form"))
        for prob in self.fit_problems(i, 0, 10_000):
            lines.append(("♪✗ " if prob.grade == "bad" else "♪ ") + tr("syllable {n}").format(n=prob.slot + 1)
                         + ": " + fit_text(prob.message))
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
                parts.append(counted("{word}: {n} syllable(s)", u.syllables, word=u.text, n=u.syllables))
            meter = "".join({"/": "/", "x": "˘"}.get(t, "·") for t in u.tones)
            if meter.strip("·"):
                parts.append(tr("metre") + " " + meter)
        if u.locked:
            parts.append(tr("locked (Ctrl+L or Ctrl+click to unlock)"))
        if status is not None and u.slot is not None:
            for prob in status.problems:
                if prob.slot == u.slot:
                    parts.append(f"• {prob.message}")
        first = u.slot if u.kind == "cell" else u.syl_start
        if first is not None:
            for prob in self.fit_problems(i, first, max(1, u.syllables)):
                parts.append(("♪✗ " if prob.grade == "bad" else "♪ ") + fit_text(prob.message))
        return "\n".join(parts)

    # --- mouse --------------------------------------------------------------------------------
    def mousePressEvent(self, e) -> None:
        self.setFocus(Qt.MouseFocusReason)
        pos = QPointF(e.position())
        row = self.row_at(pos.y())
        if row is None:
            return super().mousePressEvent(e)
        gx = pos.x() - self.gutter_shift()
        if e.button() == Qt.LeftButton and gx < 24:
            self.controller.toggle_line_lock([row.index])
            return
        if gx < GUTTER:
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
        in_gutter = pos.x() - self.gutter_shift() < GUTTER
        hover = row.index if row is not None and in_gutter else -1
        if hover != self._hover_gutter:
            self._hover_gutter = hover
            self.update()
        if e.buttons() & Qt.LeftButton and row is not None and not in_gutter:
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
        if row is not None and pos.x() - self.gutter_shift() >= GUTTER:
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

    def scrollContentsBy(self, dx: int, dy: int) -> None:
        super().scrollContentsBy(dx, dy)
        view = self.widget()
        if dx and isinstance(view, PieceView):
            view.update()           # the gutter is drawn where the left edge now is, not scrolled

    def resizeEvent(self, e) -> None:
        super().resizeEvent(e)
        view = self.widget()
        if isinstance(view, PieceView):
            view.relayout()

    def viewportEvent(self, e) -> bool:
        """The viewport narrows when the vertical scroll bar appears: lay out again for the width
        that shows, so no horizontal scroll bar comes with it."""
        handled = super().viewportEvent(e)
        view = self.widget()
        if e.type() == QEvent.Resize and isinstance(view, PieceView) and view.width() != self.viewport().width():
            view.relayout()
        return handled


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
    menu.addMenu(actions.menus["refrain"])
    menu.addMenu(actions.menus["tone"])
    menu.addMenu(actions.menus["punct"])
    if view.melody_strip is not None:
        menu.addSeparator()
        for name in ("play", "stop", None, "break_line", "join_notes", "split_notes"):
            menu.addSeparator() if name is None else menu.addAction(actions[name])
    return menu


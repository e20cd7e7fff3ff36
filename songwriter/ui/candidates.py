"""The Candidates panel: every candidate shown whole, line by line, with what differs from the
current text in colour, a rating a writer can read (stars among the candidates of the same
generation), and a mark on candidates written for another form. The highlighted row is the
candidate now in the editor (or being previewed)."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QFontMetricsF, QPainter
from PySide6.QtWidgets import (
    QAbstractItemView, QHBoxLayout, QListWidget, QListWidgetItem, QPushButton, QStyle,
    QStyledItemDelegate, QVBoxLayout, QWidget,
)

from songwriter.document import en_word_layout, zh_units
from songwriter.export.fonts import font

from .i18n import tr
from .wording import counted
from .panels import FullLabel

ROLE = Qt.UserRole + 7
C_CHANGED = QColor("#1565c0")
C_SAME = QColor("#78909c")
C_OTHER_FORM = QColor("#9e9e9e")
C_BAD = QColor("#c62828")
PAD = 6


@dataclass
class Shown:
    """What a row shows: a header and the lines as (unit text, changed) runs."""
    header: str
    lines: list[list[tuple[str, bool]]]
    fits_form: bool
    ok: bool


def stars(rank: int, count: int) -> str:
    """Five stars for the best of a generation, one for the last; rank is 0-based."""
    filled = 5 if count <= 1 else 5 - round(4 * rank / (count - 1))
    return "★" * filled + "☆" * (5 - filled)


def diff_runs(new: str, old: str, lang: str, tline) -> list[tuple[str, bool]]:
    """The candidate line as (unit with its punctuation, differs from the current text)."""
    if lang == "zh":
        new_units, old_units = zh_units(new), zh_units(old)
        return [(u + p, k >= len(old_units) or old_units[k][0] != u) for k, (u, p) in enumerate(new_units)]
    new_words = [w.word + w.punct for w in en_word_layout(new, tline)]
    old_words = [w.word + w.punct for w in en_word_layout(old, tline)]
    return [(w + " ", k >= len(old_words) or old_words[k].lower() != w.lower()) for k, w in enumerate(new_words)]


class CandidateDelegate(QStyledItemDelegate):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.head_font = font(pixel_size=12)
        self.line_font = font(pixel_size=16)

    def sizeHint(self, option, index) -> QSize:
        shown: Shown = index.data(ROLE)
        if shown is None:
            return super().sizeHint(option, index)
        head = QFontMetricsF(self.head_font).height()
        line = QFontMetricsF(self.line_font).height()
        return QSize(200, int(PAD * 2 + head + 4 + line * max(1, len(shown.lines))))

    def paint(self, painter: QPainter, option, index) -> None:
        shown: Shown = index.data(ROLE)
        if shown is None:
            return super().paint(painter, option, index)
        painter.save()
        rect = QRectF(option.rect)
        if option.state & QStyle.State_Selected:
            painter.fillRect(rect, QColor("#e3f2fd"))
            painter.fillRect(QRectF(rect.left(), rect.top(), 3, rect.height()), QColor("#1565c0"))
        elif option.state & QStyle.State_MouseOver:
            painter.fillRect(rect, QColor("#f5f9fc"))
        painter.setPen(QColor("#eceff1"))
        painter.drawLine(rect.bottomLeft(), rect.bottomRight())
        x, y = rect.left() + PAD + 4, rect.top() + PAD
        painter.setFont(self.head_font)
        fm = QFontMetricsF(self.head_font)
        painter.setPen(C_OTHER_FORM if not shown.fits_form else (C_BAD if not shown.ok else QColor("#455a64")))
        painter.drawText(QRectF(x, y, rect.width() - 2 * PAD, fm.height()), Qt.AlignLeft | Qt.AlignVCenter,
                         fm.elidedText(shown.header, Qt.ElideRight, rect.width() - 2 * PAD - 4))
        y += fm.height() + 4
        painter.setFont(self.line_font)
        fm = QFontMetricsF(self.line_font)
        for runs in shown.lines:
            cx = x
            for text, changed in runs:
                colour = C_OTHER_FORM if not shown.fits_form else (C_CHANGED if changed else C_SAME)
                painter.setPen(colour)
                painter.drawText(QRectF(cx, y, fm.horizontalAdvance(text) + 2, fm.height()),
                                 Qt.AlignLeft | Qt.AlignVCenter, text)
                cx += fm.horizontalAdvance(text)
            y += fm.height()
        painter.restore()


class CandidatesPanel(QWidget):
    """The generated candidates, newest first: select to preview in the editor, Enter to apply."""

    previewRequested = Signal(int)      # -1: stop previewing
    applyRequested = Signal(int)

    def __init__(self, session):
        super().__init__()
        self.session = session
        lay = QVBoxLayout(self)
        lay.setContentsMargins(6, 6, 6, 6)
        self.notice = FullLabel("")         # why Generate cannot write this piece, when it cannot: every line of it
        self.notice.setWordWrap(True)
        self.notice.setObjectName("generate_notice")
        self.notice.setStyleSheet("color: #5d4037; background: #fff8e1; border: 1px solid #ffe082; "
                                  "padding: 6px; border-radius: 4px;")
        self.notice.hide()
        lay.addWidget(self.notice)
        self.info = muted_label(tr("Generate (Ctrl+G) to get candidates. Select one to preview it; Enter or double-click applies it."))
        lay.addWidget(self.info)
        self.list = QListWidget()
        self.list.setObjectName("candidates")
        self.list.setSelectionMode(QAbstractItemView.SingleSelection)
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        self.list.setVerticalScrollMode(QAbstractItemView.ScrollPerPixel)
        self.list.setMouseTracking(True)
        self.list.setItemDelegate(CandidateDelegate(self.list))
        lay.addWidget(self.list, 1)
        row = QHBoxLayout()
        self.apply = QPushButton(tr("Apply"))
        self.apply.setObjectName("apply_candidate")
        self.clear_preview = QPushButton(tr("Stop Preview"))
        row.addWidget(self.apply)
        row.addWidget(self.clear_preview)
        row.addStretch(1)
        lay.addLayout(row)
        self.list.currentRowChanged.connect(self._row_changed)
        self.list.itemActivated.connect(lambda item: self.applyRequested.emit(self.list.row(item)))
        self.apply.clicked.connect(lambda: self.applyRequested.emit(self.list.currentRow()))
        self.clear_preview.clicked.connect(self.stop_preview)
        self._filling = False

    def _row_changed(self, row: int) -> None:
        if not self._filling:
            self.previewRequested.emit(row)

    def stop_preview(self) -> None:
        self.mark(self.in_editor())
        self.previewRequested.emit(-1)

    def mark(self, row: int) -> None:
        """Highlight a row without previewing it."""
        self._filling = True
        self.list.setCurrentRow(row)
        if row < 0:
            self.list.clearSelection()
        self._filling = False

    def in_editor(self) -> int:
        """The row of the candidate whose lines are the editor's now, or -1."""
        doc = self.session.doc
        for k, c in enumerate(doc.candidates):
            if not c.fits_form(doc.template):
                continue
            only = c.regenerated if c.regenerated is not None else range(len(doc.lines))
            if all(i < len(c.lines) and c.lines[i].strip() == doc.lines[i].strip() for i in only):
                return k
        return -1

    def shown(self, k: int) -> Shown:
        doc = self.session.doc
        c = doc.candidates[k]
        fits = c.fits_form(doc.template)
        batch = [x for x in doc.candidates if x.created == c.created and x.regenerated == c.regenerated]
        rank = sorted(batch, key=lambda x: -x.score).index(c)
        where = (" · " + tr("line {n}").format(n=", ".join(str(i + 1) for i in c.regenerated))
                 if c.regenerated is not None else "")
        if not fits:
            state = self.session.candidate_form(k).render(tr)
        elif c.ok:
            state = "✓ " + tr("fits the form")
        else:
            state = "✗ " + counted("{n} problem(s)", c.problems, n=c.problems)
        header = f"{k + 1}. {stars(rank, len(batch))}{where} · {state}"
        only = c.regenerated if c.regenerated is not None else range(len(c.lines))
        lines = []
        for i in only:
            if i >= len(c.lines) or (c.regenerated is None and not c.lines[i].strip()):
                continue
            old = doc.lines[i] if i < len(doc.lines) and fits else ""
            tline = doc.template.lines[i] if i < len(doc.template.lines) else doc.template.lines[-1]
            lines.append(diff_runs(c.lines[i], old, doc.lang, tline))
        return Shown(header, lines, fits, c.ok)

    def refresh(self) -> None:
        doc = self.session.doc
        self._filling = True
        self.list.clear()
        for k, c in enumerate(doc.candidates):
            item = QListWidgetItem()
            item.setData(ROLE, self.shown(k))
            tip = tr("Rated among the candidates of its generation by the model's confidence "
                     "(mean log-probability per syllable {s:.2f}; higher is likelier)").format(s=c.score)
            if c.created:
                tip += "\n" + c.created[:19].replace("T", " ")
            item.setToolTip(tip)
            self.list.addItem(item)
        self._filling = False
        self.mark(self.in_editor())
        self.apply.setEnabled(self.list.count() > 0)
        self.clear_preview.setEnabled(False)     # until a candidate is previewed
        self.info.setVisible(self.list.count() == 0 and not self.notice.text())

    def set_notice(self, text: str) -> None:
        """Say why Generate is off for this piece ("" hides it)."""
        self.notice.setText(("⚠ " + text) if text else "")
        self.notice.setVisible(bool(text))
        self.info.setVisible(self.list.count() == 0 and not text)    # "Generate to get candidates" would mislead

    def select(self, row: int) -> None:
        if 0 <= row < self.list.count():
            self.list.setCurrentRow(row)


def muted_label(text: str):
    from PySide6.QtWidgets import QLabel

    lab = QLabel(text)
    lab.setWordWrap(True)
    lab.setStyleSheet("color: #607d8b;")
    return lab

"""The Steering panel: what the piece is about. Content entries (keywords, a line, a passage),
each with its strength; for a re-lyric, the song's own theme; and the per-line plan (a topic
becomes one keyword per line, each editable, each steering its own line). A status line says
what the last generation was steered by.

A thin view over the session (songwriter/session.py: ``add_entry``, ``propose_plan``, …): each
thing the writer does goes out as ``asked(fn)``, a typed call ``fn(session) -> Done`` that the
window runs and reports; the panel redraws from the session's piece in ``refresh``. With a
model that cannot steer, everything stays editable (it is saved with the piece) and the note
says so plainly."""

from __future__ import annotations

from typing import Callable

from PySide6.QtCore import QSignalBlocker, QThreadPool, Qt, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QCheckBox, QGridLayout, QHBoxLayout, QLabel, QLineEdit, QPushButton, QSlider,
    QToolButton, QVBoxLayout, QWidget,
)

from songwriter.export.fonts import font

from .i18n import tr
from .panels import text_label
from .worker import Op

LOW, HIGH = -2.0, 5.0            # the sliders' range of tau (0: the strength the block was trained at)
STEPS = 10                       # slider steps per unit of tau

NOTE_STYLES = {
    False: "background: #fff8e1; border: 1px solid #ffe082; padding: 6px; border-radius: 4px;",
    None: "background: #eceff1; border: 1px solid #cfd8dc; padding: 6px; border-radius: 4px;",
    True: "background: #e8f5e9; border: 1px solid #a5d6a7; padding: 6px; border-radius: 4px;",
}


def _heading(text: str) -> QLabel:
    lab = QLabel(text)
    f = lab.font()
    f.setWeight(QFont.DemiBold)
    lab.setFont(f)
    return lab


class Strength(QWidget):
    """A strength slider with its value; ``chosen(value)`` when the writer lets go of it (or
    moves it by keyboard or wheel)."""

    chosen = Signal(float)

    def __init__(self, name: str = ""):
        super().__init__()
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(4)
        self.slider = QSlider(Qt.Horizontal)
        if name:
            self.slider.setObjectName(name)
        self.slider.setRange(int(LOW * STEPS), int(HIGH * STEPS))
        self.slider.setPageStep(STEPS)
        self.slider.setMinimumWidth(60)
        self.slider.setToolTip(tr("How strongly this steers: 0 is how the model learned to follow content; "
                                  "right steers harder, left lighter"))
        self.value = QLabel()
        self.value.setMinimumWidth(self.value.fontMetrics().horizontalAdvance("+0.0") + 4)
        self.value.setAlignment(Qt.AlignRight | Qt.AlignVCenter)
        lay.addWidget(self.slider, 1)
        lay.addWidget(self.value)
        self.slider.valueChanged.connect(self._moved)
        self.slider.sliderReleased.connect(self._emit)
        self.set(0.0)

    def set(self, value: float) -> None:
        if self.slider.isSliderDown():
            return
        with QSignalBlocker(self.slider):
            self.slider.setValue(int(round(value * STEPS)))
        self._show()

    def get(self) -> float:
        return self.slider.value() / STEPS

    def _show(self) -> None:
        self.value.setText(f"{self.get():+.1f}")

    def _moved(self, _v) -> None:
        self._show()
        if not self.slider.isSliderDown():
            self._emit()

    def _emit(self) -> None:
        self.chosen.emit(self.get())


def _field(name: str, placeholder: str = "") -> QLineEdit:
    edit = QLineEdit()
    edit.setObjectName(name)
    edit.setFont(font(pixel_size=15))
    edit.setPlaceholderText(placeholder)
    return edit


def _tool(text: str, tip: str) -> QToolButton:
    button = QToolButton()
    button.setText(text)
    button.setAutoRaise(True)
    button.setToolTip(tip)
    return button


def _input_row(lay, name: str, placeholder: str, button_name: str, button: str) -> tuple[QLineEdit, QPushButton]:
    """A text field and its button, side by side, added to ``lay``."""
    row = QHBoxLayout()
    edit = _field(name, placeholder)
    push = QPushButton(button)
    push.setObjectName(button_name)
    row.addWidget(edit, 1)
    row.addWidget(push)
    lay.addLayout(row)
    return edit, push


def _set_text(edit: QLineEdit, text: str) -> None:
    """Show ``text`` unless the writer is typing there."""
    if edit.text() != text and not edit.hasFocus():
        with QSignalBlocker(edit):
            edit.setText(text)
        edit.setCursorPosition(0)


class SteeringPanel(QWidget):
    asked = Signal(object)          # fn(session) -> Done: the window runs it and reports

    def __init__(self, session, plan_folder: Callable[[], str] | None = None):
        super().__init__()
        self.session = session
        self.plan_folder = plan_folder
        self._available: bool | None = None
        self._seeds: dict[int, int] = {}
        self._loading = False
        lay = QVBoxLayout(self)
        lay.setContentsMargins(6, 6, 6, 6)
        self.note = text_label("")
        self.note.setObjectName("steering_note")
        lay.addWidget(self.note)
        self.status = text_label("", muted=True)
        self.status.setObjectName("steering_status")
        lay.addWidget(self.status)

        # --- the whole piece: content entries ---
        lay.addWidget(_heading(tr("The whole piece")))
        lay.addWidget(text_label(tr("Keywords, a line or a passage: each entry steers the whole piece."), muted=True))
        self.entries_box = QWidget()
        self.entries = QGridLayout(self.entries_box)
        self.entries.setContentsMargins(0, 0, 0, 0)
        self.entries.setColumnStretch(0, 3)
        self.entries.setColumnStretch(1, 2)
        lay.addWidget(self.entries_box)
        self.entry_rows: list[tuple[QLineEdit, Strength, QToolButton]] = []
        self.new_entry, self.add = _input_row(lay, "new_entry", tr("明月 故乡, or a line…"), "add_entry", tr("Add"))

        # --- a re-lyric: the song's own theme ---
        self.theme_box = QWidget()
        tl = QVBoxLayout(self.theme_box)
        tl.setContentsMargins(0, 6, 0, 0)
        self.theme = QCheckBox(tr("Keep the song's theme"))
        self.theme.setObjectName("keep_theme")
        self.theme.setToolTip(tr("The original song's words steer the new ones, so they stay on its subject "
                                 "(on by default for a Chinese song; off for a classical form and for English)"))
        tl.addWidget(self.theme)
        self.theme_strength = Strength("theme_strength")
        tl.addWidget(self.theme_strength)
        lay.addWidget(self.theme_box)

        # --- the per-line plan ---
        lay.addSpacing(6)
        lay.addWidget(_heading(tr("Per-line plan")))
        self.plan_hint = text_label("", muted=True)
        lay.addWidget(self.plan_hint)
        self.topic, self.propose = _input_row(lay, "plan_topic", tr("Topic: 明月 故乡"), "propose_plan", tr("Propose"))
        self.propose.setToolTip(tr("Propose one keyword per line for the topic (from the poems the model learned from)"))
        self.plan_box = QWidget()
        self.plan_rows = QGridLayout(self.plan_box)
        self.plan_rows.setContentsMargins(0, 0, 0, 0)
        self.plan_rows.setColumnStretch(1, 1)
        lay.addWidget(self.plan_box)
        self.keyword_rows: list[tuple[QLabel, QLineEdit, QToolButton]] = []
        row = QHBoxLayout()
        row.addWidget(QLabel(tr("Strength")))
        self.plan_strength = Strength("plan_strength")
        row.addWidget(self.plan_strength, 1)
        lay.addLayout(row)
        row = QHBoxLayout()
        row.addStretch(1)
        self.clear = QPushButton(tr("Clear Plan"))
        self.clear.setObjectName("clear_plan")
        row.addWidget(self.clear)
        lay.addLayout(row)
        lay.addStretch(1)

        self.add.clicked.connect(self._add)
        self.new_entry.returnPressed.connect(self._add)
        self.theme.clicked.connect(lambda on: self.asked.emit(lambda s: s.set_keep_theme(on)))
        self.theme_strength.chosen.connect(lambda v: self.asked.emit(lambda s: s.set_theme_strength(v)))
        self.topic.editingFinished.connect(self._topic_edited)
        self.topic.returnPressed.connect(self._propose)
        self.propose.clicked.connect(self._propose)
        self.plan_strength.chosen.connect(lambda v: self.asked.emit(lambda s: s.set_strength(v)))
        self.clear.clicked.connect(lambda: self.asked.emit(lambda s: s.clear_plan()))
        self.set_available(None)

    # --- what the model can do ----------------------------------------------------------------
    def set_available(self, available: bool | None) -> None:
        self._available = available
        if available is None:
            text = tr("Whether this model can steer is known once it has loaded. What you enter is kept with the piece.")
        elif not available:
            text = tr("This model cannot steer yet. What you enter is kept with the piece, for a model that can.")
        else:
            text = tr("Generation follows what you enter; each slider sets how strongly.")
        self.note.setText(text)
        self.note.setStyleSheet(NOTE_STYLES[available])

    # --- the writer's edits -------------------------------------------------------------------
    def _add(self) -> None:
        text = self.new_entry.text()
        if text.strip():
            self.new_entry.clear()
            self.asked.emit(lambda s: s.add_entry(text))

    def _topic_edited(self) -> None:
        topic = self.topic.text()
        if topic.strip() != self.session.doc.plan_topic:
            self.asked.emit(lambda s: s.set_plan_topic(topic))

    def _with_stats(self, then: Callable) -> None:
        """Run then(stats) with the planner's statistics, read in the background the first time."""
        if self._loading or self.plan_folder is None:
            return
        from songwriter.session import load_plan_stats

        folder = self.plan_folder()
        self._loading = True
        self.propose.setEnabled(False)

        def failed(e: BaseException) -> None:
            self.asked.emit(lambda s: _failed_note(folder, e))

        def over() -> None:
            self._loading = False
            self.refresh()

        Op(load_plan_stats, folder, label="plan").success(then).failure(failed).finally_(over) \
            .run_in_background(QThreadPool.globalInstance())

    def _propose(self) -> None:
        topic = self.topic.text()
        self._seeds.clear()
        self._with_stats(lambda stats: self.asked.emit(lambda s: s.propose_plan(stats, topic)))

    def _another(self, line: int) -> None:
        seed = self._seeds[line] = self._seeds.get(line, 0) + 1
        self._with_stats(lambda stats: self.asked.emit(lambda s: s.another_keyword(stats, line, seed)))

    # --- rows ---------------------------------------------------------------------------------
    def _entry_row(self, i: int) -> tuple[QLineEdit, Strength, QToolButton]:
        edit = _field(f"entry_{i}")
        edit.setMinimumWidth(60)
        strength = Strength(f"entry_strength_{i}")
        remove = _tool("✕", tr("Remove this entry"))
        edit.editingFinished.connect(lambda: self._entry_edited(i, edit))
        strength.chosen.connect(lambda v: self.asked.emit(lambda s: s.set_entry_strength(i, v)))
        remove.clicked.connect(lambda: self.asked.emit(lambda s: s.remove_entry(i)))
        self.entries.addWidget(edit, i, 0)
        self.entries.addWidget(strength, i, 1)
        self.entries.addWidget(remove, i, 2)
        return edit, strength, remove

    def _entry_edited(self, i: int, edit: QLineEdit) -> None:
        text = edit.text()
        doc = self.session.doc
        if i < len(doc.content) and text.strip() != doc.content[i]:
            self.asked.emit(lambda s: s.set_entry(i, text))

    def _keyword_row(self, i: int) -> tuple[QLabel, QLineEdit, QToolButton]:
        number = QLabel(str(i + 1))
        number.setAlignment(Qt.AlignRight | Qt.AlignVCenter)
        number.setStyleSheet("color: #607d8b;")
        edit = _field(f"keyword_{i}", tr("no keyword"))
        another = _tool("↻", tr("Propose another keyword for this line"))
        edit.editingFinished.connect(lambda: self._keyword_edited(i, edit))
        another.clicked.connect(lambda: self._another(i))
        self.plan_rows.addWidget(number, i, 0)
        self.plan_rows.addWidget(edit, i, 1)
        self.plan_rows.addWidget(another, i, 2)
        return number, edit, another

    def _keyword_edited(self, i: int, edit: QLineEdit) -> None:
        text = edit.text()
        plan = self.session.doc.plan
        if text.strip() != (plan[i] if i < len(plan) else ""):
            self.asked.emit(lambda s: s.set_plan_keyword(i, text))

    @staticmethod
    def _fit_rows(rows: list, n: int, make: Callable[[int], tuple]) -> None:
        while len(rows) > n:
            for widget in rows.pop():
                widget.hide()           # gone at once (the deletion waits for the event loop)
                widget.setParent(None)
                widget.deleteLater()
        while len(rows) < n:
            rows.append(make(len(rows)))

    # --- drawing from the piece ---------------------------------------------------------------
    def refresh(self) -> None:
        s = self.session
        doc = s.doc
        self._fit_rows(self.entry_rows, len(doc.content), self._entry_row)
        for (edit, strength, _), text, value in zip(self.entry_rows, doc.content, doc.content_strengths):
            _set_text(edit, text)
            edit.setToolTip(text)
            strength.set(value)
        song = bool(any(x.strip() for x in s.song_lines()))
        self.theme_box.setVisible(song)
        if song:
            with QSignalBlocker(self.theme):
                self.theme.setChecked(s.keeps_theme())
            self.theme_strength.set(doc.theme_strength)
            self.theme_strength.setEnabled(s.keeps_theme())
        # the examples in the piece's language: its model's planner statistics are in that language
        zh = doc.lang == "zh"
        self.new_entry.setPlaceholderText(tr("明月 故乡, or a line…") if zh else tr("the sea at night, or a line…"))
        self.topic.setPlaceholderText(tr("Topic: 明月 故乡") if zh else tr("Topic: the sea at night"))
        self.plan_hint.setText(tr("A topic becomes one keyword per line; each keyword steers its own line."))
        can_plan = not self._loading and self.plan_folder is not None
        self.propose.setEnabled(can_plan)
        _set_text(self.topic, doc.plan_topic)
        lines = doc.template.lines
        self._fit_rows(self.keyword_rows, len(lines), self._keyword_row)
        for i, (number, edit, another) in enumerate(self.keyword_rows):
            _set_text(edit, doc.plan[i] if i < len(doc.plan) else "")
            edit.setToolTip(tr("Line {n}: {text}").format(n=i + 1, text=doc.lines[i] or "—"))
            another.setEnabled(can_plan)
        self.plan_strength.set(doc.strength)
        self.clear.setEnabled(bool(doc.plan or doc.plan_topic))
        self.status.setText(s.last_steered.summary(tr) if s.last_steered is not None else
                            tr("Not generated yet."))


def _failed_note(folder: str, error: BaseException):
    from songwriter.session import Done, note

    return Done(False, note("The planner's word statistics could not be read from {folder}: {e}",
                            folder=folder, e=str(error)))

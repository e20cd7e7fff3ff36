"""The side panels: Form, Words, Original song, History (Candidates: candidates.py; Steering: steering.py).

Each panel shows part of the session's piece and says what the writer asked for by a signal;
the window turns it into a session call."""

from __future__ import annotations

from PySide6.QtCore import QRect, QSignalBlocker, QSize, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QComboBox, QFormLayout, QHBoxLayout, QLabel, QLineEdit, QListView, QListWidget,
    QListWidgetItem, QPlainTextEdit, QPushButton, QSizePolicy, QToolButton, QVBoxLayout, QWidget,
)

from songwriter.export.fonts import font
from songwriter.session import rhyme_scheme
from songwriter.template import TemplateError, format_notation, parse_notation

from . import settings
from .i18n import language, tr
from .wording import core_text, counted, form_description, joined_bits, plain, syllables_text

NOTATION_OPEN = "form_notation_open"     # the setting: the Form panel's notation editor unfolded
EN_RHYME_SYSTEMS = [("perfect", "Perfect rhyme"), ("slant", "Slant rhyme")]
# Template.kind -> its label in the Kind combo, by the piece's language (template.KINDS_BY_LANG's order)
KIND_LABELS = {"zh": [("shi", "Shi (classical verse)"), ("ci", "Ci (lyric to a tune)"), ("qu", "Qu (Yuan song)"),
                      ("lyric", "Song lyric"), ("poem", "Poem")],
               "en": [("poem", "Poem"), ("lyric", "Song lyric"), ("hymn", "Hymn")]}
KIND_TIPS = {"zh": "The kind of piece picks the default rhyme book and the register the engine writes in: "
                   "classical Chinese for shi, ci and qu, modern Chinese for song lyrics and poems.",
             "en": "The kind of piece is the register the engine writes in: a poem, a song lyric or a hymn "
                   "(a hymn metre's words, or a hymn tune's new ones)."}


def zh_rhyme_systems() -> list[tuple[str, str]]:
    try:
        from songwriter.prosody.chinese import RHYME_SYSTEMS

        return [(sid, info.name_zh) for sid, info in RHYME_SYSTEMS.items()]
    except Exception:
        return [("xinyun", "中华新韵"), ("shisanzhe", "十三辙"), ("pingshui", "平水韵"), ("cilin", "词林正韵")]


class FullLabel(QLabel):
    """A wrapped label that keeps every line: its minimum height follows its width, so a short
    panel scrolls (or grows) instead of cutting the text. Its height for a width is measured
    from the text itself: QLabel's own estimate wraps Chinese a line early and leaves gaps."""

    def resizeEvent(self, e) -> None:
        super().resizeEvent(e)
        self._fit()

    def setText(self, text: str) -> None:
        super().setText(text)
        self._fit()     # a longer text at the same width needs more lines (no resize event comes)

    def heightForWidth(self, width: int) -> int:
        if not self.wordWrap() or self.textFormat() == Qt.RichText or "<" in self.text():
            return super().heightForWidth(width)
        m = self.contentsMargins()
        inner = width - m.left() - m.right() - 2 * self.margin()
        if inner <= 0:
            return super().heightForWidth(width)
        box = self.fontMetrics().boundingRect(QRect(0, 0, inner, 1_000_000), Qt.TextWordWrap, self.text())
        return (box.height() if self.text() else 0) + m.top() + m.bottom() + 2 * self.margin()

    def sizeHint(self) -> QSize:
        hint = super().sizeHint()
        return QSize(hint.width(), self.heightForWidth(self.width())) if self.width() > 0 else hint

    def _fit(self) -> None:
        need = self.heightForWidth(self.width())
        if need > 0 and need != self.minimumHeight():
            self.setMinimumHeight(need)
            self.updateGeometry()


class PanelLayout(QVBoxLayout):
    """A column of parts whose height for a width is never less than its parts' minimums.
    QBoxLayout adds up the parts' size hints there, and a part that grows only (``grow_only``:
    its hint ignored) counts as nothing; a box of parts holding one then asks its panel for too
    little, and a short panel squeezes its parts over each other instead of scrolling."""

    _asking = False

    def heightForWidth(self, width: int) -> int:
        hint = super().heightForWidth(width)
        if self._asking:        # QBoxLayout's minimumHeightForWidth asks heightForWidth first
            return hint
        self._asking = True
        try:
            return max(hint, super().minimumHeightForWidth(width))
        finally:
            self._asking = False


def text_label(text: str, wrap: bool = True, muted: bool = False) -> QLabel:
    lab = FullLabel(text) if wrap else QLabel(text)
    lab.setWordWrap(wrap)
    lab.setAlignment(Qt.AlignLeft | Qt.AlignTop)
    lab.setSizePolicy(QSizePolicy.Preferred, QSizePolicy.Maximum)
    if muted:
        lab.setStyleSheet("color: #607d8b;")
    return lab


# ----------------------------------------------------------------------------------------------

class FormPanel(QWidget):
    """Pick a named form or 词牌 (searchable); kind of piece; rhyme system; rhyme scheme; the notation editor."""

    formChosen = Signal(str)
    importRequested = Signal()
    notationApplied = Signal(str)
    kindChosen = Signal(str)
    rhymeSystemChosen = Signal(object)      # a system id, or None for the form's default
    toneSystemChosen = Signal(str)
    schemeEntered = Signal(str)
    problem = Signal(str)

    def __init__(self, session):
        super().__init__()
        self.session = session
        lay = PanelLayout(self)
        lay.setContentsMargins(6, 6, 6, 6)
        self.search = QLineEdit()
        self.search.setObjectName("form_search")
        self.search.setPlaceholderText(tr("Search forms: 七律, 浣溪沙, sonnet…"))
        self.search.setClearButtonEnabled(True)
        lay.addWidget(self.search)
        self.list = QListWidget()
        self.list.setObjectName("form_list")
        self.list.setMinimumHeight(120)
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        self.list.setWordWrap(True)          # a form's name and description, whole (none below the list)
        self.list.setTextElideMode(Qt.ElideNone)
        self.list.setResizeMode(QListView.Adjust)   # rows wrap again when the panel's width changes
        self.list.setVerticalScrollMode(QListView.ScrollPerPixel)   # rows of two or three lines: no jumps
        grow_only(self.list)
        lay.addWidget(self.list, 4)
        row = QHBoxLayout()
        self.use = QPushButton(tr("Use Form"))
        self.use.setObjectName("use_form")
        self.use.setToolTip(tr("Replace the form with the selected one (your text is kept; undo brings the old form back)"))
        row.addWidget(self.use)
        row.addStretch(1)
        self.import_btn = QPushButton(tr("From a Song…"))
        self.import_btn.setToolTip(tr("Make the form from a song's lyrics or LRC file, to write new words to its tune"))
        row.addWidget(self.import_btn)
        lay.addLayout(row)

        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.AllNonFixedFieldsGrow)
        # English labels are long for a narrow panel: each choice goes under its label, whole
        form.setRowWrapPolicy(QFormLayout.WrapAllRows if language() == "en" else QFormLayout.DontWrapRows)
        self.kind = whole_combo()
        self.kind.setObjectName("kind")
        self._kinds_lang = ""
        self._fill_kinds("zh")
        form.addRow(tr("Kind"), self.kind)
        self.rhyme_system = whole_combo()
        self.rhyme_system.setObjectName("rhyme_system")
        form.addRow(tr("Rhyme system"), self.rhyme_system)
        self.tone_system = whole_combo()
        self.tone_system.setObjectName("tone_system")
        self.tone_system.addItem(tr("Modern (普通话)"), "modern")
        self.tone_system.addItem(tr("Classical (入声 仄)"), "classical")
        form.addRow(tr("Tones"), self.tone_system)
        self.scheme = QLineEdit()
        self.scheme.setObjectName("rhyme_scheme")
        self.scheme.setFont(font(pixel_size=14))
        self.scheme.setToolTip(tr("One letter per line: lines with the same letter rhyme; - for no rhyme. Spaces between stanzas are ignored. Enter applies."))
        form.addRow(tr("Rhyme scheme"), self.scheme)
        lay.addLayout(form)

        # The notation editor folds away under its heading (the form list then takes the room, and
        # the panel fits a 1100x700 window without scrolling); the writer's choice is remembered.
        self.notation_toggle = QToolButton()
        self.notation_toggle.setObjectName("notation_toggle")
        self.notation_toggle.setText(tr("Form Notation"))
        self.notation_toggle.setToolTip(tr("Show or hide the whole form as text, to edit it line by line"))
        self.notation_toggle.setCheckable(True)
        self.notation_toggle.setAutoRaise(True)
        self.notation_toggle.setToolButtonStyle(Qt.ToolButtonTextBesideIcon)
        lay.addWidget(self.notation_toggle)
        self.notation_box = QWidget()
        nl = PanelLayout(self.notation_box)
        nl.setContentsMargins(0, 0, 0, 0)
        nl.addWidget(text_label(tr("Form notation (one line per line: _ free, - 平, | 仄, x/ stress, a character locks it, @A rhyme):"), muted=True))
        self.notation = QPlainTextEdit()
        self.notation.setObjectName("notation")
        self.notation.setFont(font(pixel_size=15))
        self.notation.setTabChangesFocus(True)
        self.notation.setLineWrapMode(QPlainTextEdit.NoWrap)
        nl.addWidget(self.notation, 1)
        # four lines of the form in view (and the scroll bar under them); the panel scrolls around it
        self.notation.setMinimumHeight(4 * self.notation.fontMetrics().lineSpacing()
                                       + 2 * (self.notation.frameWidth() + int(self.notation.document().documentMargin()))
                                       + self.notation.horizontalScrollBar().sizeHint().height())
        grow_only(self.notation)
        self.error = text_label("")
        self.error.setObjectName("notation_status")
        nl.addWidget(self.error)
        row = QHBoxLayout()
        self.apply = QPushButton(tr("Apply Notation"))
        self.apply.setObjectName("apply_notation")
        self.revert = QPushButton(tr("Revert"))
        row.addWidget(self.apply)
        row.addWidget(self.revert)
        row.addStretch(1)
        nl.addLayout(row)
        grow_only(self.notation_box)
        lay.addWidget(self.notation_box, 3)
        self.notation_toggle.toggled.connect(self.show_notation)
        self.show_notation(bool(settings.get(NOTATION_OPEN)), remember=False)

        self._parse_timer = QTimer(self, singleShot=True, interval=250)
        self._parse_timer.timeout.connect(self.parse_notation)
        self._search_timer = QTimer(self, singleShot=True, interval=200)
        self._search_timer.timeout.connect(self.fill_forms)
        self.search.textChanged.connect(lambda _: self._search_timer.start())
        self.list.itemActivated.connect(lambda item: self.formChosen.emit(item.data(Qt.UserRole)))
        self.use.clicked.connect(self._use_selected)
        self.import_btn.clicked.connect(self.importRequested.emit)
        self.kind.activated.connect(lambda _: self.kindChosen.emit(self.kind.currentData()))
        self.rhyme_system.activated.connect(lambda _: self.rhymeSystemChosen.emit(self.rhyme_system.currentData()))
        self.tone_system.activated.connect(lambda _: self.toneSystemChosen.emit(self.tone_system.currentData()))
        self.scheme.returnPressed.connect(lambda: self.schemeEntered.emit(self.scheme.text()))
        self.notation.textChanged.connect(self._notation_edited)
        self.apply.clicked.connect(self._apply_notation)
        self.revert.clicked.connect(lambda: self.refresh(force=True))
        self._notation_dirty = False
        self._parsed = None
        self._filled = False

    def show_notation(self, shown: bool, remember: bool = True) -> None:
        """Unfold (or fold away) the notation editor under its heading."""
        with QSignalBlocker(self.notation_toggle):
            self.notation_toggle.setChecked(shown)
        self.notation_toggle.setArrowType(Qt.DownArrow if shown else Qt.RightArrow)
        self.notation_box.setVisible(shown)
        if remember:
            settings.put(NOTATION_OPEN, shown)

    def showEvent(self, e) -> None:
        if not self._filled:
            self.fill_forms()
        super().showEvent(e)
        # once the rows are laid out at the panel's width (they wrap), the current form in view
        QTimer.singleShot(0, self.scroll_to_current)

    def scroll_to_current(self) -> None:
        """The current form at the list's top (centred, the rows above it were cut mid-row)."""
        item = self.list.currentItem()
        if item is not None:
            self.list.scrollToItem(item, QListView.PositionAtTop)

    def fill_forms(self) -> None:
        from songwriter.forms import list_forms

        self._filled = True
        query = self.search.text().strip()
        try:
            rows = list_forms(query)
        except Exception as e:   # the cipai library may be missing: the built-in forms still work
            from songwriter.forms import BUILTIN_FORMS

            rows = [(f.name, f.lang, f.description) for f in BUILTIN_FORMS
                    if not query or query.lower() in (f.name + f.description).lower()]
            self.problem.emit(tr("The 词牌 library could not be read: {e}").format(e=e))
        self.list.clear()
        for name, lang, desc in rows[:1500]:
            desc = form_description(desc)
            item = QListWidgetItem(f"{name}  ·  {'中' if lang == 'zh' else 'EN'}\n{desc}")
            item.setData(Qt.UserRole, name)
            item.setToolTip(f"{name}\n{desc}")
            self.list.addItem(item)
        self.select_current()

    def _use_selected(self) -> None:
        item = self.list.currentItem()
        if item is not None:
            self.formChosen.emit(item.data(Qt.UserRole))

    def _notation_edited(self) -> None:
        self._notation_dirty = True
        self._parse_timer.start()

    def parse_notation(self):
        text = self.notation.toPlainText()
        try:
            t = parse_notation(text, lang=None)
        except TemplateError as e:
            self._parsed = None
            self.error.setText("✗ " + core_text(str(e)))
            self.error.setStyleSheet("color: #c62828;")
            self.apply.setEnabled(False)
            return None
        self._parsed = t
        self.error.setText("✓ " + counted("{n} line(s)", len(t.lines), n=len(t.lines)) + tr(", ") + syllables_text(t.syllables, t.lang))
        self.error.setStyleSheet("color: #2e7d32;")
        self.apply.setEnabled(self._notation_dirty)
        return t

    def _apply_notation(self) -> None:
        t = self.parse_notation()
        if t is not None:
            self._notation_dirty = False
            self.notationApplied.emit(self.notation.toPlainText())

    def select_current(self) -> None:
        current = self.session.doc.template.name
        item = self.list.currentItem()
        if item is not None and item.data(Qt.UserRole) == current:
            return
        for i in range(self.list.count()):
            if self.list.item(i).data(Qt.UserRole) == current:
                self.list.setCurrentRow(i)
                self.scroll_to_current()
                return
        self.list.clearSelection()
        self.list.setCurrentRow(-1)
        if item is not None:    # the piece left the listed form: the list from its top, not cut mid-row
            self.list.scrollToTop()

    def _fill_kinds(self, lang: str) -> None:
        """The Kind combo lists the kinds of piece of the template's language."""
        if lang == self._kinds_lang:
            return
        self._kinds_lang = lang
        self.kind.clear()
        for kid, label in KIND_LABELS[lang]:
            self.kind.addItem(tr(label), kid)
        self.kind.setToolTip(tr(KIND_TIPS[lang]))

    def refresh(self, force: bool = False) -> None:
        t = self.session.doc.template
        if self._filled:
            self.select_current()
        with QSignalBlocker(self.kind):
            self._fill_kinds(t.lang)
            self.kind.setCurrentIndex(max(0, self.kind.findData(t.kind)))
        with QSignalBlocker(self.rhyme_system):
            self.rhyme_system.clear()
            self.rhyme_system.addItem(tr("{name} (default)").format(name=rhyme_system_label(t.effective_rhyme_system(), t.lang))
                                      if not t.rhyme_system else tr("The form's default"), None)
            systems = zh_rhyme_systems() if t.lang == "zh" else EN_RHYME_SYSTEMS
            for sid, label in systems:
                self.rhyme_system.addItem(tr(label), sid)
            idx = self.rhyme_system.findData(t.rhyme_system) if t.rhyme_system else 0
            self.rhyme_system.setCurrentIndex(max(0, idx))
        with QSignalBlocker(self.tone_system):
            self.tone_system.setCurrentIndex(max(0, self.tone_system.findData(t.tone_system)))
            self.tone_system.setEnabled(t.lang == "zh")
        if not self.scheme.hasFocus() or force:
            self.scheme.setText(rhyme_scheme(t))
        if force or not self._notation_dirty or not self.notation.hasFocus():
            with QSignalBlocker(self.notation):
                self.notation.setPlainText(format_notation(t))
            self._notation_dirty = False
            self.parse_notation()
            self.apply.setEnabled(False)



def rhyme_system_label(sid: str, lang: str) -> str:
    for s, label in (zh_rhyme_systems() if lang == "zh" else EN_RHYME_SYSTEMS):
        if s == sid:
            return tr(label)
    return sid


def grow_only(widget: QWidget) -> None:
    """A list or text box that takes the height there is, down to its minimum, but asks for no
    more (a panel in a scroll area then scrolls only when its minimums do not fit)."""
    widget.setSizePolicy(QSizePolicy.Expanding, QSizePolicy.Ignored)


def whole_combo() -> QComboBox:
    """A combo as wide as its longest choice, so the choice shown is never cut; in a narrow
    panel its form row puts it under its label."""
    combo = QComboBox()
    combo.setSizeAdjustPolicy(QComboBox.AdjustToContents)
    return combo


# ----------------------------------------------------------------------------------------------

class WordsPanel(QWidget):
    """Words that fit the selected slot (rhyme group, tone, syllables), ranked by the engine."""

    wordChosen = Signal(str)

    def __init__(self):
        super().__init__()
        lay = PanelLayout(self)
        lay.setContentsMargins(6, 6, 6, 6)
        self.header = text_label(tr("Select a slot in the editor to see words that fit it."))
        self.header.setObjectName("words_header")
        lay.addWidget(self.header)
        self.list = QListWidget()
        self.list.setObjectName("words")
        self.list.setFont(font(pixel_size=17))
        self.list.setViewMode(QListWidget.ListMode)
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        self.list.setMinimumHeight(60)      # the note under it keeps its lines in a short panel
        grow_only(self.list)
        lay.addWidget(self.list, 1)
        self.note = text_label("", muted=True)
        self.note.setObjectName("words_note")
        lay.addWidget(self.note)
        self.list.itemActivated.connect(lambda item: self.wordChosen.emit(item.data(Qt.UserRole)))

    def show_words(self, header: str, words: list[tuple], note: str) -> None:
        """``words``: (word, score or None[, what it is: "2 syllable(s) · slant rhyme"]), best first."""
        self.header.setText(header)
        self.header.setAccessibleName(plain(header))
        self.list.clear()
        # characters and short words side by side, many to a row; words with what they are, a row each
        grid = bool(words) and all(len(w) <= 4 and not (detail and detail[0]) for w, _score, *detail in words)
        self.list.setFlow(QListView.LeftToRight if grid else QListView.TopToBottom)
        self.list.setWrapping(grid)
        self.list.setResizeMode(QListView.Adjust)
        self.list.setSpacing(2 if grid else 0)
        if grid:
            widest = max(self.list.fontMetrics().horizontalAdvance(w) for w, *_ in words)
            self.list.setGridSize(QSize(widest + 22, self.list.fontMetrics().height() + 14))
        else:
            self.list.setGridSize(QSize())
        for w, score, *detail in words:
            # best first; the model's raw score would mean nothing here
            item = QListWidgetItem(f"{w}  · {detail[0]}" if detail and detail[0] else w)
            tips = ([tr("Ranked by the engine")] if score is not None else []) + detail[:1]
            if tips:
                item.setToolTip("\n".join(tips))
            item.setData(Qt.UserRole, w)
            self.list.addItem(item)
        self.note.setText(note)


# ----------------------------------------------------------------------------------------------

class OriginalPanel(QWidget):
    """The song being re-lyricked, with its timestamps, for reference."""

    def __init__(self, session):
        super().__init__()
        self.session = session
        lay = QVBoxLayout(self)
        lay.setContentsMargins(6, 6, 6, 6)
        self.header = text_label("", muted=True)
        lay.addWidget(self.header)
        self.text = QPlainTextEdit()
        self.text.setObjectName("original")
        self.text.setReadOnly(True)
        self.text.setFont(font(pixel_size=15))
        lay.addWidget(self.text, 1)

    def refresh(self) -> None:
        from songwriter.template import format_time

        orig = self.session.doc.original
        if orig is None:
            self.header.setText(tr("No original song. Import lyrics or an LRC file (File menu) to write new words to an existing tune; the original stays here and beside each line."))
            self.text.setPlainText("")
            return
        self.header.setText(joined_bits(["LRC" if orig.kind == "lrc" else tr("Lyrics"), orig.name or tr("pasted"),
                                         counted("{n} line(s)", len(orig.lines), n=len(orig.lines))]))
        rows = []
        # the song's lines are the form's lines: a blank line where the form starts a new stanza,
        # so the verses stand apart as they do in the editor
        tlines = self.session.doc.template.lines
        for i, line in enumerate(orig.lines):
            if 0 < i < len(tlines) and tlines[i].stanza != tlines[i - 1].stanza:
                rows.append("")
            t = orig.times[i] if i < len(orig.times) else None
            rows.append(f"[{format_time(t)}] {line}" if t is not None else line)
        self.text.setPlainText("\n".join(rows))


class HistoryPanel(QWidget):
    """Past versions of the text (each generation and save), newest first; restore any."""

    restoreRequested = Signal(int)

    def __init__(self, session):
        super().__init__()
        self.session = session
        lay = QVBoxLayout(self)
        lay.setContentsMargins(6, 6, 6, 6)
        self.list = QListWidget()
        self.list.setObjectName("history")
        self.list.setFont(font(pixel_size=14))
        self.list.setWordWrap(True)          # a version's first line whole, in a narrow panel
        self.list.setResizeMode(QListView.Adjust)
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        lay.addWidget(self.list, 1)
        row = QHBoxLayout()
        self.button = QPushButton(tr("Restore This Version"))
        row.addWidget(self.button)
        row.addStretch(1)
        lay.addLayout(row)
        self.button.clicked.connect(self._restore)
        self.list.itemActivated.connect(lambda _: self._restore())

    def _restore(self) -> None:
        item = self.list.currentItem()
        if item is not None:
            self.restoreRequested.emit(item.data(Qt.UserRole))

    def refresh(self) -> None:
        doc = self.session.doc
        self.list.clear()
        for k in range(len(doc.history) - 1, -1, -1):
            h = doc.history[k]
            first = next((x for x in h.text.split("\n") if x.strip()), "")
            when = h.time[:16].replace("T", " ")      # when and what on a line, the text under it
            item = QListWidgetItem(joined_bits([when, tr(h.note)] if h.note else [when]) + "\n" + first[:30])
            item.setData(Qt.UserRole, k)
            item.setToolTip(h.text)
            self.list.addItem(item)
        self.button.setEnabled(self.list.count() > 0)

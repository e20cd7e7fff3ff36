"""The main window's furniture: the header (title, form), the editor in its scroll area, the
docked panels and what their signals ask of the window, the menus, the toolbar and the status
bar. Built once, from the window's actions (ui/actions.py); no behaviour of its own."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QRect, Qt, QTimer
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import (
    QDockWidget, QFrame, QHBoxLayout, QLabel, QLineEdit, QProgressBar, QPushButton, QScrollArea, QStatusBar,
    QStyle, QStyleOption, QTabBar, QToolBar, QToolTip, QVBoxLayout, QWidget,
)

from .actions import icon_for
from .candidates import CandidatesPanel
from .editor import EditorScroll, PieceView
from .i18n import LANGUAGES, language, tr
from .panels import FormPanel, HistoryPanel, OriginalPanel, WordsPanel
from .steering import SteeringPanel
from .wording import wrapped_bits


def fit_docks(w, width: int) -> None:
    """Side panels in proportion to the window (a quarter each side, within limits), so the
    editor keeps room for a 七言 line at 1100 px and the panels widen at 1600 px."""
    left = max(250, min(360, int(width * 0.23)))
    right = max(280, min(420, int(width * 0.27)))
    w.resizeDocks([w.docks["form"], w.docks["candidates"]], [left, right], Qt.Horizontal)
    w.resizeDocks([w.docks["candidates"], w.docks["words"]], [3, 2], Qt.Vertical)


def hide_stale_tab_bars(w) -> None:
    """Qt's dock layout makes tab bars while the docks are tabified and restored before the
    window is shown; the ones it then leaves unused still show with the window, over a panel
    (a second 格律 / 原曲 / 历史 bar across the Form panel). A bar in use sits right under the
    dock whose tab it shows; the others are hidden."""
    docks = [d for d in w.docks.values() if d.isVisible()]
    for bar in w.findChildren(QTabBar, options=Qt.FindDirectChildrenOnly):
        in_use = any(abs(bar.x() - d.x()) <= 2 and abs(bar.y() - (d.y() + d.height())) <= 2 for d in docks)
        if not in_use:
            bar.hide()


def build_central(w) -> None:
    from songwriter.export.fonts import font

    central = QWidget()
    lay = QVBoxLayout(central)
    lay.setContentsMargins(0, 0, 0, 0)
    lay.setSpacing(0)
    head = QWidget()
    head.setObjectName("header")
    head.setStyleSheet("#header { background: #fafafa; border-bottom: 1px solid #e0e0e0; }")
    hl = QHBoxLayout(head)
    hl.setContentsMargins(12, 8, 12, 8)
    w.title_edit = QLineEdit()
    w.title_edit.setObjectName("title")
    w.title_edit.setPlaceholderText(tr("Title"))
    w.title_edit.setFont(font(pixel_size=20, bold=True))
    w.title_edit.setFrame(False)
    w.title_edit.setStyleSheet("background: transparent;")
    w.title_edit.editingFinished.connect(lambda: w.say(w.session.set_title(w.title_edit.text())))
    w.title_edit.setMinimumWidth(180)
    hl.addWidget(w.title_edit, 2)
    w.form_label = BitsLabel()
    w.form_label.setObjectName("form_label")
    w.form_label.setFont(font(pixel_size=14))
    w.form_label.setStyleSheet("color: #546e7a;")
    w.form_label.setWordWrap(True)           # a long form name takes two lines, never a cut
    w.form_label.setAlignment(Qt.AlignRight | Qt.AlignVCenter)
    hl.addWidget(w.form_label, 3)
    lay.addWidget(head)
    w.view = PieceView(w)
    w.view.setObjectName("editor")
    w.scroll = EditorScroll()
    w.scroll.setWidget(w.view)
    w.scroll.setWidgetResizable(False)
    w.scroll.setStyleSheet("QScrollArea { background: white; border: none; }")
    w.scroll.setAlignment(Qt.AlignLeft | Qt.AlignTop)
    lay.addWidget(w.scroll, 1)
    w.setCentralWidget(central)
    w.view.cursorMoved.connect(lambda *_: w.suggest_timer.start())
    w.view.previewCleared.connect(lambda: w.candidates_panel.stop_preview())


class BitsLabel(QLabel):
    """Facts side by side ("Sonnet · 14 lines · 140 syllables"), broken between two facts to
    the width there is, with no separator left hanging at a line's end (``wording.wrapped_bits``)."""

    def __init__(self):
        super().__init__()
        self._bits: list[str] = []

    def set_bits(self, bits: list[str]) -> None:
        self._bits = list(bits)
        self._rewrap()

    def resizeEvent(self, e) -> None:
        super().resizeEvent(e)
        self._rewrap()

    def _rewrap(self) -> None:
        fm = self.fontMetrics()
        text = wrapped_bits(self._bits, fm.horizontalAdvance, max(40, self.contentsRect().width() - 2))
        if text != self.text():
            self.setText(text)


def _dock(w, name: str, title: str, widget: QWidget, area, min_width: int, scroll: bool = False) -> QDockWidget:
    """A docked panel; with ``scroll`` the panel scrolls in a short window instead of squeezing
    its parts over each other."""
    d = QDockWidget(title, w)
    d.setObjectName(f"dock_{name}")
    widget.setMinimumWidth(min_width)
    if scroll:
        area_ = QScrollArea()
        area_.setWidgetResizable(True)
        area_.setFrameShape(QFrame.NoFrame)
        area_.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        area_.setWidget(widget)
        d.setWidget(area_)
    else:
        d.setWidget(widget)
    w.addDockWidget(area, d)
    return d


def build_docks(w) -> None:
    s = w.session
    w.form_panel = FormPanel(s)
    w.candidates_panel = CandidatesPanel(s)
    w.words_panel = WordsPanel()
    w.steering_panel = SteeringPanel(s, plan_folder=lambda: w.engines.folder_for(w.doc.lang))
    w.original_panel = OriginalPanel(s)
    w.history_panel = HistoryPanel(s)
    left, right = Qt.LeftDockWidgetArea, Qt.RightDockWidgetArea
    # Three tabs a side at most, with short titles, so none is cut at 1100 px.
    w.docks = {
        "form": _dock(w, "form", tr("Form"), w.form_panel, left, 240, scroll=True),
        "original": _dock(w, "original", tr("Original Song"), w.original_panel, left, 240),
        "history": _dock(w, "history", tr("History"), w.history_panel, left, 240),
        "candidates": _dock(w, "candidates", tr("Candidates"), w.candidates_panel, right, 260),
        "words": _dock(w, "words", tr("Rhymes and Words"), w.words_panel, right, 260, scroll=True),
        "steering": _dock(w, "steering", tr("Steering"), w.steering_panel, right, 260, scroll=True),
    }
    # a side's panels are at least as wide as their tabs, so no tab reads "Fo…" or "Original So…"
    for names in (("form", "original", "history"), ("words", "steering")):
        need = tabs_width([w.docks[n].windowTitle() for n in names])
        for n in names:
            panel = w.docks[n].widget()
            panel = panel.widget() if isinstance(panel, QScrollArea) else panel
            panel.setMinimumWidth(max(panel.minimumWidth(), need))
    w.tabifyDockWidget(w.docks["form"], w.docks["original"])
    w.tabifyDockWidget(w.docks["original"], w.docks["history"])
    w.docks["form"].raise_()
    w.splitDockWidget(w.docks["candidates"], w.docks["words"], Qt.Vertical)
    w.tabifyDockWidget(w.docks["words"], w.docks["steering"])
    w.docks["words"].raise_()
    w.docks["words"].visibilityChanged.connect(lambda v: v and w.suggest_timer.start())
    for name in ("words", "steering"):
        w.docks[name].visibilityChanged.connect(lambda v, d=w.docks[name]: v and QTimer.singleShot(0, lambda: give_room(w, d)))

    fp = w.form_panel
    fp.formChosen.connect(w.use_form)
    fp.importRequested.connect(w.files.paste_lyrics)
    fp.notationApplied.connect(w.apply_notation)
    fp.kindChosen.connect(lambda k: w.say(w.session.set_kind(k)))
    fp.rhymeSystemChosen.connect(lambda sid: w.say(w.session.set_rhyme_system(sid)))
    fp.toneSystemChosen.connect(lambda ts: w.say(w.session.set_tone_system(ts)))
    fp.schemeEntered.connect(w.set_scheme)
    fp.problem.connect(lambda text: w.status_hint(text))
    w.candidates_panel.previewRequested.connect(w.preview_candidate)
    w.candidates_panel.applyRequested.connect(w.apply_candidate)
    w.words_panel.wordChosen.connect(w.insert_word)
    w.steering_panel.asked.connect(lambda fn: w.say(fn(w.session)))
    w.history_panel.restoreRequested.connect(w.restore_history)


def tabs_width(titles: list[str]) -> int:
    """The width a row of dock tabs with these titles takes unshortened, as the style draws them."""
    bar = QTabBar()
    bar.setElideMode(Qt.ElideNone)
    for title in titles:
        bar.addTab(title)
    return sum(bar.tabSizeHint(k).width() for k in range(bar.count())) + 4


def give_room(w, dock) -> None:
    """Words or Steering first shown under Candidates: the split between them is made even
    (Candidates still shows candidates whole), so the list or the plan is not three rows. Once
    per panel: after that the writer's own split stands."""
    cand = w.docks["candidates"]
    if dock.property("given_room") or w.dockWidgetArea(dock) != w.dockWidgetArea(cand) \
            or dock.isFloating() or cand.isFloating() or not cand.isVisible():
        return
    dock.setProperty("given_room", True)
    total = cand.height() + dock.height()
    if dock.height() < 0.45 * total:
        w.resizeDocks([cand, dock], [total // 2, total - total // 2], Qt.Vertical)


def build_menus(w) -> None:
    a = w.actions
    mb = w.menuBar()

    def fill(menu, names):
        for n in names:
            menu.addSeparator() if n is None else menu.addAction(a[n])

    m = mb.addMenu(tr("&File"))
    fill(m, ("new", "open"))
    m.addMenu(a.menus["recent"])
    a.menus["recent"].aboutToShow.connect(w.files.fill_recent)
    fill(m, ("save", "save_as", None, "import_lyrics", "import_lrc", "import_melody", "paste_lyrics", None, "export", None, "quit"))
    fill(mb.addMenu(tr("&Edit")), ("undo", "redo", None, "edit_line", "clear_text", None, "toggle_lock",
                                   "toggle_line_lock", "lock_all", "unlock_all", None, "preferences"))
    m = mb.addMenu(tr("F&orm"))
    fill(m, ("insert_line_above", "insert_line_below", "remove_line", "line_length"))
    for name in ("rhyme", "refrain", "tone", "punct"):
        m.addMenu(a.menus[name])
    fill(mb.addMenu(tr("&Generate")), ("generate", "regenerate", "cancel", None, "prev_candidate",
                                       "next_candidate", "apply_candidate", None, "suggest"))
    fill(mb.addMenu(tr("&Melody")), ("play", "play_start", "stop", None, "break_line", "join_notes", "split_notes",
                                     None, "import_melody"))
    m = mb.addMenu(tr("&View"))
    for dock in w.docks.values():
        m.addAction(dock.toggleViewAction())
    m.addSeparator()
    lm = m.addMenu(tr("&Language"))
    for code, name in LANGUAGES.items():
        act = lm.addAction(name)
        act.setCheckable(True)
        act.setChecked(code == language())
        a.language_group.addAction(act)
        act.triggered.connect(lambda _=False, c=code: w.set_ui_language(c))
    fill(mb.addMenu(tr("&Help")), ("user_guide", "notation_help", "shortcuts_help", "models_help", None, "about"))


def build_toolbar(w) -> None:
    tb = QToolBar(tr("Main"), w)
    tb.setObjectName("toolbar_main")
    tb.setToolButtonStyle(Qt.ToolButtonTextBesideIcon)
    a = w.actions
    a["toggle_lock"].setIconText(tr("Lock"))
    a["toggle_line_lock"].setIconText(tr("Lock Line"))
    a["regenerate"].setIconText(tr("Regenerate Lines"))
    a["cancel"].setIconText(tr("Cancel"))
    for n in ("new", "open", "save", None, "undo", "redo", None, "generate", "regenerate", "cancel", None,
              "toggle_lock", "toggle_line_lock", None, "export"):
        tb.addSeparator() if n is None else tb.addAction(a[n])
    w.addToolBar(Qt.TopToolBarArea, tb)
    from .playback import build_melody_toolbar

    build_melody_toolbar(w)
    for n in ("new", "open", "save", "undo", "redo", "export"):
        button = tb.widgetForAction(a[n])
        if button is not None:
            button.setToolButtonStyle(Qt.ToolButtonIconOnly)


class StatusBar(QStatusBar):
    """The window's status bar. Its message has the room left of the counts and the engine (the
    permanent widgets); one longer than that ends in "…" a little before them, whole in its
    tooltip, where QStatusBar cut it against them mid-word ("… for each of the 4 l3/5 lines fit").
    ``currentMessage()`` is the whole message still. Drawn as QStatusBar draws itself, but for
    the message's end."""

    GAP = 12

    def __init__(self, parent=None):
        super().__init__(parent)
        self._permanent: list[QWidget] = []

    def addPermanentWidget(self, widget: QWidget, stretch: int = 0) -> None:
        self._permanent.append(widget)
        super().addPermanentWidget(widget, stretch)

    def message_rect(self) -> QRect:
        right = self.width() - 12
        first = next((x for x in self._permanent if x.isVisible()), None)
        if first is not None:
            right = min(right, first.x() - 2)
        return QRect(6, 0, max(0, right - 6), self.height())

    def shown_message(self) -> str:
        """The message as drawn: whole, or cut at a word with "…" where it has no room."""
        text = self.currentMessage()
        room = self.message_rect().width() - self.GAP
        fm = self.fontMetrics()
        if fm.horizontalAdvance(text) <= room:
            return text
        kept = fm.elidedText(text, Qt.ElideRight, room)[:-1]
        n = len(kept)

        def in_word(i: int) -> bool:
            return 0 <= i < len(text) and text[i].isascii() and text[i].isalnum()
        if in_word(n - 1) and in_word(n) and kept.rfind(" ") > n // 2:      # an English word: whole or not at all
            kept = kept[:kept.rfind(" ")]
        return kept.rstrip(" ,;:·") + "…"

    def paintEvent(self, event) -> None:
        if not self.currentMessage():
            return super().paintEvent(event)
        p = QPainter(self)
        opt = QStyleOption()
        opt.initFrom(self)
        self.style().drawPrimitive(QStyle.PE_PanelStatusBar, opt, p, self)
        for widget in self._permanent:
            if widget.isVisible():
                item = QStyleOption()
                item.rect = widget.geometry().adjusted(-2, -1, 2, 1)
                item.palette = self.palette()
                item.state = QStyle.State_None
                self.style().drawPrimitive(QStyle.PE_FrameStatusBarItem, item, p, widget)
        p.setPen(self.palette().windowText().color())
        p.drawText(self.message_rect(), Qt.AlignLeading | Qt.AlignVCenter | Qt.TextSingleLine, self.shown_message())

    def event(self, e) -> bool:
        if e.type() == QEvent.ToolTip and self.currentMessage() and self.message_rect().contains(e.pos()) \
                and self.shown_message() != self.currentMessage():
            QToolTip.showText(e.globalPos(), self.currentMessage(), self)
            return True
        return super().event(e)


def build_statusbar(w) -> None:
    sb = StatusBar(w)
    w.setStatusBar(sb)
    w.check_label = QLabel()
    w.check_label.setObjectName("check_summary")
    w.engine_label = QLabel()
    w.engine_label.setObjectName("engine_status")
    w.language_note = QLabel()
    w.language_note.setObjectName("language_note")
    w.language_note.setStyleSheet("color: #b26a00;")
    w.time_label = QLabel()
    w.time_label.setObjectName("generation_time")
    w.progress = QProgressBar()
    w.progress.setObjectName("progress")
    w.progress.setMaximumWidth(180)
    w.progress.setTextVisible(False)
    w.progress.hide()
    w.cancel_button = QPushButton(tr("Cancel"))
    w.cancel_button.setObjectName("cancel_button")
    w.cancel_button.setIcon(icon_for("cancel"))
    w.cancel_button.clicked.connect(w.action_cancel)
    w.cancel_button.hide()
    for widget in (w.check_label, w.language_note, w.progress, w.cancel_button, w.time_label, w.engine_label):
        sb.addPermanentWidget(widget)
    w.engine_changed()

"""The Help menu's pages: the user guide, the form notation, keyboard shortcuts, and the models
with the credits their training data asks for. Each page is shown in one reader dialog."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QTextBrowser, QVBoxLayout

from .i18n import language, tr

DOCS = Path(__file__).resolve().parents[2] / "docs"
MODELS = Path(__file__).resolve().parents[2] / "models"

# Credits the training data asks for (see the data's SOURCES.md); shown beside each model's own
# statement of its data.
DATA_CREDITS = [
    ("chinese-poetry", "Tang and Song shi, Song ci, Yuan qu", "MIT"),
    ("Tatoeba", "everyday Mandarin sentences — Tatoeba and its contributors", "CC-BY 2.0 FR"),
    ("Mozilla Common Voice", "Chinese and English sentences", "CC0"),
    ("KdConv", "conversations about film, music and travel", "Apache-2.0"),
    ("华语现代诗歌语料库 (sheepzh/poetry)", "530 modern poems by poets who died before 1976", "public domain"),
    ("TinyStories", "simple English stories", "CDLA-Sharing-1.0"),
    ("WordNet 3.0", "English glosses and examples — Princeton University", "WordNet 3.0 license"),
    ("Project Gutenberg", "English poetry, Shakespeare's sonnets, hymns (1908)", "public domain"),
]


class ReaderDialog(QDialog):
    def __init__(self, parent, title: str, markdown: str = "", html: str = "", base: Path | None = None):
        super().__init__(parent)
        self.setObjectName("help_reader")
        self.setWindowTitle(title)
        self.resize(760, 640)
        lay = QVBoxLayout(self)
        self.browser = QTextBrowser()
        self.browser.setOpenExternalLinks(False)
        if base is not None:
            self.browser.document().setBaseUrl(QUrl.fromLocalFile(str(base) + "/"))
        if markdown:
            self.browser.setMarkdown(markdown)
        else:
            self.browser.setHtml(html)
        lay.addWidget(self.browser)
        buttons = QDialogButtonBox(QDialogButtonBox.Close)
        buttons.rejected.connect(self.reject)
        lay.addWidget(buttons)


def document_page(name: str) -> str:
    """A page of docs/ in the UI's language: ``user-guide.zh.md`` for the Chinese UI where there
    is one; else the English page, which the Chinese UI says is in English only."""
    if language() == "zh":
        own = DOCS / name.replace(".md", ".zh.md")
        if own.is_file():
            name = own.name
        else:
            return "> " + tr("This page is in English only: it has no Chinese version yet.") + "\n\n" + _read(name)
    return _read(name)


def _read(name: str) -> str:
    try:
        return (DOCS / name).read_text("utf-8")
    except OSError as e:
        return tr("This page could not be read: {e}").format(e=e.strerror or e)


def keyboard_keys(sequence: QKeySequence) -> bool:
    """Is every key of the sequence one of a keyboard's own (letters, marks, arrows, Enter, the
    function keys)? A standard shortcut also answers to the media keys of some keyboards
    (New, Save, Undo), which read as nonsense in a list of keys ("Ctrl+N, New", "Shift+Save")."""
    return not sequence.isEmpty() and all(
        sequence[i].key().value <= Qt.Key.Key_F35.value for i in range(sequence.count()))


def shortcuts_html(actions) -> str:
    rows = []
    for name, act in actions.acts.items():
        keys = ", ".join(k.toString(QKeySequence.NativeText) for k in act.shortcuts() if keyboard_keys(k))
        if keys:
            rows.append(f"<tr><td><b>{keys}</b></td><td>{act.text().replace('&', '')}</td></tr>")
    editor = [
        ("Ctrl+click", tr("Lock or unlock a character or word")),
        ("Enter / F2", tr("Edit the line as text")),
        ("Esc", tr("Stop previewing a candidate")),
        ("Shift+←/→", tr("Select slots")),
    ]
    rows += [f"<tr><td><b>{k}</b></td><td>{v}</td></tr>" for k, v in editor]
    title = tr("Keyboard Shortcuts")
    return f"<h2>{title}</h2><table cellpadding='4'>" + "".join(rows) + "</table>"


def models_html() -> str:
    from songwriter.engine.api import model_facts

    words = {k: tr(k) for k in ("Models", "writes", "Trained on", "(not stated)", "No model is installed.",
                                "Data credits", "Chinese font: Noto Sans CJK SC (subset), SIL Open Font License 1.1.",
                                "Rare characters: Hanazono Mincho (subset), GlyphWiki Project, Hanazono Font License.")}
    parts = ["<h2>" + words["Models"] + "</h2>"]
    folders = sorted(p for p in MODELS.iterdir() if p.is_dir()) if MODELS.is_dir() else []
    for folder in folders:
        facts = model_facts(folder)
        if facts.error:
            parts.append(f"<p><b>{folder.name}</b>: {facts.error}</p>")
            continue
        parts.append(f"<p><b>{facts.name or folder.name}</b> {facts.version} · "
                     + words["writes"] + " " + ", ".join(facts.languages) + "<br>"
                     + words["Trained on"] + ": " + (facts.data or words["(not stated)"]) + "</p>")
    if not folders:
        parts.append("<p>" + words["No model is installed."] + "</p>")
    parts.append("<h2>" + words["Data credits"] + "</h2><ul>")
    parts += [f"<li><b>{name}</b>: {what} ({licence})</li>" for name, what, licence in DATA_CREDITS]
    parts.append("</ul>")
    parts.append("<p>" + words["Chinese font: Noto Sans CJK SC (subset), SIL Open Font License 1.1."] + "<br>"
                 + words["Rare characters: Hanazono Mincho (subset), GlyphWiki Project, Hanazono Font License."] + "</p>")
    return "".join(parts)


def show_user_guide(parent) -> ReaderDialog:
    return _show(ReaderDialog(parent, tr("User Guide"), markdown=document_page("user-guide.md"), base=DOCS))


def show_notation(parent) -> ReaderDialog:
    return _show(ReaderDialog(parent, tr("Form Notation"), markdown=document_page("notation.md"), base=DOCS))


def show_shortcuts(parent, actions) -> ReaderDialog:
    return _show(ReaderDialog(parent, tr("Keyboard Shortcuts"), html=shortcuts_html(actions)))


def show_models(parent) -> ReaderDialog:
    return _show(ReaderDialog(parent, tr("Models and Credits"), html=models_html()))


def _show(dialog: ReaderDialog) -> ReaderDialog:
    dialog.show()       # not modal: the writer can read beside the piece
    return dialog

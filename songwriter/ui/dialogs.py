"""Every dialog the window opens goes through here, so tests can answer them (monkeypatch)."""

from __future__ import annotations

from PySide6.QtWidgets import QFileDialog, QInputDialog, QMessageBox

from .i18n import tr


def warn(parent, title: str, text: str, details: str = "") -> None:
    box = QMessageBox(QMessageBox.Warning, title, text, QMessageBox.Ok, parent)
    if details:
        box.setDetailedText(details)
    box.exec()


def info(parent, title: str, text: str) -> None:
    QMessageBox.information(parent, title, text)


def ask_save_changes(parent, name: str) -> str:
    """'save' | 'discard' | 'cancel'."""
    r = QMessageBox.question(parent, tr("Unsaved changes"),
                             tr("Save the changes to {name}?").format(name=name),
                             QMessageBox.Save | QMessageBox.Discard | QMessageBox.Cancel, QMessageBox.Save)
    return {QMessageBox.Save: "save", QMessageBox.Discard: "discard"}.get(r, "cancel")


def ask_recover(parent, when: str, name: str) -> str:
    """'recover' | 'discard' | 'later'."""
    box = QMessageBox(QMessageBox.Question, tr("Recover unsaved work"),
                      tr("Songwriter did not close normally. Unsaved work on {name} from {when} was kept.")
                      .format(name=name, when=when), QMessageBox.NoButton, parent)
    rec = box.addButton(tr("Recover"), QMessageBox.AcceptRole)
    dis = box.addButton(tr("Discard"), QMessageBox.DestructiveRole)
    box.addButton(tr("Later"), QMessageBox.RejectRole)
    box.exec()
    clicked = box.clickedButton()
    return "recover" if clicked is rec else "discard" if clicked is dis else "later"


def open_path(parent, title: str, filters: str, directory: str = "") -> str:
    path, _ = QFileDialog.getOpenFileName(parent, title, directory, filters)
    return path


def save_path(parent, title: str, filters: str, directory: str = "") -> str:
    path, _ = QFileDialog.getSaveFileName(parent, title, directory, filters)
    return path


def export_path(parent, title: str, filters: str, directory: str = "") -> tuple[str, str]:
    """(path, the filter the writer chose): the export formats share file suffixes (a lead sheet
    and the text page are both .pdf), so the choice says which one is meant."""
    return QFileDialog.getSaveFileName(parent, title, directory, filters)


def get_int(parent, title: str, label: str, value: int, lo: int, hi: int) -> int | None:
    v, ok = QInputDialog.getInt(parent, title, label, value, lo, hi)
    return v if ok else None


def get_text(parent, title: str, label: str, text: str = "", multiline: bool = False) -> str | None:
    if multiline:
        v, ok = QInputDialog.getMultiLineText(parent, title, label, text)
    else:
        v, ok = QInputDialog.getText(parent, title, label, text=text)
    return v if ok else None

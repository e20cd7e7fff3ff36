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


def melody_options(parent, name: str, parts: list[str], tunes: list[int], tune_count: int,
                   lang: str | None) -> dict | None:
    """What to read of a melody file: the part (1-based number, as text) where it has several,
    the ABC tune (its X: number) where it holds several, and the language of the new words where
    the file has none (``lang``: the one offered first; None: not asked). None when cancelled."""
    from PySide6.QtWidgets import QComboBox, QDialog, QDialogButtonBox, QFormLayout, QLabel

    dlg = QDialog(parent)
    dlg.setWindowTitle(tr("Import melody"))
    form = QFormLayout(dlg)
    form.addRow(QLabel(tr("Reading {name}").format(name=name)))
    part_box = tune_box = lang_box = None
    if len(parts) > 1:
        part_box = QComboBox()
        for k, p in enumerate(parts):
            part_box.addItem(f"{k + 1}. {p}" if p != str(k + 1) else p, str(k + 1))
        form.addRow(tr("Part (the melody line):"), part_box)
    if len(tunes) > 1:
        tune_box = QComboBox()
        tune_box.setEditable(tune_count > len(tunes))       # a big collection: type the X: number
        for t in tunes:
            tune_box.addItem(tr("Tune {n}").format(n=t), t)
        form.addRow(tr("Tune (X: number):"), tune_box)
    if lang is not None:
        lang_box = QComboBox()
        for code, label in (("zh", tr("Chinese")), ("en", tr("English"))):
            lang_box.addItem(label, code)
        lang_box.setCurrentIndex(0 if lang == "zh" else 1)
        form.addRow(tr("Write the new words in:"), lang_box)
    buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel)
    buttons.accepted.connect(dlg.accept)
    buttons.rejected.connect(dlg.reject)
    form.addRow(buttons)
    if not dlg.exec():
        return None
    out: dict = {}
    if part_box is not None:
        out["part"] = part_box.currentData()
    if tune_box is not None:
        data = tune_box.currentData()
        if tune_box.currentText() != tune_box.itemText(tune_box.currentIndex()) or data is None:
            digits = "".join(c for c in tune_box.currentText() if c.isdigit())
            data = int(digits) if digits else None
        out["tune"] = data
    if lang_box is not None:
        out["lang"] = lang_box.currentData()
    return out

"""The Preferences dialog: generation settings, autosave, model, backend, language."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QComboBox, QDialog, QDialogButtonBox, QDoubleSpinBox, QFileDialog, QFormLayout, QHBoxLayout,
    QLineEdit, QPushButton, QSpinBox, QWidget,
)

from songwriter.engine.api import MAX_LINE_CHOICES

from . import settings
from .i18n import LANGUAGES, tr


def hint(text: str):
    """A help text under its setting, wrapped and whole: its height follows its width (a plain
    wrapped QLabel asks the dialog for too few lines and is cut mid-line)."""
    from .panels import text_label

    label = text_label(text, muted=True)
    label.setObjectName("hint")
    return label


class PreferencesDialog(QDialog):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.setWindowTitle(tr("Preferences"))
        form = QFormLayout(self)
        self.n = QSpinBox()
        self.n.setRange(1, 64)
        self.n.setValue(settings.get("candidates"))
        form.addRow(tr("Candidates per generation"), self.n)
        self.temperature = QDoubleSpinBox()
        self.temperature.setRange(0.05, 3.0)
        self.temperature.setSingleStep(0.05)
        self.temperature.setValue(settings.get("temperature"))
        form.addRow(tr("Temperature"), self.temperature)
        form.addRow("", hint(tr("Higher writes more surprising words; lower keeps to the likeliest (and most generic).")))
        self.top_k = QSpinBox()
        self.top_k.setRange(0, 10000)
        self.top_k.setValue(settings.get("top_k"))
        form.addRow(tr("Variety (top-k)"), self.top_k)
        form.addRow("", hint(tr("How many of the likeliest words each slot chooses among: more gives more varied "
                                "candidates; 0 means no limit.")))
        self.top_p = QDoubleSpinBox()
        self.top_p.setRange(0.0, 1.0)
        self.top_p.setSingleStep(0.01)
        self.top_p.setValue(settings.get("top_p"))
        form.addRow(tr("Boldness (top-p)"), self.top_p)
        form.addRow("", hint(tr("How far down the list of likely words a slot may reach: 1.0 allows bold choices, "
                                "0.8 stays with safe ones.")))
        for w, tip in ((self.top_k, "How many of the likeliest words each slot chooses among: more gives more varied "
                                    "candidates; 0 means no limit."),
                       (self.top_p, "How far down the list of likely words a slot may reach: 1.0 allows bold choices, "
                                    "0.8 stays with safe ones.")):
            w.setToolTip(tr(tip))
        self.line_choices = QSpinBox()
        self.line_choices.setRange(1, MAX_LINE_CHOICES)
        self.line_choices.setValue(settings.get("line_choices"))     # the range clamps a stored value
        form.addRow(tr("Drafts per line"), self.line_choices)
        form.addRow("", hint(tr("Each line is written this many times and the likeliest draft kept: more reads "
                                "more smoothly and takes longer; 1 keeps the first draft.")))
        self.seed = QLineEdit(str(settings.settings().value("seed", "") or ""))
        self.seed.setPlaceholderText(tr("random"))
        form.addRow(tr("Seed (blank = random)"), self.seed)
        self.autosave = QSpinBox()
        self.autosave.setRange(5, 3600)
        self.autosave.setSuffix(" s")
        self.autosave.setValue(settings.get("autosave_seconds"))
        form.addRow(tr("Autosave every"), self.autosave)
        row = QWidget()
        rl = QHBoxLayout(row)
        rl.setContentsMargins(0, 0, 0, 0)
        self.model_dir = QLineEdit(settings.get("model_dir") or "")
        self.model_dir.setPlaceholderText(tr("the default model"))
        browse = QPushButton(tr("Browse…"))
        browse.clicked.connect(self._browse)
        rl.addWidget(self.model_dir, 1)
        rl.addWidget(browse)
        form.addRow(tr("Model folder"), row)
        self.backend = QComboBox()
        for b in ("auto", "onnx", "torch"):
            self.backend.addItem(b, b)
        self.backend.setCurrentIndex(max(0, self.backend.findData(settings.get("backend"))))
        form.addRow(tr("Backend"), self.backend)
        self.language = QComboBox()
        self.language.addItem(tr("System"), "")
        for code, name in LANGUAGES.items():
            self.language.addItem(name, code)
        self.language.setCurrentIndex(max(0, self.language.findData(settings.get("language"))))
        form.addRow(tr("Language (next start)"), self.language)
        buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel)
        buttons.accepted.connect(self._accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)

    def _browse(self) -> None:
        path = QFileDialog.getExistingDirectory(self, tr("Model folder"), self.model_dir.text())
        if path:
            self.model_dir.setText(path)

    def _accept(self) -> None:
        settings.put("candidates", self.n.value())
        settings.put("temperature", self.temperature.value())
        settings.put("top_k", self.top_k.value())
        settings.put("top_p", self.top_p.value())
        settings.put("line_choices", self.line_choices.value())
        seed = self.seed.text().strip()
        settings.put("seed", seed if seed.lstrip("-").isdigit() else "")
        settings.put("autosave_seconds", self.autosave.value())
        settings.put("model_dir", self.model_dir.text().strip())
        settings.put("backend", self.backend.currentData())
        settings.put("language", self.language.currentData())
        self.accept()

"""Fixtures for the UI tests (no tests here): isolated settings and data dir, answered dialogs,
a window, and a test double of the engine that only records requests (the engine API's own
GenerationRequest) and returns canned candidates, for testing the window's wiring. Generation itself is tested with the tiny model
(tests/helpers/tiny_model.py) in test_ui_engine.py."""

from __future__ import annotations

import os
import threading
import time

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import songwriter.ui  # noqa: E402,F401
from PySide6.QtCore import QSettings  # noqa: E402

from songwriter.engine.api import Candidate, GenerationCancelled  # noqa: E402
from songwriter.checks import check  # noqa: E402
from songwriter.template import text_lines  # noqa: E402

POEM = "白日依山尽，\n黄河入海流。\n欲穷千里目，\n更上一层楼。"


class Answers:
    """What the dialogs answer in tests, and what they were asked."""

    def __init__(self):
        self.warnings: list[tuple[str, str]] = []
        self.infos: list[tuple[str, str]] = []
        self.save_changes = "discard"
        self.recover = "recover"
        self.open_path = ""
        self.save_path = ""
        self.export_filter = ""     # the filter chosen in the Export dialog ("" = none)
        self.text = None
        self.int_value = None


@pytest.fixture
def answers(tmp_path, monkeypatch):
    from songwriter.ui import dialogs

    QSettings.setPath(QSettings.IniFormat, QSettings.UserScope, str(tmp_path / "config"))
    monkeypatch.setenv("SONGWRITER_DATA_DIR", str(tmp_path / "data"))
    a = Answers()
    monkeypatch.setattr(dialogs, "warn", lambda parent, title, text, details="": a.warnings.append((title, text)))
    monkeypatch.setattr(dialogs, "info", lambda parent, title, text: a.infos.append((title, text)))
    monkeypatch.setattr(dialogs, "ask_save_changes", lambda parent, name: a.save_changes)
    monkeypatch.setattr(dialogs, "ask_recover", lambda parent, when, name: a.recover)
    monkeypatch.setattr(dialogs, "open_path", lambda *args, **kw: a.open_path)
    monkeypatch.setattr(dialogs, "save_path", lambda *args, **kw: a.save_path)
    monkeypatch.setattr(dialogs, "export_path", lambda *args, **kw: (a.save_path, a.export_filter))
    monkeypatch.setattr(dialogs, "get_text", lambda *args, **kw: a.text)
    monkeypatch.setattr(dialogs, "get_int", lambda *args, **kw: a.int_value)
    return a


@pytest.fixture
def engine():
    """The recording test double (below), one per test."""
    return RecordingEngine()


def installed_models(tmp_path, langs=("zh",)):
    """The installed model of each language, as the window looks them up: the repository's
    models/zh for zh, a folder with only a manifest (for a test double to stand behind) for the
    other languages in ``langs``, and a missing folder for the rest, whatever models/ holds."""
    import json

    from songwriter.engine.api import default_model_dir

    def folder(lang):
        if lang == "zh" and "zh" in langs:
            return default_model_dir("zh")
        path = tmp_path / "models" / lang
        if lang in langs and not path.is_dir():
            path.mkdir(parents=True)
            (path / "manifest.json").write_text(json.dumps({"name": f"test-{lang}", "languages": [lang]}))
        return path
    return folder


def make_window(qtbot, loader=None, model_dir=None, doc=None, installed=None):
    """A window in an English UI; ``installed``: the installed model of a language (by default
    models/zh and no English model, so the tests do not depend on what models/ ships)."""
    import tempfile
    from pathlib import Path

    from songwriter.ui.i18n import set_language
    from songwriter.ui.mainwindow import MainWindow

    set_language("en")
    if installed is None:
        installed = installed_models(Path(tempfile.mkdtemp(prefix="no-en-model")))
    win = MainWindow(model_dir=model_dir, engine_loader=loader, autosave_seconds=3600, doc=doc,
                     installed_models=installed)
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win)
    win.activateWindow()
    win.view.setFocus()
    return win


def wait_idle(qtbot, win, timeout=20000):
    qtbot.waitUntil(lambda: not win.busy, timeout=timeout)


# ----------------------------------------------------------------------------------------------
# A test double of the engine facade: records requests; returns canned candidates in which every
# free slot holds one fixed character (zh) or word (en). Only for testing the window's wiring.

class RecordingEngine:
    backend_name = "test-double"
    supports_content = False
    languages = ("zh", "en")

    def __init__(self, fills="云风月花雪山水天", block: threading.Event | None = None):
        self.fills = fills
        self.block = block
        self.requests = []
        self.suggestions = []
        self.suggest_context = []
        self.started = threading.Event()

    def generate(self, request, progress=None, cancel=None):
        self.requests.append(request)
        self.started.set()
        if self.block is not None:
            k = 0
            while not self.block.is_set():
                if cancel is not None and cancel.is_set():
                    raise GenerationCancelled("cancelled")
                if progress:
                    progress((k % 100, 100))
                k += 1
                time.sleep(0.01)
        t = request.template
        given = text_lines(request.text, t) if request.text.strip() else []
        out = []
        for c in range(min(request.n, len(self.fills))):
            lines = []
            for i, tl in enumerate(t.lines):
                if request.lines is not None and i not in request.lines:
                    lines.append(given[i] if i < len(given) else "")
                    continue
                if t.lang == "zh":
                    lines.append("".join((s.lock or self.fills[c]) + s.punct for s in tl.slots))
                else:
                    lines.append(" ".join((s.lock or "la") + s.punct for s in tl.slots))
            text = "\n".join(lines)
            out.append(Candidate(text=text, lines=lines, score=-1.0 - 0.1 * c, check=check(text, t)))
        return out

    def suggest(self, template, text, line, slot, k=20):
        self.suggestions.append((line, slot))
        self.suggest_context.append((template, text))
        return [("天", -1.0), ("年", -1.5), ("烟", -2.0)][:k]

    def suggest_words(self, template, text, line, slot, k=20):
        """English: the words with their rhyme kind and syllables (``words_en.WordChoice``)."""
        from songwriter.engine.words_en import WordChoice

        self.suggestions.append((line, slot))
        self.suggest_context.append((template, text))
        return [WordChoice("rose", 1, "perfect", -0.5), WordChoice("grows", 1, "perfect", -1.0),
                WordChoice("close", 1, "slant", -1.5), WordChoice("garden", 2, "", -2.0)][:k]


def double_loader(engine):
    return lambda model_dir, backend: engine


def ime_type(widget, text: str, per_char: bool = True) -> None:
    """Type Chinese as an input method does: a commit string per character (QTest.keyClicks
    cannot send non-Latin text)."""
    from PySide6.QtGui import QInputMethodEvent
    from PySide6.QtWidgets import QApplication

    for chunk in (list(text) if per_char else [text]):
        e = QInputMethodEvent()
        e.setCommitString(chunk)
        QApplication.sendEvent(widget, e)

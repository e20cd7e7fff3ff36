"""Which model writes which language: one engine host per model folder, made when a piece of
that language first needs it, and what to tell the writer when no model writes a language.

A folder chosen by the writer (Preferences, or ``--model``) writes the languages its manifest
lists; every other language gets its installed model (``models/zh``, ``models/en``). A chosen
folder whose manifest cannot be read is used for every language, so that loading it says what is
wrong with it instead of another model quietly taking its place.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from PySide6.QtCore import QObject, Signal

from songwriter.engine.api import ModelFacts, default_model_dir, model_facts

from .engine_host import READY, EngineHost
from .i18n import tr

LANGUAGES = ("zh", "en")
LANGUAGE_NAMES = {"zh": "Chinese", "en": "English"}
# a form of each language that its model writes, to name in "choose a … form instead"
EXAMPLE_FORMS = {"zh": "七绝, 浣溪沙", "en": "Shakespearean sonnet, Ballad stanza"}


def language_name(lang: str) -> str:
    return tr(LANGUAGE_NAMES.get(lang, lang))


class EngineHosts(QObject):
    """The engine hosts of the window, by language. ``changed`` fires when any host changes."""

    changed = Signal()

    def __init__(self, parent=None, chosen_dir: str | None = None, backend: str = "auto",
                 loader: Callable | None = None, installed: Callable[[str], Path] = default_model_dir):
        super().__init__(parent)
        self.chosen_dir = chosen_dir or None
        self.backend = backend or "auto"
        self._loader = loader
        self._installed = installed
        self._hosts: dict[str, EngineHost] = {}      # by model folder
        self._facts: dict[str, ModelFacts] = {}      # by model folder, read once (cheap, but on every edit)

    # --- which folder writes a language --------------------------------------------------------
    def facts(self, folder: str) -> ModelFacts:
        if folder not in self._facts:
            self._facts[folder] = model_facts(folder)
        return self._facts[folder]

    def folder_for(self, lang: str) -> str:
        if self.chosen_dir:
            chosen = self.facts(self.chosen_dir)
            if chosen.error or lang in chosen.languages:
                return self.chosen_dir
        return str(self._installed(lang))

    def has_model(self, lang: str) -> bool:
        """Whether a model for ``lang`` is there (its manifest read; not loaded)."""
        folder = self.folder_for(lang)
        facts = self.facts(folder)
        return not facts.error and lang in facts.languages

    def unavailable_reason(self, lang: str) -> str:
        """Why Generate cannot write ``lang``, in plain words with what to do instead; "" when a
        model for it is there, or when only loading the chosen folder can tell (its error is
        the load's)."""
        folder = self.folder_for(lang)
        facts = self.facts(folder)
        host = self._hosts.get(folder)
        if host is not None and host.state == READY:
            langs = host.languages
        elif facts.error:
            if folder == self.chosen_dir:
                return ""
            langs = ()
        else:
            langs = facts.languages
        if lang in langs:
            return ""
        others = [x for x in LANGUAGES if x != lang and self.has_model(x)]
        instead = tr("; ").join(tr("choose a {lang} form ({forms})").format(lang=language_name(x), forms=EXAMPLE_FORMS[x])
                            for x in others)
        return tr("No {lang} model is installed, so Generate cannot write this form. "
                  "To generate, {instead}or install the {lang} model in {folder} (or choose its folder "
                  "in Preferences).").format(
            lang=language_name(lang), instead=(instead + tr(", ")) if instead else "",
            folder=_short(self._installed(lang)))

    # --- the hosts ----------------------------------------------------------------------------
    def host(self, lang: str) -> EngineHost:
        """The host of the model that writes ``lang`` (made, not loaded, on first use)."""
        folder = self.folder_for(lang)
        host = self._hosts.get(folder)
        if host is None:
            host = EngineHost(self, folder, self.backend, self._loader)
            host.changed.connect(self.changed)
            self._hosts[folder] = host
        return host

    def hosts(self) -> list[EngineHost]:
        return list(self._hosts.values())

    def set_model(self, chosen_dir: str | None, backend: str = "auto") -> None:
        """Another chosen folder or backend: the hosts are made again at the next need; the
        manifests are read again (a model may have been installed meanwhile)."""
        chosen_dir, backend = chosen_dir or None, backend or "auto"
        self._facts.clear()
        if (chosen_dir, backend) == (self.chosen_dir, self.backend):
            return
        self.chosen_dir, self.backend = chosen_dir, backend
        old, self._hosts = self._hosts, {}
        for host in old.values():
            host.changed.disconnect(self.changed)
            host.shutdown(0)
        self.changed.emit()

    def shutdown(self, wait_ms: int = 3000) -> None:
        for host in self._hosts.values():
            host.shutdown(wait_ms)


def _short(path: Path) -> str:
    """models/en for the installed folder of a language, the full path elsewhere."""
    path = Path(path)
    return f"{path.parent.name}/{path.name}" if path.parent.name == "models" else str(path)

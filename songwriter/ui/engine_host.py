"""The engine as the window sees it: loaded lazily off the UI thread, one call at a time.

Only the facade (songwriter.engine.service) is used, and only inside worker threads, so the UI
thread never imports the model code. A missing or corrupt model leaves state "failed" with the
message; the window keeps working as an editor and says so.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Callable

from PySide6.QtCore import QObject, QThreadPool, Signal

from .worker import Op

UNLOADED, LOADING, READY, FAILED = "unloaded", "loading", "ready", "failed"

# Libraries that the UI thread (checks, word lists) and the engine's thread (loading, generating,
# checking candidates) both import on first use. pypinyin imports itself in a cycle (pypinyin ->
# core -> converter -> contrib.tone_sandhi -> contrib.tone_convert -> style._tone_convert ->
# pypinyin), and Python cannot import such a cycle from two threads at once: one thread gets a
# _DeadlockError, the other a half-initialised module ("cannot import name ... from partially
# initialized module"), and the damage lasts for the rest of the session (every check and every
# generation fails). So they are imported on the UI thread before the first background task.
SHARED_MODULES = ("pypinyin", "pronouncing")


def import_shared_modules() -> None:
    for name in SHARED_MODULES:
        try:
            importlib.import_module(name)
        except ImportError:
            pass    # reported where it is needed: by the checks or by the engine's load


def _load_engine(model_dir: str | None, backend: str):
    from songwriter.engine import service

    path = Path(model_dir) if model_dir else service.default_model_dir()
    return service.Engine.load(path, backend=backend)


class EngineHost(QObject):
    changed = Signal()

    def __init__(self, parent=None, model_dir: str | None = None, backend: str = "auto",
                 loader: Callable | None = None):
        super().__init__(parent)
        self.model_dir = model_dir or None
        self.backend = backend or "auto"
        self._loader = loader or _load_engine
        self.state = UNLOADED
        self.engine = None
        self.error = ""
        self.details = ""
        self.pool = QThreadPool(self)
        self.pool.setMaxThreadCount(1)       # the engine is used by one call at a time
        self._then: list[Callable] = []
        self._else: list[Callable] = []
        self.load_seconds = 0.0

    # --- facts ----------------------------------------------------------------------------------
    @property
    def ready(self) -> bool:
        return self.state == READY

    @property
    def backend_name(self) -> str:
        return str(getattr(self.engine, "backend_name", "")) if self.engine is not None else ""

    @property
    def supports_content(self) -> bool:
        return bool(getattr(self.engine, "supports_content", False)) if self.engine is not None else False

    @property
    def languages(self) -> tuple[str, ...]:
        return tuple(getattr(self.engine, "languages", ()) or ()) if self.engine is not None else ()

    # --- loading --------------------------------------------------------------------------------
    def set_model(self, model_dir: str | None, backend: str = "auto") -> None:
        """Use another model; it loads at the next need."""
        if (model_dir or None) == self.model_dir and (backend or "auto") == self.backend:
            return
        self.model_dir, self.backend = model_dir or None, backend or "auto"
        if self.state != LOADING:
            self.state, self.engine, self.error = UNLOADED, None, ""
            self.changed.emit()

    def load(self, then: Callable | None = None, otherwise: Callable | None = None) -> None:
        """Make sure the engine is loaded, then call then(engine); otherwise(message) on failure.
        A failed load is tried again on the next call (the user may have fixed the model)."""
        if self.state == READY:
            if then:
                then(self.engine)
            return
        if then:
            self._then.append(then)
        if otherwise:
            self._else.append(otherwise)
        if self.state == LOADING:
            return
        self.state, self.error = LOADING, ""
        self.changed.emit()
        import_shared_modules()     # before any thread of ours starts (see SHARED_MODULES)
        Op(self._loader, self.model_dir, self.backend, label="load") \
            .success(self._loaded).failure(self._load_failed).run_in_background(self.pool)

    def _loaded(self, engine) -> None:
        self.engine, self.state = engine, READY
        then, self._then, self._else = self._then, [], []
        self.changed.emit()
        for cb in then:
            cb(engine)

    def _load_failed(self, error: BaseException) -> None:
        self.engine, self.state = None, FAILED
        self.error = describe_load_error(error, self.model_dir)
        self.details = f"{type(error).__name__}: {error}"
        otherwise, self._then, self._else = self._else, [], []
        self.changed.emit()
        for cb in otherwise:
            cb(self.error)

    # --- calls ----------------------------------------------------------------------------------
    def call(self, fn_name: str, *args, cancellable: bool = False, with_progress: bool = False,
             label: str = "", **kwargs) -> Op:
        """An Op calling engine.<fn_name>(...) in the engine's thread; the caller adds callbacks
        and runs it with run_in_background(host.pool)."""
        engine = self.engine
        if engine is None:
            raise RuntimeError("the engine is not loaded")
        return Op(getattr(engine, fn_name), *args, cancellable=cancellable,
                  with_progress=with_progress, label=label or fn_name, **kwargs)

    def shutdown(self, wait_ms: int = 3000) -> None:
        self.pool.waitForDone(wait_ms)


def describe_load_error(error: BaseException, model_dir: str | None) -> str:
    name = type(error).__name__
    where = f" ({model_dir})" if model_dir else ""
    if isinstance(error, ModuleNotFoundError):
        return f"the engine is not installed in this copy of Songwriter ({error.name} is missing)"
    if name == "ModelLoadError" or isinstance(error, (FileNotFoundError, OSError)):
        return f"the model could not be loaded{where}: {error}"
    return f"the engine failed to start{where}: {name}: {error}"

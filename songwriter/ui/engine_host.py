"""The engine as the window sees it: loaded lazily off the UI thread, one call at a time.

The UI imports only the engine's light API (songwriter.engine.api); the facade is loaded, and
called, inside worker threads, so the UI thread never imports the model code. Calls are typed
callables on the engine (``host.call(lambda engine: engine.suggest(...))``), as Anki's
``CollectionOp``. A missing or corrupt model leaves state "failed" with the
message; the window keeps working as an editor and says so.
"""

from __future__ import annotations

import importlib
from typing import Callable, TypeVar

from PySide6.QtCore import QObject, QThreadPool, Signal

from .worker import Op

UNLOADED, LOADING, READY, FAILED = "unloaded", "loading", "ready", "failed"
T = TypeVar("T")

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
    from songwriter.engine.api import load_engine

    return load_engine(model_dir, backend)


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

    # --- loading (another model is another host: ui/engines.py) -----------------------------------
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
    def call(self, fn: Callable[..., T], cancellable: bool = False, with_progress: bool = False,
             label: str = "") -> Op:
        """An Op calling ``fn(engine)`` in the engine's thread (with ``cancel=`` and ``progress=``
        when asked for); the caller adds callbacks and runs it with run_in_background(host.pool)."""
        engine = self.engine
        if engine is None:
            raise RuntimeError("the engine is not loaded")
        return Op(lambda **kw: fn(engine, **kw), cancellable=cancellable, with_progress=with_progress,
                  label=label)

    def shutdown(self, wait_ms: int = 3000) -> None:
        self.pool.waitForDone(wait_ms)


def describe_load_error(error: BaseException, model_dir: str | None) -> str:
    from songwriter.engine.api import ModelLoadError

    name = type(error).__name__
    where = f" ({model_dir})" if model_dir else ""
    if isinstance(error, ModuleNotFoundError):
        return f"the engine is not installed in this copy of Songwriter ({error.name} is missing)"
    if isinstance(error, (ModelLoadError, OSError)):
        return f"the model could not be loaded{where}: {error}"
    return f"the engine failed to start{where}: {name}: {error}"

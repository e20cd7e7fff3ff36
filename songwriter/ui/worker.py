"""Run facade calls off the UI thread and deliver results by signal (Anki's CollectionOp style).

    Op(engine.generate, request, cancellable=True, with_progress=True) \\
        .success(on_done).failure(on_error).progress(on_progress) \\
        .run_in_background(pool)

The function runs in a QThreadPool thread; success/failure/progress callbacks run on the UI
thread (the Op is a QObject living there, so the queued signals land in its slots). ``cancel()``
sets the threading.Event passed to the function as ``cancel=``; ``progress=`` receives a callable
that forwards whatever the function reports.
"""

from __future__ import annotations

import threading
import time
import traceback
from typing import Any, Callable

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal, Slot

_live: set["Op"] = set()   # keeps running ops (and their callbacks) alive until they report


class Op(QObject):
    _succeeded = Signal(object)
    _failed = Signal(object)
    _progressed = Signal(object)

    def __init__(self, fn: Callable[..., Any], *args, cancellable: bool = False,
                 with_progress: bool = False, label: str = "", **kwargs):
        super().__init__()
        self.fn, self.args, self.kwargs = fn, args, kwargs
        self.label = label
        self.cancel_event = threading.Event() if cancellable else None
        self.with_progress = with_progress
        self._on_success: list[Callable[[Any], None]] = []
        self._on_failure: list[Callable[[BaseException], None]] = []
        self._on_progress: list[Callable[[Any], None]] = []
        self._on_finally: list[Callable[[], None]] = []
        self.started_at = 0.0
        self.elapsed = 0.0
        self.done = False
        self.traceback = ""
        self._succeeded.connect(self._deliver_success)
        self._failed.connect(self._deliver_failure)
        self._progressed.connect(self._deliver_progress)

    # --- building -------------------------------------------------------------------------------
    def success(self, cb: Callable[[Any], None]) -> "Op":
        self._on_success.append(cb)
        return self

    def failure(self, cb: Callable[[BaseException], None]) -> "Op":
        self._on_failure.append(cb)
        return self

    def progress(self, cb: Callable[[Any], None]) -> "Op":
        self._on_progress.append(cb)
        return self

    def finally_(self, cb: Callable[[], None]) -> "Op":
        self._on_finally.append(cb)
        return self

    def cancel(self) -> None:
        if self.cancel_event is not None:
            self.cancel_event.set()

    @property
    def cancelled(self) -> bool:
        return self.cancel_event is not None and self.cancel_event.is_set()

    # --- running --------------------------------------------------------------------------------
    def run_in_background(self, pool: QThreadPool | None = None) -> "Op":
        _live.add(self)
        self.started_at = time.perf_counter()
        (pool or QThreadPool.globalInstance()).start(_Runnable(self))
        return self

    def _report_progress(self, *args) -> None:
        self._progressed.emit(args[0] if len(args) == 1 else args)

    def _work(self) -> None:
        kwargs = dict(self.kwargs)
        if self.cancel_event is not None:
            kwargs["cancel"] = self.cancel_event
        if self.with_progress:
            kwargs["progress"] = self._report_progress
        try:
            result = self.fn(*self.args, **kwargs)
        except BaseException as e:  # delivered to the UI thread, never lost in the worker
            self.traceback = traceback.format_exc()
            self.elapsed = time.perf_counter() - self.started_at
            self._failed.emit(e)
            return
        self.elapsed = time.perf_counter() - self.started_at
        self._succeeded.emit(result)

    # --- delivering (UI thread) -----------------------------------------------------------------
    @Slot(object)
    def _deliver_success(self, result) -> None:
        try:
            for cb in self._on_success:
                cb(result)
        finally:
            self._finish()

    @Slot(object)
    def _deliver_failure(self, error) -> None:
        try:
            if not self._on_failure:
                import sys
                print(f"songwriter: background task failed:\n{self.traceback}", file=sys.stderr)
            for cb in self._on_failure:
                cb(error)
        finally:
            self._finish()

    @Slot(object)
    def _deliver_progress(self, value) -> None:
        if self.done:
            return
        for cb in self._on_progress:
            cb(value)

    def _finish(self) -> None:
        self.done = True
        try:
            for cb in self._on_finally:
                cb()
        finally:
            _live.discard(self)


class _Runnable(QRunnable):
    def __init__(self, op: Op):
        super().__init__()
        self.op = op
        self.setAutoDelete(True)

    def run(self) -> None:
        self.op._work()


def progress_fraction(value) -> float | None:
    """Best effort: a progress report -> fraction 0..1 (accepts x, (done, total), dicts)."""
    try:
        if isinstance(value, dict):
            if "fraction" in value:
                return float(value["fraction"])
            if "done" in value and value.get("total"):
                return float(value["done"]) / float(value["total"])
            return None
        if isinstance(value, (tuple, list)):
            nums = [v for v in value if isinstance(v, (int, float)) and not isinstance(v, bool)]
            if len(nums) >= 2 and nums[1]:
                return max(0.0, min(1.0, float(nums[0]) / float(nums[1])))
            if len(nums) == 1:
                value = nums[0]
            else:
                return None
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            v = float(value)
            return max(0.0, min(1.0, v / 100.0 if v > 1.0 else v))
    except (TypeError, ValueError, ZeroDivisionError):
        return None
    return None

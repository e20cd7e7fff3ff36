"""A guard for a PySide6 6.12.0 defect on Python 3.11.

PySide6-Essentials 6.12.0's wheels return None from every void method without taking a
reference (harmless on Python 3.12+, where None is immortal). On 3.11 each call such as
QPainter.setPen or QWidget.resize drops None's reference count by one, and after some tens of
thousands of calls the interpreter aborts ("none_dealloc: deallocating None"): a desktop app that
paints would die within minutes. Until the dependency pin excludes 6.12.0, this gives None the
same effectively-immortal count Python 3.12 gives it. None is a static object that is never
freed, so a larger count changes nothing else. Applied only on Python < 3.12 with PySide6 6.12.x.
"""

from __future__ import annotations

import sys

_applied = False


def guard_none_refcount() -> bool:
    global _applied
    if _applied or sys.version_info >= (3, 12):
        return _applied
    try:
        import PySide6
    except ImportError:
        return False
    if not str(getattr(PySide6, "__version__", "")).startswith("6.12"):
        return False
    import ctypes

    ctypes.c_ssize_t.from_address(id(None)).value += 1 << 40
    _applied = True
    return True

"""Preferences (QSettings, INI format) and the user data dir (QStandardPaths) for recovery files."""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import QSettings, QStandardPaths

ORG = "Songwriter"
APP = "Songwriter"
MAX_RECENT = 10

DEFAULTS = {
    "language": "",            # "" = from the system locale, "en" or "zh"
    "candidates": 8,
    "temperature": 1.0,
    "top_k": 32,
    "top_p": 0.95,
    "line_choices": 4,         # drafts of each line per candidate, the likeliest kept
    "autosave_seconds": 60,
    "model_dir": "",
    "backend": "auto",
    "last_form": "",           # the form the writer last chose: a new piece starts in it
    "form_notation_open": False,   # the Form panel's notation editor unfolded
}


_scratch: dict | None = None     # while the user's settings are kept as they are: this run's own


def settings() -> QSettings:
    return QSettings(QSettings.IniFormat, QSettings.UserScope, ORG, APP)


def keep_unchanged(on: bool = True) -> None:
    """Leave the user's settings as they are for the rest of this run (``main.py --screenshot``):
    they are still read, and what the run writes (a recent file, the last folder, the window's
    geometry) is kept for the run alone."""
    global _scratch
    _scratch = {} if on else None


def _stored(key: str, default=None):
    if _scratch is not None and key in _scratch:
        return _scratch[key]
    return settings().value(key, default)


def get(key: str):
    default = DEFAULTS.get(key)
    value = _stored(key, default)
    if isinstance(default, bool):
        return value in (True, "true", "1", 1)
    if isinstance(default, int):
        try:
            return int(value)
        except (TypeError, ValueError):
            return default
    if isinstance(default, float):
        try:
            return float(value)
        except (TypeError, ValueError):
            return default
    return value if value is not None else default


def put(key: str, value) -> None:
    if _scratch is not None:
        _scratch[key] = value
        return
    s = settings()
    s.setValue(key, value)
    s.sync()


def recent_files() -> list[str]:
    value = _stored("recent", [])
    if isinstance(value, str):
        value = [value]
    return [str(v) for v in (value or []) if v]


def add_recent(path: str) -> list[str]:
    path = str(Path(path).resolve())
    items = [p for p in recent_files() if p != path]
    items.insert(0, path)
    put("recent", items[:MAX_RECENT])
    return items[:MAX_RECENT]


def clear_recent() -> None:
    put("recent", [])


def data_dir() -> Path:
    """Where recovery files go: $SONGWRITER_DATA_DIR, else the platform's app data dir."""
    env = os.environ.get("SONGWRITER_DATA_DIR")
    if env:
        return Path(env)
    loc = QStandardPaths.writableLocation(QStandardPaths.AppDataLocation)
    return Path(loc) if loc else Path.home() / ".local" / "share" / APP


def recovery_dir() -> Path:
    return data_dir() / "recovery"


def recovery_file(pid: int | None = None) -> Path:
    return recovery_dir() / f"autosave-{pid or os.getpid()}.song"


def orphan_recovery_files() -> list[Path]:
    """Autosaves left by Songwriter processes that are no longer running (a crash)."""
    out = []
    d = recovery_dir()
    if not d.is_dir():
        return out
    for p in sorted(d.glob("autosave-*.song"), key=lambda p: p.stat().st_mtime, reverse=True):
        try:
            pid = int(p.stem.split("-", 1)[1])
        except ValueError:
            continue
        if pid != os.getpid() and not _alive(pid):
            out.append(p)
    return out


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OSError:
        return False
    return True

"""Writing a file so that a crash or a full disk never leaves half of it: projects, recovery
files and exports all go through ``write_atomic``."""

from __future__ import annotations

import errno
import os
import tempfile
import time
from pathlib import Path

TMP_SUFFIX = ".tmp"


def write_atomic(path: str | os.PathLike, data: str | bytes) -> None:
    """Write to a temporary file beside the target, flush it to disk, then rename over the target
    and flush the folder, so a crash leaves either the old file or the new one, never half of one.
    A new file gets the user's umask (an existing one keeps its mode); temporary files that
    interrupted saves of the same file left behind are removed."""
    p = Path(path)
    make_folder(p.parent)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    # the process id in the name tells a later save whether the writer of a leftover is gone
    fd, tmp = tempfile.mkstemp(prefix=f"{_tmp_prefix(p)}{os.getpid()}.", suffix=TMP_SUFFIX, dir=p.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(payload)
            f.flush()
            os.fsync(f.fileno())
        try:
            # mkstemp makes the file 0600; a project should have the mode any file of the user has
            os.chmod(tmp, (p.stat().st_mode & 0o777) if p.exists() else (0o666 & ~_umask()))
        except OSError:
            pass
        os.replace(tmp, p)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    _fsync_folder(p.parent)
    remove_stale_temporaries(p)


def make_folder(folder: Path) -> None:
    """Make ``folder`` and the folders above it that are missing. Where a part of the path is a
    file, the OSError says which (mkdir alone says "File exists" or "Not a directory")."""
    for part in (folder, *folder.parents):
        if part.exists():
            if not part.is_dir():
                raise NotADirectoryError(errno.ENOTDIR, f"{part} is a file, not a folder", str(folder))
            break
    folder.mkdir(parents=True, exist_ok=True)


def _tmp_prefix(p: Path) -> str:
    # hidden (a leading dot) and named after the target, so a file manager does not show it
    return f".{p.name}."


def remove_stale_temporaries(path: str | os.PathLike) -> list[Path]:
    """Remove ``.<name>.<pid>.*.tmp`` files beside ``path`` whose writing process is gone (a save
    killed halfway). A temporary of a process still running is left alone: it may be saving."""
    p = Path(path)
    removed = []
    prefix = _tmp_prefix(p)
    try:
        candidates = list(p.parent.glob(f"{glob_escape(prefix)}*{TMP_SUFFIX}"))
    except OSError:
        return removed
    for tmp in candidates:
        pid_text = tmp.name[len(prefix):].split(".", 1)[0]
        if pid_text.isdigit():
            if int(pid_text) == os.getpid() or process_running(int(pid_text)):
                continue
        else:   # the names of older versions carry no process id: gone when an hour old
            try:
                if tmp.stat().st_mtime > time.time() - 3600:
                    continue
            except OSError:
                continue
        try:
            tmp.unlink()
            removed.append(tmp)
        except OSError:
            pass
    return removed


def glob_escape(text: str) -> str:
    """``text`` matched literally by Path.glob (a file name may hold * ? [)."""
    return "".join(f"[{c}]" if c in "*?[" else c for c in text)


def process_running(pid: int) -> bool:
    """Does a process with this id exist? (Signal 0 asks without sending anything.)"""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:        # no permission to signal it: it exists
        return True
    return True


def _umask() -> int:
    """The process's umask, read without changing it where the system says it (Linux)."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    # elsewhere it can only be read by setting it; another thread creating a file in between
    # would get 022, which is the usual umask anyway
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _fsync_folder(folder: Path) -> None:
    """Flush the folder's entry for the renamed file (POSIX; elsewhere a no-op)."""
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)

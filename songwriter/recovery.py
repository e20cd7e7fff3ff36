"""Autosave and crash recovery, without Qt: while a piece has unsaved changes a running Songwriter
keeps them in ``autosave-<pid>.song``; at start, the files of Songwriters that did not close
normally are offered back. What cannot be read is set aside, never deleted."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from songwriter import document as D
from songwriter.document import Document, DocumentError
from songwriter.session import Done, Note, Session, note

RECOVERY_PREFIX = "autosave-"
UNREADABLE_SUFFIX = ".unreadable"


@dataclass
class FoundRecovery:
    """A recovery file left by a Songwriter that did not close normally."""
    path: Path
    doc: Document | None = None
    original_path: str | None = None     # where the piece was saved before, if it was
    time: str = ""
    error: str = ""                      # why it cannot be read ("" when doc is set)


class RecoveryStore:
    """Recovery files in one folder: ``autosave-<pid>.song`` per running Songwriter. What cannot
    be read is never deleted: it is set aside (renamed ``….unreadable``) and the writer is told."""

    def __init__(self, folder: Path, pid: int | None = None, alive: Callable[[int], bool] | None = None):
        self.folder = Path(folder)
        self.pid = pid or os.getpid()
        self._alive = alive or D.process_running

    @property
    def own_file(self) -> Path:
        return self.folder / f"{RECOVERY_PREFIX}{self.pid}{D.SUFFIX}"

    def write(self, session: Session) -> Done:
        """Write the session's unsaved work (nothing when all is saved or unchanged since)."""
        if not session.is_modified():
            self.remove()
            session._autosaved_index = None
            return Done(False)
        if session._autosaved_index == session.history.index and self.own_file.exists():
            return Done(False)
        data = session.doc.to_dict()
        data["recovery"] = {"path": str(session.path) if session.path else None, "time": D.now_iso()}
        try:
            D.write_atomic(self.own_file, json.dumps(data, ensure_ascii=False, indent=1))
        except OSError as e:
            return Done(False, note("Autosave failed: {e}", e=e.strerror or str(e)))
        session._autosaved_index = session.history.index
        return Done(True)

    def remove(self) -> None:
        try:
            self.own_file.unlink()
        except OSError:
            pass

    def orphans(self) -> list[FoundRecovery]:
        """Recovery files of Songwriters no longer running, newest first, each read (or not)."""
        if not self.folder.is_dir():
            return []
        found = []
        for p in self.folder.glob(f"{RECOVERY_PREFIX}*{D.SUFFIX}"):
            try:
                pid = int(p.stem[len(RECOVERY_PREFIX):])
                mtime = p.stat().st_mtime
            except (ValueError, OSError):
                continue
            if pid != self.pid and not self._alive(pid):
                found.append((mtime, p))
        return [read_recovery(p) for _, p in sorted(found, reverse=True)]

    def set_aside(self, found: FoundRecovery) -> Path | None:
        """Keep a recovery file that could not be used under a name that is not offered again."""
        target = found.path.with_name(found.path.name + UNREADABLE_SUFFIX)
        k = 1
        while target.exists():
            target = found.path.with_name(f"{found.path.name}.{k}{UNREADABLE_SUFFIX}")
            k += 1
        try:
            os.replace(found.path, target)
        except OSError:
            return None
        return target

    def discard(self, found: FoundRecovery) -> None:
        try:
            found.path.unlink()
        except OSError:
            pass

    def recover(self, session: Session, found: FoundRecovery) -> Done:
        """Open recovered work as an unsaved piece. It is not tied to the path named inside the
        recovery file: Save asks where (that path is offered), so nothing is written unasked."""
        if found.doc is None:
            return Done(False, Note(found.error))
        session.replace(found.doc, None, recovered=True)
        if found.original_path:
            session.suggested_path = Path(found.original_path)
        self.discard(found)
        self.write(session)
        name = Path(found.original_path).name if found.original_path else (found.doc.title or "")
        return Done(True, note("Recovered unsaved work on {name}: save it to keep it",
                               name=name or note("an untitled piece")))


def _naming(path: Path, why: str) -> str:
    """Why a recovery file cannot be read, its name said once: the JSON reader names the file
    itself ("autosave-7.song is not valid JSON"), the other checks do not."""
    return why if why.startswith(path.name) else f"{path.name}: {why}"


def read_recovery(path: Path) -> FoundRecovery:
    """A recovery file read through the same checks as a project (``Document.from_dict``), plus
    its ``recovery`` record; what cannot be read comes back with ``error`` set, never raised."""
    from songwriter.validate import Fields, parse_json

    try:
        size = path.stat().st_size
        if size > D.MAX_FILE_BYTES:
            return FoundRecovery(path, error=f"{path.name} is {size:,} bytes, too large for a project")
        data = parse_json(path.read_bytes(), path.name, error=DocumentError)
        doc = Document.from_dict(data)
        info = Fields(data, "", DocumentError).object("recovery", None, null=True)
        original = info.string("path", None, max_len=4096, null=True) if info else None
        when = info.string("time", "", max_len=64) if info else ""
    except OSError as e:
        return FoundRecovery(path, error=_naming(path, e.strerror or str(e)))
    except DocumentError as e:
        return FoundRecovery(path, error=_naming(path, str(e)))
    except Exception as e:   # a check the layer does not make yet: still never stop the app
        return FoundRecovery(path, error=_naming(path, f"{type(e).__name__}: {e}"))
    return FoundRecovery(path, doc, original, when[:19].replace("T", " "))

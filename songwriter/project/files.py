"""Loading and saving ``.song`` files. Loading refuses anything that is not a readable project
with one DocumentError that names the file and says why; saving is atomic (``atomic``)."""

from __future__ import annotations

import os
from pathlib import Path

from songwriter.project.atomic import write_atomic
from songwriter.project.document import Document
from songwriter.project.schema import MAX_FILE_BYTES, DocumentError, NotAProjectError, now_iso


def load(path: str | os.PathLike) -> Document:
    """Read a .song file; DocumentError (with the file name) on anything wrong."""
    p = Path(path)
    try:
        size = p.stat().st_size
        if p.is_dir():
            raise DocumentError(f"{p.name} is a folder, not a project file")
        if size > MAX_FILE_BYTES:
            raise DocumentError(f"{p.name} is {size:,} bytes, too large for a project file")
        raw = p.read_bytes()
    except FileNotFoundError:
        raise DocumentError(f"{p}: no such file") from None
    except PermissionError:
        raise DocumentError(f"{p}: permission denied") from None
    except OSError as e:
        raise DocumentError(f"{p}: cannot read ({e.strerror or e})") from None
    try:
        text = raw.decode("utf-8-sig")      # a byte-order mark from a Windows editor is harmless
    except UnicodeDecodeError:
        raise NotAProjectError(f"{p.name} is not a Songwriter project: not UTF-8 text") from None
    if not text.strip():
        raise NotAProjectError(f"{p.name} is empty, not a Songwriter project (.song)")
    if not text.lstrip().startswith(("{", "[")):
        # a project is a JSON object: text that does not even start as JSON is a poem, lyrics or
        # another program's file, not a damaged project
        raise NotAProjectError(f"{p.name} is not a Songwriter project (.song): it holds plain text, not a project's JSON")
    try:
        return Document.from_json(text)
    except DocumentError as e:
        raise DocumentError(f"{p.name}: {e}") from None
    except RecursionError:
        raise DocumentError(f"{p.name} is not a Songwriter project: its JSON is nested too deeply") from None
    except (TypeError, ValueError, KeyError, AttributeError) as e:
        # a field of the wrong type that the checks above do not name yet: still a clear refusal
        raise DocumentError(f"{p.name}: the project is malformed ({type(e).__name__}: {e})") from None


def save(doc: Document, path: str | os.PathLike) -> None:
    doc.modified = now_iso()
    write_atomic(path, doc.to_json())

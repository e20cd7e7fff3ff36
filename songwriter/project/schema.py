"""What a ``.song`` file is: its format id, schema version and the limits on what it holds, and
the error every part of the project raises. See docs/file-format.md."""

from __future__ import annotations

from datetime import datetime, timezone

from songwriter.template import FREE

FORMAT_ID = "songwriter-project"
SCHEMA_VERSION = 1
SUFFIX = ".song"
MAX_FILE_BYTES = 50_000_000
MAX_CANDIDATES = 64      # kept in the project, newest first
MAX_HISTORY = 200
# What a project file may hold when read (more is refused, naming the field): room to spare over
# what Songwriter writes, small enough that nothing read can stall the app.
MAX_TEXT_CHARS = 2_000_000
MAX_CANDIDATES_READ = 10_000
MAX_HISTORY_READ = 100_000
MAX_CONTENT = 64
MAX_STRENGTH = 100.0
HOLE = FREE              # an empty Chinese cell in the text (the template notation's own mark)


class DocumentError(ValueError):
    """A project file that cannot be read, or an edit that cannot be made; the message says why."""


class NotAProjectError(DocumentError):
    """A file that is no Songwriter project at all (a poem, lyrics, another program's file), as
    opposed to a project that is damaged: a caller may say what to do with such a file."""


def now_iso() -> str:
    """The local time with its UTC offset, to the second: how the file records when things happened."""
    return datetime.now(timezone.utc).astimezone().isoformat(timespec="seconds")

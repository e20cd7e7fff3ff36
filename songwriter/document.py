"""The song being written: template + text + locks + candidates + history, and ``.song`` files.

A ``.song`` file is UTF-8 JSON a person can read (see docs/file-format.md)::

    {"format": "songwriter-project", "schema_version": 1, "title": ..., "template": {...},
     "text": "line 1\\nline 2\\n...", "content": [...], "strength": 0.0,
     "candidates": [...], "history": [...], "original": {...} | null}

The text keeps exactly one line per template line (an unwritten line is an empty line); in
Chinese an empty cell inside a line is written ``_`` (as in the template notation). Locks live
in the template (``Slot.lock``). No Qt, no torch.

The work is done in ``songwriter.project`` (one job per module, listed there); this module keeps
the names the rest of the app has always imported from here.
"""

# os is imported here only so that ``document.os`` stays what tests patch (os.replace in a
# failing save); syllable_units because the session layer reads it from here
import os  # noqa: F401

from songwriter.project.atomic import (
    TMP_SUFFIX, glob_escape, process_running, remove_stale_temporaries, write_atomic,
)
from songwriter.project.codec import app_version as _app_version
from songwriter.project.document import Document, new_document
from songwriter.project.files import load, save
from songwriter.project.form_edits import FormChange
from songwriter.project.layout import WordPlace, compose_zh, en_word_layout, zh_units
from songwriter.project.line_status import LineStatus, line_statuses
from songwriter.project.records import CandidateRecord, HistoryEntry, Original, form_signature
from songwriter.project.schema import (
    FORMAT_ID, HOLE, MAX_CANDIDATES, MAX_CANDIDATES_READ, MAX_CONTENT, MAX_FILE_BYTES, MAX_HISTORY,
    MAX_HISTORY_READ, MAX_STRENGTH, MAX_TEXT_CHARS, SCHEMA_VERSION, SUFFIX, DocumentError, now_iso,
)
from songwriter.template import syllable_units

__all__ = [
    "CandidateRecord", "Document", "DocumentError", "FORMAT_ID", "FormChange", "HOLE", "HistoryEntry",
    "LineStatus", "MAX_CANDIDATES", "MAX_CANDIDATES_READ", "MAX_CONTENT", "MAX_FILE_BYTES", "MAX_HISTORY",
    "MAX_HISTORY_READ", "MAX_STRENGTH", "MAX_TEXT_CHARS", "Original", "SCHEMA_VERSION", "SUFFIX",
    "TMP_SUFFIX", "WordPlace", "compose_zh", "en_word_layout", "form_signature", "glob_escape",
    "line_statuses", "load", "new_document", "now_iso", "process_running", "remove_stale_temporaries",
    "save", "syllable_units", "write_atomic", "zh_units", "_app_version",
]

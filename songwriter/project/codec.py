"""A Document as JSON, and back. The JSON is what a ``.song`` file holds (docs/file-format.md);
reading it checks every field through the shared validation layer (``songwriter.validate``), so a
malformed or hostile file is refused with a message naming the field, never half read.

The functions take the class to build (``Document``) rather than importing it, so that the
document module can call them without an import cycle."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, TypeVar

from songwriter.project import steering
from songwriter.project.records import CandidateRecord, HistoryEntry, Original
from songwriter.project.schema import (
    FORMAT_ID, MAX_CANDIDATES, MAX_CANDIDATES_READ, MAX_CONTENT, MAX_HISTORY, MAX_HISTORY_READ,
    MAX_STRENGTH, MAX_TEXT_CHARS, SCHEMA_VERSION, DocumentError, now_iso,
)
from songwriter.template import MAX_NAME_CHARS, TemplateError, from_dict as template_from_dict, to_dict as template_to_dict
from songwriter.validate import Fields, check_depth, parse_json

if TYPE_CHECKING:
    from songwriter.project.document import Document

D = TypeVar("D", bound="Document")


def app_version() -> str:
    """The installed Songwriter's version, written into each file (\"0\" when not installed)."""
    try:
        from importlib.metadata import version

        return version("songwriter")
    except Exception:
        return "0"


def to_dict(doc: Document) -> dict:
    return {
        "format": FORMAT_ID,
        "schema_version": SCHEMA_VERSION,
        "app_version": app_version(),
        "title": doc.title,
        "created": doc.created,
        "modified": doc.modified,
        "template": template_to_dict(doc.template),
        "text": doc.text,
        "content": list(doc.content),
        "strength": doc.strength,
        **steering.to_dict(doc),
        "notes": doc.notes,
        "original": doc.original.to_dict() if doc.original else None,
        "candidates": [c.to_dict() for c in doc.candidates],
        "history": [h.to_dict() for h in doc.history],
    }


def to_json(doc: Document) -> str:
    # indented, and not ASCII-escaped: a person can read the file, Chinese included
    return json.dumps(to_dict(doc), ensure_ascii=False, indent=1) + "\n"


def from_dict(data: dict, cls: type[D]) -> D:
    """A project from its JSON form; DocumentError naming the field on anything malformed."""
    if not isinstance(data, dict):
        raise DocumentError("not a Songwriter project: the file holds no JSON object")
    if data.get("format") not in (FORMAT_ID, None) or "template" not in data:
        raise DocumentError("not a Songwriter project: it has no template")
    version = data.get("schema_version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise DocumentError(f"not a Songwriter project: schema_version is {version!r}, not a whole number")
    if version > SCHEMA_VERSION:
        raise DocumentError(
            f"this project was written by a newer Songwriter (file format {version}; this version "
            f"reads up to {SCHEMA_VERSION}). Update Songwriter to open it; the file was not changed.")
    check_depth(data, "the project", DocumentError)
    f = Fields(data, "", DocumentError)
    try:
        template = template_from_dict(data["template"])
        from songwriter.melody.model import melody_of

        melody_of(template)        # a melody kept with the template (meta.melody) is checked too
    except TemplateError as e:
        raise DocumentError(f"the project's template is malformed: {e}") from None
    history = [HistoryEntry.from_dict(h, where)
               for where, h in f.items("history", (), max_items=MAX_HISTORY_READ, null=True)]
    candidates = [CandidateRecord.from_dict(c, where)
                  for where, c in f.items("candidates", (), max_items=MAX_CANDIDATES_READ, null=True)]
    original = f.object("original", None, null=True)
    # what is read past the limits the app keeps (MAX_CANDIDATES, MAX_HISTORY) is dropped, as the
    # app would have dropped it; null in an optional field reads as its default
    doc = cls(template=template, title=f.string("title", "", max_len=MAX_NAME_CHARS, null=True) or "",
              content=f.strings("content", [], max_items=MAX_CONTENT, max_len=MAX_TEXT_CHARS, null=True) or [],
              strength=f.number("strength", 0.0, lo=-MAX_STRENGTH, hi=MAX_STRENGTH, null=True) or 0.0,
              **steering.from_fields(f),
              candidates=candidates[:MAX_CANDIDATES], history=history[-MAX_HISTORY:],
              original=Original.from_dict(original.data, "original") if original else None,
              notes=f.string("notes", "", max_len=MAX_TEXT_CHARS, null=True) or "",
              created=f.string("created", "", max_len=64, null=True) or now_iso(),
              modified=f.string("modified", "", max_len=64, null=True) or "")
    doc.set_text(f.string("text", "", max_len=MAX_TEXT_CHARS))
    return doc


def from_json(text: str, cls: type[D]) -> D:
    return from_dict(parse_json(text, "the project", error=DocumentError), cls)

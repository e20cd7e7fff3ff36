"""The one validation layer for JSON that Songwriter reads: projects (``.song``), template JSON,
recovery files, model manifests and ``onnx.json``.

Every reader parses with :func:`parse_json` (a size cap, no NaN or Infinity, a nesting cap) and
reads objects through :class:`Fields`, whose getters check each field's type and range and name
the field on failure::

    f = Fields(data, "template", error=TemplateError)
    name = f.string("name", "", max_len=200)
    for where, raw in f.items("lines", max_items=400):
        line = Fields(raw, where, error=TemplateError)
        ...

A failure is one line: ``template.lines[2].rhyme: expected a string or null, got the number 1``.
Each reader passes its own error class (TemplateError, DocumentError, ModelLoadError), so callers
keep catching what they always caught. Paths read from JSON are kept inside their folder with
:func:`confined_path`. No Qt, no torch, nothing beyond the standard library.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Iterator

MAX_DEPTH = 32            # nesting of lists and objects: our files need 6
_MISSING = object()


class ValidationError(ValueError):
    """JSON that is not what the reader expects; the message names the field and what was expected."""


def describe(value) -> str:
    """A JSON value as a person reads it in an error message."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return f"the number {value!r}"
    if isinstance(value, str):
        return f"the text {value[:40]!r}" + ("…" if len(value) > 40 else "")
    if isinstance(value, list):
        return f"a list of {len(value)}"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _refuse_constant(name: str):
    raise ValueError(f"{name} is not a number JSON allows (use a finite number)")


def parse_json(text: str | bytes, what: str, max_bytes: int | None = None,
               error: type[Exception] = ValidationError):
    """Parse JSON text; ``error`` (naming ``what``) for text too large, not JSON, holding NaN or
    Infinity, or nested deeper than MAX_DEPTH."""
    if max_bytes is not None and len(text) > max_bytes:
        raise error(f"{what} is {len(text):,} bytes, more than the {max_bytes:,} allowed")
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise error(f"{what} is not UTF-8 text") from None
    try:
        data = json.loads(text, parse_constant=_refuse_constant)
    except json.JSONDecodeError as e:
        raise error(f"{what} is not valid JSON (line {e.lineno}, column {e.colno}: {e.msg})") from None
    except ValueError as e:
        raise error(f"{what}: {e}") from None
    except RecursionError:
        raise error(f"{what}: the JSON is nested too deeply (at most {MAX_DEPTH} levels)") from None
    check_depth(data, what, error)
    return data


def check_depth(data, what: str, error: type[Exception] = ValidationError, limit: int = MAX_DEPTH) -> None:
    """Refuse lists and objects nested deeper than ``limit`` (walked without recursion)."""
    stack = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict):
            children = value.values()
        elif isinstance(value, list):
            children = value
        else:
            continue
        if depth > limit:
            raise error(f"{what}: the JSON is nested too deeply (at most {limit} levels)")
        stack.extend((c, depth + 1) for c in children if isinstance(c, (dict, list)))


class Fields:
    """A JSON object read field by field. Each getter takes the key, a default used when the key
    is absent (no default: the field is required) and the limits; it returns the value or raises
    ``error`` naming the field (``where.key``) and what was expected."""

    def __init__(self, data, where: str, error: type[Exception] = ValidationError):
        self.where = where
        self.error = error
        if not isinstance(data, dict):
            raise error(f"{where}: expected an object, got {describe(data)}")
        self.data = data

    def path(self, key: str) -> str:
        """The field's name in messages: ``template.lines[2].rhyme``; a ``where`` ending in ":"
        (a file name) is followed by a space: ``models/zh/manifest.json: languages``."""
        if not self.where:
            return key
        return f"{self.where} {key}" if self.where.endswith(":") else f"{self.where}.{key}"

    def fail(self, key: str, expected: str, value=_MISSING):
        got = "nothing" if value is _MISSING else describe(value)
        raise self.error(f"{self.path(key)}: expected {expected}, got {got}")

    def _get(self, key: str, default, expected: str):
        if key in self.data:
            return self.data[key], True
        if default is _MISSING:
            self.fail(key, expected)
        return default, False

    def has(self, key: str) -> bool:
        return key in self.data

    def string(self, key: str, default=_MISSING, *, max_len: int = 10_000, null: bool = False,
               choices: tuple[str, ...] | None = None, nonempty: bool = False,
               expected: str | None = None) -> str | None:
        """``expected``: how the message describes a valid value, when the limits do not say it."""
        if expected is None:
            expected = ("one of " + ", ".join(choices)) if choices else \
                f"{'a non-empty' if nonempty else 'a'} string of at most {max_len:,} characters"
            if null and not choices:
                expected += " or null"
        value, given = self._get(key, default, expected)
        if not given or (value is None and null):
            return value
        if not isinstance(value, str) or len(value) > max_len or (nonempty and not value) \
                or (choices is not None and value not in choices):
            self.fail(key, expected, value)
        return value

    def integer(self, key: str, default=_MISSING, *, lo: int | None = None, hi: int | None = None,
                null: bool = False) -> int | None:
        expected = "a whole number" + _range(lo, hi) + (" or null" if null else "")
        value, given = self._get(key, default, expected)
        if not given or (value is None and null):
            return value
        if isinstance(value, bool) or not isinstance(value, int) or (lo is not None and value < lo) \
                or (hi is not None and value > hi):
            self.fail(key, expected, value)
        return value

    def number(self, key: str, default=_MISSING, *, lo: float | None = None, hi: float | None = None,
               null: bool = False) -> float | None:
        expected = "a finite number" + _range(lo, hi) + (" or null" if null else "")
        value, given = self._get(key, default, expected)
        if not given or (value is None and null):
            return value
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
                or (lo is not None and value < lo) or (hi is not None and value > hi):
            self.fail(key, expected, value)
        return value

    def boolean(self, key: str, default=_MISSING) -> bool:
        value, given = self._get(key, default, "true or false")
        if given and not isinstance(value, bool):
            self.fail(key, "true or false", value)
        return value

    def items(self, key: str, default=_MISSING, *, max_items: int = 10_000,
              null: bool = False) -> Iterator[tuple[str, object]]:
        """(where, item) for each item of a list field (an absent or null field: none)."""
        expected = f"a list of at most {max_items:,} items" + (" or null" if null else "")
        value, given = self._get(key, default, expected)
        if not given or (value is None and null):
            return iter(())
        if not isinstance(value, list) or len(value) > max_items:
            self.fail(key, expected, value)
        return ((f"{self.path(key)}[{i}]", item) for i, item in enumerate(value))

    def strings(self, key: str, default=_MISSING, *, max_items: int = 10_000, max_len: int = 10_000,
                null: bool = False) -> list[str] | None:
        value, given = self._get(key, default, "a list of strings")
        if given and value is None and null:
            return None
        out = []
        for where, item in self.items(key, default, max_items=max_items, null=null):
            if not isinstance(item, str) or len(item) > max_len:
                raise self.error(f"{where}: expected a string of at most {max_len:,} characters, "
                                 f"got {describe(item)}")
            out.append(item)
        return out if given else value

    def integers(self, key: str, default=_MISSING, *, lo: int | None = None, hi: int | None = None,
                 max_items: int = 10_000, null: bool = False) -> list[int] | None:
        value, given = self._get(key, default, "a list of whole numbers")
        if given and value is None and null:
            return None
        out = []
        for where, item in self.items(key, default, max_items=max_items, null=null):
            if isinstance(item, bool) or not isinstance(item, int) or (lo is not None and item < lo) \
                    or (hi is not None and item > hi):
                raise self.error(f"{where}: expected a whole number{_range(lo, hi)}, got {describe(item)}")
            out.append(item)
        return out if given else value

    def object(self, key: str, default=_MISSING, *, null: bool = False) -> "Fields | None":
        """A nested object as Fields (None when absent with default None, or null when allowed)."""
        expected = "an object" + (" or null" if null else "")
        value, given = self._get(key, default, expected)
        if not given and value is None:
            return None
        if given and value is None and null:
            return None
        if not isinstance(value, dict):
            self.fail(key, expected, value)
        return Fields(value, self.path(key), self.error)


def _range(lo, hi) -> str:
    if lo is not None and hi is not None:
        return f" from {lo} to {hi}"
    if lo is not None:
        return f" of at least {lo}"
    if hi is not None:
        return f" of at most {hi}"
    return ""


def confined_path(folder: str | Path, name, where: str, error: type[Exception] = ValidationError) -> Path:
    """``folder / name`` for a file name read from JSON, refused unless the name stays inside the
    folder: no absolute path, no ``..`` that climbs out. (A link the folder's owner put in the
    folder is theirs to make, so names are judged as written, not through links.)"""
    if not isinstance(name, str) or not name or "\0" in name:
        raise error(f"{where}: expected a file name inside {folder}, got {describe(name)}")
    normal = os.path.normpath(name)
    if os.path.isabs(name) or normal == os.curdir or normal == os.pardir or normal.startswith(os.pardir + os.sep):
        raise error(f"{where}: {name!r} is outside the folder {folder}; expected a file name inside it")
    return Path(folder) / normal


MAX_TEXT_BYTES = 5_000_000


def read_text(path: str | Path, error: type[Exception] = ValidationError, max_bytes: int = MAX_TEXT_BYTES) -> str:
    """A text file Songwriter reads (lyrics, LRC, a notation, a poem to check), at most
    ``max_bytes``, decoded by :func:`decode_text`. A failure names the file and what is wrong with
    it (missing, a folder, too large, not text)."""
    p = Path(path)
    if not p.exists():
        raise error(f"{path}: no such file")
    if p.is_dir():
        raise error(f"{path}: is a folder, not a file")
    size = p.stat().st_size
    if size > max_bytes:
        raise error(f"{path}: {size:,} bytes is too large (at most {max_bytes:,})")
    try:
        data = p.read_bytes()
    except OSError as e:
        raise error(f"{path}: {e.strerror or e}") from None
    return decode_text(data, str(path), error)


# byte-order marks, the longest first: UTF-32 LE's begins with UTF-16 LE's
_BOMS = ((b"\xff\xfe\x00\x00", "utf-32"), (b"\x00\x00\xfe\xff", "utf-32"), (b"\xef\xbb\xbf", "utf-8-sig"),
         (b"\xff\xfe", "utf-16"), (b"\xfe\xff", "utf-16"))
_BOM_NAMES = {"utf-32": "UTF-32", "utf-8-sig": "UTF-8", "utf-16": "UTF-16"}
TRIED = "UTF-8; UTF-16 and UTF-32 with a byte-order mark; GB18030 (GBK); Latin-1 (Windows-1252)"


def decode_text(data: bytes, name: str, error: type[Exception] = ValidationError) -> str:
    """The text of a file's bytes, in the first encoding that reads them as text:

    1. a byte-order mark names the encoding: UTF-8, UTF-16 or UTF-32 (LE or BE);
    2. UTF-8, which text in any other encoding almost never is by chance;
    3. GB18030 (GBK, GB2312: a Chinese Windows's "ANSI") or Windows-1252 (Latin-1: a Western
       one's). GB18030 reads almost any bytes, Latin-1 text included ("naïve" reads as "na飗e"),
       so its reading is taken for Chinese unless it looks like a misread Latin-1 text
       (``_misread_latin``) that Windows-1252 reads as text; a text Windows-1252 cannot read (the
       bytes it leaves undefined, or control characters) is GB18030's when GB18030 reads it.

    Text holding NUL or (in a legacy encoding) other control characters is not text: a binary
    file, or UTF-16 without a byte-order mark. The error names the file and what was tried, and
    says to re-save it as UTF-8."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            try:
                text = data.decode(encoding)
            except UnicodeDecodeError:
                raise error(f"{name}: starts with a {_BOM_NAMES[encoding]} byte-order mark but is not "
                            f"{_BOM_NAMES[encoding]} text; re-save it as UTF-8") from None
            return _refuse_binary(text.lstrip("\ufeff"), name, error)
    try:
        return _refuse_binary(data.decode("utf-8"), name, error)
    except UnicodeDecodeError:
        pass
    chinese, latin = _reading(data, "gb18030"), _reading(data, "cp1252")
    if chinese is not None and not (latin is not None and _misread_latin(chinese)):
        return chinese
    if latin is not None:
        return latin
    nul = ": it holds NUL bytes (a binary file, or UTF-16 without a byte-order mark)" if b"\x00" in data else ""
    raise error(f"{name}: not a text file (tried {TRIED}){nul}; if it is text, re-save it as UTF-8")


def _refuse_binary(text: str, name: str, error: type[Exception]) -> str:
    if "\x00" in text:
        raise error(f"{name}: not a text file: it holds NUL characters (a binary file, or UTF-16 without "
                    f"a byte-order mark); if it is text, re-save it as UTF-8")
    return text


_TEXT_CONTROLS = frozenset("\t\n\r\f\v\x1a")     # whitespace, and the end-of-file mark of old DOS files


def _reading(data: bytes, encoding: str) -> str | None:
    """``data`` in a legacy encoding, or None where it is not text in it (an undefined byte, a
    control character)."""
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError:
        return None
    if any((ch < " " or "\x7f" <= ch < "\xa0") and ch not in _TEXT_CONTROLS for ch in text):
        return None
    return text


def _misread_latin(text: str) -> bool:
    """Does a GB18030 reading look like Latin-1 text read as Chinese? In GB2312, which nearly all
    Chinese text keeps to, both bytes of a character are above 0x7F. An accented letter in Latin-1
    is one byte above 0x7F, and GB18030 takes it together with the letter after it (naïve ->
    na飗e, Zürich -> Z黵ich) or with a second accented letter (créée -> cr殚e): a character whose
    second byte is an ASCII letter, a character of the private use area (where GB18030 puts the
    byte pairs GBK leaves undefined), one of GB18030's four-byte sequences, or one character
    between two Latin letters. When more than half the reading's characters are such tells, the
    text is taken for Latin-1."""
    chars = tells = 0
    for i, ch in enumerate(text):
        if ch < "\x80":
            continue
        chars += 1
        raw = ch.encode("gb18030")
        inside_a_word = 0 < i < len(text) - 1 and _latin_letter(text[i - 1]) and _latin_letter(text[i + 1])
        if (len(raw) != 2 or _latin_letter(chr(raw[1])) or "\ue000" <= ch <= "\uf8ff" or inside_a_word):
            tells += 1
    return tells * 2 > chars


def _latin_letter(ch: str) -> bool:
    return "a" <= ch.lower() <= "z"

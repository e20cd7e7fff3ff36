"""The bundled fonts (assets/fonts) cover every character the app can write or offer.

A machine without a system CJK font draws Chinese only with the bundled fonts, so a character of
the Chinese model's vocabulary, of the rhyme tables the Rhymes and Words panel and the rhyme checks
read, or of the ci-pai library that the fonts lack is an empty box in the window and in PNG/PDF
exports. When this fails after a model or a table changed, rerun assets/fonts/make_subset.py (its
docstring says how) and commit the fonts it writes. The cmaps are read through Qt's QRawFont, the
way the app loads them.
"""

import json
import unicodedata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FONT_DIR = ROOT / "assets" / "fonts"
VOCAB = ROOT / "models" / "zh" / "vocab.json"
# The rhyme tables and character list (songwriter.prosody.zh_rhyme), the ci-pai library
# (songwriter.prosody.cipai).
DATA_FILES = sorted((ROOT / "assets" / "rhyme").glob("*.json")) + [ROOT / "assets" / "cipai.json"]
# Two characters of the 平水韵 / 词林正韵 tables, in CJK extension G (Unicode 13), that neither
# source face has (Noto Sans CJK 2.004, Hanazono Mincho 2017): see assets/fonts/make_subset.py.
KNOWN_UNCOVERED = {"\U00030B38", "\U00030F84"}


def is_cjk(c: str) -> bool:
    """A Han ideograph, radical, or CJK/full-width punctuation or symbol."""
    o = ord(c)
    return (unicodedata.name(c, "").startswith(("CJK ", "KANGXI RADICAL"))
            or 0x3000 <= o <= 0x303F or 0xFF00 <= o <= 0xFFEF or 0xFE30 <= o <= 0xFE4F)


def vocab_chars() -> set[str]:
    tokens = json.loads(VOCAB.read_text(encoding="utf-8"))["tokens"]
    return {c for t in tokens if not (t.startswith("<") and t.endswith(">")) for c in t}


def data_chars() -> set[str]:
    return {c for p in DATA_FILES for c in p.read_text(encoding="utf-8")}


@pytest.fixture(scope="module")
def bundled():
    """supports(ch) -> whether any bundled font's cmap maps ch to a glyph."""
    from PySide6.QtGui import QRawFont

    from songwriter.export.fonts import ensure_gui_app

    ensure_gui_app()
    paths = sorted(FONT_DIR.glob("*.otf")) + sorted(FONT_DIR.glob("*.ttf"))
    raws = [QRawFont(str(p), 16.0) for p in paths]
    assert paths and all(r.isValid() for r in raws), paths
    return lambda ch: any(r.supportsCharacter(ord(ch)) for r in raws)


def _missing(chars: set[str], supports) -> str:
    missing = sorted(c for c in chars if not supports(c))
    return f"{len(missing)} characters missing from assets/fonts: {''.join(missing[:80])}"


def test_every_character_of_the_chinese_vocabulary_renders(bundled):
    chars = vocab_chars()
    assert sum(map(is_cjk, chars)) > 9000      # the file read as the engine reads it
    missing = {c for c in chars if not bundled(c)}
    assert not missing, _missing(missing, bundled)


def test_every_character_of_the_rhyme_tables_and_cipai_library_renders(bundled):
    chars = {c for c in data_chars() if is_cjk(c)}
    assert len(chars) > 10000 and "愔" in chars
    missing = {c for c in chars - KNOWN_UNCOVERED if not bundled(c)}
    assert not missing, _missing(missing, bundled)


def test_rare_ideographs_are_drawn_from_the_bundled_supplement():
    """Characters outside Noto Sans CJK (遶 is in it; 𠇗, 𣊓 of the vocabulary are not) are drawn
    from the bundled supplement through font()'s family list, not as Noto's empty box."""
    from PySide6.QtGui import QTextLayout

    from songwriter.export.fonts import cjk_families, font

    text = "遶曈昽愔𠇗𣊓"
    assert set(text) <= vocab_chars() | data_chars()
    layout = QTextLayout(text, font(12))
    layout.beginLayout()
    layout.createLine()
    layout.endLayout()
    runs = layout.glyphRuns()
    assert {r.rawFont().familyName() for r in runs} <= set(cjk_families())
    assert all(g != 0 for r in runs for g in r.glyphIndexes())         # glyph 0 is .notdef
    assert sum(len(r.glyphIndexes()) for r in runs) == len(text)

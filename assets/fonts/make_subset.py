"""Derive the bundled CJK fonts (NotoSansSC-Subset.otf, HanSupplement-Subset.ttf) from Debian's fonts.

Run by hand when the character set should change (a new model vocabulary, new rhyme tables or
ci-pai library, new interface text); the results are committed to assets/fonts/, and
tests/test_font_coverage.py fails when a shipped file holds a character the fonts lack.

    apt-get download fonts-noto-cjk fonts-hanazono
    dpkg-deb -x fonts-noto-cjk_*.deb x && dpkg-deb -x fonts-hanazono_*.deb x
    pip install fonttools
    python assets/fonts/make_subset.py x/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc \\
        x/usr/share/fonts/truetype/hanazono/HanaMinA.ttf x/usr/share/fonts/truetype/hanazono/HanaMinB.ttf

Character set: the fixed part is printable ASCII and Latin-1, general punctuation, CJK symbols
and punctuation, full-width forms, the tone/slot marks the app draws (○ ● ─ │ …), every character
of GB 2312 (6,763 hanzi: the common simplified set) and the frequent traditional characters of
Big5 level 1 (so classical texts kept in traditional script still render). To it is added, read
from the shipped files when the script runs, every character the app can write or offer:

  - every token of each model's vocabulary (models/*/vocab.json, "tokens"; the Chinese model's
    are single characters, over 9,600 of them, some 3,300 outside GB 2312 and Big5 level 1),
  - every character of the rhyme tables the Rhymes and Words panel and the rhyme checks read
    (assets/rhyme/*.json: 平水韵 and 词林正韵 groups with their traditional forms, the
    character list by commonness), of the ci-pai library (assets/cipai.json) and of the English
    word list (assets/en_words.txt),
  - every character of the app's Python source (songwriter/**/*.py: interface text and its
    Chinese translation, rhyme group names such as 寘 祃 豏 麌, marks).

They are read from the files rather than listed here so that the fonts stay right when a model is
retrained or a table rebuilt: rerun this script and commit its output.

Faces: the set is cut from Noto Sans CJK SC (SIL Open Font License 1.1, see OFL.txt; Noto
declares no Reserved Font Name, so the subset keeps the family name "Noto Sans CJK SC"). About 340
of the rarer characters (CJK extensions A to F, mostly B and C, from the vocabulary and the rhyme
tables) are not in Noto Sans CJK at all; those ideographs are cut from Hanazono Mincho (HanaMinA
and HanaMinB, GlyphWiki Project, used under the Hanazono Font License, see HANAZONO-LICENSE.txt)
into HanSupplement-Subset.ttf, family "Songwriter Han Supplement", which songwriter.export.fonts
puts after Noto in every font's family list. Only ideographs come from there: other characters
Noto lacks are left to the system's fonts. Two characters of the rhyme tables, 𰬸 and 𰾄 (CJK
extension G, Unicode 13), are in neither face and stay uncovered.
"""

from __future__ import annotations

import json
import sys
import unicodedata
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
OUT = HERE / "NotoSansSC-Subset.otf"
SUPPLEMENT_OUT = HERE / "HanSupplement-Subset.ttf"
SUPPLEMENT_FAMILY = "Songwriter Han Supplement"
SC_INDEX = 2  # face index of "Noto Sans CJK SC" inside NotoSansCJK-Regular.ttc


def _codec_chars(codec: str, lead: range, trail: range) -> set[str]:
    chars: set[str] = set()
    for a in lead:
        for b in trail:
            try:
                chars.update(bytes([a, b]).decode(codec))
            except UnicodeDecodeError:
                pass
    return chars


def app_files(root: Path = ROOT) -> list[Path]:
    """The shipped files whose characters the app writes or shows (see the module docstring)."""
    return (sorted(root.glob("models/*/vocab.json")) + sorted(root.glob("assets/rhyme/*.json"))
            + [root / "assets" / "cipai.json", root / "assets" / "en_words.txt"]
            + sorted((root / "songwriter").rglob("*.py")))


def app_chars(root: Path = ROOT) -> set[str]:
    """Every character of app_files(); of a vocabulary, the characters of its tokens (the
    special tokens such as <pad> are ASCII, already in the fixed set)."""
    chars: set[str] = set()
    for path in app_files(root):
        text = path.read_text(encoding="utf-8")
        if path.name == "vocab.json":
            text = "".join(json.loads(text)["tokens"])
        chars.update(text)
    return chars


def charset() -> set[str]:
    chars = {chr(c) for c in range(0x20, 0x7F)} | {chr(c) for c in range(0xA0, 0x180)}
    for lo, hi in ((0x2000, 0x206F), (0x2190, 0x21FF), (0x2500, 0x257F), (0x25A0, 0x25FF),
                   (0x2600, 0x26FF), (0x3000, 0x303F), (0xFF00, 0xFFEF), (0x2460, 0x24FF),
                   (0x02B0, 0x02FF), (0x0300, 0x036F)):
        chars |= {chr(c) for c in range(lo, hi + 1)}
    chars |= _codec_chars("gb2312", range(0xA1, 0xF8), range(0xA1, 0xFF))
    # Big5 level 1 (frequent characters): lead bytes 0xA4-0xC6.
    chars |= _codec_chars("big5", range(0xA4, 0xC7), list(range(0x40, 0x7F)) + list(range(0xA1, 0xFF)))
    chars |= set("〇平仄韵辙词牌声调押")
    # What the model can write and the panels can offer, read from the shipped files (not listed
    # here, so that a retrained vocabulary or rebuilt table only needs this script rerun).
    chars |= app_chars()
    return {c for c in chars if c.isprintable() or c == " "}


def is_ideograph(c: str) -> bool:
    return unicodedata.name(c, "").startswith(("CJK UNIFIED IDEOGRAPH", "CJK COMPATIBILITY IDEOGRAPH"))


def _options():
    from fontTools import subset

    options = subset.Options()
    options.layout_features = ["kern", "liga", "locl", "vert", "vrt2", "palt", "halt", "fwid", "hwid"]
    options.name_IDs = ["*"]
    options.name_languages = ["*"]
    options.notdef_outline = True
    options.glyph_names = False
    options.hinting = False
    options.desubroutinize = False
    return options


def _subset(font, unicodes: list[int], options):
    from fontTools import subset

    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=unicodes)
    subsetter.subset(font)
    return font


def _supplement(paths: list[str], unicodes: set[int]) -> int:
    """HanSupplement-Subset.ttf: the ideographs of `unicodes` from the Hanazono faces (the first
    face that has one gives it), merged into one font under a name of its own."""
    import tempfile

    from fontTools import merge
    from fontTools.ttLib import TTFont

    options = _options()
    options.layout_features = []          # a few scattered ideographs: no features to keep
    options.drop_tables += ["GSUB", "GPOS", "GDEF", "BASE", "vhea", "vmtx", "VORG"]
    left, parts = set(unicodes), []
    with tempfile.TemporaryDirectory() as tmp:
        for k, path in enumerate(paths):
            font = TTFont(path)
            have = left & set(font.getBestCmap())
            if not have:
                continue
            left -= have
            out = Path(tmp) / f"part{k}.ttf"
            _subset(font, sorted(have), options).save(out)
            parts.append(str(out))
        font = merge.Merger().merge(parts) if len(parts) > 1 else TTFont(parts[0])
    name = font["name"]
    for rec in list(name.names):
        if rec.nameID in (1, 3, 4, 6, 16, 17, 18, 21, 22):
            name.removeNames(nameID=rec.nameID)
    for nid, value in ((1, SUPPLEMENT_FAMILY), (2, "Regular"), (3, f"{SUPPLEMENT_FAMILY} (HanaMinA/B subset)"),
                       (4, SUPPLEMENT_FAMILY), (6, SUPPLEMENT_FAMILY.replace(" ", "") + "-Regular")):
        name.setName(value, nid, 3, 1, 0x409)
        name.setName(value, nid, 1, 0, 0)
    font.save(SUPPLEMENT_OUT)
    if left:
        print(f"{len(left)} characters in no face: {''.join(sorted(map(chr, left)))}")
    return len(unicodes) - len(left)


def main(argv: list[str]) -> int:
    if len(argv) < 1:
        print(__doc__)
        return 2
    from fontTools.ttLib import TTCollection

    wanted = {ord(c) for c in charset()}
    font = TTCollection(argv[0]).fonts[SC_INDEX]
    noto = set(font.getBestCmap())
    _subset(font, sorted(wanted & noto), _options()).save(OUT)
    print(f"{OUT.name}: {OUT.stat().st_size / 1e6:.2f} MB, {len(wanted)} characters requested, "
          f"{len(wanted & noto)} in Noto Sans CJK SC")
    rare = {c for c in wanted - noto if is_ideograph(chr(c))}
    if argv[1:] and rare:
        n = _supplement(argv[1:], rare)
        print(f"{SUPPLEMENT_OUT.name}: {SUPPLEMENT_OUT.stat().st_size / 1e6:.2f} MB, "
              f"{n} of the {len(rare)} ideographs Noto lacks")
    elif rare:
        print(f"{len(rare)} ideographs are not in Noto Sans CJK SC: name the HanaMinA.ttf and HanaMinB.ttf "
              f"of fonts-hanazono after the .ttc to write {SUPPLEMENT_OUT.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

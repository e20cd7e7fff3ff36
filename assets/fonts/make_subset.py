"""Derive the bundled CJK font subset (NotoSansSC-Subset.otf) from Debian's fonts-noto-cjk.

Run by hand when the character set should change; the result is committed to assets/fonts/.

    apt-get download fonts-noto-cjk && dpkg-deb -x fonts-noto-cjk_*.deb x
    pip install fonttools
    python assets/fonts/make_subset.py x/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc

Character set: printable ASCII and Latin-1, general punctuation, CJK symbols and punctuation,
full-width forms, the tone/slot marks the app draws (○ ● ─ │ …), every character of GB 2312
(6,763 hanzi: the common simplified set) and the frequent traditional characters of Big5 level 1
(so classical texts kept in traditional script still render). The face is Noto Sans CJK SC
(SIL Open Font License 1.1, see OFL.txt). Noto declares no Reserved Font Name, so the subset keeps
the family name "Noto Sans CJK SC".
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "NotoSansSC-Subset.otf"
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
    return {c for c in chars if c.isprintable() or c == " "}


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__)
        return 2
    from fontTools import subset
    from fontTools.ttLib import TTCollection

    font = TTCollection(argv[0]).fonts[SC_INDEX]
    options = subset.Options()
    options.layout_features = ["kern", "liga", "locl", "vert", "vrt2", "palt", "halt", "fwid", "hwid"]
    options.name_IDs = ["*"]
    options.name_languages = ["*"]
    options.notdef_outline = True
    options.glyph_names = False
    options.hinting = False
    options.desubroutinize = False
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=[ord(c) for c in sorted(charset())])
    subsetter.subset(font)
    font.save(OUT)
    print(f"{OUT.name}: {OUT.stat().st_size / 1e6:.2f} MB, {len(charset())} characters requested")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

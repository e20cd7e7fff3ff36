"""The bundled CJK font, for the app and for the PDF/PNG exporters (Qt imported lazily).

assets/fonts/NotoSansSC-Subset.otf covers Latin, the common Chinese characters (GB 2312 and
Big5 level 1) and every character the app can write or offer that Noto Sans CJK has: each token
of the models' vocabularies (models/*/vocab.json), the rhyme tables and character lists
(assets/rhyme/*.json), the ci-pai library (assets/cipai.json) and the interface text. The 338
rare ideographs of those that Noto lacks (CJK extensions, mostly B and C) are in
assets/fonts/HanSupplement-Subset.ttf ("Songwriter Han Supplement", from Hanazono Mincho), which
font() lists right after Noto so that Qt falls back to it glyph by glyph. assets/fonts/make_subset.py
derives both from those files; tests/test_font_coverage.py checks they cover them. The fonts are
registered with QFontDatabase once, and every view and exporter asks this module for its family,
so a machine without any CJK font still shows and prints Chinese.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ASSETS = Path(__file__).resolve().parents[2] / "assets"
FONT_DIR = ASSETS / "fonts"
FALLBACK_FAMILIES = ["Noto Sans CJK SC", "Source Han Sans SC", "WenQuanYi Micro Hei",
                     "Microsoft YaHei", "PingFang SC", "DejaVu Sans"]
SUPPLEMENT_FAMILY = "Songwriter Han Supplement"     # assets/fonts/HanSupplement-Subset.ttf

_families: list[str] | None = None
_app = None


def ensure_gui_app():
    """A Qt application for painting text (fonts need one); offscreen when there is no display.

    It is a QApplication, not a bare QGuiApplication, so that windows can still be made later in
    the same process (a QGuiApplication would make any later QWidget abort)."""
    global _app
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance()
    if app is None:
        if not os.environ.get("QT_QPA_PLATFORM") and not (
                os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")) and sys.platform.startswith("linux"):
            os.environ["QT_QPA_PLATFORM"] = "offscreen"
        _app = app = QApplication(sys.argv[:1] or ["songwriter"])
    return app


def register_fonts() -> list[str]:
    """Register the bundled fonts (once); returns the families they provide."""
    global _families
    if _families is not None:
        return _families
    from PySide6.QtGui import QFontDatabase

    ensure_gui_app()
    families: list[str] = []
    for path in sorted(FONT_DIR.glob("*.otf")) + sorted(FONT_DIR.glob("*.ttf")):
        fid = QFontDatabase.addApplicationFont(str(path))
        if fid >= 0:
            families.extend(f for f in QFontDatabase.applicationFontFamilies(fid) if f not in families)
    _families = families
    return families


def cjk_family() -> str:
    """The bundled Noto family (the main face; the supplement only fills in rare ideographs)."""
    fams = register_fonts()
    main = [f for f in fams if f != SUPPLEMENT_FAMILY]
    return main[0] if main else fams[0] if fams else "Sans Serif"


def cjk_families() -> list[str]:
    """The bundled families, Noto first and the rare-ideograph supplement after it."""
    fams = register_fonts()
    main = cjk_family()
    return [main, *(f for f in fams if f != main)] if fams else [main]


def font(point_size: float = 12.0, bold: bool = False, pixel_size: int | None = None):
    """A QFont in the bundled CJK families (Noto, then the supplement; system fallbacks after)."""
    from PySide6.QtGui import QFont

    bundled = cjk_families()
    f = QFont()
    f.setFamilies([*bundled, *(fam for fam in FALLBACK_FAMILIES if fam not in bundled)])
    if pixel_size:
        f.setPixelSize(pixel_size)
    else:
        f.setPointSizeF(point_size)
    f.setBold(bold)
    return f

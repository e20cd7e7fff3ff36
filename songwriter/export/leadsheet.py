"""Lead sheet: the melody with the words under its notes, engraved by verovio.

verovio (pinned in pyproject.toml, imported here only) engraves the MusicXML that
``songwriter.melody.write`` makes (each syllable on its note, melismas with extender lines).
SVG: verovio's drawing as one tall page, in plain SVG (``plain_svg``); its font list names
common CJK fonts after verovio's Times, for viewers to find one. PDF: verovio's A4 pages drawn
one by one into Qt's QPdfWriter with QSvgRenderer, as pdf.py draws its pages, after adapting
the SVG to what Qt's renderer (SVG Tiny 1.2) reads (``qt_svg``): Chinese in the bundled CJK
font, other words in the Liberation Serif verovio embeds.
"""

from __future__ import annotations

import base64
import re
import unicodedata
import xml.etree.ElementTree as ET
from itertools import groupby

from .common import title_of
from .music import checked_melody

SVG_NS = "http://www.w3.org/2000/svg"
XLINK_NS = "http://www.w3.org/1999/xlink"
ET.register_namespace("", SVG_NS)
ET.register_namespace("xlink", XLINK_NS)

# verovio's page units are tenths of a millimetre: A4 is 2100 x 2970.
A4 = (2100, 2970)
MARGIN = 180                      # 18 mm each side
TALL_PAGE = 60_000                # verovio's largest page: the SVG is one page this tall at most
SVG_FONTS = ("Times, 'Noto Serif CJK SC', 'Source Han Serif SC', 'Noto Sans CJK SC', 'Source Han Sans SC', "
             "'Songti SC', SimSun, 'Microsoft YaHei', 'PingFang SC', serif")
LYRIC_SIZE = 4.5                  # verovio's default, in MEI units (half a staff space)
LYRIC_SIZE_WIDE = 8.0             # Chinese: engraved at 8, set at 4 (see _fit_wide_syllables)
WIDE_SHRINK = 0.5                 # 'o' in verovio's Times metrics: 1024 of 2048 units per em
TEXT_FONT = "Liberation"          # verovio's name for the Liberation text font it embeds
ID_SEED = 18                      # fixed ids: the same piece gives the same file


def _engraving_xml(doc) -> str:
    """The piece's MusicXML as the lead sheet shows it: the part's name ("Voice") left out."""
    from songwriter.melody.model import MelodyError
    from songwriter.melody.write import musicxml_bytes

    from . import ExportError

    try:
        raw = musicxml_bytes(doc.template, doc.text, title_of(doc))
    except MelodyError as e:
        raise ExportError(str(e)) from None
    head, sep, body = raw.partition(b"<score-partwise")
    root = ET.fromstring(sep + body)
    for name in root.iter("part-name"):
        name.set("print-object", "no")
    return (head + ET.tostring(root, encoding="utf-8", xml_declaration=False)).decode("utf-8")


def _toolkit(width: int, height: int, adjust_height: bool, lyric_size: float, embed_text_font: bool):
    from . import ExportError

    try:
        import verovio
    except ImportError:
        raise ExportError("the lead sheet needs verovio (pip install verovio), which is not installed") from None
    tk = verovio.toolkit()
    tk.setOptions({"pageWidth": width, "pageHeight": height, "adjustPageHeight": adjust_height,
                   "pageMarginLeft": MARGIN, "pageMarginRight": MARGIN, "pageMarginTop": MARGIN,
                   "pageMarginBottom": MARGIN, "scale": 100, "footer": "none", "header": "auto",
                   "breaks": "auto", "lyricSize": lyric_size, "fontTextLiberation": embed_text_font,
                   "svgFormatRaw": True, "xmlIdSeed": ID_SEED})
    return tk


def svg_pages(doc, width: int = A4[0], height: int = A4[1], adjust_height: bool = False,
              embed_text_font: bool = False) -> list:
    """The lead sheet as verovio's SVG pages (page size in tenths of a millimetre), parsed, with
    Chinese syllables set at the size verovio spaced them for (``_fit_wide_syllables``).
    ``embed_text_font``: verovio embeds Liberation Serif, the free font with Times's metrics
    (which it measures words with), and names it for the text."""
    from . import ExportError

    checked_melody(doc, "Lead sheet")
    xml = _engraving_xml(doc)
    wide = doc.lang == "zh"
    tk = _toolkit(width, height, adjust_height, LYRIC_SIZE_WIDE if wide else LYRIC_SIZE, embed_text_font)
    if not tk.loadData(xml):
        raise ExportError(f"verovio could not engrave the melody: {tk.getLog().strip() or 'no reason given'}")
    pages = [ET.fromstring(tk.renderToSVG(k)) for k in range(1, tk.getPageCount() + 1)]
    if not pages:
        raise ExportError("verovio engraved no page for the melody")
    for page in pages:
        _fit_wide_syllables(page)
    return pages


def _is_wide(text: str) -> bool:
    return bool(text.strip()) and all(unicodedata.east_asian_width(c) in "WF" for c in text.strip())


def _fit_wide_syllables(root) -> None:
    """verovio measures a character its Times metrics lack (every Chinese character, full-width
    punctuation) as half an em, as wide as 'o' (ten Chinese characters under a note space the
    notes exactly as ten o's do), and spaces the notes for that; a Chinese glyph is a full em. So
    a syllable of such characters is set at half the size verovio gave it (it was engraved with
    lyrics twice the wanted size): its width is then what verovio reserved, and syllables under
    close notes do not run into each other. The baseline stays: verovio keeps the words clear of
    low notes by the height of 'o' at the full size (0.46 em), about the height of a Chinese glyph
    at half size (0.42 of the full size)."""
    for group in root.iter(f"{{{SVG_NS}}}g"):
        if "syl" not in (group.get("class") or "").split():
            continue
        for span in group.iter():
            size = _px(span.get("font-size"))
            if size and span.text and _is_wide(span.text):
                span.set("font-size", f"{size * WIDE_SHRINK:g}px")


def to_svg(doc) -> bytes:
    """One SVG: the lead sheet as a single page as tall as the song (pages stacked if it is taller
    than verovio's largest page)."""
    pages = svg_pages(doc, A4[0], TALL_PAGE, adjust_height=True)
    for page in pages:
        plain_svg(page)
        _name_cjk_fonts(page, SVG_FONTS)
    root = pages[0] if len(pages) == 1 else _stacked(pages)
    # verovio's pixels are tenths of a millimetre: the file says so, and prints at A4's width.
    width, height = _px(root.get("width")), _px(root.get("height"))
    root.set("viewBox", f"0 0 {width:g} {height:g}")
    root.set("width", f"{width / 10:g}mm")
    root.set("height", f"{height / 10:g}mm")
    title = ET.Element(f"{{{SVG_NS}}}title")
    title.text = title_of(doc)
    root.insert(0, title)
    return b'<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="utf-8", xml_declaration=False)


def _stacked(pages):
    """Pages one under the other in one <svg>, each in a group moved down; a glyph definition or
    stylesheet that several pages repeat is kept once (verovio gives each page the same ones)."""
    width = max(_px(p.get("width")) for p in pages)
    root = ET.Element(f"{{{SVG_NS}}}svg", {"version": "1.1", "width": f"{width:g}px"})
    seen: set[str] = set()
    y = 0.0
    for page in pages:
        group = ET.SubElement(root, f"{{{SVG_NS}}}g", {"transform": f"translate(0,{y:g})"})
        for child in page:
            if child.tag == f"{{{SVG_NS}}}defs":
                child[:] = [d for d in child if d.get("id") not in seen]
                seen.update(d.get("id") for d in child)
            elif child.tag == f"{{{SVG_NS}}}style":
                if child.text in seen:
                    continue
                seen.add(child.text)
            group.append(child)
        y += _px(page.get("height"))
    root.set("height", f"{y:g}px")
    return root


def _px(value: str | None) -> float:
    return float(re.sub(r"[a-z]+$", "", value or "0") or 0)


def _name_cjk_fonts(root, families: str) -> None:
    """verovio sets its text in "Times, serif", which has no Chinese: name CJK fonts after it."""
    for el in root.iter():
        if el.get("font-family", "").startswith("Times"):
            el.set("font-family", families)


# ----------------------------------------------------------------------------------------------
# PDF through Qt

def to_pdf(doc) -> bytes:
    """A4 pages, verovio's engraving of each drawn into a QPdfWriter page."""
    from PySide6.QtCore import QByteArray, QRectF
    from PySide6.QtSvg import QSvgRenderer

    from . import ExportError
    from .fonts import cjk_family, ensure_gui_app
    from .pdf import a4_pdf

    # Liberation embedded: Latin words drawn in the font verovio measured them with (the bundled
    # CJK font's Latin is wider, and English words would run into each other).
    pages = svg_pages(doc, *A4, embed_text_font=True)
    ensure_gui_app()
    family = cjk_family()
    renderers = []
    for k, page in enumerate(pages, 1):
        renderer = QSvgRenderer(QByteArray(qt_svg(page, family)))
        if not renderer.isValid():
            raise ExportError(f"Qt could not read verovio's drawing of page {k}")
        renderers.append(renderer)

    def draw(writer, painter) -> None:
        full = QRectF(writer.pageLayout().fullRectPixels(writer.resolution()))
        full.moveTo(0, 0)
        for k, renderer in enumerate(renderers):
            if k:
                writer.newPage()
            renderer.render(painter, full)

    return a4_pdf(title_of(doc), "Songwriter (engraved by verovio)", (0, 0, 0, 0), draw)


_registered_fonts: dict[str, tuple[str, str]] = {}      # face -> (family in the SVG, in Qt)


def plain_svg(root) -> None:
    """verovio's SVG page (parsed) in the plainer SVG that every renderer reads, changed in place:
    the nested <svg> that scales the drawing becomes a scaled group (Qt's renderer and MuPDF
    skip a nested <svg>), and what verovio's stylesheet says is put on the elements (renderers
    without CSS would stroke nothing and show hidden placeholders): lines stroked in the drawing's
    colour, placeholders left out, tempo marks bold, bar numbers italic."""
    width, height = _px(root.get("width")), _px(root.get("height"))
    for parent in list(root.iter()):
        for i, child in enumerate(list(parent)):
            if child.tag == f"{{{SVG_NS}}}svg" and child.get("viewBox"):
                x0, y0, vw, vh = (float(v) for v in child.get("viewBox").split())
                k = min(width / vw, height / vh) if vw and vh else 1.0
                group = ET.Element(f"{{{SVG_NS}}}g", {a: v for a, v in child.attrib.items()
                                                      if a not in ("viewBox", "overflow")})
                group.set("transform", f"scale({k:.6g}) translate({-x0:g},{-y0:g})")
                group.extend(list(child))
                parent.remove(child)
                parent.insert(i, group)
    for parent in list(root.iter()):
        for child in list(parent):
            classes = set((child.get("class") or "").split())
            if "placeholder" in classes:
                parent.remove(child)
                continue
            if classes & CSS_BOLD:
                child.set("font-weight", "bold")
            elif classes & CSS_ITALIC:
                child.set("font-style", "italic")
            if child.tag.rpartition("}")[2] in CSS_STROKED and not child.get("stroke"):
                child.set("stroke", "black")


CSS_BOLD = {"ending", "fing", "reh", "tempo"}
CSS_ITALIC = {"dir", "dynam", "mNum"}
CSS_STROKED = {"ellipse", "path", "polygon", "polyline", "rect"}


def qt_svg(root, family: str) -> bytes:
    """verovio's SVG page (parsed; changed in place) as Qt's renderer reads it (SVG Tiny 1.2):
    ``plain_svg``, then each <text> gets its position, anchor and size from the <tspan>s verovio
    puts them on (Qt reads neither tspan x/y nor a size set below a 0px text); the fonts verovio
    embeds are registered with Qt, which does not read @font-face; and as Qt takes one font
    family, not a list, each run of text names its own: ``family`` (the bundled CJK font) for
    Chinese, the embedded Liberation Serif (else ``family``) for the rest."""
    latin = _register_embedded_fonts(root).get(TEXT_FONT) or family
    plain_svg(root)
    for parent in list(root.iter()):
        for i, child in enumerate(list(parent)):
            if child.tag == f"{{{SVG_NS}}}text":
                parent.remove(child)
                parent.insert(i, _flat_text(child, latin, family))
            elif child.tag == f"{{{SVG_NS}}}style":
                parent.remove(child)
    return ET.tostring(root, encoding="utf-8")


def _flat_text(text, latin: str, cjk: str):
    """One <text> with its place, anchor and size on itself, and a <tspan> per run of words in one
    font: runs of wide (Chinese) characters in ``cjk``, other words of the text font in ``latin``,
    glyphs of the music font (the tempo's note) as they are."""
    placed = {"x": text.get("x"), "y": text.get("y"), "text-anchor": text.get("text-anchor")}
    runs: list[tuple[dict, str]] = []

    def walk(el, inherited: dict):
        if el.tag == f"{{{SVG_NS}}}title":
            return
        style = dict(inherited)
        for a in ("font-family", "font-size", "font-style", "font-weight", "fill"):
            if el.get(a) and not (a == "font-size" and el.get(a) == "0px"):
                style[a] = el.get(a)
        for a in ("x", "y", "text-anchor"):
            if el.get(a) and not placed.get(a):
                placed[a] = el.get(a)
        if el.text:
            runs.append((style, el.text))
        for child in el:
            walk(child, style)
            if child.tail and child.tail.strip():
                runs.append((style, child.tail))

    walk(text, {})
    out = ET.Element(f"{{{SVG_NS}}}text", {a: v for a, v in placed.items() if v})
    sizes = [s["font-size"] for s, _ in runs if "font-size" in s]
    if sizes:
        out.set("font-size", sizes[0])
    for a in ("font-style", "font-weight"):
        if text.get(a):
            out.set(a, text.get(a))
    for style, words in runs:
        if not style.get("font-family", TEXT_FONT).startswith((TEXT_FONT, "Times")):
            ET.SubElement(out, f"{{{SVG_NS}}}tspan", style).text = words
            continue
        for wide, chars in groupby(words, key=_is_wide):
            ET.SubElement(out, f"{{{SVG_NS}}}tspan", {**style, "font-family": cjk if wide else latin}).text = "".join(chars)
    return out


def _register_embedded_fonts(root) -> dict[str, str]:
    """Register with Qt each font an SVG <style> embeds as a data: URL, which Qt's SVG renderer
    does not read (@font-face): verovio embeds its music font's text glyphs (the tempo's note) and,
    asked to, the Liberation text font it measures with. Returns the SVG's family name -> Qt's."""
    from PySide6.QtCore import QByteArray
    from PySide6.QtGui import QFontDatabase

    for style in root.iter(f"{{{SVG_NS}}}style"):
        for block in (style.text or "").split("@font-face")[1:]:
            family = re.search(r"font-family:\s*[\"']([^\"']+)[\"']", block)
            data = re.search(r"base64,([A-Za-z0-9+/=\s]+)\)", block)
            if not family or not data:
                continue
            encoded = re.sub(r"\s+", "", data.group(1))
            key = family.group(1) + encoded[:200] + str(len(encoded))
            if key not in _registered_fonts:
                fid = QFontDatabase.addApplicationFontFromData(QByteArray(base64.b64decode(encoded)))
                _registered_fonts[key] = (family.group(1), QFontDatabase.applicationFontFamilies(fid)[0]
                                          if fid >= 0 and QFontDatabase.applicationFontFamilies(fid) else "")
    return {svg_name: qt_name for svg_name, qt_name in _registered_fonts.values() if qt_name}

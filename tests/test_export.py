"""Exporters and `songwriter export` (offscreen Qt for pdf/png)."""
import json

import pytest

from songwriter import document as D
from songwriter.document import Original, new_document
from songwriter.export import ExportError, export, format_for
from songwriter.forms import named_form
from songwriter.template import Line, Slot, Template

POEM = "白日依山尽，\n黄河入海流。\n欲穷千里目，\n更上一层楼。"


@pytest.fixture
def zh():
    doc = new_document(named_form("五绝"))
    doc.title = "登鹳雀楼"
    doc.set_text(POEM)
    return doc


@pytest.fixture
def relyric():
    lines = [Line([Slot() for _ in range(4)], time=t) for t in (1.5, 4.25, 62.0)]
    for ln in lines:
        ln.slots[-1].punct = "，"
    t = Template(lines=lines, lang="zh", name="歌")
    doc = new_document(t)
    doc.set_text("春风又绿，\n江南两岸，\n明月照我，")
    doc.original = Original("lrc", "[00:01.50]原来的歌", ["原来的歌", "第二行", "第三行"], [1.5, 4.25, 62.0], "x.lrc")
    return doc


def test_txt_and_md(zh, tmp_path):
    txt = export(zh, tmp_path / "a.txt").read_text("utf-8")
    assert txt.startswith("登鹳雀楼\n") and POEM in txt
    md = export(zh, tmp_path / "a.md").read_text("utf-8")
    assert md.startswith("# 登鹳雀楼") and "白日依山尽，  \n黄河入海流。" in md


def test_markdown_escapes():
    from songwriter.export.markdown import escape

    assert escape("- a *b* #c") == "\\- a \\*b\\* \\#c"


def test_lrc_keeps_timestamps(relyric, tmp_path):
    lrc = export(relyric, tmp_path / "a.lrc").read_text("utf-8")
    assert "[00:01.50]春风又绿，" in lrc and "[00:04.25]江南两岸，" in lrc and "[01:02.00]明月照我，" in lrc


def test_lrc_without_times_is_refused(zh, tmp_path):
    with pytest.raises(ExportError, match="no timestamps"):
        export(zh, tmp_path / "a.lrc")
    assert not (tmp_path / "a.lrc").exists()


def test_json(zh, tmp_path):
    data = json.loads(export(zh, tmp_path / "a.json").read_text("utf-8"))
    assert data["title"] == "登鹳雀楼" and data["text"] == POEM
    assert [ln["syllables"] for ln in data["lines"]] == [5, 5, 5, 5]
    assert data["lines"][0]["status"] in ("ok", "problem")
    assert data["template"]["lang"] == "zh"


def test_pdf_embeds_the_bundled_font(zh, tmp_path):
    data = export(zh, tmp_path / "a.pdf").read_bytes()
    assert data.startswith(b"%PDF") and b"NotoSansCJK" in data


def test_png_card(zh, tmp_path):
    from PySide6.QtGui import QImage

    p = export(zh, tmp_path / "a.png")
    img = QImage(str(p))
    assert not img.isNull() and img.width() == 1200 and img.height() > 400
    # Text was drawn: the card is not one flat colour in its middle band.
    colours = {img.pixel(x, y) for x in range(300, 900, 7) for y in range(img.height() // 3, img.height() // 2, 5)}
    assert len(colours) > 3


def test_a_long_title_wraps_on_the_card_and_the_page(zh, tmp_path):
    """A title too wide for the card takes the lines it needs (it was clipped above and below)."""
    from PySide6.QtGui import QImage

    short = QImage(str(export(zh, tmp_path / "short.png"))).height()
    zh.title = "一个非常非常长的标题，用来看导出卡片时标题会不会被截断或者溢出边框的情况"
    long = QImage(str(export(zh, tmp_path / "long.png"))).height()
    assert long > short + 150          # two more title lines of ~90 px
    from songwriter.export.fonts import font
    from songwriter.export.paint import wrapped_height
    from PySide6.QtGui import QFontMetricsF

    fm = QFontMetricsF(font(pixel_size=40))
    assert wrapped_height(fm, zh.title, 400, 1.5) > 3 * fm.lineSpacing()
    assert wrapped_height(fm, "短", 400, 1.5) == fm.height() * 1.5
    assert export(zh, tmp_path / "long.pdf").read_bytes().startswith(b"%PDF")


def test_format_for():
    assert format_for("x.MD") == "md" and format_for("x", "markdown") == "md"
    with pytest.raises(ExportError):
        format_for("x.doc")


def test_cli_export(zh, relyric, tmp_path, capsys):
    from songwriter.cli import main

    song = tmp_path / "p.song"
    D.save(zh, song)
    for fmt in ("txt", "md", "pdf", "png", "json"):
        out = tmp_path / f"out.{fmt}"
        assert main(["export", str(song), "--format", fmt, "-o", str(out)]) == 0
        assert out.stat().st_size > 0
    assert main(["export", str(song), "-o", "-", "--format", "txt"]) == 0
    assert "白日依山尽" in capsys.readouterr().out
    assert main(["export", str(song), "-o", str(tmp_path / "x.lrc")]) == 2
    assert "no timestamps" in capsys.readouterr().err
    D.save(relyric, song)
    assert main(["export", str(song), "-o", str(tmp_path / "x.lrc")]) == 0
    bad = tmp_path / "bad.song"
    bad.write_text("{", "utf-8")
    assert main(["export", str(bad), "-o", str(tmp_path / "y.txt")]) == 2
    assert "not valid JSON" in capsys.readouterr().err


@pytest.mark.parametrize("content, needle", [
    ("白日依山尽，\n黄河入海流。\n", "it holds plain text"),
    ("", "is empty"),
])
def test_cli_export_of_a_text_file_says_it_is_no_project(tmp_path, capsys, content, needle):
    from songwriter.cli import main

    poem = tmp_path / "poem.txt"
    poem.write_text(content, "utf-8")
    assert main(["export", str(poem), "-o", str(tmp_path / "out.txt")]) == 2
    err = capsys.readouterr().err
    assert "poem.txt" in err and "not a Songwriter project (.song)" in err and needle in err
    assert "not valid JSON" not in err
    # and what to do with it instead: import it in the app, or the commands that take a text
    assert "Import Lyrics" in err and f"generate --relyric {poem}" in err and f"check --form NAME {poem}" in err
    assert not (tmp_path / "out.txt").exists()


def test_writing_under_a_file_says_the_folder_part_is_a_file(zh, tmp_path, capsys):
    from songwriter.cli import main

    afile = tmp_path / "poem.txt"
    afile.write_text("x", "utf-8")
    song = tmp_path / "p.song"
    D.save(zh, song)
    for out in (afile / "out.txt", afile / "deeper" / "out.txt"):
        assert main(["export", str(song), "-o", str(out)]) == 2
        err = capsys.readouterr().err
        assert f"{afile} is a file, not a folder" in err and "File exists" not in err, err
    with pytest.raises(OSError) as e:
        D.save(zh, afile / "p.song")
    assert e.value.strerror == f"{afile} is a file, not a folder"
    assert afile.read_text("utf-8") == "x"


SONNET_18 = """Shall I compare thee to a summer's day?
Thou art more lovely and more temperate:
Rough winds do shake the darling buds of May,
And summer's lease hath all too short a date;
Sometime too hot the eye of heaven shines,
And often is his gold complexion dimm'd;
And every fair from fair sometime declines,
By chance or nature's changing course untrimm'd;
But thy eternal summer shall not fade,
Nor lose possession of that fair thou ow'st;
Nor shall Death brag thou wander'st in his shade,
When in eternal lines to time thou grow'st:
So long as men can breathe or eyes can see,
So long lives this, and this gives life to thee."""


def test_a_sonnet_with_title_and_subtitle_fits_one_pdf_page(tmp_path):
    """Its 14th line went alone onto a second page: 16 pt type at 1.7 spacing does not fit."""
    from songwriter.export.common import subtitle_of

    doc = new_document(named_form("shakespearean sonnet"))
    doc.title = "Sonnet 18"
    doc.set_text(SONNET_18)
    assert subtitle_of(doc)
    data = export(doc, tmp_path / "s.pdf").read_bytes()
    assert b"/Count 1" in data


def _page_lines(items, starts):
    """The template line indices on each page."""
    pages, page = [], []
    for k, b in enumerate(items):
        if k in starts:
            pages.append(page)
            page = []
        if b.kind == "line":
            page.append(b.line)
    return pages + [page]


def _poem(stanzas: list[int]):
    from songwriter.export.paint import Block

    items, i = [Block("title", "T"), Block("gap")], 0
    for k, n in enumerate(stanzas):
        if k:
            items.append(Block("gap"))
        for _ in range(n):
            items.append(Block("line", f"line {i}", i))
            i += 1
    return items


def test_pdf_pages_end_between_stanzas_and_never_leave_a_line_alone():
    from songwriter.export.pdf import page_starts

    def heights(items):
        return [2.0 if b.kind == "title" else 0.5 if b.kind == "gap" else 1.0 for b in items]

    # four quatrains, room for about ten lines: the page ends before the stanza that runs over
    items = _poem([4, 4, 4, 4])
    pages = _page_lines(items, page_starts(items, heights(items), 11.0))
    assert pages == [[0, 1, 2, 3, 4, 5, 6, 7], [8, 9, 10, 11, 12, 13, 14, 15]]
    # one stanza of twelve lines, room for eleven after the title: two lines go over, not one
    items = _poem([12])
    pages = _page_lines(items, page_starts(items, heights(items), 13.5))
    assert pages == [list(range(10)), [10, 11]]
    # a sonnet in one stanza with room for thirteen lines: its closing couplet stays together
    items = _poem([14])
    rhymes = dict(enumerate("ABABCDCDEFEFGG"))
    pages = _page_lines(items, page_starts(items, heights(items), 15.5, rhymes))
    assert pages == [list(range(12)), [12, 13]]
    # a stanza longer than a page is split where it must be, filling the pages
    items = _poem([2, 30])
    pages = _page_lines(items, page_starts(items, heights(items), 12.5))
    assert [len(p) for p in pages] == [9, 12, 11]

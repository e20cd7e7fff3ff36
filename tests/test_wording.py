"""Counts in English messages agree with their number (songwriter.wording)."""
import pytest

from songwriter.export import ExportError, render
from songwriter.session import piece_from_song
from songwriter.template import Line, Slot, Template
from songwriter.wording import plural, verb


def test_plural_and_verb():
    assert plural(1, "syllable") == "1 syllable" and plural(0, "syllable") == "0 syllables"
    assert plural(2, "entry", "entries") == "2 entries" and plural(1200, "line") == "1,200 lines"
    assert verb(1, "fits", "fit") == "fits" and verb(3, "fits", "fit") == "fit"


def test_the_lrc_refusal_counts_a_form_of_one_line_as_one():
    doc = piece_from_song("[00:01.00]月亮代表我的心\n[00:05.50]你问我爱你有多深\n", "lrc", "心.lrc", "{name}", "x")
    line = Line([Slot() for _ in range(5)])
    line.slots[-1].punct = "。"
    doc.adopt_form(Template(lines=[line], lang="zh", name="一句"))
    with pytest.raises(ExportError) as e:
        render(doc, "lrc")
    assert str(e.value).startswith("the line has no time: the piece's form (一句) has 1 line and the song")


def test_facts_wrap_between_two_without_a_hanging_separator():
    from songwriter.ui.wording import joined_bits, plain, wrapped_bits

    bits = ["Morning", "2 lines", "11 syllables", "Slant rhyme"]
    text = wrapped_bits(bits, len, len(joined_bits(bits[:2])))       # room for the first two facts
    lines = [plain(x) for x in text.split("\n")]
    assert lines == ["Morning · 2 lines", "11 syllables", "Slant rhyme"], lines
    assert plain(wrapped_bits(bits, len, 1000)) == "Morning · 2 lines · 11 syllables · Slant rhyme"

"""Real hymn verses (tests/data/hymns_1908.txt) fit their metres; broken lines are still flagged."""
import pytest
from conftest import DATA

from songwriter.checks import check
from songwriter.forms import named_form


def read_verses() -> list[tuple[str, list[str]]]:
    out, metre, lines = [], None, []
    for raw in (DATA / "hymns_1908.txt").read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if line.startswith("= "):
            metre, lines = line[2:], []
            out.append((metre, lines))
        elif line and not line.startswith("#"):
            lines.append(line)
    return out


VERSES = read_verses()


@pytest.mark.parametrize("metre, lines", VERSES, ids=[f"{m}:{v[0][:20]}" for m, v in VERSES])
def test_real_hymn_verse_fits_its_metre(metre, lines):
    assert len(lines) == 4
    report = check("\n".join(lines), named_form(metre))
    assert report.ok, report.summary()


def test_a_metre_named_by_its_counts_fits_the_foot_the_verse_keeps():
    gate = next(v for m, v in VERSES if v[0].startswith("There is a gate"))
    assert check("\n".join(gate), named_form("8.7.8.7")).form == "8.7.8.7 iambic"
    # a verse that changes foot from line to line fits neither
    mixed = ["Yonder stands the gate of heaven,"] + gate[1:]
    report = check("\n".join(mixed), named_form("8.7.8.7"))
    assert not report.ok and all(c.length for c in report.lines), report.summary()
    # common metre is iambic by name: a trochaic verse of its counts is flagged on the stresses
    report = check("Beautiful valley of Eden,\nSweet is thy noontide calm;\n"
                   "Over the hearts of the weary,\nBreathing thy waves of balm.", named_form("Common metre"))
    assert not report.ok and {p.kind for c in report.lines for p in c.problems} == {"tone"}


def test_a_hymn_line_really_short_or_unrhymed_is_flagged():
    metre, lines = VERSES[0]                                 # Alas! And did my Saviour bleed
    short = lines[:]
    short[2] = "Would he devote that head,"                  # two syllables short
    report = check("\n".join(short), named_form(metre))
    assert [c.index for c in report.lines if not c.ok] == [2] and not report.lines[2].length
    unrhymed = lines[:]
    unrhymed[3] = "For such a worm as we?"                   # die / we: no rhyme
    report = check("\n".join(unrhymed), named_form(metre))
    assert not report.ok and any(not c.rhyme for c in report.lines)

"""An imported LRC song's times go with the piece's lines only while those still stand for the
song's (project.timing); the LRC export writes every line or refuses, saying which and why."""
import json

import pytest

from songwriter import document as D
from songwriter.cli import main
from songwriter.export import ExportError, render
from songwriter.forms import named_form
from songwriter.project import timing
from songwriter.session import piece_from_song
from songwriter.template import Line, Slot, Template

SONG = ("[ti:测试]\n[00:01.00]我站在风里等你\n[00:05.20]看天边的云慢慢飘走\n[00:09.80]你说过会回来\n"
        "[00:13.50]我站在风里等你\n[00:18.00]\n[00:20.00]时间把故事都吹散\n")
TIMES = [1.0, 5.2, 9.8, 13.5, 20.0]


def imported():
    doc = piece_from_song(SONG, "lrc", "song.lrc", "Tune of {name}", "Imported song")
    return doc


def written(doc):
    """Every line written (what generating does), a character per slot."""
    doc.set_text("\n".join("春" * line.syllables for line in doc.template.lines))
    return doc


def lrc_lines(doc):
    return [ln for ln in render(doc, "lrc").decode("utf-8").splitlines() if not ln.startswith(("[ti:", "[re:"))]


def test_an_imported_song_exports_every_line_and_its_break():
    doc = written(imported())
    assert timing.follows_original(doc) and timing.line_times(doc) == TIMES
    assert lrc_lines(doc) == ["[00:01.00]春春春春春春春", "[00:05.20]春春春春春春春春春", "[00:09.80]春春春春春春",
                              "[00:13.50]春春春春春春春", "[00:18.00]", "[00:20.00]春春春春春春春春"]


def test_a_form_of_another_length_takes_none_of_the_songs_times():
    doc = imported()
    doc.adopt_form(named_form("鹧鸪天"))
    written(doc)
    assert len(doc.template.lines) == 9 and not timing.follows_original(doc)
    assert timing.line_times(doc) == [None] * 9             # not the song's first five by position
    assert timing.original_lines(doc) == [None] * 9         # nor its words beside them
    assert timing.original_breaks(doc) == []
    with pytest.raises(ExportError) as e:
        render(doc, "lrc")
    msg = str(e.value)
    assert "none of the 9 lines has a time" in msg and "鹧鸪天" in msg and "song.lrc" in msg
    assert "Undo the form change" in msg and "[mm:ss.xx]" in msg
    data = json.loads(render(doc, "json"))
    assert [ln["time"] for ln in data["lines"]] == [None] * 9


def test_the_cli_export_of_a_saved_project_refuses_rather_than_drop_lines(tmp_path, capsys):
    """The QA repro: import an LRC of 5 lines, change the form to 鹧鸪天, generate, save, export:
    it wrote 5 of the 9 lines with the old times and exited 0."""
    doc = imported()
    doc.adopt_form(named_form("鹧鸪天"))
    song = tmp_path / "proj.song"
    D.save(written(doc), song)
    out = tmp_path / "out.lrc"
    assert main(["export", str(song), "-o", str(out)]) == 2
    assert "none of the 9 lines has a time" in capsys.readouterr().err
    assert not out.exists()


def test_a_form_of_the_same_length_keeps_the_songs_times_and_break():
    doc = imported()
    lines = [Line([Slot() for _ in range(5)]) for _ in range(5)]
    for line in lines:
        line.slots[-1].punct = "，"
    doc.adopt_form(Template(lines=lines, lang="zh", name="五句"))
    written(doc)
    assert timing.line_times(doc) == TIMES and timing.original_lines(doc)[3] == "我站在风里等你"
    assert "[00:18.00]" in lrc_lines(doc) and len(lrc_lines(doc)) == 6


def test_an_added_line_without_a_time_is_named():
    doc = written(imported())
    doc.insert_line(2)
    assert timing.untimed_lines(doc) == [2]
    with pytest.raises(ExportError, match=r"^line 3 has no time, and every line of an LRC file needs one"):
        render(doc, "lrc")
    doc.template.lines[2].time = 7.0           # given in the notation: the export writes it
    got = lrc_lines(doc)
    assert got[2] == "[00:07.00]" and len(got) == 6 and "[00:18.00]" not in got


def test_breaks_read_with_the_files_offset():
    assert timing.lrc_breaks("[offset:500]\n[00:01.00]a\n[00:18.00]\n[00:30.00][00:40.00]\n") == [17.5, 29.5, 39.5]

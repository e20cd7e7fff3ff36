"""Export of a piece written to a melody: MusicXML (every syllable on its note), karaoke MIDI
(the syllables as text events), LRC timed from the notes, and the lead sheet engraved by verovio
(SVG, PDF). The melody is made here: eight notes in F major at 90 a minute, two phrases, one
melisma, sixteenth notes where syllables crowd."""

import re
import xml.etree.ElementTree as ET

import pytest

pytest.importorskip("music21")

from songwriter import document as D  # noqa: E402
from songwriter.document import new_document  # noqa: E402
from songwriter.export import ExportError, export, format_for, render  # noqa: E402
from songwriter.forms import named_form  # noqa: E402
from songwriter.melody import Melody, Note, template_from_melody  # noqa: E402

TEMPO = 90.0
# (MIDI pitch, onset and duration in quarters); a rest of a quarter after the fourth note
NOTES = [(65, 0.0, 0.25), (67, 0.25, 0.25), (69, 0.5, 0.25), (70, 0.75, 0.25), (72, 1.0, 2.0),
         (74, 4.0, 1.0), (72, 5.0, 1.0), (69, 6.0, 2.0)]
LINES = [[[0], [1], [2], [3], [4]], [[5, 6], [7]]]          # 春 is sung on two notes (a melisma)
WORDS = "我们唱歌吧，\n春来。"
SYLLABLES = ["我", "们", "唱", "歌", "吧，", "春", None, "来。"]   # per note, as sung


def melody_piece(words: str = WORDS, lang: str = "zh"):
    notes = [Note(pitch=p, onset=o, duration=d, beat=1.0 if o % 4 == 0 else 0.25, measure=int(o // 4) + 1,
                  seconds=round(o * 60 / TEMPO, 4), rest_before=1.0 if i == 5 else 0.0)
             for i, (p, o, d) in enumerate(NOTES)]
    melody = Melody(notes=notes, lines=[[list(s) for s in ln] for ln in LINES], source="tune.musicxml",
                    title="小调", tempo=TEMPO, time_signature="4/4", key="F major")
    doc = new_document(template_from_melody(melody, lang=lang), title="春歌")
    doc.set_text(words)
    return doc


@pytest.fixture
def piece():
    return melody_piece()


def _sung_notes(score):
    """The score's notes in order, a note tied on from the one before left out."""
    return [n for n in score.recurse().notes if not (n.tie and n.tie.type in ("stop", "continue"))]


def test_musicxml_puts_every_syllable_on_its_note(piece, tmp_path):
    from music21 import converter

    path = export(piece, tmp_path / "song.musicxml")
    raw = path.read_text("utf-8")
    notes = _sung_notes(converter.parse(str(path)))
    assert [n.pitch.midi for n in notes] == [p for p, _, _ in NOTES]
    assert [float(n.offset + n.getContextByClass("Measure").offset) for n in notes] == [o for _, o, _ in NOTES]
    assert [n.lyric for n in notes] == SYLLABLES
    assert raw.count('<extend type="start"') == 1                  # the melisma on 春
    assert "<accidental>natural</accidental>" not in raw            # spelled in F major: A, C need none
    assert notes[3].pitch.name == "B-"                              # B-flat, not A-sharp
    assert "Music21" not in raw and "<work-title>春歌</work-title>" in raw
    assert format_for("x.xml") == "musicxml"


def test_a_pickup_is_written_as_a_short_first_bar(tmp_path):
    from songwriter.melody import read_melody, template_from_melody_file

    tune = tmp_path / "pickup.abc"
    tune.write_text("X:1\nT:Pickup\nM:3/4\nL:1/4\nK:F\nC|F2 G|A B c|d3|]\n", "utf-8")
    doc = new_document(template_from_melody_file(tune), title="Pickup")
    doc.set_text("春风吹又绿江南。")
    path = export(doc, tmp_path / "pickup.musicxml")
    assert '<measure implicit="yes" number="0">' in path.read_text("utf-8")
    before, after = read_melody(tune), read_melody(path)
    assert [n.beat for n in before.notes][:2] == [0.5, 1.0]                  # C is the third beat's
    assert [(n.onset, n.beat) for n in after.notes] == [(n.onset, n.beat) for n in before.notes]
    assert after.original_lines() == ["春风吹又绿江南。"]


def test_kar_has_the_syllables_as_lyric_events(piece, tmp_path):
    from music21 import midi

    from songwriter.melody import read_melody

    path = export(piece, tmp_path / "song.kar")
    mf = midi.MidiFile()
    mf.open(str(path))
    mf.read()
    mf.close()
    texts = [ev.data.decode("utf-8") for track in mf.tracks for ev in track.events
             if isinstance(ev, midi.MidiEvent) and ev.type == midi.MetaEvents.TEXT_EVENT]
    assert [t for t in texts if t.strip()] == ["\\我", "们", "唱", "歌", "吧，", "/春", "来。"]
    back = read_melody(path)
    assert back.original_lines() == WORDS.split("\n") and back.lines == LINES


def test_lrc_is_timed_from_the_note_onsets_at_the_tempo(piece, tmp_path):
    for line in piece.template.lines:       # not from the lines' stored times: from the notes
        line.time = None
    lrc = export(piece, tmp_path / "song.lrc").read_text("utf-8")
    assert "[00:00.00]我们唱歌吧，" in lrc
    assert "[00:02.67]春来。" in lrc                                # 4 quarters at 90 a minute


def _syllable_texts(svg: bytes):
    root = ET.fromstring(svg)
    ns = "{http://www.w3.org/2000/svg}"
    out = []
    for group in root.iter(f"{ns}g"):
        if "syl" in (group.get("class") or "").split():
            for text in group.iter(f"{ns}text"):
                words = "".join(t.text or "" for t in text.iter() if t.text and t.text.strip())
                size = max(float(re.sub("px$", "", t.get("font-size"))) for t in text.iter()
                           if t.get("font-size") and t.get("font-size") != "0px")
                out.append((float(text.get("x")), float(text.get("y")), words, size))
    return root, out


def test_lead_sheet_svg_has_the_words_under_the_notes_apart(piece, tmp_path):
    svg = export(piece, tmp_path / "song.svg").read_bytes()
    root, syllables = _syllable_texts(svg)
    assert [w for _, _, w, _ in syllables] == [s for s in SYLLABLES if s]
    assert "春歌" in "".join(root.itertext())                        # the title
    assert root.find("{http://www.w3.org/2000/svg}svg") is None and b"<svg" in svg[:200]   # no nested <svg>
    assert root.get("width") == "210mm" and root.get("viewBox").startswith("0 0 2100 ")    # A4's width
    # A Chinese glyph is an em wide: the sixteenth notes' syllables, so measured, do not touch.
    first_line = [s for s in syllables if s[1] == syllables[0][1]]
    for (x, _, word, size), (next_x, _, _, _) in zip(first_line, first_line[1:]):
        assert x + len(word) * size <= next_x + 1e-6, (word, x, size, next_x)
    assert export(piece, tmp_path / "again.svg").read_bytes() == svg       # the same piece, the same file


def test_lead_sheet_pdf(piece, tmp_path):
    data = export(piece, tmp_path / "song.sheet.pdf").read_bytes()
    assert data.startswith(b"%PDF") and b"NotoSansCJK" in data      # the words set in the bundled font
    assert b"Leipzig" in data                                       # the tempo's note, from verovio's font
    assert format_for("song.pdf") == "pdf" and format_for("song.sheet.pdf") == "sheet.pdf"


def long_piece(n_lines: int):
    notes, lines, onset = [], [], 0.0
    for i in range(n_lines):
        lines.append([])
        for k in range(7):
            notes.append(Note(pitch=60 + (i + 3 * k) % 12, onset=onset, duration=0.5, seconds=onset / 2,
                              beat=1.0 if onset % 4 == 0 else 0.25, rest_before=0.5 if k == 0 and i else 0.0))
            lines[-1].append([len(notes) - 1])
            onset += 0.5
        onset += 0.5
    melody = Melody(notes=notes, lines=lines, title="long", tempo=120.0, time_signature="4/4", key="C major")
    doc = new_document(template_from_melody(melody, lang="zh"), title="长歌")
    doc.set_text("\n".join("春风又绿江南岸，" if i % 2 else "明月何时照我还，" for i in range(n_lines)))
    return doc


def test_a_long_lead_sheet_takes_pages_and_stacks_in_one_svg():
    from songwriter.export.leadsheet import _stacked, svg_pages

    pdf = render(long_piece(40), "sheet.pdf")
    assert len(re.findall(rb"/Type\s*/Page\b(?!s)", pdf)) == 2            # two A4 pages
    pages = svg_pages(melody_piece())
    pages += svg_pages(melody_piece())
    height = float(pages[0].get("height").rstrip("px"))
    stacked = _stacked(pages)                                               # as for a song over 6 m tall
    groups = stacked.findall("{http://www.w3.org/2000/svg}g")
    assert [g.get("transform") for g in groups] == ["translate(0,0)", f"translate(0,{height:g})"]
    ids = [d.get("id") for d in stacked.iter() if d.get("id") and "-" in d.get("id")]   # glyphs: E0A4-...
    assert ids and len(ids) == len(set(ids))                                # each glyph defined once


def test_english_words_on_the_lead_sheet(tmp_path):
    doc = melody_piece("we sing a song to,\nthe day.", lang="en")
    _, syllables = _syllable_texts(render(doc, "svg"))
    assert [w for _, _, w, _ in syllables] == ["we", "sing", "a", "song", "to,", "the", "day."]
    pdf = render(doc, "sheet.pdf")
    assert b"LiberationSerif" in pdf and b"NotoSansCJK" in pdf      # words in the font verovio measured; the title


@pytest.mark.parametrize("fmt", ["musicxml", "kar", "svg", "sheet.pdf"])
def test_a_piece_without_melody_is_refused_saying_why(fmt, tmp_path):
    doc = new_document(named_form("五绝"))
    doc.set_text("白日依山尽，\n黄河入海流。\n欲穷千里目，\n更上一层楼。")
    with pytest.raises(ExportError, match=r"the piece has no melody: .* needs a piece made from a melody file"):
        export(doc, tmp_path / "x.out", fmt)
    assert not (tmp_path / "x.out").exists()


def test_a_piece_whose_form_left_its_melody_is_refused(piece, tmp_path):
    piece.insert_line(1)
    with pytest.raises(ExportError, match="no longer match its melody's phrases"):
        export(piece, tmp_path / "x.musicxml")


def test_cli_exports_the_melody_formats(piece, tmp_path, capsys):
    from songwriter.cli import main

    song = tmp_path / "p.song"
    D.save(piece, song)
    for fmt, name in [("musicxml", "o.musicxml"), ("kar", "o.kar"), ("svg", "o.svg"), ("sheet.pdf", "o.pdf")]:
        assert main(["export", str(song), "--format", fmt, "-o", str(tmp_path / name)]) == 0
        assert (tmp_path / name).stat().st_size > 0
    capsys.readouterr()
    assert main(["export", str(song), "--format", "musicxml", "-o", "-"]) == 0
    assert "<lyric" in capsys.readouterr().out
    assert main(["export", str(song), "--format", "kar", "-o", "-"]) == 2
    assert "binary" in capsys.readouterr().err
    plain = new_document(named_form("五绝"))
    D.save(plain, song)
    assert main(["export", str(song), "-o", str(tmp_path / "x.musicxml")]) == 2
    assert "the piece has no melody" in capsys.readouterr().err

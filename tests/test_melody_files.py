"""Melody files as people write them: repeats and first/second endings sung in order (ABC and
MusicXML), ABC's w: words, ABC without L:, MIDI with an accompaniment track first, cut-off and
drums-only MIDI, files named with the wrong suffix, and English words of several syllables written
out under their notes syllable by syllable. Every fixture is written here, small."""

import json
import re

import pytest

pytest.importorskip("music21")

from songwriter.melody import (  # noqa: E402
    MelodyError, is_melody_file, melody_of, piece_from_melody_file, read_melody, template_from_melody,
)
from songwriter.melody.reader import _why, sniff  # noqa: E402
from songwriter.melody.write import hyphenated, kar_bytes, musicxml_bytes  # noqa: E402


def _names(m):
    """The melody's pitches as note names (C4 = 60), in the order sung."""
    names = ["C", "C#", "D", "D#", "E", "F", "F#", "G", "G#", "A", "A#", "B"]
    return [f"{names[n.pitch % 12]}{n.pitch // 12 - 1}" for n in m.notes]


# ----------------------------------------------------------------------------------------------
# Repeats and endings (M4)

VOLTA_ABC = """X:1
T:Volta
M:4/4
L:1/4
Q:1/4=120
K:C
|: C D E F | G2 E2 |1 D E F D | C4 :|2 D E D B, | C4 |]
"""

VOLTA_XML = """<?xml version="1.0" encoding="UTF-8"?>
<score-partwise version="3.1">
  <part-list><score-part id="P1"><part-name>Voice</part-name></score-part></part-list>
  <part id="P1">
    <measure number="1">
      <attributes><divisions>1</divisions><time><beats>2</beats><beat-type>4</beat-type></time></attributes>
      <barline location="left"><repeat direction="forward"/></barline>
      {c}{d}
    </measure>
    <measure number="2">
      <barline location="left"><ending number="1" type="start"/></barline>
      {e}{f}
      <barline location="right"><ending number="1" type="stop"/><repeat direction="backward"/></barline>
    </measure>
    <measure number="3">
      <barline location="left"><ending number="2" type="start"/></barline>
      {g}{a}
      <barline location="right"><ending number="2" type="stop"/></barline>
    </measure>
  </part>
</score-partwise>
"""


def _xml_note(step, octave=4, words=()):
    lyrics = "".join(f'<lyric number="{k}"><syllabic>single</syllabic><text>{w}</text></lyric>'
                     for k, w in words)
    return (f"<note><pitch><step>{step}</step><octave>{octave}</octave></pitch><duration>1</duration>"
            f"<type>quarter</type>{lyrics}</note>")


def test_abc_repeat_with_two_endings_is_sung_pass_by_pass(tmp_path):
    f = tmp_path / "volta.abc"
    f.write_text(VOLTA_ABC, encoding="utf-8")
    m = read_melody(f)
    first = ["C4", "D4", "E4", "F4", "G4", "E4"]
    assert _names(m) == first + ["D4", "E4", "F4", "D4", "C4"] + first + ["D4", "E4", "D4", "B3", "C4"]
    assert m.line_lengths() == [11, 11]                 # the end of the first pass ends a line
    assert [round(m.notes[ln[0][0]].seconds, 3) for ln in m.lines] == [0.0, 8.0]   # 16 quarters at 120
    assert "repeats sung out: bars 1-4, 1-2, 5-6" in m.meta["repeats"]
    assert "each ending on its own pass" in m.meta["repeats"]


def test_abc_repeat_without_endings_is_sung_twice(tmp_path):
    f = tmp_path / "rep.abc"
    f.write_text("X:1\nM:4/4\nL:1/4\nK:G\n|: G A B c | d4 :|\n|: e e d d | G4 :|\n", encoding="utf-8")
    m = read_melody(f)
    assert _names(m) == ["G4", "A4", "B4", "C5", "D5"] * 2 + ["E5", "E5", "D5", "D5", "G4"] * 2
    assert m.line_lengths() == [5, 5, 5, 5]
    assert m.meta["repeats"].startswith("repeats sung out: bars 1-2, 1-2, 3-4, 3-4")


def test_musicxml_endings_and_the_second_verse_on_the_second_pass(tmp_path):
    f = tmp_path / "volta.musicxml"
    f.write_text(VOLTA_XML.format(
        c=_xml_note("C", words=[(1, "one"), (2, "three")]), d=_xml_note("D", words=[(1, "two"), (2, "four")]),
        e=_xml_note("E", words=[(1, "go")]), f=_xml_note("F", words=[(1, "on.")]),
        g=_xml_note("G", words=[(1, "the")]), a=_xml_note("A", words=[(1, "end.")])), encoding="utf-8")
    m = read_melody(f)
    assert _names(m) == ["C4", "D4", "E4", "F4", "C4", "D4", "G4", "A4"]
    assert [n.lyric for n in m.notes] == ["one", "two", "go", "on.", "three", "four", "the", "end."]
    assert m.original_lines() == ["one two go on.", "three four the end."]
    assert "repeats" in m.meta


def test_a_tune_without_repeats_says_nothing_about_them(tmp_path):
    f = tmp_path / "plain.abc"
    f.write_text("X:1\nM:4/4\nL:1/4\nK:C\nC D E F | G4 |]\n", encoding="utf-8")
    m = read_melody(f)
    assert len(m.notes) == 5 and "repeats" not in m.meta


# ----------------------------------------------------------------------------------------------
# ABC words (m1) and note length (m2)

WORDS_ABC = """X:5
T:Pickup with words
M:3/4
L:1/4
K:C
G | c2 e | d2 G | c2- c | z2 G |
w:The sun is gone a-way _ and
e2 g | f2 e | d3- | d2 z |]
w:the night is fall-ing _ _
"""


def test_abc_w_lines_are_the_songs_words(tmp_path):
    f = tmp_path / "words.abc"
    f.write_text(WORDS_ABC, encoding="utf-8")
    m = read_melody(f)
    assert m.words
    assert m.original_lines() == ["The sun is gone away and", "the night is falling"]
    assert m.line_lengths() == [7, 5]
    away = m.lines[0][5]                       # "way" held over its tied note: one note, one syllable
    assert m.notes[away[0]].lyric == "way" and m.notes[m.lines[0][4][0]].lyric == "a-"
    doc = piece_from_melody_file(f)
    assert doc.template.lang == "en" and doc.original is not None
    assert doc.original.lines == ["The sun is gone away and", "the night is falling"]


def test_abc_w_star_skips_a_note_and_a_bar_line_moves_on(tmp_path):
    f = tmp_path / "skip.abc"
    f.write_text("X:1\nM:4/4\nL:1/4\nK:C\nC D E F | G A B c |\nw:one * three | five six\n", encoding="utf-8")
    m = read_melody(f)
    assert [n.lyric for n in m.notes] == ["one", None, "three", None, "five", "six", None, None]


def test_abc_two_w_lines_are_two_verses_for_a_repeat(tmp_path):
    f = tmp_path / "verses.abc"
    f.write_text("X:1\nM:2/4\nL:1/4\nK:C\n|: C D | E F | G2 :|\nw:one two three four five,\n"
                 "w:six sev-en eight nine.\n", encoding="utf-8")
    m = read_melody(f)
    assert m.original_lines() == ["one two three four five,", "six seven eight nine."]


def test_repeat_signs_music21_cannot_bar_are_reported(tmp_path):
    f = tmp_path / "short.abc"
    f.write_text("X:1\nM:4/4\nL:1/4\nK:C\n|: C D E F :|\n", encoding="utf-8")
    m = read_melody(f)
    assert len(m.notes) == 4 and "repeat signs could not be read" in m.meta["warnings"][-1]


@pytest.mark.parametrize("metre, unit", [("M:2/4\n", 0.25), ("M:4/4\n", 0.5), ("M:6/8\n", 0.5), ("", 0.5)])
def test_abc_without_l_takes_the_standard_unit_note(tmp_path, metre, unit):
    f = tmp_path / "nol.abc"
    f.write_text(f"X:3\nT:Three\n{metre}K:C\nCDEF|GABc|\n", encoding="utf-8")
    m = read_melody(f)
    assert len(m.notes) == 8 and all(n.duration == unit for n in m.notes)
    assert any("no L: (note length) field" in w for w in m.meta["warnings"])


def test_abc_file_header_l_applies_to_its_tunes(tmp_path):
    f = tmp_path / "head.abc"
    f.write_text("L:1/4\n\nX:1\nK:C\nCDEF|\n", encoding="utf-8")
    m = read_melody(f)
    assert [n.duration for n in m.notes] == [1.0] * 4 and "warnings" not in m.meta


def test_music21s_reasons_are_never_cut_mid_word():
    raw = ("no active default note length provided for note processing. tPrev: "
           "<music21.abcFormat.ABCMetadata 'K:C'>, token: <music21.abcFormat.ABCNote 'C'>, tNext: <music2")
    assert _why(ValueError(raw)) == "no active default note length provided for note processing"
    long = ValueError("word " * 60)
    text = _why(long)
    assert len(text) <= 125 and text.endswith(" …") and text[:-2].split()[-1] == "word"


# ----------------------------------------------------------------------------------------------
# MIDI: which track, cut-off files, drums (m3, m4)

def _vlq(n: int) -> bytes:
    out = [n & 0x7F]
    n >>= 7
    while n:
        out.insert(0, (n & 0x7F) | 0x80)
        n >>= 7
    return bytes(out)


def _track(name: str, chords: list[list[int]], channel: int = 0, quarter: int = 480) -> bytes:
    """An MTrk chunk: the name, then each chord (or single note) for a quarter note."""
    body = b"\x00\xff\x03" + _vlq(len(name.encode())) + name.encode()
    for pitches in chords:
        for p in pitches:
            body += b"\x00" + bytes([0x90 | channel, p, 80])
        for k, p in enumerate(pitches):
            body += _vlq(quarter if k == 0 else 0) + bytes([0x80 | channel, p, 0])
    body += b"\x00\xff\x2f\x00"
    return b"MTrk" + len(body).to_bytes(4, "big") + body


def _midi(*tracks: bytes) -> bytes:
    return b"MThd" + (6).to_bytes(4, "big") + (1).to_bytes(2, "big") + len(tracks).to_bytes(2, "big") + \
        (480).to_bytes(2, "big") + b"".join(tracks)


CHORDS = [[48, 52, 55], [53, 57, 60], [55, 59, 62], [48, 52, 55]]
TUNE = [[60], [62], [64], [65], [67], [65], [64], [62]]


@pytest.mark.parametrize("names, picked", [(("Piano", "Voice"), "Voice"), (("", ""), "2"),
                                           (("Strings", "Flute"), "Flute")])
def test_a_chord_track_listed_first_is_passed_over(tmp_path, names, picked):
    f = tmp_path / "two.mid"
    f.write_bytes(_midi(_track(names[0], CHORDS), _track(names[1], TUNE, channel=1)))
    m = read_melody(f)
    assert m.part == picked and len(m.notes) == 8
    assert m.meta["part_chosen"].startswith("the file has 2 tracks")
    assert "read track 2" in m.meta["part_chosen"]
    assert read_melody(f, part=1).line_lengths() == [4]          # still there when asked for


def test_a_melody_track_first_stays_the_choice(tmp_path):
    f = tmp_path / "two.mid"
    f.write_bytes(_midi(_track("Tune", TUNE), _track("Piano", CHORDS, channel=1)))
    m = read_melody(f)
    assert m.part == "Tune" and "it is the first with notes" in m.meta["part_chosen"]


def test_a_cut_off_midi_file_is_refused_naming_the_track(tmp_path):
    whole = _midi(_track("Piano", CHORDS), _track("Voice", TUNE, channel=1))
    f = tmp_path / "cut.mid"
    f.write_bytes(whole[:len(whole) - 20])
    with pytest.raises(MelodyError, match=r"cut\.mid: the file is cut off \(track 2 of 2 ends early"):
        read_melody(f)
    f.write_bytes(whole[:len(_midi(_track("Piano", CHORDS)))])     # the second track missing
    with pytest.raises(MelodyError, match=r"track 2 of 2 is missing"):
        read_melody(f)
    f.write_bytes(whole[:10])
    with pytest.raises(MelodyError, match="header ends early"):
        read_melody(f)


def test_drums_only_says_so(tmp_path):
    f = tmp_path / "drums.mid"
    f.write_bytes(_midi(_track("Kit", [[36], [38], [36], [38]], channel=9)))
    with pytest.raises(MelodyError, match=r"only percussion \(General MIDI channel 10\), no melody"):
        read_melody(f)


def test_no_such_part_in_a_one_part_file_says_it_plainly(tmp_path):
    f = tmp_path / "one.abc"
    f.write_text("X:1\nM:4/4\nL:1/4\nK:C\nC D E F|\n", encoding="utf-8")
    with pytest.raises(MelodyError) as e:
        read_melody(f, part=2)
    assert str(e.value) == "one.abc: no part 2; the file has only 1 part"


# ----------------------------------------------------------------------------------------------
# The content decides, not the suffix (m8)

def test_files_are_read_as_what_they_are(tmp_path):
    xml = tmp_path / "tune.txt"
    xml.write_text(VOLTA_XML.format(c=_xml_note("C"), d=_xml_note("D"), e=_xml_note("E"), f=_xml_note("F"),
                                    g=_xml_note("G"), a=_xml_note("A")), encoding="utf-8")
    mid = tmp_path / "tune.abc"
    mid.write_bytes(_midi(_track("Voice", TUNE)))
    abc = tmp_path / "tune.mid"
    abc.write_text(VOLTA_ABC, encoding="utf-8")
    assert [sniff(p.read_bytes()) for p in (xml, mid, abc)] == ["musicxml", "midi", "abc"]
    assert all(is_melody_file(p) for p in (xml, mid, abc))
    for path, kind, named in ((xml, "musicxml", ".txt"), (mid, "midi", ".abc"), (abc, "abc", ".mid")):
        m = read_melody(path)
        assert m.kind == kind
        assert m.meta["warnings"][0].startswith(f"{path.name} is a ") and f"(named {named})" in m.meta["warnings"][0]
    lyrics = tmp_path / "song.txt"
    lyrics.write_text("X marks the spot\nK is for kite\n", encoding="utf-8")
    assert not is_melody_file(lyrics) and sniff(lyrics.read_bytes()) is None
    assert not is_melody_file(tmp_path / "missing.txt")


def test_cli_relyric_reads_a_musicxml_file_named_txt(tmp_path, capsys):
    from songwriter.cli import main

    f = tmp_path / "tune.txt"
    f.write_text(VOLTA_XML.format(c=_xml_note("C"), d=_xml_note("D"), e=_xml_note("E"), f=_xml_note("F"),
                                  g=_xml_note("G"), a=_xml_note("A")), encoding="utf-8")
    assert main(["template", "--relyric", str(f), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["meta"]["melody"]["kind"] == "musicxml"


# ----------------------------------------------------------------------------------------------
# English words under the notes, syllable by syllable (m6)

@pytest.mark.parametrize("word, count, pieces", [
    ("Whither", 2, ["Whith", "er"]), ("happy", 2, ["hap", "py"]), ("table", 2, ["ta", "ble"]),
    ("being", 2, ["be", "ing"]), ("beautiful", 3, ["beau", "ti", "ful"]), ("lovely", 2, ["love", "ly"]),
    ("love", 1, ["love"]), ("Hallelujah", 4, ["Hal", "le", "lu", "jah"]), ("well-known", 2, ["well", "known"]),
    ("a", 2, ["a", ""]),
    # a short stressed vowel keeps the consonant after it, a long one does not (CMUdict)
    ("river", 2, ["riv", "er"]), ("heaven", 2, ["heav", "en"]), ("body", 2, ["bod", "y"]),
    ("holy", 2, ["ho", "ly"]), ("paper", 2, ["pa", "per"]),
    # w and y ending a stressed vowel stay with it; before a stressed one they start it
    ("flower", 2, ["flow", "er"]), ("prayer", 2, ["pray", "er"]), ("away", 2, ["a", "way"]),
    ("beyond", 2, ["be", "yond"]),
    # a silent e: joined back in a compound, joined on before r, sung where the notes ask
    ("loneliness", 3, ["lone", "li", "ness"]), ("evening", 2, ["eve", "ning"]), ("every", 2, ["ev", "ery"]),
    ("every", 3, ["ev", "e", "ry"]), ("fire", 2, ["fi", "re"]), ("desire", 3, ["de", "si", "re"]),
    ("loved", 2, ["lov", "ed"]),
    # qu is a consonant; endings keep the stem's consonants; an elision stays with its syllable
    ("quiet", 2, ["qui", "et"]), ("morning", 2, ["morn", "ing"]), ("wandering", 3, ["wan", "der", "ing"]),
    ("running", 2, ["run", "ning"]), ("heav'nly", 2, ["heav'n", "ly"]), ("glorying", 3, ["glo", "ry", "ing"]),
    # a stem the dictionary knows keeps its consonant before the ending, its silent e dropped or not
    ("rising", 2, ["ris", "ing"]), ("praising", 2, ["prais", "ing"]), ("blessing", 2, ["bless", "ing"]),
    ("willing", 2, ["will", "ing"]), ("wedding", 2, ["wed", "ding"]), ("hundred", 2, ["hun", "dred"]),
    # a cluster is cut where what follows can open a syllable; with r or l after a long vowel whole
    ("boundless", 2, ["bound", "less"]), ("darkness", 2, ["dark", "ness"]), ("Christmas", 2, ["Christ", "mas"]),
    ("brightness", 2, ["bright", "ness"]), ("children", 2, ["chil", "dren"]), ("sacred", 2, ["sa", "cred"]),
    ("Africa", 3, ["Af", "ri", "ca"]), ("Father", 2, ["Fa", "ther"]), ("mother", 2, ["moth", "er"]),
])
def test_hyphenated_cuts_a_word_into_its_sung_syllables(word, count, pieces):
    assert hyphenated(word, count) == pieces


def _english_piece(tmp_path):
    f = tmp_path / "tune.abc"
    f.write_text("X:1\nM:3/4\nL:1/4\nK:G\nG A B | c2 B | A B c |\nd2 B | A G A | G3 |]\n", encoding="utf-8")
    t = template_from_melody(read_melody(f), lang="en")
    assert [ln.syllables for ln in t.lines] == [8, 6]
    return t, "Whither would I fly away now,\nO beautiful blue sky.\n"


def test_musicxml_export_marks_the_syllables_of_a_word(tmp_path):
    t, text = _english_piece(tmp_path)
    xml = musicxml_bytes(t, text).decode()
    sung = re.findall(r"<syllabic>(\w+)</syllabic>\s*<text>([^<]*)</text>", xml)
    assert sung[:8] == [("begin", "Whith"), ("end", "er"), ("single", "would"), ("single", "I"), ("single", "fly"),
                        ("begin", "a"), ("end", "way"), ("single", "now,")]
    assert sung[8:] == [("single", "O"), ("begin", "beau"), ("middle", "ti"), ("end", "ful"), ("single", "blue"),
                        ("single", "sky.")]
    back = tmp_path / "back.musicxml"
    back.write_bytes(xml.encode())
    m = read_melody(back)
    assert m.line_lengths() == [8, 6]
    assert m.original_lines() == ["Whither would I fly away now,", "O beautiful blue sky."]


def test_kar_export_reads_back_with_a_syllable_per_note(tmp_path):
    t, text = _english_piece(tmp_path)
    back = tmp_path / "back.kar"
    back.write_bytes(kar_bytes(t, text))
    m = read_melody(back)
    assert m.line_lengths() == [8, 6]
    assert m.original_lines() == ["Whither would I fly away now,", "O beautiful blue sky."]
    assert melody_of(template_from_melody(m)).line_lengths() == [8, 6]


def test_generate_says_which_track_it_took_and_what_it_did(tmp_path, capsys):
    from songwriter.cli_generate import melody_notes

    f = tmp_path / "two.mid"
    f.write_bytes(_midi(_track("Piano", CHORDS), _track("Voice", TUNE, channel=1)))
    t = template_from_melody(read_melody(f))
    assert melody_notes(t) == ["the file has 2 tracks (1 'Piano', 2 'Voice'); read track 2 'Voice': it is named "
                               "like a voice (--part NAME or NUMBER takes another)"]
    g = tmp_path / "volta.abc"
    g.write_text(VOLTA_ABC, encoding="utf-8")
    assert melody_notes(template_from_melody(read_melody(g)))[0].startswith("repeats sung out")


def test_template_command_says_which_track_it_took(tmp_path, capsys):
    from songwriter.cli import main

    f = tmp_path / "two.mid"
    f.write_bytes(_midi(_track("Piano", CHORDS), _track("Voice", TUNE, channel=1)))
    assert main(["template", "--relyric", str(f)]) == 0
    assert "note: the file has 2 tracks (1 'Piano', 2 'Voice'); read track 2 'Voice'" in capsys.readouterr().err

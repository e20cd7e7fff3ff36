"""Melodies in: MusicXML, MIDI (.mid, .kar) and ABC read into a melody line and a template whose
slots keep their notes; the words' fit to the notes (Chinese tones, rhythm). Fixtures are real
files under tests/data/melody, written by tests/data/melody/make_fixtures.py (one test writes them
again into a temporary folder and reads those)."""

import importlib.util
import json
import subprocess
import sys

import pytest
from conftest import DATA, ROOT

pytest.importorskip("music21")

from songwriter.melody import (  # noqa: E402
    Melody, MelodyError, melody_of, read_melody, template_from_melody, template_from_melody_file,
)
from songwriter.melody.build import join_syllables, move_line_break, split_syllable  # noqa: E402
from songwriter.melody.fit import BAD, check_fit, direction, pair_grade, tones_of  # noqa: E402
from songwriter.template import format_notation, from_dict, to_dict  # noqa: E402

MELODY = DATA / "melody"


def _fixtures():
    spec = importlib.util.spec_from_file_location("make_fixtures", MELODY / "make_fixtures.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


# ----------------------------------------------------------------------------------------------
# MusicXML with words

def test_musicxml_words_melisma_and_tie():
    m = read_melody(MELODY / "molihua.musicxml")
    assert (m.kind, m.title, m.words, m.time_signature, m.tempo) == ("musicxml", "茉莉花", True, "2/4", 72)
    assert m.original_lines() == ["好一朵美丽的茉莉花，", "好一朵美丽的茉莉花，", "芬芳美丽满枝桠，", "又香又白人人夸。"]
    assert m.line_lengths() == [9, 9, 7, 7]
    first = m.lines[0]
    assert [len(s) for s in first] == [1, 1, 1, 1, 1, 2, 1, 2, 1]      # 的 and 莉 are melismas
    de = m.slot_notes(0, 5)
    assert [n.pitch for n in de] == [77, 74] and de[1].lyric is None
    hua = m.slot_notes(0, 8)[0]                                        # 花 tied over the bar line: one note
    assert (hua.lyric, hua.pitch, hua.onset, hua.duration) == ("花，", 72, 3.0, 2.0)
    assert m.notes[m.lines[1][0][0]].rest_before == 1.0
    assert m.slot_notes(0, 0)[0].beat == 1.0 and m.strong(m.slot_notes(0, 0)[0])
    assert not m.strong(m.slot_notes(0, 1)[0])


def test_musicxml_template_keeps_punctuation_rhymes_times_and_notes():
    t = template_from_melody_file(MELODY / "molihua.musicxml")
    assert t.lang == "zh" and t.name == "茉莉花"
    assert [ln.syllables for ln in t.lines] == [9, 9, 7, 7]
    assert [ln.punct for ln in t.lines] == ["，", "，", "，", "。"]
    assert all(ln.rhyme == "A" for ln in t.lines)                       # 花 桠 夸: one rhyme, as the words have it
    assert [ln.time for ln in t.lines] == pytest.approx([0.0, 5.0, 10.0, 14.167], abs=1e-3)
    m = melody_of(t)
    assert m.matches(t) and m.slot_notes(2, 6)[0].lyric == "桠，"


def test_english_words_to_a_chinese_tune_take_english_marks():
    t = template_from_melody_file(MELODY / "molihua.musicxml", lang="en")
    assert [ln.punct for ln in t.lines] == [",", ",", ",", "."]
    assert not any(ch in slot.punct for ln in t.lines for slot in ln.slots for ch in "，。")


def test_songbie_lines_at_its_commas():
    t = template_from_melody_file(MELODY / "songbie.musicxml")
    assert [ln.syllables for ln in t.lines] == [3, 3, 5, 7, 5, 3, 3, 5, 7, 5]


def test_breath_mark_and_system_break_end_lines_without_words(tmp_path):
    from music21 import articulations, converter, layout

    score = converter.parse(str(MELODY / "molihua.musicxml"))
    for n in score.recurse().notes:
        n.lyrics = []
    notes = list(score.recurse().notes)
    notes[3].articulations.append(articulations.BreathMark())
    measures = list(score.parts[0].getElementsByClass("Measure"))
    measures[6].insert(0, layout.SystemLayout(isNew=True))
    path = tmp_path / "marks.musicxml"
    score.write("musicxml", fp=str(path))
    m = read_melody(path)
    assert not m.words
    assert m.notes[3].phrase_end == "breath"
    assert m.line_lengths()[0] == 4                                     # the breath mark
    ends = [ln[-1][-1] for ln in m.lines]
    assert 3 in ends and any(m.notes[k].phrase_end == "system" for k in ends)


# ----------------------------------------------------------------------------------------------
# MIDI

def test_midi_without_words_one_syllable_per_note_lines_at_rests():
    m = read_melody(MELODY / "molihua.mid")
    assert (m.kind, m.part, m.words, m.time_signature) == ("midi", "Melody", False, "2/4")
    assert m.tempo == pytest.approx(72, abs=0.01)
    assert m.meta["parts"] == ["Melody", "Bass"]
    assert m.line_lengths() == [11, 11]                                # the rest after 花 ends the line
    assert m.notes[2].pitch == 72                                      # a chord: its top note
    assert all(len(s) == 1 for ln in m.lines for s in ln)
    t = template_from_melody(m)
    assert [ln.punct for ln in t.lines] == ["，", "。"] and [ln.rhyme for ln in t.lines] == [None, "A"]


@pytest.mark.parametrize("part, name", [("2", "Bass"), ("bass", "Bass"), (1, "Melody")])
def test_midi_track_by_name_or_number(part, name):
    assert read_melody(MELODY / "molihua.mid", part=part).part == name


def test_kar_lyric_events_keep_syllables_and_line_breaks():
    m = read_melody(MELODY / "songbie.kar")
    assert m.words and m.original_lines() == ["长亭外", "古道边", "芳草碧连天"]
    assert [len(s) for s in m.lines[0]] == [1, 2, 1]                   # 亭 over two notes
    t = template_from_melody(m)
    assert [ln.syllables for ln in t.lines] == [3, 3, 5]


def test_compressed_musicxml_and_midi_lyric_events(tmp_path):
    from music21 import converter

    score = converter.parse(str(MELODY / "molihua.musicxml"))
    score.write("mxl", fp=str(tmp_path / "m.mxl"))
    score.write("midi", fp=str(tmp_path / "m.mid"))            # music21 writes the lyrics as lyric events
    for name in ("m.mxl", "m.mid"):
        m = read_melody(tmp_path / name)
        assert m.words and m.line_lengths() == [9, 9, 7, 7]
        assert m.original_lines()[2] == "芬芳美丽满枝桠，"


def test_two_voices_give_the_top_line(tmp_path):
    from music21 import note, stream

    v1, v2 = stream.Voice(), stream.Voice()
    for x in (60, 62, 64, 65):
        v1.append(note.Note(x, quarterLength=1))
    for x in (48, 50):
        v2.append(note.Note(x, quarterLength=2))
    bar = stream.Measure()
    bar.insert(0, v1)
    bar.insert(0, v2)
    part = stream.Part()
    part.append(bar)
    stream.Score([part]).write("musicxml", fp=str(tmp_path / "v.musicxml"))
    assert [n.pitch for n in read_melody(tmp_path / "v.musicxml").notes] == [60, 62, 64, 65]


# ----------------------------------------------------------------------------------------------
# ABC

def test_abc_tunes_by_number_and_lines_as_phrases():
    first = read_melody(MELODY / "two_tunes.abc")
    assert (first.tune, first.title, first.tempo, first.meta["tunes"]) == (1, "First tune", 96, [1, 2])
    assert first.line_lengths() == [11, 11]                           # the ABC line end, no rest
    assert first.notes[10].phrase_end == "line"
    second = read_melody(MELODY / "two_tunes.abc", tune=2)
    assert (second.title, second.time_signature) == ("Second tune", "3/4")
    assert second.line_lengths() == [6, 4, 4]        # phrases are the ABC lines: a rest inside is a breath
    assert second.notes[4].rest_before == 1.0
    d = second.notes[3]
    assert (d.pitch, d.duration) == (74, 3.0)                          # d4- d2: tied, one syllable
    assert second.notes[7].pitch == 74                                 # [FAd]: the top note
    t = template_from_melody(second, lang="en")
    assert format_notation(t, headers=False).splitlines()[0] == "[00:00.00]_ _ _ _ _ _,"


def test_abc_line_continued_with_a_backslash_is_one_phrase(tmp_path):
    f = tmp_path / "c.abc"
    f.write_text("X:7\nT:Continued\nM:2/4\nL:1/8\nK:G\nGA Bd | e2 d2 |\\\nBA GA | B4 |\ndB AG | G4 |]\n",
                 encoding="utf-8")
    m = read_melody(f)
    assert m.tune == 7 and m.line_lengths() == [11, 5]


# ----------------------------------------------------------------------------------------------
# Bad files

@pytest.mark.parametrize("name, kwargs, message", [
    ("broken.musicxml", {}, "not a readable MusicXML file"),
    ("broken.mid", {}, "the file is cut off (track 1 of 2 ends early"),
    ("empty.abc", {}, "tune 1 has no notes"),
    ("two_tunes.abc", {"tune": 9}, "no tune 9; the file has tunes 1, 2"),
    ("molihua.mid", {"part": "7"}, "no track 7; the file has 2 tracks: 1 'Melody', 2 'Bass'"),
    ("molihua.musicxml", {"part": "Flute"}, "no part named 'Flute'"),
    ("molihua.mid", {"tune": 1}, "a tune number is for ABC files"),
    ("nothing-here.mid", {}, "no such file"),
])
def test_bad_files_get_a_clear_error(name, kwargs, message):
    with pytest.raises(MelodyError, match=message.replace("(", r"\(")):
        read_melody(MELODY / name, **kwargs)


def test_not_a_melody(tmp_path):
    f = tmp_path / "song.mid"
    f.write_text("this is not MIDI", encoding="utf-8")
    with pytest.raises(MelodyError, match="not a MIDI file"):
        read_melody(f)
    g = tmp_path / "song.musicxml"
    g.write_text("plain words, no XML", encoding="utf-8")
    with pytest.raises(MelodyError, match="not a MusicXML file"):
        read_melody(g)
    h = tmp_path / "song.mxl"
    h.write_bytes(b"not a zip")
    with pytest.raises(MelodyError, match="zip"):
        read_melody(h)
    with pytest.raises(MelodyError, match="not a melody file"):
        read_melody(tmp_path / "song.wav")
    e = tmp_path / "empty.abc"
    e.write_bytes(b"")
    with pytest.raises(MelodyError, match="empty"):
        read_melody(e)


def test_fixture_script_writes_files_that_read_the_same(tmp_path):
    written = _fixtures().write_all(tmp_path)
    assert {p.name for p in written} >= {"molihua.musicxml", "molihua.mid", "songbie.kar", "two_tunes.abc"}
    for name in ("molihua.musicxml", "molihua.mid", "songbie.kar", "two_tunes.abc"):
        fresh, kept = read_melody(tmp_path / name), read_melody(MELODY / name)
        assert fresh.line_lengths() == kept.line_lengths()
        assert [n.pitch for n in fresh.notes] == [n.pitch for n in kept.notes]


# ----------------------------------------------------------------------------------------------
# Kept with the template and the project

def test_melody_json_round_trip_and_versions():
    t = template_from_melody_file(MELODY / "molihua.musicxml")
    back = from_dict(json.loads(json.dumps(to_dict(t), ensure_ascii=False)))
    m, m2 = melody_of(t), melody_of(back)
    assert m2.to_dict() == m.to_dict() and m2.matches(back)
    data = m.to_dict()
    assert data["format"] == "songwriter-melody" and data["version"] == 1
    with pytest.raises(MelodyError, match="newer Songwriter"):
        Melody.from_dict({**data, "version": 2})
    bad = json.loads(json.dumps(data))
    bad["notes"][3]["pitch"] = 300
    with pytest.raises(MelodyError, match=r"notes\[3\].pitch"):
        Melody.from_dict(bad)
    bad = json.loads(json.dumps(data))
    bad["lines"][0][0] = [999]
    with pytest.raises(MelodyError, match=r"lines\[0\]\[0\]"):
        Melody.from_dict(bad)


def test_project_file_keeps_the_melody(tmp_path):
    from songwriter.document import DocumentError, load, new_document, save

    t = template_from_melody_file(MELODY / "molihua.mid")
    doc = new_document(t, "tune")
    f = tmp_path / "tune.song"
    save(doc, f)
    again = load(f)
    assert melody_of(again.template).to_dict() == melody_of(t).to_dict()
    raw = json.loads(f.read_text(encoding="utf-8"))
    raw["template"]["meta"]["melody"]["notes"][0]["onset"] = "soon"
    f.write_text(json.dumps(raw, ensure_ascii=False), encoding="utf-8")
    with pytest.raises(DocumentError, match=r"meta.melody.notes\[0\].onset"):
        load(f)


def test_a_new_piece_from_a_melody_file(tmp_path):
    from songwriter.document import load, save
    from songwriter.melody import piece_from_melody_file

    doc = piece_from_melody_file(MELODY / "molihua.musicxml")
    assert doc.title == "茉莉花" and doc.original.kind == "lyrics"
    assert doc.original.lines[0] == "好一朵美丽的茉莉花，" and doc.original.times[1] == pytest.approx(5.0)
    save(doc, tmp_path / "m.song")
    again = load(tmp_path / "m.song")
    assert melody_of(again.template).matches(again.template) and again.original.lines == doc.original.lines
    plain = piece_from_melody_file(MELODY / "molihua.mid")
    assert plain.title == "molihua" and plain.original is None


def test_a_project_without_melody_still_reads(tmp_path):
    from songwriter.document import load, new_document, save
    from songwriter.forms import named_form

    f = tmp_path / "poem.song"
    save(new_document(named_form("七绝")), f)
    assert melody_of(load(f).template) is None


# ----------------------------------------------------------------------------------------------
# The writer's edits keep template and melody in step

def test_move_line_break_join_and_split():
    t = template_from_melody_file(MELODY / "molihua.mid")
    moved = move_line_break(t, 0, 8)
    assert [ln.syllables for ln in moved.lines] == [8, 14] and melody_of(moved).matches(moved)
    assert [ln.punct for ln in moved.lines] == ["，", "。"]
    assert moved.lines[1].time == pytest.approx(melody_of(moved).notes[8].seconds, abs=1e-3)
    joined = join_syllables(t, 0, 2)
    assert joined.lines[0].syllables == 10 and melody_of(joined).lines[0][2] == [2, 3]
    split = split_syllable(joined, 0, 2)
    assert melody_of(split).lines == melody_of(t).lines
    with pytest.raises(MelodyError, match="one note"):
        split_syllable(t, 0, 0)
    with pytest.raises(MelodyError, match="no line break after line 2"):
        move_line_break(t, 1, 3)


def test_an_edited_template_no_longer_matches(tmp_path):
    from songwriter.document import new_document

    t = template_from_melody_file(MELODY / "molihua.mid")
    doc = new_document(t)
    doc.set_line_length(0, 5)
    assert not melody_of(doc.template).matches(doc.template)
    assert not check_fit(doc.template, "").matched
    with pytest.raises(MelodyError, match="no longer match"):
        join_syllables(doc.template, 0, 0)


# ----------------------------------------------------------------------------------------------
# Fitting words to notes

def test_tone_directions_follow_the_tone_heights():
    assert direction(3, 1)[0] == "up" and direction(3, 4)[0] == "up" and direction(3, 2)[0] == "up"
    assert direction(1, 3)[0] == "down" and direction(4, 3)[0] == "down" and direction(2, 3)[0] == "down"
    assert direction(3, 3)[0] == "down"                       # the first third tone is sung rising
    assert direction(1, 4)[0] == "level" and direction(4, 1)[0] == "level"


@pytest.mark.parametrize("a, b, interval, grade", [
    (4, 3, 7, "bad"),              # a falling tone, then a big leap up onto a low tone
    (4, 3, -3, "good"), (4, 3, 0, "acceptable"), (4, 3, 2, "poor"),
    (3, 1, -5, "bad"), (3, 1, 4, "good"), (3, 1, -1, "poor"),
    (1, 1, 0, "good"), (1, 1, 5, "acceptable"), (1, 4, 9, "poor"),
    (5, 3, 12, "acceptable"), (None, 1, 12, "good"),          # neutral or unknown: never worse
])
def test_pair_grades(a, b, interval, grade):
    assert pair_grade(a, b, interval) == grade


def test_tones_in_context_with_yi_and_bu_sandhi():
    assert tones_of("一朵") == [4, 3] and tones_of("一个") == [2, 4] and tones_of("不要") == [2, 4]
    assert tones_of("第一") == [4, 1] and tones_of("我的") == [3, 5]


@pytest.mark.parametrize("name", ["molihua.musicxml", "songbie.musicxml"])
def test_real_songs_have_no_dao_zi_and_few_weak_pairs(name):
    m = read_melody(MELODY / name)
    t = template_from_melody(m)
    report = check_fit(t, "\n".join(m.original_lines()))
    assert report.pairs > 25 and report.dao_zi == 0
    assert report.grades["poor"] / report.pairs <= 0.25
    assert not [p for p in report.problems if p.kind in ("phrase", "rest")]   # the song's own lines


def test_words_against_the_tune_are_flagged_where_and_why():
    t = template_from_melody_file(MELODY / "two_tunes.abc")      # 2/4: strong beats at 0, 2, 4, 6 quarters
    m = melody_of(t)
    assert [n.pitch for n in m.slot_notes(1, 5) + m.slot_notes(1, 6)] == [62, 67]     # D up a fourth to G
    assert [n.pitch for n in m.slot_notes(1, 9) + m.slot_notes(1, 10)] == [74, 67]    # d down a fifth to G
    text = "天天天天天天的天天天天，\n天天天天天天好天天你天。"
    report = check_fit(t, text)
    bad = [p for p in report.problems if p.kind == "tone" and p.grade == BAD]
    assert [(p.line, p.slot) for p in bad] == [(1, 6), (1, 10)]
    assert "倒字" in bad[0].message and "天好" in bad[0].message and "go down" in bad[0].message
    assert report.dao_zi == 2 and report.dao_zi_rate == pytest.approx(2 / report.pairs)
    rhythm = [p for p in report.problems if p.kind == "rhythm"]
    assert [(p.line, p.slot) for p in rhythm] == [(0, 6)] and "的" in rhythm[0].message
    assert m.strong(m.slot_notes(0, 6)[0])
    plain = check_fit(t, "天天天天天天天天天天天，\n天天天天天天天天天天天。")
    assert plain.problems == [] and report.penalty() > plain.penalty() == 0


def test_a_rest_inside_a_word_is_flagged():
    t = template_from_melody_file(MELODY / "two_tunes.abc", tune=2)  # D F A d | rest | c B on line 1
    report = check_fit(t, "春天来天空来，\n____，\n____。")
    rests = [p for p in report.problems if p.kind == "rest"]
    assert [(p.line, p.slot) for p in rests] == [(0, 4)] and "天空" in rests[0].message
    moved = move_line_break(t, 0, 3)                                  # line 1 now ends on A, d straight after
    report = check_fit(moved, "")
    assert [(p.kind, p.line) for p in report.problems] == [("phrase", 0)]


def test_english_stress_against_the_beat():
    t = template_from_melody_file(MELODY / "two_tunes.abc", lang="en")   # 2/4, 11 notes a line
    m = melody_of(t)
    assert [m.slot_notes(0, k)[0].beat for k in range(4)] == [1.0, 0.25, 0.5, 0.25]
    # beats 1 .25 .5 .25 | 1 .5 | 1 .25 .5 .25 | 1: "amazing grace" is set against the tune
    report = check_fit(t, "amazing grace how sweet the sound that saved a wretch,\nla la la la la la la la la la la.")
    stress = [p for p in report.problems if p.kind == "stress"]
    # a-MA-zing with MA on the weakest beat of the three: the word's own stress wrenched (bad, one
    # problem for its two pairs)
    assert [(p.line, p.slot, p.grade) for p in stress if p.grade == "bad"] == [(0, 1, "bad")]
    assert "amazing" in stress[0].message and report.stress_bad == 2
    # between words: grace after -zing, sweet before the, sound between the and that, saved
    # between that and a, each stressed on a weaker beat than its unstressed neighbour
    assert sorted((p.slot, p.grade) for p in stress if p.grade == "poor") == [
        (3, "poor"), (5, "poor"), (7, "poor"), (7, "poor"), (9, "poor"), (9, "poor")]
    assert any("last syllable of 'amazing'" in p.message for p in stress)
    assert report.stress_pairs == 8 and report.stress_clash_rate == 1.0
    rhythm = [p for p in report.problems if p.kind == "rhythm"]
    assert [(p.line, p.slot) for p in rhythm] == [(0, 6)] and "'the'" in rhythm[0].message
    good = check_fit(t, "river flows and sweet the sound that saved a wretch like,\nla la la la la la la la la la la.")
    assert not [p for p in good.problems if p.kind == "stress"]
    assert good.stress_pairs == 10 and good.stress_clash_rate == 0.0
    assert good.to_dict()["stress"]["clash_rate"] == 0.0


def test_english_long_notes_on_open_syllables():
    t = template_from_melody_file(MELODY / "two_tunes.abc", lang="en")   # quarter notes on e d, a half on B
    line = "river flows and sweet the sound that saved a wretch like,\nla la la la la la la la la la la."
    report = check_fit(t, line)
    closed = [(p.slot, p.message) for p in report.problems if p.kind == "open"]
    # the long notes: e d (a quarter each, twice the median eighth) and the half note B at the
    # line end, three a line; "sweet" and "wretch" end in consonants, "the" on d is open
    assert [s for s, _ in closed] == [4, 10] and "'wretch'" in closed[1][1]
    assert report.long_notes == 6 and report.long_closed == 2
    opened = check_fit(t, line.replace("sweet", "free").replace("wretch", "day"))
    assert not [p for p in opened.problems if p.kind == "open"] and opened.long_closed == 0


def test_no_melody_or_english_gives_an_empty_report():
    from songwriter.forms import named_form

    assert check_fit(named_form("七绝"), "白日依山尽").pairs == 0
    t = template_from_melody_file(MELODY / "two_tunes.abc", lang="en")
    assert check_fit(t, "la la").problems == [] and check_fit(t, "la la").pairs == 0


def test_the_engine_keeps_the_candidates_that_fit():
    from songwriter.melody import attach
    from songwriter.melody.fit import melody_ranking

    t = template_from_melody_file(MELODY / "two_tunes.abc")
    keep, rows = melody_ranking(t, 4)
    assert rows == 4                              # the default: the decoder's mask does the work
    bad = "天天天天天天的天天天天，\n天天天天天天好天天你天。"       # two 倒字 and a 的 on a strong beat
    good = [f"{c}天天天天天天天天天天，\n天天天天天天天天天天天。" for c in "春花风江"]
    scored = [(good[0], 0.0), (bad, 0.0), *[(g, 0.0) for g in good[1:]]]
    assert [text for text, _ in keep(scored)] == good              # the 倒字 goes, the order stays
    m = melody_of(t)
    m.tone_strength = 3
    attach(t, m)
    keep, rows = melody_ranking(t, 4)
    assert rows == 16                                              # strong: four times what is kept
    assert [text for text, _ in keep(scored)] == good
    m.tone_strength = 0
    attach(t, m)
    keep, rows = melody_ranking(t, 4)
    assert rows == 4 and keep(scored) == scored                     # off: the engine's own choice


# ----------------------------------------------------------------------------------------------
# Out: the new words under the notes

NEW_WORDS = "我们一起走过那条河，\n春天的风吹开满山花，\n青山绿水到天涯，\n明月照我回家了。"


@pytest.mark.parametrize("suffix", [".musicxml", ".kar"])
def test_new_words_written_under_the_notes_read_back_on_their_notes(tmp_path, suffix):
    from songwriter.melody.write import write_kar, write_musicxml

    t = template_from_melody_file(MELODY / "molihua.musicxml")
    out = (write_musicxml if suffix == ".musicxml" else write_kar)(t, NEW_WORDS, tmp_path / f"new{suffix}")
    back = read_melody(out)
    assert back.original_lines() == NEW_WORDS.split("\n")
    assert back.lines == melody_of(t).lines                          # every syllable on its note(s)
    assert [n.pitch for n in back.notes] == [n.pitch for n in melody_of(t).notes]
    if suffix == ".musicxml":
        assert out.read_text(encoding="utf-8").count('<extend type="start"') == 8   # one per melisma


def test_words_for_a_melody_without_words_and_errors(tmp_path):
    from songwriter.forms import named_form
    from songwriter.melody.write import write_musicxml

    t = template_from_melody_file(MELODY / "molihua.mid")
    out = write_musicxml(t, "一二三四五六七八九十百，\n千万_兆京垓秭穰沟涧。", tmp_path / "n.musicxml")
    back = read_melody(out)
    assert back.words and back.original_lines() == ["一二三四五六七八九十百，", "千万兆京垓秭穰沟涧。"]
    with pytest.raises(MelodyError, match="no melody"):
        write_musicxml(named_form("七绝"), "", tmp_path / "x.musicxml")


# ----------------------------------------------------------------------------------------------
# Command line and imports

def test_cli_template_relyric_each_file_type(capsys):
    from songwriter.cli import main

    for name, extra, lengths in [("molihua.musicxml", [], [9, 9, 7, 7]), ("molihua.mid", [], [11, 11]),
                                 ("songbie.kar", [], [3, 3, 5]), ("two_tunes.abc", ["--tune", "2"], [6, 4, 4])]:
        assert main(["template", "--relyric", str(MELODY / name), "--json", *extra]) == 0
        data = json.loads(capsys.readouterr().out)
        assert [len(ln["slots"]) for ln in data["lines"]] == lengths
        assert data["meta"]["melody"]["source"] == name
    assert main(["template", "--relyric", str(MELODY / "two_tunes.abc"), "--lang", "en"]) == 0
    assert "# lang: en" in capsys.readouterr().out
    assert main(["template", "--relyric", str(MELODY / "broken.mid")]) == 2
    assert "broken.mid: the file is cut off" in capsys.readouterr().err
    assert main(["template", "--relyric", str(DATA / "molihua.txt"), "--tune", "2"]) == 2
    assert "--part and --tune are for melody files" in capsys.readouterr().err


def test_generate_relyric_melody(capsys, tmp_path_factory):
    pytest.importorskip("torch")
    sys.path.insert(0, str(ROOT / "tests"))
    from helpers.tiny_model import make_tiny_model

    from songwriter.cli import main

    model = make_tiny_model(tmp_path_factory.mktemp("model"))
    for name in ("molihua.musicxml", "molihua.mid"):
        assert main(["generate", "--relyric", str(MELODY / name), "--model", str(model), "-n", "3", "--seed", "2",
                     "--json"]) == 0
        out = json.loads(capsys.readouterr().out)
        want = read_melody(MELODY / name).line_lengths()
        assert len(out["candidates"]) == 3
        for c in out["candidates"]:
            assert c["check"]["ok"]
            assert [sum(1 for ch in line if ch not in "，。") for line in c["lines"]] == want
    assert main(["generate", "--relyric", str(MELODY / "molihua.mid"), "--tone-fit", "0", "--model", str(model),
                 "-n", "2", "--seed", "2", "--json"]) == 0
    capsys.readouterr()
    assert main(["generate", "--form", "七绝", "--tone-fit", "1", "--model", str(model), "-n", "1"]) == 2
    assert "--tone-fit is for a melody" in capsys.readouterr().err


def test_core_imports_stay_light():
    code = ("import sys; import songwriter.melody, songwriter.melody.fit, songwriter.melody.build, songwriter.melody.write, "
            "songwriter.document, songwriter.template\n"
            "bad = [m for m in ('music21', 'torch', 'PySide6', 'numpy') if m in sys.modules]; assert not bad, bad")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)


def test_a_phrase_sung_again_with_its_words_is_a_refrain_until_edited_apart():
    t = template_from_melody_file(MELODY / "molihua.musicxml")      # 好一朵美丽的茉莉花 twice
    assert [ln.repeats for ln in t.lines] == [None, 0, None, None]
    joined = join_syllables(t, 1, 2)          # the second singing's notes sung otherwise
    assert joined.lines[1].repeats is None and not joined.refrain_problems()
    assert join_syllables(t, 0, 2).lines[1].repeats is None
    assert move_line_break(t, 2, 5).lines[1].repeats == 0      # lines elsewhere: still a refrain

import pytest
from conftest import DATA

from songwriter.lyrics import LyricsError, template_from_lrc, template_from_lyrics
from songwriter.template import format_notation, parse_notation


def test_chinese_song_lengths_and_rhymes():
    t = template_from_lyrics((DATA / "molihua.txt").read_text())
    assert [ln.syllables for ln in t.lines] == [9, 9, 7, 7, 7, 5, 7]
    assert all(ln.rhyme == "A" for ln in t.lines)  # 花 桠 夸 下 家: all 麻
    assert [ln.stanza for ln in t.lines] == [0, 0, 0, 0, 1, 1, 1]
    assert all(s.lock is None for ln in t.lines for s in ln.slots)


def test_english_song_syllables_punct_and_rhymes():
    t = template_from_lyrics((DATA / "amazing_grace.txt").read_text())
    assert [ln.syllables for ln in t.lines] == [8, 6, 8, 6]  # common meter
    assert [ln.rhyme for ln in t.lines] == ["A", "B", "A", "B"]
    assert t.lines[0].puncts == ["!"] and t.lines[2].puncts == [",", ";"]


def test_english_relyric_keeps_the_old_words_metre():
    t = template_from_lyrics((DATA / "amazing_grace.txt").read_text())
    assert ["".join(s.tone for s in ln.slots) for ln in t.lines] == ["x/x/x/x/", "x/x/x/"] * 2
    # sung syllables: "our" in one, as the tune has it (8.6.8.6), each line its iambs
    t = template_from_lyrics("O God, our help in ages past,\nOur hope for years to come,\n"
                             "Our shelter from the stormy blast,\nAnd our eternal home.", "en")
    assert [ln.syllables for ln in t.lines] == [8, 6, 8, 6]
    assert [ln.puncts for ln in t.lines][0] == [",", ","]       # the comma after "God" stays after it
    assert t.lines[0].slots[1].punct == ","
    assert format_notation(t).splitlines()[2:4] == ["x /, x / x / x /, @A", "x / x / x /, @B"]
    # come / home: a slant rhyme, kept as one (the template takes slant rhymes); past / blast perfect
    assert [ln.rhyme for ln in t.lines] == ["A", "B", "A", "B"] and t.rhyme_system == "slant"
    told = template_from_lyrics("O God, our help in ages past,\nOur hope for years to come,\n"
                                "Our shelter from the stormy blast,\nAnd our eternal home.", "en", "perfect")
    assert [ln.rhyme for ln in told.lines] == ["A", None, "A", None]      # the writer's system rules
    # a line whose words read to no metre stays free
    t = template_from_lyrics("Holy Spirit, faithful Guide, ever near the Christian's side", "en")
    assert t.lines[0].syllables == 14 and all(s.tone is None for s in t.lines[0].slots)


def test_english_relyric_stresses_the_rhyme_and_never_an_article():
    """The QA song's verse: every line ends on a stressed slot (the rhyme), and no slot an
    article filled asks for a stressed syllable."""
    verse = ("Oh the river runs so wide,\nAnd my love is on the other side,\n"
             "I will wait here by the shore,\nTill she comes to me once more.")
    t = template_from_lyrics(verse, "en")
    assert [ln.slots[-1].tone for ln in t.lines] == ["/"] * 4
    assert ["".join(s.tone or "_" for s in ln.slots) for ln in t.lines][2:] == ["/x/x/x/"] * 2
    # where the words' metre sets "the" on a beat, the slot is left free
    t = template_from_lyrics("When the saved of the earth shall gather,", "en")
    assert [s.tone for s in t.lines[0].slots][:4] == ["x", None, "x", "/"]


def test_a_chinese_song_takes_english_words_a_syllable_per_character():
    """A cover: English words to a Chinese song. Each character is a syllable, as a melody's notes
    give it; the Chinese rhymes make the scheme; the marks are English ones."""
    t = template_from_lyrics("月亮代表我的心，\n你问我爱你有多深。\n\n我的情也真！\n我的爱也真？", "en")
    assert t.lang == "en" and [ln.syllables for ln in t.lines] == [7, 8, 5, 5]
    assert [ln.puncts for ln in t.lines] == [[","], ["."], ["!"], ["?"]]
    assert [ln.rhyme for ln in t.lines] == ["A"] * 4            # 心 深 真: one 中华新韵 rhyme
    assert all(s.tone is None for ln in t.lines for s in ln.slots)   # no stresses to keep
    assert [ln.stanza for ln in t.lines] == [0, 0, 1, 1]


def test_an_english_song_in_chinese_takes_chinese_marks_and_keeps_its_rhymes():
    t = template_from_lyrics("Oh the river runs so wide,\nAnd my love is on the other side.\n"
                             "I will wait here by the shore!\nTill she comes to me once more?", "zh")
    assert [ln.puncts for ln in t.lines] == [["，"], ["。"], ["！"], ["？"]]
    assert [ln.rhyme for ln in t.lines] == ["A", "A", "B", "B"]   # wide / side, shore / more
    # and English words typed with full-width marks get English ones
    t = template_from_lyrics("We do our best，\nBe thou our guide。", "en")
    assert [ln.puncts for ln in t.lines] == [[","], ["."]]


def test_lrc_keeps_times_and_round_trips_through_notation():
    t = template_from_lrc((DATA / "molihua.lrc").read_text())
    assert len(t.lines) == 7
    assert t.lines[0].time == pytest.approx(5.1) and t.lines[-1].time == pytest.approx(51.75)
    assert t.lines[4].stanza == 1  # the long gap before 让我来将你摘下
    back = parse_notation(format_notation(t))
    assert [ln.time for ln in back.lines] == pytest.approx([ln.time for ln in t.lines])


def test_lrc_repeated_stamps_and_offset():
    t = template_from_lrc("[offset:500]\n[00:10.00][00:30.00]啦啦啦\n[00:20.00]嘿嘿嘿\n")
    assert [ln.time for ln in t.lines] == pytest.approx([9.5, 19.5, 29.5])


@pytest.mark.parametrize("text, line, message", [
    ("[00:1x.00]abc", 1, "broken timestamp"),
    ("[00:10.00]好\n[00:75.00]好", 2, "under 60"),
    ("[00:10.00]好\nno time here", 2, "no timestamp"),
    ("[ti:x]\n", None, "no timed"),
])
def test_broken_lrc_names_the_line(text, line, message):
    with pytest.raises(LyricsError, match=message) as e:
        template_from_lrc(text)
    assert e.value.line == line


def test_empty_and_huge_lyrics():
    with pytest.raises(LyricsError, match="empty"):
        template_from_lyrics("  \n ")
    with pytest.raises(LyricsError, match="too long"):
        template_from_lyrics("啊" * 300_000)
    with pytest.raises(LyricsError, match="no lyric lines"):
        template_from_lyrics("[Chorus]\n\n")


def test_english_word_in_chinese_song_takes_its_syllables():
    t = template_from_lyrics("Baby 我爱你\n")
    assert t.lines[0].syllables == 2 + 3


from hypothesis import given, settings, strategies as st  # noqa: E402

from songwriter.template import TemplateError  # noqa: E402

_lyric_text = st.text(alphabet="春风花月家，。! abc\n[]:0123456789.", max_size=120)


@settings(max_examples=150, deadline=None)
@given(_lyric_text)
def test_lyrics_parser_gives_a_template_or_a_clear_error(text):
    try:
        t = template_from_lyrics(text)
    except TemplateError as e:
        assert str(e)
        return
    assert t.lines and all(ln.syllables > 0 for ln in t.lines)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 99), st.integers(0, 59), st.integers(0, 99),
                          st.text(alphabet="春风花月家 ，", max_size=8)), max_size=12))
def test_lrc_parser_keeps_every_timed_line_in_time_order(entries):
    text = "\n".join(f"[{m:02d}:{s:02d}.{c:02d}]{words}" for m, s, c, words in entries)
    sung = [(m * 60 + s + c / 100) for m, s, c, words in entries if words.strip(" ，")]
    try:
        t = template_from_lrc(text)
    except TemplateError as e:
        assert not sung or "syllables" in str(e) or "no timed" in str(e)
        return
    times = [ln.time for ln in t.lines]
    assert times == sorted(times) and len(times) == len(sung)


def test_section_labels_do_not_make_lyrics_an_lrc_file(tmp_path):
    from songwriter.cli import template_from_song_file
    from songwriter.lyrics import looks_like_lrc

    song = "[Verse]\n窗外的雨下个不停\n我在等你的消息\n\n[Chorus]\n如果明天你还记得\n"
    assert not looks_like_lrc(song)
    assert looks_like_lrc("[ti:x]\n[00:01.00]一二三\n[00:02.50]四五六\n")
    f = tmp_path / "song.txt"
    f.write_text(song, encoding="utf-8")
    assert [len(tl.slots) for tl in template_from_song_file(str(f)).lines] == [8, 7, 8]


NEARER = """Nearer, my God, to Thee,
Nearer to Thee!
E'en though it be a cross
That raiseth me;
Still all my song shall be,
Nearer my God to Thee,
Nearer, my God, to Thee,
Nearer to Thee."""


def test_a_line_sung_again_repeats_its_first_singing():
    t = template_from_lyrics(NEARER)
    assert [ln.repeats for ln in t.lines] == [None] * 5 + [0, 0, 1]
    # line 6 had no commas inside: a refrain takes its source's inner marks, keeps its own last one
    assert t.lines[5].puncts == [",", ",", ","] and t.lines[7].puncts == ["."]
    # a refrain's end word is its source's: it rhymes as its source does and is no rhyme of its own
    assert [ln.rhyme for ln in t.lines] == ["A", "A", None, "A", "A", "A", "A", "A"]
    assert parse_notation(format_notation(t)) == t
    zh = template_from_lyrics("好一朵美丽的茉莉花\n好一朵美丽的茉莉花\n芬芳美丽满枝桠")
    assert [ln.repeats for ln in zh.lines] == [None, 0, None]

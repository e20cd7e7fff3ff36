import pytest
from hypothesis import given, settings, strategies as st

from songwriter.template import (
    Line, Slot, Template, TemplateError, clear_locks, format_notation, from_dict, lock_text,
    parse_notation, text_lines, to_dict,
)


def test_chinese_notation_locks_free_slots_punct_and_rhyme():
    t = parse_notation("床前__光，@A\n_______。@A")
    assert t.lang == "zh"
    first = t.lines[0]
    assert [s.lock for s in first.slots] == ["床", "前", None, None, "光"]
    assert first.punct == "，" and first.rhyme == "A"
    assert t.lines[1].syllables == 7 and t.lines[1].punct == "。"


def test_tone_marks_and_blank_line_starts_a_stanza():
    t = parse_notation("-|_，\n\n○●平。")
    assert [s.tone for s in t.lines[0].slots] == ["平", "仄", None]
    assert [s.tone for s in t.lines[1].slots[:2]] == ["平", "仄"]
    assert t.lines[1].slots[2].lock == "平"  # a character is locked text, never a mark
    assert (t.lines[0].stanza, t.lines[1].stanza) == (0, 1)


def test_english_notation_counts_syllables_of_locked_words():
    t = parse_notation("Shall I compare thee _ _ _ _ _ _ @A")
    line = t.lines[0]
    assert t.lang == "en" and line.rhyme == "A"
    assert line.slots[2].lock == "compare" and line.slots[2].span == 2
    assert line.syllables == 5 + 6  # shall I com-pare thee + six free


def test_english_stress_marks_and_explicit_span():
    t = parse_notation("x / fire:2 _, @B")
    assert [s.tone for s in t.lines[0].slots] == ["x", "/", None, None]
    assert t.lines[0].slots[2].span == 2 and t.lines[0].slots[3].punct == ","


def test_lrc_time_prefix_round_trips():
    t = parse_notation("[01:02.50]___，")
    assert t.lines[0].time == pytest.approx(62.5)
    assert parse_notation(format_notation(t)).lines[0].time == pytest.approx(62.5)


@pytest.mark.parametrize("bad, where", [
    ("", None), ("，__", 1), ("__@a", 1), ("__\n@A", 2), ("_x_", 1), ("# tones: loud\n__", None),
])
def test_bad_notation_names_the_line(bad, where):
    with pytest.raises(TemplateError) as e:
        parse_notation(bad)
    assert e.value.line == where


def test_absurd_sizes_are_refused():
    with pytest.raises(TemplateError, match="too long"):
        parse_notation("_" * 100)
    with pytest.raises(TemplateError, match="too many"):
        parse_notation("\n".join(["__"] * 1000))


def test_headers_round_trip():
    t = parse_notation("# name: 试\n# kind: ci\n# rhyme-system: cilin\n# tones: classical\n__，@A")
    back = parse_notation(format_notation(t))
    assert (back.name, back.kind, back.rhyme_system, back.tone_system) == ("试", "ci", "cilin", "classical")


def test_kind_round_trips_whatever_the_tones():
    for kind in ("shi", "ci", "qu", "lyric", "poem"):
        for tones in ("classical", "modern"):
            t = parse_notation(f"# kind: {kind}\n# tones: {tones}\n_____，")
            assert parse_notation(format_notation(t)).kind == kind


def test_unknown_kind_is_refused_by_name():
    with pytest.raises(TemplateError, match="'song' is not a kind of Chinese piece.*shi, ci, qu, lyric, poem"):
        parse_notation("# kind: song\n_____，")
    # each language has its own kinds: a hymn is English, a shi Chinese
    with pytest.raises(TemplateError, match="'hymn' is not a kind of Chinese piece"):
        parse_notation("# kind: hymn\n_____，")
    with pytest.raises(TemplateError, match="'shi' is not a kind of English piece.*poem, lyric, hymn"):
        parse_notation("# lang: en\n# kind: shi\nx/x/x/ @A")
    assert parse_notation("# lang: en\n# kind: hymn\nx/x/x/ @A").kind == "hymn"
    with pytest.raises(TemplateError, match="template.kind: expected one of shi, ci"):
        from_dict({"kind": "cii", "lines": [{"slots": [{}]}]})
    assert parse_notation("# kind: qu\n_____，").kind == "qu"


def test_json_round_trip_and_malformed_json():
    t = parse_notation("床前__光，@A\n-|__。@A")
    assert to_dict(from_dict(to_dict(t))) == to_dict(t)
    for bad in ({}, {"lines": "x"}, {"lines": [{"slots": [1]}]}, {"lines": [{"slots": []}]}):
        with pytest.raises(TemplateError):
            from_dict(bad)


def test_lock_and_clear_locks():
    t = parse_notation("_____，\n_____。")
    locked = lock_text(t, "白日依山尽，\n黄河入海流。", where=[(0, 0), (1, 4)])
    assert locked.lines[0].slots[0].lock == "白" and locked.lines[1].slots[4].lock == "流"
    assert locked.lines[0].slots[1].lock is None
    assert all(s.lock is None for ln in clear_locks(locked).lines for s in ln.slots)


def test_text_lines_splits_a_ci_paragraph_into_sentences():
    t = parse_notation("____，\n_____。\n___，")
    assert text_lines("气和玉烛，睿化著鸿明。\n万里江，", t) == ["气和玉烛，", "睿化著鸿明。", "万里江，"]


_zh_slot = st.builds(
    Slot,
    lock=st.one_of(st.none(), st.sampled_from("春风明月花山水")),
    tone=st.sampled_from([None, "平", "仄"]),
    punct=st.sampled_from(["", "", "，", "。", "？"]),
)


@st.composite
def zh_templates(draw):
    lines = []
    stanza = 0
    for _ in range(draw(st.integers(1, 6))):
        slots = draw(st.lists(_zh_slot, min_size=1, max_size=9))
        for s in slots:
            if s.lock is not None:
                s.tone = None  # a locked character's tone is its own
        stanza += draw(st.sampled_from([0, 0, 1]))
        lines.append(Line(slots=slots, rhyme=draw(st.sampled_from([None, "A", "B"])), stanza=stanza,
                          time=draw(st.one_of(st.none(), st.integers(0, 30000).map(lambda c: c / 100)))))
    return Template(lines=lines, lang="zh", name=draw(st.sampled_from(["", "测试"])))


@settings(max_examples=150, deadline=None)
@given(zh_templates())
def test_notation_round_trips(t):
    back = parse_notation(format_notation(t))
    assert to_dict(back)["lines"] == to_dict(_normalise_stanzas(t))["lines"]


def _normalise_stanzas(t):
    # stanza numbers are positional: the notation writes breaks, not numbers
    t = t.copy()
    previous, current = None, 0
    for line in t.lines:
        if previous is not None and line.stanza != previous:
            current += 1
        previous = line.stanza
        line.stanza = current
    return t


@settings(max_examples=100, deadline=None)
@given(st.text(alphabet="_-|春风，。@AB \n#:", max_size=60))
def test_parser_never_crashes_on_junk(text):
    try:
        t = parse_notation(text)
    except TemplateError:
        return
    assert parse_notation(format_notation(t)).lines


@pytest.mark.parametrize("name", ["Shakespearean sonnet", "Petrarchan sonnet", "Limerick", "Ballad stanza", "七律", "鹧鸪天"])
def test_named_forms_round_trip_through_notation(name):
    from songwriter.forms import named_form

    t = named_form(name)
    back = parse_notation(format_notation(t))
    assert to_dict(back)["lines"] == to_dict(t)["lines"] and back.syllables == t.syllables


@pytest.mark.parametrize("text", ["AA :-", "love: and", "the rose:2 :", "_ -@A", "x '"])
def test_english_punctuation_that_would_glue_into_a_token_round_trips(text):
    t = parse_notation(text)
    assert to_dict(parse_notation(format_notation(t)))["lines"] == to_dict(t)["lines"]


def test_a_refrain_line_round_trips_and_is_validated():
    t = parse_notation("_ _, _ @A\n_ _ _ @B\n_ _, _ @A =1\n", "en")
    assert t.lines[2].repeats == 0 and "@A =1" in format_notation(t)
    assert parse_notation(format_notation(t)) == t and from_dict(to_dict(t)) == t
    assert "repeats" not in to_dict(t)["lines"][0]          # written only where a line repeats
    assert t.tied_lines([2]) == {0, 2} and t.tied_lines([0]) == {0, 2} and t.tied_lines([1]) == {1}
    zh = parse_notation("_____，@A\n_____。\n_____，@A=1\n")
    assert zh.lines[2].repeats == 0 and parse_notation(format_notation(zh)) == zh
    for bad, message in [("_ _ @A\n_ _ _ =1", "differs from it"), ("_ _\n_, _ =1", "differs from it"),
                         ("_ _ =1", "only an earlier line"), ("_ _\n_ _ =3", "only an earlier line"),
                         ("_ _ @A\n_ _ @B =1", "has rhyme B"), ("_ _\n_ _ =1\n_ _ =2", "repeat that line")]:
        with pytest.raises(TemplateError, match=message):
            parse_notation(bad, "en")
    data = to_dict(t)
    data["lines"][2]["repeats"] = "1"
    with pytest.raises(TemplateError, match="repeats"):
        from_dict(data)


def test_marks_for_lang_writes_marks_as_the_new_words_language_does():
    from songwriter.template import marks_for_lang

    assert marks_for_lang("，", "en") == "," and marks_for_lang("。", "en") == "."
    assert marks_for_lang("！？", "en") == "!?" and marks_for_lang("……", "en") == "…"
    assert marks_for_lang(",", "zh") == "，" and marks_for_lang(".", "zh") == "。"
    assert marks_for_lang("?!", "zh") == "？！" and marks_for_lang("...", "zh") == "…"
    assert marks_for_lang("—", "zh") == "—" and marks_for_lang("", "en") == ""
    assert marks_for_lang(",", "en") == "," and marks_for_lang("，", "zh") == "，"   # its own stay

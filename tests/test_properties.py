"""Property tests (hypothesis) for the parsers and the validation layer: whatever the input, a
parser gives a template or its own error with a message, never another exception. Bounded (a
fixed number of examples, no deadline) so the suite stays fast and repeatable."""

import json
import math

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from songwriter import document as D
from songwriter.lyrics import template_from_lrc, template_from_lyrics
from songwriter.template import (
    Line, Slot, Template, TemplateError, format_notation, from_dict, parse_notation, to_dict,
)
from songwriter.validate import Fields, ValidationError, parse_json

BOUNDED = settings(max_examples=60, deadline=None, derandomize=True,
                   suppress_health_check=[HealthCheck.too_slow])

HANZI = "床前明月光疑是地上霜举头望山"
NOTATION_CHARS = HANZI + "_-|○●@ABZ[]:.0123456789#，。、？!,. \n/x"
notation_text = st.text(alphabet=NOTATION_CHARS, max_size=200)
any_text = st.text(max_size=200)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(
        st.sampled_from(["lines", "slots", "lock", "tone", "span", "rhyme", "time", "stanza", "text", "x"]),
        children, max_size=4),
    max_leaves=30)


@st.composite
def zh_templates(draw):
    lines = []
    for stanza in range(draw(st.integers(1, 2))):
        for _ in range(draw(st.integers(1, 4))):
            # the notation writes a locked slot as its character (a lock's tone is not written)
            slots = [Slot(lock=lock, tone=None if lock else draw(st.none() | st.sampled_from(["平", "仄"])))
                     for lock in draw(st.lists(st.none() | st.sampled_from(HANZI), min_size=1, max_size=9))]
            slots[-1].punct = draw(st.sampled_from(["，", "。", "？", ""]))
            lines.append(Line(slots, rhyme=draw(st.none() | st.sampled_from("AB")), stanza=stanza,
                              time=draw(st.none() | st.integers(0, 5999).map(lambda c: c / 100))))
    return Template(lines=lines, lang="zh", name=draw(st.sampled_from(["", "歌"])),
                    kind=draw(st.sampled_from(["lyric", "ci", "poem"])))


@BOUNDED
@given(zh_templates())
def test_notation_and_json_round_trip(t):
    assert to_dict(parse_notation(format_notation(t))) == to_dict(t)
    assert to_dict(from_dict(json.loads(json.dumps(to_dict(t))))) == to_dict(t)


@BOUNDED
@given(notation_text | any_text)
def test_notation_parser_gives_a_template_or_a_template_error(text):
    try:
        t = parse_notation(text)
    except TemplateError as e:
        assert str(e)
    else:
        assert t.lines and t.validate() is t


@BOUNDED
@given(notation_text | any_text)
def test_lyrics_and_lrc_parsers_give_a_template_or_their_error(text):
    for parse in (template_from_lyrics, template_from_lrc):
        try:
            parse(text)
        except ValueError as e:         # LyricsError and TemplateError are ValueErrors
            assert str(e)


@BOUNDED
@given(json_values)
def test_template_json_gives_a_template_or_names_the_problem(data):
    try:
        from_dict(data)
    except TemplateError as e:
        assert str(e)


@BOUNDED
@given(json_values)
def test_project_json_gives_a_document_or_names_the_problem(data):
    wrapped = {"format": "songwriter-project", "schema_version": 1, "template": data} \
        if not isinstance(data, dict) or "template" not in data else data
    for value in (data, wrapped):
        try:
            D.Document.from_json(json.dumps(value))
        except D.DocumentError as e:
            assert str(e)


@BOUNDED
@given(st.text(alphabet='{}[]":,0123456789.eE-+ntruefalsNIiy \\', max_size=80))
def test_parse_json_never_raises_anything_but_its_error(text):
    try:
        parse_json(text, "x")
    except ValidationError as e:
        assert str(e).startswith("x")


@BOUNDED
@given(json_values, st.integers(-5, 5), st.integers(5, 20))
def test_fields_return_what_they_promise(value, lo, hi):
    f = Fields({"k": value}, "w")
    try:
        got = f.integer("k", lo=lo, hi=hi)
        assert isinstance(got, int) and not isinstance(got, bool) and lo <= got <= hi
    except ValidationError as e:
        assert str(e).startswith("w.k: expected a whole number")
    try:
        got = f.number("k", null=True)
        assert got is None or (math.isfinite(got) and not isinstance(got, bool))
    except ValidationError as e:
        assert str(e).startswith("w.k: expected a finite number")
    try:
        assert all(isinstance(x, str) for x in f.strings("k", max_items=3))
    except ValidationError as e:
        assert str(e).startswith("w.k")

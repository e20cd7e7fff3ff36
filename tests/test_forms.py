import pytest

from songwriter.forms import list_forms, named_form
from songwriter.template import TemplateError, format_notation


def _tones(line):
    return "".join(t or "中" for t in line.tones())


def test_qijue_default_is_pingqi_first_line_rhymes():
    t = named_form("七绝")
    assert [ln.syllables for ln in t.lines] == [7, 7, 7, 7]
    assert [ln.rhyme for ln in t.lines] == ["A", "A", None, "A"]
    assert [ln.punct for ln in t.lines] == ["，", "。", "，", "。"]
    # 平平仄仄仄平平 / 仄仄平平仄仄平 / 仄仄平平平仄仄 / 平平仄仄仄平平 with 一三 free (孤平 kept out)
    assert [_tones(ln) for ln in t.lines] == ["中平中仄仄平平", "中仄平平仄仄平", "中仄中平平仄仄", "中平中仄仄平平"]
    assert t.tone_system == "classical" and t.effective_rhyme_system() == "pingshui"


def test_wulv_zeqi_eight_lines():
    t = named_form("五律")
    assert len(t.lines) == 8
    assert [ln.rhyme for ln in t.lines] == [None, "A"] * 4
    assert _tones(t.lines[0]) == "中仄平平仄" and _tones(t.lines[1]) == "平平仄仄平"
    assert _tones(t.lines[4]) == _tones(t.lines[0])


def test_variants_by_name():
    t = named_form("七律·仄起·首句不入韵")
    assert t.lines[0].rhyme is None and _tones(t.lines[0]) == "中仄中平平仄仄"
    assert named_form("五绝平起").lines[0].rhyme == "A"


def test_english_forms():
    sonnet = named_form("sonnet")
    assert len(sonnet.lines) == 14 and all(ln.syllables == 10 for ln in sonnet.lines)
    assert "".join(ln.rhyme for ln in sonnet.lines) == "ABABCDCDEFEFGG"
    assert named_form("Petrarchan sonnet").lines[8].stanza == 1
    limerick = named_form("limerick")
    assert [ln.syllables for ln in limerick.lines] == [8, 8, 5, 5, 8]
    ballad = named_form("ballad stanza")
    assert [ln.rhyme for ln in ballad.lines] == [None, "A", None, "A"]


def test_couplet_tones_oppose():
    t = named_form("对联")
    assert t.lines[0].tones()[-1] == "仄" and t.lines[1].tones()[-1] == "平"


def test_unknown_form_suggests():
    with pytest.raises(TemplateError, match="did you mean"):
        named_form("七决")


def test_cipai_forms_come_from_the_library():
    t = named_form("鹧鸪天")
    assert [ln.syllables for ln in t.lines] == [7, 7, 7, 7, 3, 3, 7, 7, 7]
    assert t.kind == "ci" and t.effective_rhyme_system() == "cilin"
    assert [ln.rhyme for ln in t.lines] == ["A", "A", None, "A", None, "A", "A", None, "A"]
    assert "鹧鸪天" in format_notation(t)


def test_cipai_that_change_rhyme_keep_their_labels():
    t = named_form("菩萨蛮")
    assert [ln.rhyme for ln in t.lines] == list("AABBCCDD")


def test_list_forms_search():
    names = [n for n, _, _ in list_forms("sonnet")]
    assert "Shakespearean sonnet" in names and "Petrarchan sonnet" in names
    assert any(n == "鹧鸪天" for n, _, _ in list_forms("鹧鸪"))


def test_a_qijue_with_a_heteronym_across_its_feet_fits():
    # 万里长风: 长 was read through the modern word 里长 (zhǎng, 仄) and the line flagged 孤平
    try:
        from songwriter.checks import check
    except ImportError:
        from songwriter.metrics import check
    text = "万里长风鹢退飞，自浇涧水溅征衣。满身只有梅花影，不带西湖柳色归。"
    assert check(text, named_form("七绝")).ok
    # the same line with a real 孤平 (短 is 仄 whatever the reading) is still flagged there
    report = check(text.replace("万里长风", "万里短风"), named_form("七绝"))
    assert not report.ok and any(p.kind == "tone" and p.slot == 2 and "孤平" in p.message
                                 for p in report.lines[0].problems)

"""The engine end to end on a tiny model: every candidate fits its template."""

import threading

import pytest

pytest.importorskip("torch")

from helpers.tiny_model import make_tiny_model  # noqa: E402

from songwriter.engine.service import (  # noqa: E402
    Engine, GenerationCancelled, GenerationError, GenerationRequest,
)
from songwriter.forms import named_form  # noqa: E402
from songwriter.template import parse_notation, text_lines  # noqa: E402


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    return Engine.load(make_tiny_model(tmp_path_factory.mktemp("model")))


def gen(engine, template, **kw):
    kw.setdefault("n", 4)
    kw.setdefault("seed", 1)
    cands = engine.generate(GenerationRequest(template=template, **kw))
    assert cands
    for c in cands:
        assert c.check.ok, c.check.summary()
        assert c.text == "\n".join(c.lines)
    return cands


def test_facade_facts(engine):
    assert engine.backend_name.startswith("torch-")
    assert engine.languages == ("zh",)
    assert engine.supports_content is False


@pytest.mark.parametrize("form", ["七绝", "五律"])
def test_named_forms_fit(engine, form):
    cands = gen(engine, named_form(form))
    assert len(cands) == 4
    assert cands == sorted(cands, key=lambda c: -c.score)
    for c in cands:  # no rhyme character used twice
        ends = [ln.rstrip("，。")[-1] for ln, tl in zip(c.lines, named_form(form).lines) if tl.rhyme]
        assert len(set(ends)) == len(ends)


def test_locks_at_start_middle_end(engine):
    t = parse_notation("春____，\n__风__。\n____月，\n____花。")
    for c in gen(engine, t):
        assert c.lines[0][0] == "春" and c.lines[1][2] == "风" and c.lines[2][4] == "月" and c.lines[3][4] == "花"
        assert [len(x) for x in c.lines] == [6, 6, 6, 6]
        assert [x[-1] for x in c.lines] == ["，", "。", "，", "。"]


def test_inner_punctuation_and_free_lengths(engine):
    t = parse_notation("___，___。\n__、__！\n_______？")
    for c in gen(engine, t):
        assert c.lines[0][3] == "，" and c.lines[0][-1] == "。"
        assert c.lines[1] == c.lines[1][:2] + "、" + c.lines[1][3:5] + "！"
        assert len(c.lines[2]) == 8 and c.lines[2][-1] == "？"


def test_rhyme_group_is_shared(engine):
    t = parse_notation("_____，\n_____。@A\n_____，\n_____。@A\n_____，\n_____。@A")
    for c in gen(engine, t, rhyme_system="xinyun"):
        assert c.check.rhyme_groups["A"] is not None


def _sounds(line: str) -> frozenset:
    from songwriter.engine.encoding import sound_classes

    return sound_classes(line.rstrip("，。")[-1])


def test_unrhymed_line_ends_do_not_sound_like_the_rhyme(engine):
    t = parse_notation("_____，\n_____。@A\n_____，\n_____。@A\n_____，\n_____。@A")
    for c in gen(engine, t, n=8, rhyme_system="xinyun"):
        rhyme = set().union(*(_sounds(c.lines[i]) for i in (1, 3, 5)))
        for i in (0, 2, 4):
            assert not _sounds(c.lines[i]) & rhyme, c.lines


def test_unrhymed_line_ends_do_not_rhyme_as_often_as_the_rhyme(engine):
    # A has two lines, so no two of the six unrhymed line ends may share a sound class
    t = parse_notation("_____，\n_____，\n_____。@A\n_____，\n_____，\n_____，\n_____。@A\n_____。")
    for c in gen(engine, t, n=8, rhyme_system="xinyun"):
        loose = [_sounds(c.lines[i]) for i in (0, 1, 3, 4, 5, 7)]
        for i, a in enumerate(loose):
            for b in loose[i + 1:]:
                assert not a & b, c.lines


def test_two_rhyme_labels_sound_apart_and_avoid_a_locked_unrhymed_end(engine):
    # line 1 ends in a locked 花 (unrhymed): neither A nor B may take its sound
    t = parse_notation("____花，\n_____。@A\n_____，@B\n_____。@A\n_____。@B")
    for c in gen(engine, t, n=8, rhyme_system="xinyun"):
        a, b = _sounds(c.lines[1]) | _sounds(c.lines[3]), _sounds(c.lines[2]) | _sounds(c.lines[4])
        assert not a & b, c.lines
        assert not (a | b) & _sounds("花"), c.lines
        assert c.check.rhyme_groups["A"] != c.check.rhyme_groups["B"], c.lines


def _heard(line: str) -> int:
    from songwriter.engine.encoding import heard_sound_class

    body = line.rstrip("，。")
    return heard_sound_class(body, len(body) - 1)


def test_a_classical_rhyme_keeps_one_modern_sound(engine):
    # a cilin group can span several modern sound classes (-en and -eng, say): the lines of one
    # label keep the class their first rhyme is heard in
    t = parse_notation("# kind: ci\n_____，\n_____。@A\n_____，\n_____。@A\n_____，\n_____。@A\n_____。@A")
    for c in gen(engine, t, n=8, rhyme_system="cilin"):
        heard = {_heard(c.lines[i]) for i in (1, 3, 5, 6)}
        assert len(heard) == 1 and 0 not in heard, c.lines


def test_heard_sound_class_reads_the_word():
    from songwriter.engine.encoding import heard_sound_class

    assert heard_sound_class("相称", 1) == heard_sound_class("人", 0)     # chen, as in 相称
    assert heard_sound_class("称", 0) == heard_sound_class("生", 0)       # cheng, read alone


def test_locked_rhyme_char_fixes_the_group_even_on_a_later_line(engine):
    from songwriter.prosody import chinese

    t = parse_notation("_____。@A\n_____，\n_____。@A\n____山。@A")
    for c in gen(engine, t, rhyme_system="pingshui"):
        assert c.lines[3] == c.lines[3][:4] + "山。"
        want = chinese.rhyme_groups("山", 0, "pingshui")
        for i in (0, 2):
            last = c.lines[i].rstrip("。，")[-1]
            assert chinese.rhyme_groups(last, 0, "pingshui") & want


def test_tones_hold(engine):
    t = parse_notation("# tones: classical\n--||-，\n||--|。\n-|-|-，\n|-|-|。")
    for c in gen(engine, t):
        assert all(line.tones for line in c.check.lines)


def test_deterministic_per_seed(engine):
    t = named_form("七绝")
    a = [c.text for c in gen(engine, t, seed=7)]
    b = [c.text for c in gen(engine, t, seed=7)]
    other = [c.text for c in gen(engine, t, seed=8)]
    assert a == b
    assert a != other


def test_regenerate_one_line_keeps_the_others(engine):
    t = named_form("七绝")
    first = gen(engine, t, n=1, seed=3)[0]
    again = gen(engine, t, text=first.text, lines=[2], n=4, seed=11)
    for c in again:
        for i in (0, 1, 3):
            assert c.lines[i] == first.lines[i]
    assert any(c.lines[2] != first.lines[2] for c in again)


def test_regenerate_respects_locks_in_the_line(engine):
    t = parse_notation("_____，\n二___三。")
    first = gen(engine, t, n=1, seed=2)[0]
    for c in gen(engine, t, text=first.text, lines=[1], seed=5):
        assert c.lines[0] == first.lines[0]
        assert c.lines[1][0] == "二" and c.lines[1][4] == "三"


def test_impossible_rhyme_names_the_constraint(engine):
    t = parse_notation("____东。@A\n____月。@A")
    with pytest.raises(GenerationError, match="rhyme A"):
        engine.generate(GenerationRequest(template=t, n=2, seed=0, rhyme_system="pingshui"))


def test_bad_requests(engine):
    with pytest.raises(GenerationError, match="rhyme system"):
        engine.generate(GenerationRequest(template=named_form("七绝"), rhyme_system="nonsense", n=1))
    with pytest.raises(GenerationError, match="line"):
        engine.generate(GenerationRequest(template=named_form("七绝"), text="", lines=[9], n=1))
    with pytest.raises(GenerationError, match="at most"):
        engine.generate(GenerationRequest(template=parse_notation("\n".join(["_" * 40 + "。"] * 12)), n=1))


def test_cancel_and_progress(engine):
    seen = []
    gen(engine, named_form("五绝"), progress=lambda a, b: seen.append((a, b))) if False else None
    engine.generate(GenerationRequest(template=named_form("五绝"), n=2, seed=0),
                    progress=lambda a, b: seen.append((a, b)))
    assert seen and seen[-1][0] == seen[-1][1]
    ev = threading.Event()
    ev.set()
    with pytest.raises(GenerationCancelled):
        engine.generate(GenerationRequest(template=named_form("五绝"), n=2, seed=0), cancel=ev)


def test_suggest_fits_tone_and_rhyme(engine):
    from songwriter.prosody import chinese

    t = parse_notation("# tones: classical\n____-，\n_____。@A\n_____，\n_____。@A")
    text = "明月松间照\n清泉石上流\n竹喧归浣女\n莲动下渔舟"
    got = engine.suggest(t, text, 0, 4, k=10)
    assert got and all("平" in chinese.tone_classes(ch, 0, "classical") for ch, _ in got)
    assert [s for _, s in got] == sorted((s for _, s in got), reverse=True)
    rhymes = engine.suggest(t, text, 3, 4, k=10)
    want = chinese.rhyme_groups("流", 0, t.effective_rhyme_system())
    assert rhymes and all(chinese.rhyme_groups(ch, 0, t.effective_rhyme_system()) & want for ch, _ in rhymes)


def test_text_lines_of_candidates_split_back(engine):
    t = named_form("七绝")
    for c in gen(engine, t):
        assert text_lines(c.text, t) == c.lines


def test_a_tight_template_is_sampled_again_for_distinct_candidates(engine, monkeypatch):
    import songwriter.engine.service as service

    import songwriter.engine.decode as decode_module

    rounds = []
    real_decode = decode_module.decode

    def counted_decode(*args, **kwargs):
        rounds.append(1)
        return real_decode(*args, **kwargs)

    monkeypatch.setattr(decode_module, "decode", counted_decode)
    t = parse_notation("床前明月_，\n疑是地上霜。")   # one free slot, ten characters to choose from
    got, texts = {}, {}
    for attempts in (1, 3):
        monkeypatch.setattr(service, "DISTINCT_ATTEMPTS", attempts)
        rounds.clear()
        cands = gen(engine, t, n=8, seed=3, top_k=10, top_p=1.0, temperature=2.0)
        assert len({c.text for c in cands}) == len(cands)
        got[attempts], texts[attempts] = len(rounds), {c.text for c in cands}
    assert got[1] == 1 and len(texts[1]) < 8          # one round of 10 rows leaves some out
    assert got[3] > 1 and texts[3] > texts[1]          # later rounds add what they find
    # a template with nothing free has one text
    assert len(gen(engine, parse_notation("床前明月光，\n疑是地上霜。"), n=8)) == 1


def test_a_chinese_refrain_repeats_its_source_line(engine):
    from songwriter.lyrics import template_from_lyrics

    t = template_from_lyrics("好一朵美丽的茉莉花\n好一朵美丽的茉莉花\n芬芳美丽满枝桠\n又香又白人人夸")
    for c in gen(engine, t):
        assert c.lines[1] == c.lines[0]


def test_drafts_of_each_line_make_likelier_candidates_that_still_fit(engine):
    """Each line written eight times per candidate, the likeliest draft kept: the candidates'
    mean log-probability rises over one draft per line, every candidate still fits, and the same
    seed still gives the same candidates."""
    import numpy as np

    t = named_form("五律")

    def mean_score(k: int) -> float:
        return float(np.mean([c.score for seed in range(1, 5) for c in gen(engine, t, n=3, seed=seed, line_choices=k)]))

    assert mean_score(8) > mean_score(1) + 0.1
    a = [c.text for c in gen(engine, t, n=2, seed=5, line_choices=3)]
    assert a == [c.text for c in gen(engine, t, n=2, seed=5, line_choices=3)]


# no tones, no rhymes: a rigged preference is not held back by the form
EIGHT_FREE_LINES = parse_notation("# kind: shi\n" + "\n".join(["_____，", "_____。"] * 4))


def _rigged(engine, monkeypatch, bonus):
    """The engine's model with ``bonus(logp, prev)`` added to its log-probs at every step."""
    import numpy as np

    step = engine.backend.step

    def rigged(state, prev, position):
        logp = np.array(step(state, prev, position), dtype=np.float64)
        bonus(logp, np.asarray(prev))
        return logp

    monkeypatch.setattr(engine.backend, "step", rigged)


def test_a_pair_of_characters_written_again_costs_more(engine, monkeypatch):
    """A model that loves 明月 (a bonus to 明 anywhere, to 月 after it) writes the pair in one line
    after another with the pair cost off, far less often with it on, and every candidate still
    fits."""
    from songwriter.engine import decode

    ming, yue = engine.vocab.id("明"), engine.vocab.id("月")
    # the pair cost alone: a heavy cost per use of 明 would keep the pair away by itself
    monkeypatch.setattr(decode, "REPEAT_COST_CLASSICAL_ZH", decode.REPEAT_COST_ZH)

    def fond_of_a_pair(logp, prev):
        logp[:, ming] += 3.0
        logp[prev == ming, yue] += 4.0

    _rigged(engine, monkeypatch, fond_of_a_pair)

    def lines_with_the_pair() -> int:
        return sum("明月" in line for c in gen(engine, EIGHT_FREE_LINES, n=4, seed=4) for line in c.lines)

    with_cost = lines_with_the_pair()
    monkeypatch.setattr(decode, "PAIR_REPEAT_COST_ZH", 0.0)
    without = lines_with_the_pair()
    assert without >= 20 and with_cost < 0.6 * without, (without, with_cost)


def test_lines_opening_with_one_character_cost_more_each_time(engine, monkeypatch):
    """A model that loves to open a line with 不 opens most lines so with the cost off; with it
    on, a piece opens one or two lines with it, and every candidate still fits."""
    import numpy as np

    from songwriter.engine import decode

    bu = engine.vocab.id("不")
    monkeypatch.setattr(decode, "REPEAT_COST_CLASSICAL_ZH", decode.REPEAT_COST_ZH)   # the opening cost alone

    def fond_of_an_opening(logp, prev):
        logp[np.isin(prev, [engine.vocab.bos, engine.vocab.eol]), bu] += 4.5

    _rigged(engine, monkeypatch, fond_of_an_opening)

    def openings() -> int:
        return sum(line.startswith("不") for c in gen(engine, EIGHT_FREE_LINES, n=4, seed=4) for line in c.lines)

    with_cost = openings()
    monkeypatch.setattr(decode, "FIRST_CHAR_COST_ZH", 0.0)
    without = openings()
    assert without >= 24 and with_cost <= 12, (without, with_cost)    # 32 lines: at most 3 a piece


def test_a_lyric_may_echo_as_modern_poems_do(engine, monkeypatch):
    """The echo costs are for classical verse: a lyric of the same shape, written by a model that
    loves to open its lines with 不, opens as many lines with it with the costs on as off."""
    import numpy as np

    from songwriter.engine import decode

    bu = engine.vocab.id("不")
    monkeypatch.setattr(decode, "REPEAT_COST_CLASSICAL_ZH", decode.REPEAT_COST_ZH)   # the opening cost alone

    def fond_of_an_opening(logp, prev):
        logp[np.isin(prev, [engine.vocab.bos, engine.vocab.eol]), bu] += 4.5

    _rigged(engine, monkeypatch, fond_of_an_opening)
    lyric = parse_notation("# kind: lyric\n" + "\n".join(["_____，", "_____。"] * 4))

    def openings() -> int:
        return sum(line.startswith("不") for c in gen(engine, lyric, n=4, seed=4) for line in c.lines)

    costs_on = openings()
    monkeypatch.setattr(decode, "FIRST_CHAR_COST_ZH", 0.0)
    assert costs_on >= 24 and costs_on == openings()


def _repeats(cands) -> int:
    """Characters written again in their piece (every later use of one counts)."""
    from collections import Counter

    total = 0
    for c in cands:
        counts = Counter(ch for ch in c.text if ch not in "，。、；：？！\n")
        total += sum(k - 1 for k in counts.values())
    return total


def test_the_repetition_penalty_of_a_request_reaches_the_decoder(engine):
    """A request's penalty per earlier use replaces the decoder's: none at all lets the tiny model
    repeat more than a heavy one, and every candidate still fits; out of range is refused in words."""
    t = named_form("五律")
    free = _repeats(gen(engine, t, n=6, seed=4, repetition_penalty=0.0))
    heavy = _repeats(gen(engine, t, n=6, seed=4, repetition_penalty=4.0))
    assert heavy < free
    for bad in (-0.1, 5.1, float("nan"), "1"):
        with pytest.raises(GenerationError, match="repetition penalty must be"):
            engine.generate(GenerationRequest(template=t, repetition_penalty=bad))


def test_shi_and_ci_repeat_less_by_default_than_a_lyric_is_let(engine):
    """Without a request's penalty, shi and ci pay the classical cost per earlier use (fewer
    repeats than at the lyric's cost) and a lyric its own, unchanged."""
    from songwriter.engine.decode import REPEAT_COST_CLASSICAL_ZH, REPEAT_COST_ZH

    assert REPEAT_COST_CLASSICAL_ZH > REPEAT_COST_ZH
    shi = named_form("五律")
    assert _repeats(gen(engine, shi, n=6, seed=4)) < _repeats(gen(engine, shi, n=6, seed=4,
                                                                   repetition_penalty=REPEAT_COST_ZH))
    lyric = parse_notation("# kind: lyric\n" + "\n".join(["_____，", "_____。"] * 3))
    assert ([c.text for c in gen(engine, lyric, n=4, seed=6)]
            == [c.text for c in gen(engine, lyric, n=4, seed=6, repetition_penalty=REPEAT_COST_ZH)])

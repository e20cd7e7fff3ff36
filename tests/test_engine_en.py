"""The English engine: templates laid out in syllables, and decoding that keeps every candidate
inside the template (syllables, stress, rhyme, locks) whatever the model's weights."""

import threading

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from helpers.tiny_model_en import make_tiny_model_en, tiny_vocab  # noqa: E402

from songwriter.engine import encoding as E  # noqa: E402
from songwriter.engine import encoding_en as EN  # noqa: E402
from songwriter.engine.service import Engine, GenerationCancelled, GenerationError, GenerationRequest  # noqa: E402
from songwriter.forms import named_form  # noqa: E402
from songwriter.prosody import english  # noqa: E402
from songwriter.template import parse_notation, syllable_units  # noqa: E402


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    d = make_tiny_model_en(tmp_path_factory.mktemp("en"), steps=20)
    return Engine.load(d, backend="torch-cpu")


def _words(line: str) -> list[str]:
    return [u for u, _ in syllable_units(line, "en")]


def test_sonnet_layout_counts_syllables_left():
    v = tiny_vocab()
    enc = E.encode_template(named_form("Shakespearean sonnet"), v)
    # 14 lines of 10 syllables, a mark and </s> each, then <eos>
    assert len(enc) == 14 * 12 + 1
    first = list(range(12))
    assert [int(enc.bpos[p]) for p in first] == [10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 0]
    assert [int(enc.fmt[p]) for p in first] == [E.F_CHAR] * 9 + [E.F_RHYME, E.F_PUNCT, E.F_EOL]
    # iambic: x / x / ...
    assert [int(enc.tone[p]) for p in range(10)] == [2, 1] * 5
    # ABAB CDCD EFEF GG: labels on the last syllables, numbered by first appearance
    ends = np.nonzero(enc.fmt == E.F_RHYME)[0]
    assert [int(enc.label[p]) for p in ends] == [1, 2, 1, 2, 3, 4, 3, 4, 5, 6, 5, 6, 7, 7]
    assert int(enc.kind[0]) == EN.EN_KIND_IDS["poem"]
    assert (enc.given[enc.fmt == E.F_CHAR] == v.fill).all()


@pytest.mark.parametrize("form, kind, register", [
    ("Common metre", None, "hymn"), ("Common metre", "poem", "poem"), ("Shakespearean sonnet", "hymn", "hymn"),
    ("Shakespearean sonnet", "lyric", "song")])
def test_the_kind_of_piece_is_the_register_the_model_reads(form, kind, register):
    template = named_form(form)                 # a hymn metre is a hymn; the writer's kind wins
    if kind:
        template.kind = kind
    assert set(E.encode_template(template, tiny_vocab()).kind.tolist()) == {EN.EN_KIND_IDS[register]}


def test_a_locked_word_fills_its_syllables():
    v = tiny_vocab()
    t = parse_notation("# lang: en\n_ _ summer _ _ day. @A\n_ _ _ _ _ way. @A\n")
    enc = E.encode_template(t, v)
    line0 = np.nonzero(enc.line == 0)[0]
    syl = [p for p in line0 if enc.fmt[p] in (E.F_CHAR, E.F_RHYME)]
    assert len(syl) == 7
    # "summer" covers syllables 3 and 4: its id at both in the memory, a word start at the first
    assert [int(enc.given[p]) for p in syl[2:4]] == [v.id("summer")] * 2
    assert [int(enc.word_start[p]) for p in syl] == [0, 0, 1, 0, 0, 0, 1]
    assert enc.text[syl[2]] == "summer" and enc.text[syl[3]] == ""
    # a locked rhyme word fixes the label's stressed vowel (day: EY)
    ends = np.nonzero(enc.label == 1)[0]
    assert all(int(enc.group[p]) == EN.EN_VOWELS.index("EY") + 1 for p in ends)


def test_a_locked_word_keeps_its_own_mark(engine):
    """A line locked as the writer wrote it ("... day?") keeps its mark, not the form's comma."""
    from songwriter.document import new_document

    doc = new_document(named_form("Shakespearean sonnet"))
    doc.lines[0] = "Shall I compare thee to a summer's day?"
    doc.lock_line(0)
    [cand] = engine.generate(GenerationRequest(template=doc.template, n=1, seed=3))
    assert cand.text.split("\n")[0] == "Shall I compare thee to a summer's day?"


def test_a_chinese_template_is_refused_by_an_english_vocabulary():
    with pytest.raises(E.EncodingError, match="English"):
        E.encode_template(named_form("七绝"), tiny_vocab())


def test_sonnets_fit_exactly(engine):
    t = named_form("Shakespearean sonnet")
    cands = engine.generate(GenerationRequest(template=t, n=4, seed=3))
    assert len(cands) == 4
    for c in cands:
        assert c.check.ok, c.check.summary()
        assert len(c.lines) == 14
        for line in c.lines:
            spoken = " ".join(_words(line))
            # every line exactly 10 syllables by CMUdict's readings (each word one of its counts)
            assert 10 in english.line_syllables(spoken), line
            assert line[0].isupper()
            assert "<" not in line and "unk" not in line.split()
        ends = [_words(line)[-1] for line in c.lines]
        for a, b in ((0, 2), (1, 3), (4, 6), (5, 7), (8, 10), (9, 11), (12, 13)):
            assert english.rhyme_keys(ends[a], "slant") & english.rhyme_keys(ends[b], "slant"), (ends[a], ends[b])


def test_perfect_rhyme_system_and_i_capital(engine):
    t = named_form("Shakespearean sonnet")
    t.rhyme_system = "perfect"
    for c in engine.generate(GenerationRequest(template=t, n=3, seed=5)):
        assert c.check.ok, c.check.summary()
        ends = [_words(line)[-1] for line in c.lines]
        assert english.rhymes(ends[12], ends[13], "perfect") or ends[12].lower() == ends[13].lower()
        for line in c.lines:
            assert " i " not in f" {line} "


def test_hymn_metre_and_locks(engine):
    t = parse_notation("# lang: en\n# name: test\n"
                       "x / x / x / x /, @A\n"
                       "x / x / summer day. @B\n"
                       "x / x / x / x /, @A\n"
                       "x / x / x /. @B\n")
    for c in engine.generate(GenerationRequest(template=t, n=4, seed=11)):
        assert c.check.ok, c.check.summary()
        assert c.lines[1].endswith("summer day.")
        assert english.rhyme_keys(_words(c.lines[3])[-1], "perfect") & english.rhyme_keys("day", "perfect")


def test_locked_rhyme_words_that_do_not_rhyme_are_refused(engine):
    t = parse_notation("# lang: en\n# rhyme-system: perfect\n_ _ _ night @A\n_ _ _ cloud @A\n")
    with pytest.raises(GenerationError, match="rhyme A"):
        engine.generate(GenerationRequest(template=t, n=2, seed=1))


def test_words_never_cross_a_mark_inside_a_line(engine):
    t = parse_notation("# lang: en\n_ _, _ _ _ _ _. @A\n_ _ _ _ _ _ _. @A\n")
    for c in engine.generate(GenerationRequest(template=t, n=6, seed=2)):
        assert c.check.ok, c.check.summary()
        head = c.lines[0].split(",")[0]
        assert sum(english.syllable_counts(w)[0] for w in _words(head)) <= 2 or 2 in english.line_syllables(head)


def test_same_seed_same_candidates_progress_and_cancel(engine):
    t = named_form("limerick")
    a = engine.generate(GenerationRequest(template=t, n=3, seed=7))
    b = engine.generate(GenerationRequest(template=t, n=3, seed=7))
    assert [c.text for c in a] == [c.text for c in b]
    seen = []
    engine.generate(GenerationRequest(template=t, n=2, seed=1), progress=lambda d, n: seen.append((d, n)))
    assert seen and seen[-1][0] == seen[-1][1]
    stop = threading.Event()
    stop.set()
    with pytest.raises(GenerationCancelled):
        engine.generate(GenerationRequest(template=t, n=2, seed=1), cancel=stop)


def test_greedy_and_scores(engine):
    t = named_form("ballad")
    cands = engine.generate(GenerationRequest(template=t, n=3, seed=1, temperature=0))
    assert len(cands) >= 1
    assert all(c.check.ok for c in cands)
    scores = [c.score for c in cands]
    assert scores == sorted(scores, reverse=True)


def test_regenerating_a_line_keeps_the_others_as_written(engine):
    t = named_form("Shakespearean sonnet")
    first = engine.generate(GenerationRequest(template=t, n=1, seed=21))[0]
    again = engine.generate(GenerationRequest(template=t, text=first.text, lines=[2], n=3, seed=22))
    for c in again:
        assert c.check.ok, c.check.summary()
        assert [ln.lower() for i, ln in enumerate(c.lines) if i != 2] == \
            [ln.lower() for i, ln in enumerate(first.lines) if i != 2]


def test_words_ranked_by_the_model(engine):
    from songwriter.engine.words_en import english_words

    t = named_form("Shakespearean sonnet")
    text = "Shall I compare thee to a summer's day?\nThou art more lovely and more temperate:\n"
    got = english_words(t, text, 2, 7, k=30, engine=engine)
    assert got and all(c.syllables <= 3 for c in got)
    # words come as a line writes them (I, I'll and names with their capitals): the model's words still
    assert all(c.word.lower() in engine.vocab.stoi for c in got)
    ends = [c for c in got if c.syllables == 3]
    assert all(c.rhyme for c in ends)
    # mid-line: the content words first, best by the model first; the function words after them
    from songwriter.engine.words_en import FUNCTION_WORDS, is_junk

    mid = english_words(t, text, 2, 0, k=10, engine=engine)
    weak = [c.word in FUNCTION_WORDS or is_junk(c.word) for c in mid]
    assert weak == sorted(weak)
    content = [c.score for c in mid if not (c.word in FUNCTION_WORDS or is_junk(c.word))]
    assert content == sorted(content, reverse=True)


def test_lines_do_not_end_on_the_or_of(engine):
    from songwriter.engine.decode_en import NO_LINE_END

    for c in engine.generate(GenerationRequest(template=named_form("Shakespearean sonnet"), n=4, seed=9)):
        assert c.check.ok, c.check.summary()
        assert not [ln for ln in c.lines if _words(ln)[-1].lower() in NO_LINE_END]


def test_a_phrase_does_not_end_on_the_or_of_before_a_comma_inside_the_line(engine):
    """A mark inside the line ends a phrase as the line end does ("And our, through faith,")."""
    from songwriter.engine.decode_en import NO_LINE_END

    t = parse_notation("# lang: en\n_ _ _, _ _ _ _ _. @A\n_ _ _ _ _; _ _ _. @A\n_ _, _ _ _ _ _ _. @B\n"
                       "_ _ _ _ _ _, _ _. @B\n")
    for c in engine.generate(GenerationRequest(template=t, n=6, seed=4, temperature=1.5)):
        assert c.check.ok, c.check.summary()
        for ln in c.lines:
            before = [_words(part)[-1].lower() for part in ln.replace(";", ",").split(",")[:-1]]
            assert not set(before) & NO_LINE_END, ln


def test_no_word_follows_itself(engine):
    """The tiny model left to itself writes "and and"; the decoder never puts a word straight
    after itself, across a line break too."""
    for c in engine.generate(GenerationRequest(template=named_form("Shakespearean sonnet"), n=4, seed=3,
                                               temperature=1.5)):
        words = [w.lower() for ln in c.lines for w in _words(ln)]
        assert c.check.ok and all(a != b for a, b in zip(words, words[1:])), c.text


def test_a_hymn_relyric_keeps_each_lines_syllables_and_rhymes(engine):
    from pathlib import Path

    from songwriter.lyrics import template_from_lyrics

    text = (Path(__file__).parent / "data" / "amazing_grace.txt").read_text(encoding="utf-8")
    t = template_from_lyrics(text, "en")
    assert t.rhyme_groups()
    for c in engine.generate(GenerationRequest(template=t, n=3, seed=4)):
        assert c.check.ok, c.check.summary()
        for line, tl in zip(c.lines, t.lines):
            assert tl.syllables in english.line_syllables(" ".join(_words(line)))


def test_engine_suggest_for_an_english_model(engine):
    t = named_form("Shakespearean sonnet")
    text = "Shall I compare thee to a summer's day?\nThou art more lovely and more temperate:\n"
    got = engine.suggest(t, text, 2, 9, k=10)
    assert got and all(isinstance(w, str) and isinstance(s, float) for w, s in got)
    # the last syllable of a line rhymed with "day": one-syllable words that rhyme with it
    assert all(english.rhyme_keys(w, "slant") & english.rhyme_keys("day", "slant") for w, _ in got)
    # the same words with what the panel tells of each: the kind of rhyme and the syllables
    words = engine.suggest_words(t, text, 2, 9, k=10)
    assert [c.word for c in words] == [w for w, _ in got]
    assert all(c.rhyme in ("perfect", "slant") and c.syllables == 1 for c in words)


def _random_template(seed: int) -> str:
    import random

    rng = random.Random(seed)
    words = ["love", "summer", "day", "night", "heaven", "beautiful", "the", "sea", "cloud", "golden", "river",
             "xyzzy", "fire", "every"]
    lines = []
    for _ in range(rng.randint(1, 5)):
        toks = []
        for _ in range(rng.randint(1, 12)):
            r = rng.random()
            toks.append(rng.choice(words) if r < 0.1 else rng.choice("x/") if r < 0.5 else "_")
            if rng.random() < 0.1:
                toks[-1] += rng.choice([",", ";", "\u2014", "!"])
        toks[-1] += rng.choice([",", ".", "", "?"])
        lines.append(" ".join(toks) + (f" @{rng.choice('AB')}" if rng.random() < 0.7 else ""))
    return "# lang: en\n" + ("# rhyme-system: slant\n" if rng.random() < 0.5 else "") + "\n".join(lines) + "\n"


def test_random_templates_fit_or_are_refused_in_words(engine):
    """Random templates (locks, marks inside lines, stress, labels): every candidate passes check,
    or the engine says which rhyme cannot be met."""
    fitted = 0
    for seed in range(40):
        t = parse_notation(_random_template(seed))
        try:
            cands = engine.generate(GenerationRequest(template=t, n=2, seed=seed))
        except GenerationError as e:
            assert "rhyme" in str(e)
            continue
        fitted += 1
        for c in cands:
            assert c.check.ok, (seed, c.text, c.check.summary())
    assert fitted >= 30


def test_english_tables_come_back_the_same_from_the_disk_cache(tmp_path, monkeypatch):
    from songwriter.engine.decode_en import EnglishTables

    monkeypatch.setenv("SONGWRITER_CACHE", str(tmp_path))
    v = tiny_vocab()
    a = EnglishTables(v)
    ka = a.keys("slant")
    assert list((tmp_path / "prosody-tables").glob("en-*.npz"))
    b = EnglishTables(v)
    kb = b.keys("slant")
    assert (a.gen == b.gen).all() and (a.known == b.known).all() and a.counts == b.counts
    assert ka[0] == kb[0] and set(ka[1]) == set(kb[1])
    assert all((a.fit(c, s) == b.fit(c, s)).all() for c in (1, 2, 3) for s in ("x/x", "/x/", "___"))


def test_the_repetition_penalty_spares_grammar_words_not_common_content_words():
    from songwriter.engine.decode_en import content_mask

    v = tiny_vocab()
    mask = content_mask(v)
    ids = {t: i for i, t in enumerate(v.tokens)}
    for w in ("the", "and", "will", "of"):
        if w in ids:
            assert mask[ids[w]] == 0.0, w
    content = [w for w in ("love", "heart", "day", "summer's") if w in ids]
    assert content and all(mask[ids[w]] == 1.0 for w in content)
    assert not mask[:v.first_word].any()
    # the interjections are counted: three O's in a stanza read as padding; o' is "of"
    from songwriter.engine.vocab_en import EnglishVocab

    v = EnglishVocab.build(["O love, oh day o' the summer", "ah the love"], min_count=1)
    mask = content_mask(v)
    assert [mask[v.id(w)] for w in ("o", "oh", "ah", "o'", "the")] == [1.0, 1.0, 1.0, 0.0, 0.0]


def _repeated_pairs(lines: list[str]) -> int:
    from songwriter.prosody.english import FUNCTION_WORDS

    words = [w.lower() for ln in lines for w in _words(ln)]
    pairs = [(a, b) for a, b in zip(words, words[1:]) if b not in FUNCTION_WORDS]
    return len(pairs) - len(set(pairs))


def test_a_pair_of_words_written_again_costs_more(engine, monkeypatch):
    """A model that loves "bright night" (a bonus to "bright" anywhere, to "night" after it)
    writes the pair again and again with the pair cost off, less often with it on, and every
    candidate still fits."""
    from songwriter.engine import decode_en

    ids = {t: i for i, t in enumerate(engine.vocab.tokens)}
    bright, night = ids["bright"], ids["night"]
    step = engine.backend.step

    def fond_of_a_pair(state, prev, position):
        logp = np.array(step(state, prev, position), dtype=np.float64)
        logp[:, bright] += 4.0
        logp[np.asarray(prev) == bright, night] += 8.0
        return logp

    monkeypatch.setattr(engine.backend, "step", fond_of_a_pair)
    # the pair cost alone: the word-pair rules (grammar_en) leave this tiny model fewer words
    # after "the" and "a", and so more "bright night" either way (86 -> 45 with them on)
    monkeypatch.setattr(engine.tables.english(), "_barred_after", {})

    def pairs():
        got = engine.generate(GenerationRequest(template=named_form("Shakespearean sonnet"), n=4, seed=4))
        assert all(c.check.ok for c in got), [c.check.summary() for c in got]
        return sum(" ".join(c.lines).lower().count("bright night") for c in got)

    with_cost = pairs()
    monkeypatch.setattr(decode_en, "PAIR_REPEAT_COST", 0.0)
    without = pairs()
    assert without >= 8 and with_cost < without / 2, (without, with_cost)


def test_drafts_of_each_line_make_likelier_candidates_that_still_fit(engine):
    """Each line written eight times per candidate, the likeliest draft kept: the candidates'
    mean word log-probability rises over one draft per line, every candidate still fits, and the
    same seed still gives the same candidates."""
    t = named_form("Shakespearean sonnet")

    def mean_score(k: int) -> float:
        got = [c for seed in range(1, 7) for c in engine.generate(
            GenerationRequest(template=t, n=3, seed=seed, line_choices=k))]
        assert all(c.check.ok for c in got), [c.check.summary() for c in got]
        return float(np.mean([c.score for c in got]))

    assert mean_score(8) > mean_score(1) + 0.1
    a = engine.generate(GenerationRequest(template=t, n=2, seed=5, line_choices=3))
    b = engine.generate(GenerationRequest(template=t, n=2, seed=5, line_choices=3))
    assert [c.text for c in a] == [c.text for c in b]


def test_line_choices_out_of_range_are_refused_in_words():
    from songwriter.engine.api import MAX_LINE_CHOICES, request_problem

    t = named_form("limerick")
    for bad in (0, MAX_LINE_CHOICES + 1, 2.5, True):
        assert request_problem(GenerationRequest(template=t, line_choices=bad)).startswith("line choices must"), bad
    assert not request_problem(GenerationRequest(template=t, line_choices=MAX_LINE_CHOICES))


def _rig_line_starts(engine, monkeypatch, first: str, bonus: float, then: tuple[str, float] | None = None):
    """The model, rigged to love opening a line with ``first`` (``bonus`` nats), and the word of
    ``then`` after it."""
    ids = engine.vocab.stoi
    starts = np.asarray([engine.vocab.eol, engine.vocab.bos])
    step = engine.backend.step

    def rigged(state, prev, position):
        logp = np.array(step(state, prev, position), dtype=np.float64)
        prev = np.asarray(prev)
        logp[np.isin(prev, starts), ids[first]] += bonus
        if then is not None:
            logp[prev == ids[first], ids[then[0]]] += then[1]
        return logp

    monkeypatch.setattr(engine.backend, "step", rigged)


def _sonnet_lines_opening(engine, prefix: str) -> int:
    """Lines opening with ``prefix`` in two sonnets (seed 4, two drafts a line), every one fitting."""
    got = engine.generate(GenerationRequest(template=named_form("Shakespearean sonnet"), n=2, seed=4,
                                            line_choices=2))
    assert all(c.check.ok for c in got), [c.check.summary() for c in got]
    return sum(ln.lower().startswith(prefix) for c in got for ln in c.lines)


def test_lines_that_open_as_an_earlier_line_did_cost_more(engine, monkeypatch):
    """A model that loves to open a line with "he was" opens most lines so with the opening cost
    off, far fewer with it on (the other repetition costs off in both), and every candidate still
    fits."""
    from songwriter.engine import decode_en

    _rig_line_starts(engine, monkeypatch, "he", 8.0, then=("was", 5.0))
    for cost in ("FUNCTION_PAIR_COST", "PAIR_REPEAT_COST", "FIRST_WORD_COST"):
        monkeypatch.setattr(decode_en, cost, 0.0)
    with_cost = _sonnet_lines_opening(engine, "he was")
    monkeypatch.setattr(decode_en, "OPENING_ECHO_COST", 0.0)
    without = _sonnet_lines_opening(engine, "he was")
    assert without >= 12 and with_cost < without / 3, (without, with_cost)


def test_a_refrain_repeats_its_source_lines_new_words(engine):
    """A hymn re-lyricked with its refrain: every candidate sings the refrain lines with the words
    of the lines they repeat, and passes the check; regenerating a source line writes its refrains
    again with it."""
    from songwriter.lyrics import template_from_lyrics

    t = template_from_lyrics("Nearer, my God, to Thee,\nNearer to Thee!\nE'en though it be a cross\n"
                             "That raiseth me;\nNearer, my God, to Thee,\nNearer to Thee.")
    got = engine.generate(GenerationRequest(template=t, n=4, seed=2))
    for c in got:
        assert c.check.ok, c.check.summary()
        assert _words(c.lines[4]) == _words(c.lines[0]) and _words(c.lines[5]) == _words(c.lines[1])
    first = got[0]
    again = engine.generate(GenerationRequest(template=t, text=first.text, lines=[0], n=3, seed=9))
    for c in again:
        assert c.check.ok, c.check.summary()
        assert _words(c.lines[4]) == _words(c.lines[0])
        assert c.lines[1:4] == first.lines[1:4]


def test_a_refrain_that_does_not_repeat_is_a_problem_of_the_check():
    from songwriter.checks import check

    t = parse_notation("_ _ _ @A\n_ _ _ @A\n_ _ _ @A =1", "en")
    assert check("The night is\nThe day is\nThe night is", t).ok
    report = check("The night is\nThe day is\nThe sun is", t)
    assert not report.ok and any(p.kind == "repeat" and "line 1" in p.message for p in report.lines[2].problems)


def test_a_refrain_that_cannot_take_its_lines_words_is_refused_in_words(engine):
    t = parse_notation("_ _ _ _ @A\n_ _ _ _ @A\n_ _ _ _ @A =1", "en")
    t.lines[2].slots[0].tone = "/"          # as an edit outside the editor could leave it
    with pytest.raises(GenerationError, match="line 3 repeats line 1 but differs"):
        engine.generate(GenerationRequest(template=t, n=2, seed=1))


def test_lines_that_open_with_the_same_word_again_and_again_cost_more(engine, monkeypatch):
    """A model that loves to open every line with "my" does so with the first-word cost off, on
    at most half as many lines with it on (two are free), and every candidate still fits."""
    from songwriter.engine import decode_en

    _rig_line_starts(engine, monkeypatch, "my", 6.0)
    with_cost = _sonnet_lines_opening(engine, "my ")
    monkeypatch.setattr(decode_en, "FIRST_WORD_COST", 0.0)
    without = _sonnet_lines_opening(engine, "my ")
    assert without >= 20 and with_cost <= without / 2, (without, with_cost)


def _rig_word(engine, monkeypatch, word: str, bonus: float) -> None:
    """The engine's model, rigged to love ``word`` wherever it could be written."""
    step = engine.backend.step
    wid = engine.vocab.id(word)

    def rigged(state, prev, position):
        logp = np.array(step(state, prev, position), dtype=np.float64)
        logp[:, wid] += bonus
        return logp

    monkeypatch.setattr(engine.backend, "step", rigged)


def test_a_slant_rhyme_ends_a_line_only_where_no_perfect_one_can(engine, monkeypatch):
    """A slant-rhymed form prefers perfect rhymes: a model that loves the three-syllable
    "amazing" (a slant rhyme of "day", not a perfect one) does not end the rhyming line with it
    while a shorter word and a perfect rhyme fit its three syllables; every candidate fits."""
    _rig_word(engine, monkeypatch, "amazing", 20.0)
    t = parse_notation("# lang: en\n# rhyme-system: slant\n_ _ _ day @A\n_ _ _ @A\n", "en")
    got = engine.generate(GenerationRequest(template=t, n=3, seed=2))
    assert got and all(c.check.ok for c in got), [c.check.summary() for c in got]
    for c in got:
        last = _words(c.lines[1])[-1].lower().strip(",.;:!?")
        assert last != "day" and english.rhymes(last, "day", "perfect"), c.lines


def test_a_locked_rhyme_word_is_not_written_again_at_another_line_end(engine, monkeypatch):
    """A model that loves "day" ends every free line of the label with it unless the locked
    "day" (on the last line, after them) counts as used from the start: none of the free lines
    ends on it, and every candidate still fits."""
    _rig_word(engine, monkeypatch, "day", 12.0)
    t = parse_notation("# lang: en\n_ _ _ _ @A\n_ _ _ _ @A\n_ _ _ day @A\n", "en")
    got = engine.generate(GenerationRequest(template=t, n=3, seed=2, line_choices=2))
    assert got and all(c.check.ok for c in got), [c.check.summary() for c in got]
    for c in got:
        ends = [_words(line)[-1].lower().strip(",.;:!?") for line in c.lines]
        assert ends[2] == "day" and "day" not in ends[:2], c.lines

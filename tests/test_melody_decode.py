"""The decoder's 倒字 mask on a melody's template: at each slot the characters whose tone makes a
clear 倒字 with the syllable before (as each row has it) over the interval between their notes,
or with a locked syllable after, are avoided, as a preference that yields when nothing else fits;
the tone-fit strength 0 turns it off. The judgement is melody.fit's pair_grade."""

import numpy as np
import pytest

pytest.importorskip("music21")

from songwriter.engine import encoding as E  # noqa: E402
from songwriter.engine.decode import ProsodyTables, ToneFit  # noqa: E402
from songwriter.engine.vocab import Vocab  # noqa: E402
from songwriter.melody import Melody, Note, attach, melody_of, template_from_melody  # noqa: E402
from songwriter.melody.fit import BAD, bad_tone_pairs, char_tone, pair_grade, tone_steps  # noqa: E402

# 天 high (1), 来 rising (2), 好 low (3), 去 falling (4), 的 neutral (5)
CHARS = "天来好去的"


def leap_template(pitches, strength=1.0, lock=None):
    """One line, a syllable per note of ``pitches`` (MIDI), tone fit at ``strength``."""
    notes = [Note(pitch=p, onset=float(i), duration=1.0, beat=1.0, measure=i + 1, seconds=float(i) / 2)
             for i, p in enumerate(pitches)]
    m = Melody(notes=notes, lines=[[[i] for i in range(len(pitches))]], source="t.abc", kind="abc")
    m.tone_strength = strength
    t = template_from_melody(m, lang="zh")
    if lock:
        from dataclasses import replace

        k, ch = lock
        t.lines[0].slots[k] = replace(t.lines[0].slots[k], lock=ch)
    return t


@pytest.fixture(scope="module")
def vocab():
    return Vocab.build([CHARS], min_count=1)


@pytest.fixture()
def tables(vocab, tmp_path, monkeypatch):
    monkeypatch.setenv("SONGWRITER_CACHE", str(tmp_path))
    return ProsodyTables(vocab)


def test_the_tones_of_the_test_characters():
    assert [char_tone(c) for c in CHARS] == [1, 2, 3, 4, 5]
    assert char_tone("，") == 0 and char_tone("a") == 0


def test_bad_pairs_are_pair_grades_bad():
    for interval in (-12, -5, -4, 0, 4, 5, 7, 12):
        want = {(a, b) for a in range(1, 6) for b in range(1, 6) if pair_grade(a, b, interval) == BAD}
        assert bad_tone_pairs(interval) == want
    assert bad_tone_pairs(0) == frozenset() and bad_tone_pairs(4) == frozenset()   # less than a fourth
    assert (4, 3) in bad_tone_pairs(7) and (3, 1) in bad_tone_pairs(-7)     # onto a low tone up, off it down
    assert not any(5 in pair for pair in bad_tone_pairs(12) | bad_tone_pairs(-12))   # neutral: never


def test_tone_steps_follow_the_notes_and_the_strength():
    t = leap_template([60, 67, 55, 55])
    assert tone_steps(t) == [[None, 7, -12, 0]]
    assert tone_steps(leap_template([60, 67, 55], strength=0)) is None           # the fit off
    from songwriter.forms import named_form

    assert tone_steps(named_form("七绝")) is None                                 # no melody


def avoided(vocab, tables, template, p, row_chars):
    enc = E.encode_template(template, vocab)
    fit = ToneFit.of(template, enc, tables)
    out = np.zeros((len(row_chars), len(enc)), dtype=np.int64)
    for r, ch in enumerate(row_chars):
        out[r, p - 1] = vocab.id(ch)
    avoid = fit.avoid_rows(p, out)
    return [sorted(vocab.tokens[i] for i in np.nonzero(a)[0]) for a in avoid] if avoid is not None else None


def test_each_row_avoids_what_its_own_previous_syllable_makes_a_dao_zi(vocab, tables):
    t = leap_template([60, 67, 55])
    # up a fifth: a low tone after anything but a neutral one is sung against the rise
    assert avoided(vocab, tables, t, 1, "天好去的") == [["好"], ["好"], ["好"], []]
    # down an octave: after a low tone every tone but another low (sandhi) or neutral one rises
    # in the voice; after a high tone only the low one falls with it
    assert avoided(vocab, tables, t, 2, "好天") == [["去", "天", "来"], []]
    assert avoided(vocab, tables, t, 0, "天") is None                     # a line's first syllable


def test_a_locked_syllable_after_is_sung_with_its_tone(vocab, tables):
    t = leap_template([60, 67, 55], lock=(2, "天"))
    enc = E.encode_template(t, vocab)
    fit = ToneFit.of(t, enc, tables)
    out = np.zeros((1, len(enc)), dtype=np.int64)
    out[0, 0] = vocab.id("的")                                  # the neutral tone before: no pair judged
    avoid = fit.avoid_rows(1, out)
    # 天 after it, down an octave: a low tone before 天 wants the tune to rise
    assert [vocab.tokens[i] for i in np.nonzero(avoid[0])[0]] == ["好"]


def test_the_mask_is_a_preference_that_yields(vocab, tables):
    t = leap_template([60, 67, 55])
    enc = E.encode_template(t, vocab)
    fit = ToneFit.of(t, enc, tables)
    out = np.zeros((2, len(enc)), dtype=np.int64)
    out[:, 0] = vocab.id("去")
    only_bad = np.zeros((2, len(vocab)), dtype=bool)
    only_bad[:, vocab.id("好")] = True
    some = only_bad.copy()
    some[1, vocab.id("天")] = True
    got = fit.narrow_rows(1, some, out)
    assert got[0, vocab.id("好")]                                 # nothing else: the 倒字 stays
    assert not got[1, vocab.id("好")] and got[1, vocab.id("天")]    # else it goes
    assert ToneFit.of(leap_template([60, 67, 55], strength=0), enc, tables) is None


def _alone_dao_zi(template, text) -> int:
    """Pairs of a text that make a clear 倒字 with each character's tone as read alone."""
    steps = tone_steps(template) or tone_steps(_on(template))
    count = 0
    for li, line in enumerate(text.split("\n")):
        chars = [c for c in line if c not in "，。"]
        for k in range(1, len(chars)):
            count += pair_grade(char_tone(chars[k - 1]), char_tone(chars[k]), steps[li][k]) == BAD
    return count


def _on(template):
    t = template.copy()
    m = melody_of(t)
    m.tone_strength = 1.0
    attach(t, m)
    return t


def test_generation_avoids_dao_zi_unless_the_fit_is_off(tmp_path_factory):
    pytest.importorskip("torch")
    from helpers.tiny_model import make_tiny_model

    from songwriter.engine.service import Engine, GenerationRequest

    engine = Engine.load(make_tiny_model(tmp_path_factory.mktemp("model")))
    leaps = [60, 67, 60, 67, 55, 62, 55, 67, 60, 72, 60, 67]       # fifths and octaves up and down
    counts = {}
    for strength in (0.0, 1.0):
        t = leap_template(leaps, strength)
        cands = engine.generate(GenerationRequest(template=t, n=6, seed=3))
        assert len(cands) == 6 and all(c.check.ok for c in cands)
        counts[strength] = sum(_alone_dao_zi(t, c.text) for c in cands)
    assert counts[0.0] > 0 and counts[1.0] == 0

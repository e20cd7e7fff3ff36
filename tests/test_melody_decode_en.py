"""English words to a melody: the decoder's StressFit on a melody's template (built in code here,
with a model stand-in whose preferences the tests set). With the fit on, a word whose own stress
the beats contradict is avoided, a stress clash with the word before costs, a word is not run over
a rest, a long note prefers an open syllable, and the model is shown the beats' stress marks; at
strength 0 the decoder writes exactly what it writes for a template without a melody. The
judgement is melody.fit's stress_clashes, the check's own."""

import numpy as np
import pytest

from songwriter.engine import encoding as E
from songwriter.engine.decode import ProsodyTables, Sampling
from songwriter.engine.decode_en import StressFit, decode_en
from songwriter.engine.vocab_en import EnglishVocab
from songwriter.melody import Melody, Note, attach, melody_of, template_from_melody
from songwriter.melody.fit import beat_marks, beat_plan, check_fit, stress_clashes

WORDS = "river again amazing the a of love sky blue night day grace sweet"


def tune(beats, durations=None, rests=(), strength=1.0):
    """One line, a syllable per note: ``beats`` (beat strengths), ``durations`` in quarters
    (default a quarter each), a rest before the notes whose indices are in ``rests``."""
    durations = durations or [1.0] * len(beats)
    notes, at = [], 0.0
    for i, (b, d) in enumerate(zip(beats, durations)):
        rest = 1.0 if i in rests else 0.0
        at += rest
        notes.append(Note(pitch=60 + i, onset=at, duration=d, beat=b, measure=1 + int(at // 4),
                          seconds=at / 2, rest_before=rest))
        at += d
    m = Melody(notes=notes, lines=[[[i] for i in range(len(beats))]], source="t.abc", kind="abc",
               time_signature="4/4")
    m.tone_strength = strength
    return template_from_melody(m, lang="en")


def with_strength(template, strength):
    t = template.copy()
    m = melody_of(t)
    m.tone_strength = strength
    attach(t, m)
    return t


class Backend:
    """A model stand-in: the same log-probabilities at every step, -10 for words it was not told
    about; it remembers the template arrays it was started with."""

    name, max_len, supports_content = "stand-in", 512, False

    def __init__(self, vocab, prefer: dict[str, float]):
        self.logp = np.full(len(vocab), -10.0)
        for w, lp in prefer.items():
            self.logp[vocab.id(w)] = lp
        self.arrays = None

    def start(self, arrays, n):
        self.arrays = arrays
        return n

    def step(self, state, prev, p):
        return np.tile(self.logp, (state, 1))

    def select(self, state, rows):
        return len(rows)


@pytest.fixture(scope="module")
def vocab():
    return EnglishVocab.build([WORDS], min_count=1)


@pytest.fixture()
def tables(vocab, tmp_path, monkeypatch):
    monkeypatch.setenv("SONGWRITER_CACHE", str(tmp_path))
    return ProsodyTables(vocab)


def write(vocab, tables, template, prefer, n=1):
    backend = Backend(vocab, prefer)
    enc = E.encode_template(template, vocab)
    rows = decode_en(backend, vocab, tables, template, enc, Sampling(n=n, seed=0, temperature=0))
    return [r.lines[0] for r in rows], backend


def test_stress_clashes_within_a_word_and_with_its_neighbours():
    assert stress_clashes("010", [1.0, 0.25, 0.5]) == [(1, 0), (1, 2)]      # a-MA-zing, MA weakest
    assert stress_clashes("010", [0.25, 1.0, 0.25]) == []
    assert stress_clashes("1", [0.25], before=("0", 1.0)) == [(0, -1)]       # "the LOVE", the on the downbeat
    assert stress_clashes("1", [0.25], before=("1", 1.0)) == []              # two stresses: no clash
    assert stress_clashes("0", [1.0], after=("1", 0.5)) == [(1, 0)]         # a locked stressed word after
    assert stress_clashes("_1", [1.0, 0.25], before=("0", 1.0)) == []        # "either" is never judged
    assert stress_clashes("10", [0.5, 0.5]) == []                            # equal beats never clash


def test_beat_marks():
    assert beat_marks([1.0, 0.25, 0.5, 0.25, 1.0]) == "/x/x/"               # crotchets in 4/4
    assert beat_marks([1.0, 0.5, 0.5, 1.0]) == "/xx/"                        # 3/4
    assert beat_marks([0.25, 1.0, 0.5, 0.5]) == "x/x_"                      # equal neighbours: either
    assert beat_plan(tune([0.25, 1.0])).marks == ["x/"]
    assert beat_plan(tune([0.25, 1.0], strength=0)) is None                  # the fit off


def test_the_check_takes_the_readings_that_fit_the_tune():
    from songwriter.document import en_word_layout

    t = tune([0.25, 1.0, 0.25, 0.5, 1.0])               # x / x _ /
    # "our" in one syllable or two, "every" in two or three: the layout's first fit (OUR-every
    # in 2 + 2) wrenches both words; a singer takes our EV-er-y DAY, which fits
    assert [p.syllables for p in en_word_layout("Our every day.", t.lines[0])] == [2, 2, 1]
    report = check_fit(t, "Our every day.")
    assert not [p for p in report.problems if p.kind == "stress"] and report.stress_pairs == 4


def test_a_word_sung_against_its_own_stress_is_avoided(vocab, tables):
    t = tune([0.25, 1.0])                                 # x / : ri-VER would wrench "river"
    prefer = {"river": -1.0, "again": -1.5, "love": -3.0, "sky": -3.0}
    off, _ = write(vocab, tables, with_strength(t, 0), prefer)
    on, backend = write(vocab, tables, t, prefer)
    assert off == ["River."]                              # the old behaviour: the model's choice
    assert [p.grade for p in check_fit(with_strength(t, 0), off[0]).problems if p.kind == "stress"] == ["bad"]
    assert on == ["Again."]                               # a-GAIN: its stress on the downbeat
    assert not [p for p in check_fit(t, on[0]).problems if p.kind == "stress"]
    # the model is shown the stress the beats ask for, as a metre: x /
    enc = E.encode_template(t, vocab)
    syl = (enc.fmt == E.F_CHAR) | (enc.fmt == E.F_RHYME)
    assert list(backend.arrays["tone"][syl]) == [2, 1]
    assert not enc.tone.any()                             # the template itself asks for no stress
    locked = t.copy()
    locked.lines[0].slots[0].lock = "love"
    _, backend = write(vocab, tables, locked, prefer)
    assert list(backend.arrays["tone"][syl]) == [0, 1]    # a locked word's syllable carries no mark


def test_a_stressed_word_after_an_unstressed_one_on_a_stronger_beat_costs(vocab, tables):
    t = tune([1.0, 0.25])                                 # / x : "the LOVE" clashes
    prefer = {"the": -1.0, "love": -2.0, "sky": -2.5}
    off, _ = write(vocab, tables, with_strength(t, 0), prefer)
    on, _ = write(vocab, tables, t, prefer)
    assert off == ["The love."]
    assert "'love' is stressed" in check_fit(with_strength(t, 0), off[0]).problems[0].message
    assert on[0].split()[0] == "Love"                     # no unstressed "the" on the downbeat before a weak beat
    assert not [p for p in check_fit(t, on[0]).problems if p.kind == "stress"]


def test_the_costs_follow_the_strength(vocab, tables):
    t = tune([1.0, 0.25])
    prefer = {"the": -1.0, "love": -2.0, "sky": -2.5}
    # at strength 0.25 the clash costs 0.75 and leaning on a weaker beat 0.5: "the" stays the better word
    assert write(vocab, tables, with_strength(t, 0.25), prefer)[0] == ["The love."]
    assert write(vocab, tables, with_strength(t, 3), prefer)[0][0].split()[0] == "Love"


def test_a_word_is_not_run_over_a_rest(vocab, tables):
    t = tune([0.25, 1.0, 0.25], rests=(2,))               # a-MA | rest | zing
    prefer = {"amazing": -1.0, "love": -2.0, "sky": -2.5, "again": -2.0}
    off, _ = write(vocab, tables, with_strength(t, 0), prefer)
    on, _ = write(vocab, tables, t, prefer)
    assert off == ["Amazing."]
    assert [p.kind for p in check_fit(with_strength(t, 0), off[0]).problems] == ["rest"]
    assert "amazing" not in on[0].lower()
    assert not [p for p in check_fit(t, on[0]).problems if p.kind == "rest"]


def test_a_long_note_prefers_an_open_syllable(vocab, tables):
    t = tune([1.0, 0.5, 0.25], durations=[2.0, 0.5, 0.5])  # the first note long
    prefer = {"night": -1.0, "day": -1.3, "sky": -2.0, "blue": -2.2}
    off, _ = write(vocab, tables, with_strength(t, 0), prefer)
    on, _ = write(vocab, tables, t, prefer)
    assert off[0].startswith("Night ")                      # closed: it ends in t
    assert [(p.kind, p.slot) for p in check_fit(with_strength(t, 0), off[0]).problems] == [("open", 0)]
    assert on[0].startswith("Day ")                         # open, at a cost of 0.5 to "night"
    assert not [p for p in check_fit(t, on[0]).problems if p.kind == "open"]


def test_off_is_the_decoder_without_a_melody(vocab, tables):
    t = tune([0.25, 1.0, 0.5, 0.25, 1.0, 0.25])
    prefer = {w: -1.0 - 0.1 * k for k, w in enumerate(WORDS.split())}
    plain = t.copy()
    plain.meta = {}
    enc = E.encode_template(t, vocab)
    assert StressFit.of(with_strength(t, 0), enc, tables.english(), 1) is None
    assert StressFit.of(plain, enc, tables.english(), 1) is None
    for seed in range(3):
        s = Sampling(n=3, seed=seed)
        a = decode_en(Backend(vocab, prefer), vocab, tables, with_strength(t, 0), enc, s)
        b = decode_en(Backend(vocab, prefer), vocab, tables, plain, E.encode_template(plain, vocab), s)
        assert [r.lines for r in a] == [r.lines for r in b]


def test_the_sung_tables_come_back_the_same_from_the_disk_cache(vocab, tmp_path, monkeypatch):
    monkeypatch.setenv("SONGWRITER_CACHE", str(tmp_path))
    first = ProsodyTables(vocab).english().sung()
    again = ProsodyTables(vocab).english().sung()
    assert list((tmp_path / "prosody-tables").glob("en-sung-*.npz"))
    assert {c: [(q, list(ids)) for q, ids in v] for c, v in first[0].items()} == \
        {c: [(q, list(ids)) for q, ids in v] for c, v in again[0].items()}
    assert {c: list(v) for c, v in first[1].items()} == {c: list(v) for c, v in again[1].items()}
    river = vocab.id("river")
    assert any(q == "10" and river in ids for q, ids in first[0][2])

"""The decoder narrows and samples every candidate row in one pass; each row must come out as the
per-row code (kept as the reference) makes it, so a seed draws what it drew before."""

from pathlib import Path

import numpy as np
import pytest

from songwriter.engine import encoding as E
from songwriter.engine.decode import (
    NEG, ProsodyTables, RhymeSeparation, RowDraws, Sampling, _sample, topk_order, topk_order_rows,
)
from songwriter.engine.vocab import Vocab
from songwriter.forms import named_form

ROOT = Path(__file__).resolve().parents[1]


def masked_logits(rng, rows: int, width: int, ties: bool) -> np.ndarray:
    x = rng.normal(size=(rows, width)).astype(np.float32)
    if ties:
        x = np.round(x, 1)
    keep = rng.random((rows, width)) < rng.choice([0.002, 0.01, 0.3, 1.0], size=(rows, 1))
    keep[:, 0] |= ~keep.any(axis=1)          # every row allows something, as the decoder's masks do
    return np.where(keep, x.astype(np.float64) - 0.35 * rng.integers(0, 4, size=(rows, width)), NEG)


def test_topk_order_rows_is_topk_order_of_each_row():
    rng = np.random.default_rng(0)
    for trial in range(200):
        x = masked_logits(rng, 10, 3000, ties=trial % 2 == 1)
        k = int(rng.choice([1, 5, 32, 200]))
        got = topk_order_rows(x, k)
        for r in range(len(x)):
            assert np.array_equal(got[r], topk_order(x[r], k))


@pytest.mark.parametrize("sampling", [
    Sampling(), Sampling(top_k=5, top_p=1.0), Sampling(temperature=0.6, top_p=0.5),
    Sampling(temperature=2.0, top_k=0, top_p=0.9), Sampling(temperature=0.0),
])
def test_row_draws_are_sample_row_after_row(sampling):
    data = np.random.default_rng(1)
    for trial in range(60):
        x = masked_logits(data, 10, 2000, ties=trial % 3 == 0)
        one_by_one, all_at_once = np.random.default_rng(trial), np.random.default_rng(trial)
        want = [_sample(x[r], one_by_one, sampling) for r in range(len(x))]
        assert RowDraws(x, sampling).picks(all_at_once).tolist() == want
        assert one_by_one.random() == all_at_once.random()     # the generators stay in step


def test_row_draws_pick_uses_one_uniform_like_sample():
    data = np.random.default_rng(2)
    x = masked_logits(data, 6, 1500, ties=True)
    draws = RowDraws(x, Sampling())
    for r in range(len(x)):
        rng_a, rng_b = np.random.default_rng(r), np.random.default_rng(r)
        assert draws.pick(r, rng_b.random()) == _sample(x[r], rng_a, Sampling())


@pytest.fixture(scope="module")
def tables():
    return ProsodyTables(Vocab.load(ROOT / "models" / "zh" / "vocab.json"))


def locked_ends(name: str, vocab: Vocab, chars: str):
    """``name`` with the last character of its first lines locked to ``chars``."""
    from dataclasses import replace

    t = named_form(name).copy()
    for line, ch in zip(t.lines, chars):
        line.slots[-1] = replace(line.slots[-1], lock=ch)
    return t


@pytest.mark.parametrize("form,locks", [("七绝", ""), ("菩萨蛮", ""), ("清平乐", ""), ("念奴娇", ""),
                                        ("七律", "山间"), ("减字木兰花", "花")])
def test_rhyme_narrowing_of_all_rows_is_the_per_row_narrowing(tables, form, locks):
    vocab = tables.vocab
    template = locked_ends(form, vocab, locks) if locks else named_form(form)
    enc = E.encode_template(template, vocab)
    gid, names = tables.rhyme(template.effective_rhyme_system())
    n, labels = 10, len(enc.labels) + 1
    rng = np.random.default_rng(len(form))
    for trial in range(8):
        sep = RhymeSeparation(enc, tables, gid, n)
        # rows part-way through a piece: some rhymes and unrhymed ends recorded, some groups chosen
        picks = rng.integers(vocab.first_char, len(vocab), size=(n, 4))
        for r in range(n):
            for tok in picks[r][: rng.integers(0, 5)]:
                sep.record(r, int(rng.integers(0, labels)), int(tok), int(rng.integers(0, E.N_GROUPS + 1)))
        chosen = np.where(rng.random((n, labels)) < 0.5, rng.integers(0, len(names), size=(n, labels)), -1)
        chosen[:, 0] = -1
        m = (rng.random((n, len(vocab))) < rng.choice([0.001, 0.05, 0.9])) & tables.char_mask
        for lab in range(1, labels):
            got = sep.apart_from_other_rhymes_rows(lab, m, chosen)
            got_sound = sep.same_sound_rows(lab, got)
            for r in range(n):
                want = sep.apart_from_other_rhymes(r, lab, m[r], chosen[r])
                assert np.array_equal(got[r], want)
                assert np.array_equal(got_sound[r], sep.same_sound(r, lab, want))
        got = sep.unrhymed_end_rows(m, chosen[:, 1:])
        for r in range(n):
            assert np.array_equal(got[r], sep.unrhymed_end(r, m[r], chosen[r, 1:]))

"""The Sampler's batches (train/dataset.py: plans drawn by draw_masks, arrays made by make_batch)
are byte for byte what the per-piece path makes (make_example on each piece, then collate), for
the same seed and state; and train/prefetch.py gives the same batches in the same order from
worker processes, with a state that resumes exactly after the batches taken."""

import json
import random

import pytest

from helpers.tiny_model import EXTRA, write_tiny_corpus

from songwriter.engine.vocab import Vocab
from songwriter.train.dataset import MaskConfig, PieceStore, Sampler, collate, make_example

WEIGHTS = {"shi": 0.5, "ci": 0.3, "modern": 0.2}


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    corpus = write_tiny_corpus(tmp_path_factory.mktemp("corpus"))
    pieces = [json.loads(x) for x in (corpus / "pieces.jsonl").read_text(encoding="utf-8").splitlines()]
    chars = EXTRA.replace(" ", "")
    rng = random.Random(5)
    for i in range(60):        # ci of many lines (windows at max_len 48), a line too long for a window
        kind = rng.choice(["ci", "modern", "shi"])
        lens = [rng.randint(2, 60 if i % 17 == 0 else 9) for _ in range(rng.randint(1, 14))]
        lines = ["".join(rng.choice(chars) for _ in range(n)) + rng.choice("，。？！、") for n in lens]
        pieces.append({"id": f"{kind}:x{i}", "kind": kind, "lines": lines})
    vocab = Vocab.build(["".join(p["lines"]) for p in pieces] + [chars], min_count=1)
    return PieceStore(pieces, vocab, max_len=48)


def reference_next(s: Sampler) -> dict:
    """Sampler.next as it was: each piece through make_example, then collate."""
    if not s.queue:
        s._refill()
    ids = s.queue.pop()
    ex = [make_example(s.store.piece(i, s.rng), s.store.vocab, s.rng, s.mc) for i in ids]
    return collate(ex, s.store.vocab.pad)


def same(a: dict, b: dict) -> bool:
    return (list(a) == list(b) and all(a[k].dtype == b[k].dtype and a[k].shape == b[k].shape
                                       and a[k].tobytes() == b[k].tobytes() for k in a))


MASKS = [MaskConfig(), MaskConfig(p_no_given_piece=0.0, p_no_given_line=0.1, p_whole_line=0.2, max_share=0.9),
         MaskConfig(p_no_given_piece=0.0, p_tone_all=0.0, p_tone_half=1.0, p_label=1.0, p_group=0.0),
         MaskConfig(p_no_given_piece=1.0, p_tone_all=0.0, p_tone_half=0.0, p_label=0.0, p_kind=0.0)]


@pytest.mark.parametrize("mc", MASKS)
@pytest.mark.parametrize("tokens", [64, 300, 2000])
def test_batches_equal_the_per_piece_path(store, mc, tokens):
    for seed in (0, 7):
        fast, ref = Sampler(store, WEIGHTS, tokens, seed, mc), Sampler(store, WEIGHTS, tokens, seed, mc, pool=2)
        ref.pool = fast.pool = 2       # refills often
        assert fast.plans()
        for _ in range(25):
            assert same(fast.next(), reference_next(ref))
        assert fast.rng.bit_generator.state == ref.rng.bit_generator.state and fast.queue == ref.queue


def test_state_resumes_the_same_batches(store):
    a = Sampler(store, WEIGHTS, 300, 3)
    for _ in range(7):
        a.next()
    st = json.loads(json.dumps(a.state()))        # as a checkpoint keeps it: plain data
    b = Sampler(store, WEIGHTS, 300, 99)
    b.load_state(st)
    for _ in range(10):
        assert same(a.next(), b.next())


def test_a_sampler_that_makes_its_own_batches_keeps_its_next(store):
    class Own(Sampler):
        def next(self):
            return super().next(), "mine"

    s = Own(store, WEIGHTS, 300, 0)
    assert not s.plans()
    batch, tag = s.next()
    assert tag == "mine" and same(batch, reference_next(Sampler(store, WEIGHTS, 300, 0)))

"""The Sampler's batches (train/dataset.py: plans drawn by draw_masks, arrays made by make_batch)
are byte for byte what the per-piece path makes (make_example on each piece, then collate), for
the same seed and state; and train/prefetch.py gives the same batches in the same order from
worker processes, with a state that resumes exactly after the batches taken."""

import json
import random

import pytest

from helpers.tiny_model import EXTRA, write_tiny_corpus

from songwriter.engine.vocab import Vocab
from songwriter.train.dataset import MaskConfig, PieceStore, Sampler, collate, label_lines, make_example

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


@pytest.mark.parametrize("workers", [0, 1, 3])
def test_prefetched_batches_come_in_order_and_resume_after_the_last_taken(store, workers):
    from songwriter.train.prefetch import BatchPrefetcher

    ref = Sampler(store, WEIGHTS, 300, 11)
    want = [ref.next() for _ in range(12)]
    s = Sampler(store, WEIGHTS, 300, 11)
    with BatchPrefetcher(s, workers=workers) as feed:
        before = json.loads(json.dumps(feed.state()))
        got = [feed.next() for _ in range(5)]
        st = json.loads(json.dumps(feed.state()))   # the workers are further on by now
    assert all(same(a, b) for a, b in zip(got, want))
    assert before == json.loads(json.dumps(Sampler(store, WEIGHTS, 300, 11).state()))
    back = Sampler(store, WEIGHTS, 300, 0)
    back.load_state(st)
    assert all(same(back.next(), b) for b in want[5:])


def test_prefetch_of_a_sampler_with_its_own_next(store):
    from songwriter.train.prefetch import BatchPrefetcher

    class Own(Sampler):
        def next(self):
            return super().next(), "mine"

    with BatchPrefetcher(Own(store, WEIGHTS, 300, 2), workers=2) as feed:
        assert feed.workers == 0
        got = [feed.next() for _ in range(3)]
    ref = Sampler(store, WEIGHTS, 300, 2)
    assert all(tag == "mine" and same(b, ref.next()) for b, tag in got)


def test_a_failure_in_a_worker_is_raised_in_the_trainer(store, monkeypatch):
    from songwriter.train import prefetch

    def broken(store, rows):
        raise ValueError("no arrays today")

    monkeypatch.setattr(prefetch, "make_batch", broken)
    with prefetch.BatchPrefetcher(Sampler(store, WEIGHTS, 300, 2), workers=1) as feed:
        with pytest.raises(RuntimeError, match="no arrays today"):
            feed.next()


def test_the_trainer_with_batch_workers_trains_on_the_same_batches_and_resumes(tmp_path):
    """SONGWRITER_BATCH_WORKERS=2 (a planner and two makers, as on a GPU) against batches made in
    the loop: a run stopped and resumed ends with the same sampler state and the same weights."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    torch = pytest.importorskip("torch")
    root = Path(__file__).resolve().parents[1]
    corpus = write_tiny_corpus(tmp_path / "corpus")
    ends = {}
    for workers in ("-1", "2"):
        out = tmp_path / f"run{workers}"
        for steps in (3, 5):
            cmd = [sys.executable, "-m", "songwriter.train", "train", "--corpus", str(corpus), "--out", str(out),
                   "--layers", "1", "--d-model", "32", "--heads", "2", "--steps", str(steps), "--eval-every", "0",
                   "--dev-pieces", "2", "--precision", "fp32", "--batch-tokens", "128", "--warmup", "2",
                   "--dropout", "0"]
            env = dict(os.environ, OMP_NUM_THREADS="1", SONGWRITER_BATCH_WORKERS=workers)
            r = subprocess.run(cmd, cwd=root, capture_output=True, text=True, timeout=300, env=env)
            assert r.returncode == 0, r.stderr
            assert ("background processes" in r.stdout) == (workers != "-1")
        ends[workers] = torch.load(out / "ckpt.pt", weights_only=True)
    a, b = ends["-1"], ends["2"]
    assert a["step"] == b["step"] == 5 and a["sampler"] == b["sampler"]
    assert all(torch.equal(a["model"][k], b["model"][k]) for k in a["model"])


def test_rhyme_labels_go_to_the_classes_most_lines_share():
    """One labelling for both languages (dataset.label_lines): the most shared class first (a
    tie: the smaller class), then the next shared by two or more lines; numbered by first
    appearance; a class of one line is no rhyme."""
    labels, groups = label_lines([frozenset({3}), frozenset({5}), frozenset({3}), frozenset({5, 3}),
                                  frozenset({7}), frozenset({5})])
    assert labels == [1, 2, 1, 1, 0, 2] and groups == [3, 5, 3, 3, 0, 5]
    labels, _ = label_lines([frozenset({5}), frozenset({3}), frozenset({3}), frozenset({3}), frozenset({5})])
    assert labels == [1, 2, 2, 2, 1]         # 3 was labelled first, but line 1 ends in 5
    assert label_lines([frozenset({"EY1"}), frozenset(), frozenset({"EY1"})], group=len) == ([1, 0, 1], [3, 0, 3])
    assert label_lines([]) == ([], [])

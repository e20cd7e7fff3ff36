"""Laid-out training pieces kept on disk (train/layout_cache.py): a second store of the same
pieces is read back equal to the one built, gives the same batches, and a change of the pieces
or the window length lays them out again."""

import numpy as np

from helpers.tiny_model import POEMS
from helpers.tiny_model_en import en_pieces, tiny_vocab

from songwriter.engine.vocab import Vocab
from songwriter.train.dataset import Sampler
from songwriter.train.trainer import _store


def zh_pieces():
    out = []
    for i, poem in enumerate(POEMS):
        lines = [x + m for x, m in zip(poem.replace("。", "，").split("，")[:-1], "，。" * 20)]
        out.append({"id": f"p{i}", "kind": "shi" if i % 2 else "ci", "lines": lines})
    return out


def _same(a, b):
    assert sorted(a.cols) == sorted(b.cols)
    for k in a.cols:
        assert a.cols[k].dtype == b.cols[k].dtype and np.array_equal(a.cols[k], b.cols[k])
    assert np.array_equal(a.offsets, b.offsets) and list(a.kinds) == list(b.kinds)
    assert list(a.mix) == list(b.mix) and list(a.ids) == list(b.ids)


def test_a_store_is_read_back_as_built_and_gives_the_same_batches(tmp_path):
    pieces = zh_pieces()
    vocab = Vocab.build(["".join(p["lines"]) for p in pieces], min_count=1)
    logged = []
    built = _store(pieces, vocab, 64, logged.append, cache_dir=tmp_path)
    assert len(list(tmp_path.glob("layout-*.npz"))) == 1 and not logged
    read = _store(pieces, vocab, 64, logged.append, cache_dir=tmp_path)
    assert logged and "read the laid-out pieces" in logged[0]
    _same(built, read)
    weights = {"shi": 0.5, "ci": 0.5}
    a, b = Sampler(built, weights, 256, seed=3), Sampler(read, weights, 256, seed=3)
    for _ in range(3):
        x, y = a.next(), b.next()
        assert all(np.array_equal(x[k], y[k]) for k in x)
    # other pieces, or another window length: laid out anew (and kept beside)
    _store(pieces[:-1], vocab, 64, cache_dir=tmp_path)
    _store(pieces, vocab, 48, cache_dir=tmp_path)
    assert len(list(tmp_path.glob("layout-*.npz"))) == 2     # the two newest kept


def test_english_store_round_trip(tmp_path):
    pieces, vocab = en_pieces(), tiny_vocab()
    built = _store(pieces, vocab, 96, cache_dir=tmp_path)
    _same(built, _store(pieces, vocab, 96, cache_dir=tmp_path))
    assert built.piece(0)["tok"].tolist() == _store(pieces, vocab, 96, cache_dir=tmp_path).piece(0)["tok"].tolist()

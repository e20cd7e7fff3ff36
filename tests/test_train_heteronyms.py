"""Heteronyms in the training layout (train/dataset.heteronym_tones): a character with a 平 and a
仄 reading gets a tone, so the model learns it may stand on a fixed tone; in a 律句 the tone its
line's pattern gives it."""

import numpy as np

from songwriter.engine import encoding as E
from songwriter.engine.vocab import Vocab
from songwriter.train.dataset import PieceStore


def _tones(kind, lines):
    vocab = Vocab.build(lines, min_count=1)
    store = PieceStore([{"id": "x", "kind": kind, "lines": lines}], vocab)
    p = store.piece(0)
    chars = (p["fmt"] == E.F_CHAR) | (p["fmt"] == E.F_RHYME)
    return "".join(vocab.tokens[t] for t in p["tok"][chars]), p["tone"][chars]


def test_a_heteronym_takes_the_tone_of_its_lines_pattern():
    text, tone = _tones("shi", ["独在异乡为异客，", "每逢佳节倍思亲。"])
    assert E.has_both_tones("乡", "classical") and E.tone_class("乡", "classical") == E.TONE_ANY
    # 独在异乡为异客 fits 仄仄平平平仄仄 only: 乡 (xiāng) and 为 (wéi) on 平
    assert tone[text.index("乡")] == tone[text.index("为")] == E.TONE_PING
    assert E.tone_class("独", "classical") == E.TONE_ZE and tone[text.index("独")] == E.TONE_ZE


def test_every_heteronym_gets_a_tone_and_other_characters_keep_theirs():
    lines = ["看花思故乡，", "长安月下行。"]
    text, tone = _tones("ci", lines)
    for ch, t in zip(text, tone):
        if E.has_both_tones(ch, "classical"):
            assert t in (E.TONE_PING, E.TONE_ZE)
        else:
            assert t == E.tone_class(ch, "classical")
    # the same piece lays out the same tones each time (both training paths read the columns)
    assert np.array_equal(tone, _tones("ci", lines)[1])


def test_the_chinese_layout_in_several_processes_is_the_layout_of_one():
    """A corpus is laid out in spawned processes, chunk by chunk: the same columns, dtypes,
    offsets and lists as one process makes, heteronyms' drawn tones and left-out pieces included."""
    from songwriter.train.dataset import ZH_COLS

    base = [["看花思故乡，", "长安月下行。"], ["独在异乡为异客，", "每逢佳节倍思亲。"], ["，。"],
            ["思君不见下渝州，", "看尽长安花。"], ["我们走在大路上，", "看看远方。"]]
    kinds = ["ci", "shi", "shi", "qu", "modern"]
    pieces = [{"id": f"p{i}", "kind": kinds[i % 5], "lines": base[i % 5],
               **({"mix": "bible"} if i == 8 else {})} for i in range(23)]
    vocab = Vocab.build([line for lines in base for line in lines], min_count=1)
    one = PieceStore(pieces, vocab, max_len=64, workers=1)
    many = PieceStore(pieces, vocab, max_len=64, workers=3)
    assert len(one) == len(many) == 23 - 5          # the pieces with no characters left out
    assert one.offsets.tolist() == many.offsets.tolist()
    assert one.ids == many.ids and one.kinds.tolist() == many.kinds.tolist()
    assert one.mix.tolist() == many.mix.tolist() and "bible" in one.mix.tolist()
    for k, dtype in ZH_COLS.items():
        assert one.cols[k].dtype == many.cols[k].dtype == dtype, k
        assert np.array_equal(one.cols[k], many.cols[k]), k

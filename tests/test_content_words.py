"""A content's words completed by the decoder (engine/content_words.py): which pieces of a content
are words, where a word may start, the bonus for its next character (by strength, within a line,
in its scope), and generation with a steering block writing the words whole; heteronyms allowed
on fixed tones (decode.static_masks) and rows the checks read otherwise set aside."""

import shutil

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from helpers.tiny_model import make_tiny_model  # noqa: E402

from songwriter import checks  # noqa: E402
from songwriter.engine import encoding as E  # noqa: E402
from songwriter.engine.api import GenerationRequest  # noqa: E402
from songwriter.engine.content import line_positions  # noqa: E402
from songwriter.engine.content_words import (  # noqa: E402
    WordCompletion, completion_bonus, words_of,
)
from songwriter.engine.decode import ProsodyTables, static_masks  # noqa: E402
from songwriter.engine.service import Engine, _misread_tone  # noqa: E402
from songwriter.forms import named_form  # noqa: E402
from songwriter.template import parse_notation  # noqa: E402


@pytest.fixture(scope="module")
def base_dir(tmp_path_factory):
    return make_tiny_model(tmp_path_factory.mktemp("model"), steps=15)


@pytest.fixture(scope="module")
def vocab(base_dir):
    return Engine.load(base_dir, backend="torch").vocab


def ids(vocab, text):
    return tuple(vocab.id(c) for c in text)


def test_words_are_short_runs_between_spaces_and_marks(vocab):
    assert words_of("明月 故乡", vocab) == [ids(vocab, "明月"), ids(vocab, "故乡")]
    assert words_of("明月，故乡。明月", vocab) == [ids(vocab, "明月"), ids(vocab, "故乡")]
    assert words_of("月 明月", vocab) == [ids(vocab, "明月")]          # one character is not a word
    assert words_of("明月 𠀋𠀌", vocab) == [ids(vocab, "明月")]         # a run outside the vocabulary
    # a passage (a song's lyrics as its theme): no phrase of it is pushed
    assert words_of("床前明月光，疑是地上霜", vocab) == []


def test_bonus_grows_with_strength_and_vanishes_at_minus_one():
    assert completion_bonus(-1) == completion_bonus(-5) == 0
    assert 0 < completion_bonus(0) < completion_bonus(1) < completion_bonus(2)


def _completion(vocab, template, texts, strengths, scopes=None):
    enc = E.encode_template(template, vocab)
    wc = WordCompletion.of(texts, strengths, scopes or [None] * len(texts), vocab, enc)
    return enc, wc


def test_a_started_word_gets_its_next_character_in_the_same_line_only(vocab):
    t = parse_notation("_____，\n_____。")
    enc, wc = _completion(vocab, t, ["明月"], [2.0])
    slots = np.nonzero((enc.fmt == E.F_CHAR) | (enc.fmt == E.F_RHYME))[0]
    ming, yue = vocab.id("明"), vocab.id("月")
    out = np.zeros((2, len(enc)), dtype=np.int64)
    p = int(slots[2])
    out[0, p - 1] = ming                 # row 0 has just written 明; row 1 has not
    scores = np.zeros((2, len(vocab)))
    wc.add(p, out, scores)
    assert scores[0, yue] == pytest.approx(completion_bonus(2.0))
    assert scores[1, yue] == 0
    # 明 ending line 1 and a mark between: line 2's first character is not its continuation
    first_of_line2 = int(slots[5])
    out[:, :] = 0
    out[:, int(slots[4])] = ming
    scores[:] = 0
    wc.add(first_of_line2, out, scores)
    assert scores[:, yue].max() == 0


def test_no_words_no_completion_and_scope_holds(vocab):
    t = parse_notation("_____，\n_____。")
    assert _completion(vocab, t, ["明月"], [-1.0])[1] is None
    assert _completion(vocab, t, ["床前明月光疑是地上霜"], [3.0])[1] is None
    enc = E.encode_template(t, vocab)
    line_of = line_positions(enc.fmt)
    _, wc = _completion(vocab, t, ["明月"], [2.0], [line_of == 1])     # steers line 2 only
    slots = np.nonzero((enc.fmt == E.F_CHAR) | (enc.fmt == E.F_RHYME))[0]
    out = np.zeros((1, len(enc)), dtype=np.int64)
    out[0, int(slots[1])] = vocab.id("明")
    scores = np.zeros((1, len(vocab)))
    wc.add(int(slots[2]), out, scores)
    assert scores[0, vocab.id("月")] == 0
    out[0, int(slots[6])] = vocab.id("明")
    wc.add(int(slots[7]), out, scores)
    assert scores[0, vocab.id("月")] > 0


def test_starts_only_where_the_whole_word_fits_the_tones_and_before_the_rhyme(vocab, base_dir):
    t = named_form("七绝")
    enc = E.encode_template(t, vocab)
    tables = ProsodyTables(vocab)
    masks = static_masks(enc, tables, t.tone_system)
    _, wc = _completion(vocab, t, ["明月"], [2.0])
    wc.fit(masks)
    ming, yue = vocab.id("明"), vocab.id("月")
    starts = np.nonzero(wc.starts[0])[0]
    assert len(starts)
    for p in starts:
        assert masks[p][ming] and masks[p + 1][yue]
        assert enc.fmt[p + 1] == E.F_CHAR and enc.slot_line[p] == enc.slot_line[p + 1]
    # a row that has just written 明 is not pushed to write it again (明明月)
    p = int(starts[0])
    if wc.run[p]:
        out = np.zeros((2, len(enc)), dtype=np.int64)
        out[0, p - 1] = ming
        scores = np.zeros((2, len(vocab)))
        wc.add(p, out, scores)
        assert scores[0, ming] < 0 < scores[1, ming]


def test_steered_candidates_write_the_words_whole_and_keep_the_form(base_dir, tmp_path):
    from test_cocon import random_block

    from songwriter.engine.cocon import save_block

    d = tmp_path / "m"
    shutil.copytree(base_dir, d)
    save_block(random_block(d), d, dtype=torch.float32)
    engine = Engine.load(d, backend="torch")
    t = parse_notation("_____，\n_____。\n_____，\n_____。")
    plain = engine.generate(GenerationRequest(template=t, n=8, seed=3))
    steered = engine.generate(GenerationRequest(template=t, content=["明月"], strength=5.0, n=8, seed=3))
    whole = sum("明月" in c.text for c in steered)
    assert whole >= 6 > sum("明月" in c.text for c in plain)
    assert all(c.check.ok for c in steered)


def test_heteronyms_may_stand_on_a_fixed_tone(vocab):
    t = named_form("七绝")
    enc = E.encode_template(t, vocab)
    tables = ProsodyTables(vocab)
    masks = static_masks(enc, tables, t.tone_system)
    xiang, tone = vocab.id("乡"), tables.tone(t.tone_system)
    assert tables.either_tone(t.tone_system)[xiang] and tone[xiang] == 0
    fixed = [p for p in masks if enc.tone[p]]
    assert fixed and all(masks[p][xiang] for p in fixed)      # 平 xiāng or 仄 xiàng: either fits
    # a character of one tone still only on its own
    ping = vocab.id("明")
    assert all(masks[p][ping] == (enc.tone[p] == tone[ping]) for p in fixed)


def test_a_row_the_checks_read_on_the_other_tone_is_set_aside():
    from dataclasses import replace

    t = named_form("七绝")
    system = t.effective_rhyme_system()
    text = "去去去去去去去，江枫渔火对愁眠。姑苏城外寒山寺，夜半钟声到客船。"
    report = checks.check(text, t, system)
    wrong = [(ln.index, p.slot) for ln in report.lines for p in ln.problems if p.kind == "tone"]
    assert wrong and _misread_tone(report, t)
    # the same characters locked by the writer: their choice, not the decoder's
    for i, k in wrong:
        t.lines[i].slots[k] = replace(t.lines[i].slots[k], lock=report.lines[i].text[k])
    assert not _misread_tone(checks.check(text, t, system), t)
    assert not _misread_tone(checks.check(text, t, system), replace(t, lang="en", kind="poem"))


def test_rows_set_aside_are_replaced(base_dir, monkeypatch):
    from songwriter.engine import service

    engine = Engine.load(base_dir, backend="torch")
    set_aside = []
    seen = []

    def every_third(report, template):
        # every third text the check sees (the first, the fourth, ...), five at most: a rule that
        # sets rows aside in every run (hash() of a string changes from one process to the next)
        text = "\n".join(line.text for line in report.lines)
        seen.append(text)
        if len(set_aside) < 5 and len(seen) % 3 == 1:
            set_aside.append(text)
            return True
        return False

    monkeypatch.setattr(service, "_misread_tone", every_third)
    cands = engine.generate(GenerationRequest(template=named_form("七绝"), n=8, seed=4))
    assert set_aside and len(cands) == 8
    assert not {c.text for c in cands} & set(set_aside)


def test_a_doubled_word_completes(vocab):
    t = parse_notation("_____，\n_____。")
    enc, wc = _completion(vocab, t, ["依依"], [2.0])
    yi = vocab.id("依")
    assert yi != vocab.unk
    slots = np.nonzero((enc.fmt == E.F_CHAR) | (enc.fmt == E.F_RHYME))[0]
    out = np.zeros((1, len(enc)), dtype=np.int64)
    out[0, int(slots[1])] = yi
    scores = np.zeros((1, len(vocab)))
    wc.add(int(slots[2]), out, scores)
    assert scores[0, yi] == pytest.approx(completion_bonus(2.0))

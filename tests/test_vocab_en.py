"""The English word vocabulary (songwriter/engine/vocab_en.py): tokens, syllables and stress per word,
`<unk>` never generated, the file round trip, and the Chinese vocabulary loading as before."""

import json

import pytest

from songwriter.engine.vocab import Vocab
from songwriter.engine.vocab_en import NEVER_GENERATE, PUNCT_TOKENS, EnglishVocab, load_vocab, tokenize

LINES = [
    "Shall I compare thee to a summer's day?",
    "Thou art more lovely and more temperate:",
    "'Tis the fire of heaven, o'er the well-known sea,",
    "The fire, the fire -- and heaven's flibbertigibbetous glow...",
    "He sigh'd, stirr'd, fir'd with love \u00ba",
]


@pytest.fixture(scope="module")
def vocab():
    return EnglishVocab.build(LINES, min_count=1)


def test_tokenize_words_and_marks():
    assert tokenize("'Tis the o'er-weening, well-known summer's day -- \u201cCome,\u201d she said... (alas)!") == [
        "'tis", "the", "o'er-weening", ",", "well-known", "summer's", "day", "\u2014", '"', "come", ",", '"',
        "she", "said", ".", "(", "alas", ")", "!"]
    assert tokenize("Thy youth\u2019s proud livery") == ["thy", "youth's", "proud", "livery"]


def test_layout(vocab):
    assert vocab.tokens[:6] == ["<pad>", "<unk>", "<bos>", "</s>", "<eos>", "<fill>"]
    assert vocab.tokens[6:vocab.first_word] == list(PUNCT_TOKENS)
    assert vocab.tokens[vocab.first_word] == "the"        # most frequent word first
    assert all(vocab.is_word(vocab.id(w)) for w in ("summer's", "'tis", "o'er", "well-known"))
    assert vocab.id("Fire") == vocab.id("fire") != vocab.unk
    assert vocab.id("zebra") == vocab.unk
    assert "\u00ba" not in vocab.stoi          # a symbol taken for a letter fills no syllable
    assert vocab.punct_id("\u2013") == vocab.punct_id("-") == vocab.id("\u2014")
    assert vocab.encode_line("The zebra!") == [vocab.id("the"), vocab.unk, vocab.id("!")]


def test_unk_and_specials_are_never_generated(vocab):
    assert vocab.unk in vocab.never_generate and not vocab.may_generate(vocab.unk)
    assert {vocab.tokens[i] for i in vocab.never_generate} == set(NEVER_GENERATE)
    assert vocab.may_generate(vocab.id("fire")) and vocab.may_generate(vocab.id(","))


def test_slurs_are_never_generated():
    v = EnglishVocab.build(["the darkies sang, the digger dug", "the digger sang"], min_count=1)
    assert not v.may_generate(v.id("darkies")) and v.may_generate(v.id("digger"))
    assert {v.tokens[i] for i in v.never_generate} == set(NEVER_GENERATE) | {"darkies"}


@pytest.mark.parametrize("word, syllables, stress", [
    ("compare", [2], ["01"]),
    ("temperate", [2, 3], None),     # CMUdict's two readings, in its order
    ("summer's", [2], ["10"]),
    ("'tis", [1], ["1"]),
    ("o'er", [1], ["1"]),
    ("the", [1], None),
    ("sigh'd", [1], ["1"]),          # the stem's own vowel stays when -ed is not sounded
    ("stirr'd", [1], ["1"]),
    ("fir'd", [1], ["1"]),
])
def test_words_carry_syllables_and_stress(vocab, word, syllables, stress):
    i = vocab.id(word)
    assert vocab.syllables(i)[:len(syllables)] == syllables
    assert vocab.prosody[word]["known"]
    assert len(vocab.stress(i)) >= 1 and all(len(s) in vocab.syllables(i) for s in vocab.stress(i))
    if stress is not None:
        assert vocab.stress(i) == stress


def test_unknown_words_get_the_fallback_count(vocab):
    from songwriter.prosody import english

    w = "flibbertigibbetous"
    i = vocab.id(w)
    assert vocab.is_word(i) and not vocab.prosody[w]["known"]
    assert vocab.syllables(i) == english.syllable_counts(w) and vocab.syllables(i)[0] >= 5
    assert vocab.syllables(vocab.id(",")) == [0] and vocab.syllables(vocab.unk) == [0]


def test_min_count_and_max_size():
    v = EnglishVocab.build(LINES, min_count=2)
    assert "fire" in v.stoi and "compare" not in v.stoi
    small = EnglishVocab.build(LINES, min_count=1, max_size=len(v.tokens[:v.first_word]) + 2)
    assert small.tokens[small.first_word:] == ["the", "fire"]


def test_save_load_round_trip(vocab, tmp_path):
    path = tmp_path / "vocab.json"
    vocab.save(path)
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["language"] == "en" and "<unk>" in data["never_generate"]
    assert data["words"]["compare"] == {"syllables": [2], "stress": ["01"], "known": True}
    back = EnglishVocab.load(path)
    assert back.tokens == vocab.tokens and back.sha256 == vocab.sha256 and back.prosody == vocab.prosody
    assert isinstance(load_vocab(path), EnglishVocab)
    data["tokens"][-1] = "changed"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ValueError, match="hash"):
        EnglishVocab.load(path)


def test_the_chinese_vocabulary_loads_as_before(tmp_path):
    zh = Vocab.build(["床前明月光，疑是地上霜。"] * 3)
    path = tmp_path / "vocab.json"
    zh.save(path)
    assert set(json.loads(path.read_text(encoding="utf-8"))) == {"tokens", "sha256"}
    back = load_vocab(path)
    assert type(back) is Vocab and back.tokens == zh.tokens and back.sha256 == zh.sha256
    with pytest.raises(ValueError, match="English"):
        EnglishVocab.load(path)


def test_words_written_with_a_capital_inside_lines(tmp_path):
    v = EnglishVocab.build(["O God of love, our God is near", "Praise God from whom all blessings flow",
                            "To England and to god", "The may of England", "In May the sun"], min_count=1)
    assert "god" in v.capitalized and "england" in v.capitalized
    assert "love" not in v.capitalized and "the" not in v.capitalized
    v.save(tmp_path / "v.json")
    assert EnglishVocab.load(tmp_path / "v.json").capitalized == v.capitalized
    from songwriter.engine.decode_en import render

    assert render("god", False, v.capitalized) == "God" and render("love", True) == "Love"
    assert render("i'll", False) == "I'll" and render("'tis", True) == "'Tis"

"""Word pairs no writer of English writes (engine/grammar_en): the English decoder keeps away
from them while another word fits, even where the model ranks them first ("the and", "an
profound", "a our" were read in its sonnets); a locked word is still written as given."""

import numpy as np
import pytest
from helpers.standin_en import vocab_and_tables, write

from songwriter.engine.grammar_en import first_sound_is_vowel, followers_barred

WORDS = "the a an and of i are am is sky hour eagle profound love night one unicorn"


@pytest.fixture()
def setup(tmp_path, monkeypatch):
    return vocab_and_tables(WORDS, tmp_path, monkeypatch)


def words_of(vocab, tables, text, prefer) -> list[str]:
    return " ".join(write(vocab, tables, text, prefer)).lower().replace(",", " ").replace(".", " ").split()


def pairs(words) -> set[tuple[str, str]]:
    return set(zip(words, words[1:]))


def test_the_first_sound_decides_a_or_an():
    assert first_sound_is_vowel("hour") and first_sound_is_vowel("eagle")
    assert first_sound_is_vowel("one") is False and first_sound_is_vowel("unicorn") is False
    forms = ["", "a", "an", "an'", "hour", "one", "profound", "and", "the", "i", "is", "sky", "will", "might", "a'",
             "that"]
    barred = followers_barred(forms)
    after = {w: {forms[i] for i in np.flatnonzero(barred[forms.index(w)])} for w in ("a", "the", "i")}
    assert {"hour", "and", "the"} <= after["a"] and not {"one", "profound", "sky"} & after["a"]
    assert 3 not in barred and 14 not in barred      # Scots an' (and), a' (all: "for a' that")
    assert {"one", "profound", "sky", "and"} <= {forms[i] for i in np.flatnonzero(barred[2])}
    assert "hour" not in {forms[i] for i in np.flatnonzero(barred[2])}
    assert {"and", "the", "a"} <= after["the"] and not {"sky", "will", "might"} & after["the"]   # thy will
    assert after["i"] == {"is"} and 11 not in barred           # "sky" has no rule


def test_the_decoder_writes_no_article_before_a_function_word(setup):
    vocab, tables = setup
    got = words_of(vocab, tables, "_ _ _ _ _ _", {"the": -0.1, "and": -0.2, "of": -0.3, "sky": -3.0, "night": -3.5})
    assert "the" in got and not pairs(got) & {("the", "and"), ("the", "of")}


def test_a_and_an_by_the_next_words_sound_and_agreement(setup):
    vocab, tables = setup
    got = words_of(vocab, tables, "_ _ _ _ _ _", {"an": -0.1, "profound": -0.2, "one": -0.3, "hour": -2.0, "sky": -3.0})
    assert "an" in got and not pairs(got) & {("an", "profound"), ("an", "one"), ("an", "sky")}
    got = words_of(vocab, tables, "_ _ _ _ _ _", {"a": -0.1, "eagle": -0.2, "hour": -0.3, "sky": -3.0})
    assert "a" in got and not pairs(got) & {("a", "eagle"), ("a", "hour")}
    got = words_of(vocab, tables, "_ _ _ _ _ _", {"i": -0.1, "is": -0.2, "am": -2.0, "love": -3.0})
    assert "i" in got and ("i", "is") not in pairs(got)


def test_a_locked_word_is_written_as_given(setup):
    vocab, tables = setup
    got = words_of(vocab, tables, "the and _ _ _ _", {"of": -0.1, "sky": -3.0})
    assert got[:2] == ["the", "and"]

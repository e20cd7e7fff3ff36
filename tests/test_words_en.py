"""Rhymes and Words for English without a model: from CMUdict and the shipped word list."""

from songwriter.engine.words_en import english_words, rhymes_for, word_list
from songwriter.forms import named_form
from songwriter.prosody import english
from songwriter.template import parse_notation


def test_the_word_list_ships():
    words = word_list()
    assert len(words) > 10000 and words[0] == "the"


def test_rhymes_perfect_first_then_slant_filtered_by_syllables_and_stress():
    got = rhymes_for("day", system="slant", limit=400)
    kinds = [c.rhyme for c in got]
    assert kinds == sorted(kinds, key=lambda k: k != "perfect")       # perfect ones first
    assert {"way", "may", "stay"} <= {c.word for c in got if c.rhyme == "perfect"}
    assert any(c.rhyme == "slant" for c in got)
    assert all(english.rhymes("day", c.word, "perfect") for c in got if c.rhyme == "perfect")
    two = rhymes_for("night", system="perfect", syllables=2, stress="x/")
    assert two and all(c.syllables <= 2 for c in two)
    assert "delight" in {c.word for c in two}
    # a word stressed on its first syllable does not fit x/: ENding, SENDing
    assert not {"ending", "sending"} & {c.word for c in rhymes_for("bending", "perfect", 2, "x/", 400)}
    assert {"ending", "sending"} <= {c.word for c in rhymes_for("bending", "perfect", 2, "/x", 400)}
    # multi-syllable rhymes: the rhyme runs from the last stressed vowel to the end
    assert {"sending", "ending"} <= {c.word for c in rhymes_for("bending", system="perfect", limit=200)}


def test_words_for_a_slot_fit_the_room_and_rhyme_at_the_line_end():
    t = named_form("Shakespearean sonnet")
    text = "Shall I compare thee to a summer's day?\nThou art more lovely and more temperate:\n"
    # line 3 (index 2) rhymes with line 1 (day); from syllable 8 three syllables are left
    words = english_words(t, text, 2, 7, k=200)
    assert words and all(c.syllables <= 3 for c in words)
    enders = [c for c in words if c.syllables == 3]
    assert enders and all(c.rhyme in ("perfect", "slant") for c in enders)
    assert enders[0].rhyme == "perfect" and english.rhymes(enders[0].word, "day", "perfect")
    # mid-line: any word that fits, commonest first
    first = english_words(t, text, 2, 0, k=5)
    assert [c.word for c in first][:3] == ["the", "and", "of"]


def test_a_locked_word_or_a_mark_ends_the_stretch():
    t = parse_notation("# lang: en\n_ _, _ _ _ love _ _ @A\n_ _ _ _ _ _ _ _ dove @A\n")
    assert all(c.syllables <= 2 for c in english_words(t, "", 0, 0, k=100))
    assert all(c.syllables <= 3 for c in english_words(t, "", 0, 2, k=100))
    # the last two syllables of line 1 end a line rhymed with dove
    end = [c for c in english_words(t, "", 0, 6, k=300) if c.syllables == 2]
    assert end and all(c.rhyme for c in end)

"""Rhymes and Words for English without a model: from CMUdict and the shipped word list."""

import pytest

from songwriter.engine.words_en import FUNCTION_WORDS, UNSTRESSED_WORDS, english_words, is_junk, rhymes_for, word_list
from songwriter.forms import named_form
from songwriter.prosody import english
from songwriter.template import parse_notation


def test_the_word_list_ships():
    words = word_list()
    assert len(words) > 10000 and words[0] == "the"


def test_rhymes_perfect_first_then_slant_filtered_by_syllables_and_stress():
    got = rhymes_for("day", system="slant", limit=400)
    # perfect ones first; a perfect rhyme after a slant one is a weak one (an unstressed
    # function word, a token that is no word, an identical rhyme such as today)
    first_slant = next(i for i, c in enumerate(got) if c.rhyme == "slant")
    assert first_slant >= 20 and all(c.rhyme == "perfect" for c in got[:first_slant])
    late = {c.word for c in got[first_slant:] if c.rhyme == "perfect"}
    assert "today" in late or "today" not in {c.word for c in got}
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
    # mid-line: any word that fits, content words first (commonest first), the function words
    # after them
    first = english_words(t, text, 2, 0, k=5)
    assert len(first) == 5 and not {c.word for c in first} & FUNCTION_WORDS
    assert [c.score for c in first] == sorted((c.score for c in first), reverse=True)
    every = [c.word for c in english_words(t, text, 2, 0, k=100_000)]
    assert "the" in every and every.index("the") > every.index("love")


def test_a_locked_word_or_a_mark_ends_the_stretch():
    t = parse_notation("# lang: en\n_ _, _ _ _ love _ _ @A\n_ _ _ _ _ _ _ _ dove @A\n")
    assert all(c.syllables <= 2 for c in english_words(t, "", 0, 0, k=100))
    assert all(c.syllables <= 3 for c in english_words(t, "", 0, 2, k=100))
    # the last two syllables of line 1 end a line rhymed with dove
    end = [c for c in english_words(t, "", 0, 6, k=300) if c.syllables == 2]
    assert end and all(c.rhyme for c in end)


def _weak_rhyme(word: str) -> bool:
    return word in UNSTRESSED_WORDS or is_junk(word)


def _rhyme_slot(word: str, room: int = 1):
    """The words for the last ``room`` syllables of a line rhymed with a line ending on ``word``."""
    t = parse_notation("# lang: en\n_ _ _ _ _ _ _ _ @A\n_ _ _ _ _ _ _ _ @A\n")
    return english_words(t, f"the sun went down upon the {word}\n", 1, 8 - room, k=60)


def test_day_gets_its_rhymes_first_never_itself_nor_a_nor_de():
    """The words list for "day" used to start a, de, day: "a" and "de" rhyme with it only by a
    reading CMUdict also gives them (the letter's name, the French particle)."""
    for got in (_rhyme_slot("day"), rhymes_for("day", limit=60)):
        words = [c.word for c in got]
        assert "day" not in words
        top = words[:10]
        assert {"say", "way", "play"} <= set(top), top
        assert all(english.rhymes(w, "day", "perfect") for w in top)
        assert not {"a", "de", "they"} & set(words[:30])


@pytest.mark.parametrize("word, expected", [
    ("love", {"dove", "glove"}), ("heart", {"part", "start"}), ("night", {"light", "bright"}),
    ("fire", {"lyre", "wire"}),
])
def test_rhymes_come_first_content_words_before_weak_ones(word, expected):
    got = _rhyme_slot(word)
    words = [c.word for c in got]
    assert word not in words
    assert expected <= set(words[:8]), words[:8]
    rhymes = [c for c in got if c.rhyme]
    assert rhymes and all(english.rhymes(c.word, word, system=c.rhyme) for c in rhymes[:5])
    # rhymes first (perfect before slant) then the rest; no unstressed function word or junk
    # token before a real word
    assert [bool(c.rhyme) for c in got] == sorted((bool(c.rhyme) for c in got), reverse=True)
    weak = [_weak_rhyme(c.word) for c in rhymes]
    assert weak == sorted(weak)


def test_two_syllables_left_before_a_rhyme():
    """With two syllables left at the end of a line rhymed with "night": the two-syllable rhymes
    (delight), then the one-syllable words that leave room for one, content words first."""
    got = _rhyme_slot("night", room=2)
    enders = [c for c in got if c.rhyme]
    assert enders and all(c.syllables == 2 for c in enders)
    assert "delight" in [c.word for c in enders[:5]]
    fillers = [c for c in got if not c.rhyme]
    assert all(c.syllables == 1 for c in fillers)
    assert not {c.word for c in fillers[:10]} & FUNCTION_WORDS


def test_identical_rhymes_and_old_spellings_give_way():
    """day / today and night / midnight are the same sound twice: they come after the real
    rhymes; to-day gives way to today."""
    got = [c.word for c in rhymes_for("day", system="perfect", limit=400)]
    assert got.index("today") > got.index("stay")
    assert "to-day" not in got
    night = [c.word for c in rhymes_for("night", system="perfect", limit=400)]
    assert night.index("midnight") > night.index("bright")
    assert "to-night" not in night


def test_a_rhyme_that_fills_the_syllables_left_comes_first():
    got = rhymes_for("day", system="perfect", syllables=2, limit=200)
    assert got[0].syllables == 2 and "away" in [c.word for c in got[:5]]
    assert any(c.syllables == 1 for c in got) and all(c.syllables <= 2 for c in got)


def test_the_unstressed_words_are_function_words():
    assert UNSTRESSED_WORDS <= FUNCTION_WORDS
    assert {"above", "here", "now"} <= FUNCTION_WORDS - UNSTRESSED_WORDS     # they rhyme for real
    # one home for the lists: the metre's free two-syllable prepositions are function words too
    from songwriter.prosody import english

    assert english.FUNCTION_WORDS is FUNCTION_WORDS and english._LIGHT_FUNCTION_WORDS <= FUNCTION_WORDS


def test_junk_tokens():
    assert is_junk("de") and is_junk("xiv") and is_junk("st") and is_junk("q")
    assert is_junk("gwine") and is_junk("i'se") and not is_junk("going")
    assert is_junk("monie") and is_junk("cauld") and not is_junk("bonny") and not is_junk("mickle")
    assert not is_junk("a") and not is_junk("day") and not is_junk("rhythm")


def test_slurs_are_never_offered():
    words = [c.word for c in rhymes_for("trigger", limit=500)]
    assert "digger" in words and not set(words) & english.SLURS
    assert "niggers" in word_list()      # the old books print it; the list keeps it, unoffered


def test_nearer_slant_rhymes_come_first():
    slant = [c.word for c in rhymes_for("trigger", limit=60) if c.rhyme == "slant"]
    # the vowel and the -er ending shared before the vowel alone ("this") or the last sound ("there")
    assert {"river", "sister", "finger"} <= set(slant[:12])
    assert all(w not in slant[:12] for w in ("this", "there", "when"))
    slant = [c.word for c in rhymes_for("heaven", limit=60) if c.rhyme == "slant"]
    assert "given" in slant[:10] and "when" not in slant[:10]      # two syllables, as heaven's rhyme


def test_old_spellings_are_no_dictionary_words():
    from songwriter.engine.words_en import is_old_spelling

    assert {w for w in ("growes", "selfe", "loue", "vpon", "sunne", "feare", "knowne") if is_old_spelling(w)} == {
        "growes", "selfe", "loue", "vpon", "sunne", "feare", "knowne"}
    # words of their own: the dictionary lists them, or the e is no added one
    assert not [w for w in ("grows", "owe", "axe", "clime", "smite", "copse", "prate", "lasses", "scorning",
                            "gladness", "wreathes", "hies", "opes") if is_old_spelling(w)]


def test_a_rhyme_for_rose_lists_no_old_spelling():
    t = parse_notation("# lang: en\n_ _ _ _ _ _ _ _ _ _, @A\n_ _ _ _ _ _ _ _ _ _. @A\n")
    text = "From fairest creatures we desire the rose,\n"
    words = [c.word for c in english_words(t, text, 1, 9, k=20000)]
    assert "grows" in words and "growes" not in words and "knowes" not in words


def test_i_and_its_contractions_are_written_with_a_capital():
    t = parse_notation("# lang: en\n_ _ _ _ _ _ _ _ _ _.\n")
    words = {c.word for c in english_words(t, "", 0, 3, k=20000)}
    assert {"I'll", "I'm", "I"} <= words and not {"i'll", "i'm", "i"} & words

"""English prosody: behaviour on real words and lines (CMUdict via `pronouncing`)."""
import pytest

from songwriter.prosody import english as en

SONNET_18 = [
    "Shall I compare thee to a summer's day?",
    "Thou art more lovely and more temperate:",
    "Rough winds do shake the darling buds of May,",
    "And summer's lease hath all too short a date;",
    "Sometime too hot the eye of heaven shines,",
    "But thy eternal summer shall not fade,",
    "So long as men can breathe or eyes can see,",
    "So long lives this, and this gives life to thee.",
]
IAMBIC_PENTAMETER = "x/x/x/x/x/"


# ---- words ------------------------------------------------------------------------------------

def test_words_keeps_case_inner_apostrophes_and_hyphens():
    assert en.words("Shall I compare thee to a summer\u2019s day?") == [
        "Shall", "I", "compare", "thee", "to", "a", "summer's", "day"]
    assert en.words("O'er the well-known hills -- and far—away!") == [
        "O'er", "the", "well-known", "hills", "and", "far", "away"]


def test_words_elisions_and_quotes():
    assert en.words("'Tis the season") == ["'Tis", "the", "season"]
    assert en.words("'Hello,' she said") == ["Hello", "she", "said"]
    assert en.words("singin' in the rain") == ["singin'", "in", "the", "rain"]
    assert en.words("the singers' voices") == ["the", "singers", "voices"]
    assert en.words("") == []
    assert en.words("... !!! --") == []


# ---- dictionary and syllables -----------------------------------------------------------------

def test_in_dictionary():
    assert en.in_dictionary("Day")
    assert en.in_dictionary("summer\u2019s")
    assert en.in_dictionary("o'er")          # poetic elision table
    assert en.in_dictionary("heav'n")        # derived from "heaven"
    assert not en.in_dictionary("blorptastic")
    assert not en.in_dictionary("")


@pytest.mark.parametrize("word, expected", [
    ("compare", [2]),
    ("day", [1]),
    ("darling", [2]),
    ("Summer's", [2]),
])
def test_syllable_counts_single(word, expected):
    assert en.syllable_counts(word) == expected


def test_syllable_counts_multiple_pronunciations():
    assert set(en.syllable_counts("fire")) == {1, 2}
    assert set(en.syllable_counts("every")) == {2, 3}
    assert set(en.syllable_counts("temperate")) == {2, 3}   # TEMP-rate, TEM-per-ate
    # distinct, and the first is the first CMUdict pronunciation's count
    counts = en.syllable_counts("every")
    assert len(counts) == len(set(counts))
    assert counts[0] == 3


def test_poetic_forms():
    assert en.syllable_counts("heav'n") == [1]
    assert en.syllable_counts("ev'ry") == [2]
    assert en.syllable_counts("pow'r") == [1]
    assert en.syllable_counts("o'er") == [1]
    assert en.syllable_counts("lov'd") == [1]
    assert en.syllable_counts("belov\u00e8d") == [3]
    assert en.syllable_counts("singin'") == [2]


def test_british_spellings_and_typed_apostrophes():
    # CMUdict is American: -our is read as -or (Saviour is two syllables, as a hymn sings it)
    assert en.pronunciations("Saviour") == en.pronunciations("savior")
    assert en.syllable_counts("Saviour\u2019s") == [2] and en.in_dictionary("honoured")
    assert en.syllable_counts("hour") == [2, 1]            # a dictionary word is left alone
    assert en.stress_patterns("offence") == ["01"] and en.pronunciations("fence") == ["F EH1 N S"]
    # a grave accent typed for an apostrophe (show`rs, bid`st) is one
    assert en.syllable_counts("show`rs") == [1] and en.words("ev`ry one") == ["ev'ry", "one"]


def test_unknown_word_fallback_counter():
    assert en.syllable_counts("blorptastic") == [3]
    assert en.syllable_counts("blorp") == [1]
    assert en.stress_patterns("blorptastic") == ["010"]


@pytest.mark.parametrize("word, n", [
    ("zable", 2), ("zables", 2), ("zakes", 1), ("zoxes", 2), ("zoved", 1), ("zvanted", 2),
    ("zorbation", 3), ("zunique", 2), ("zidea", 3), ("zrism", 2), ("zlonely", 2), ("brrr", 1),
])
def test_fallback_rules(word, n):
    assert not en.in_dictionary(word)
    assert en.syllable_counts(word) == [n]


def test_fallback_never_zero_for_letters():
    for w in ["xyzzy", "brr", "tsktsk", "q", "grlmph"]:
        assert en.syllable_counts(w)[0] >= 1
    assert en.syllable_counts("") == [0]


def test_compounds_and_numbers():
    assert en.syllable_counts("well-known") == [2]
    assert en.syllable_counts("silver-tongued") == [3]
    assert en.syllable_counts("blorp-day") == [2]
    assert en.syllable_counts("1984")[0] == 5        # nineteen eighty-four
    assert en.syllable_counts("42") == [3]
    assert en.syllable_counts("loveliness") == [3]   # lovely + ness


# ---- stress ----------------------------------------------------------------------------------

def test_stress_patterns():
    assert en.stress_patterns("compare") == ["01"]
    assert en.stress_patterns("darling") == ["10"]
    assert "100" in en.stress_patterns("temperate")
    assert all(len(p) == 1 for p in en.stress_patterns("the"))
    for w in ["every", "fire", "present"]:
        pats = en.stress_patterns(w)
        assert {len(p) for p in pats} == set(en.syllable_counts(w))
        assert all(set(p) <= set("012") for p in pats)
    assert set(en.stress_patterns("present")) >= {"10", "01"}


# ---- rhyme -----------------------------------------------------------------------------------

def test_resolve_rhyme_system():
    assert en.resolve_rhyme_system("perfect") == "perfect"
    assert en.resolve_rhyme_system("Slant Rhyme") == "slant"
    assert en.resolve_rhyme_system("near") == "slant"
    assert en.resolve_rhyme_system("half-rhyme") == "slant"
    with pytest.raises(ValueError) as exc:
        en.resolve_rhyme_system("pingshui")
    assert "perfect" in str(exc.value) and "slant" in str(exc.value)


def test_rhyme_keys():
    assert en.rhyme_keys("day") == frozenset({"EY"})
    assert en.rhyme_keys("compare") == frozenset({"EH R"})
    # slant: the stressed vowel, the final consonants (half rhyme) and the spelt rime (eye rhyme)
    assert en.rhyme_keys("time", "slant") == frozenset({"AY", "C:M", "~ime"})
    assert en.rhyme_keys("bending", syllables=2) == frozenset({"EH N D IH NG"})
    assert en.rhyme_keys("bending", "slant", syllables=2) == frozenset({"EH IH"})
    assert en.rhyme_keys("day", syllables=2) == frozenset()
    assert en.rhyme_keys("wind") == frozenset({"AY N D", "IH N D"})
    with pytest.raises(ValueError):
        en.rhyme_keys("day", "bogus")


@pytest.mark.parametrize("a, b, perfect, slant", [
    ("day", "may", True, True),
    ("eyes", "lies", True, True),
    ("love", "above", True, True),
    ("time", "mine", False, True),
    ("love", "move", False, True),      # an eye rhyme, a rhyme to Shakespeare
    ("day", "night", False, False),
    ("memory", "die", False, True),     # final -y was /əi/
    ("ornament", "content", False, True),
    ("temperate", "date", False, True),
    ("compare", "air", True, True),
    ("Day", "MAY", True, True),
])
def test_rhymes(a, b, perfect, slant):
    assert en.rhymes(a, b) is perfect
    assert en.rhymes(a, b, "slant") is slant
    assert en.rhymes(b, a) is perfect


def test_identical_word_is_not_a_rhyme():
    assert not en.rhymes("day", "day")
    assert not en.rhymes("Day", "day", "slant")
    assert not en.rhymes("summer's", "summer\u2019s")


def test_feminine_rhyme():
    assert en.rhymes("bending", "ending", syllables=2)
    assert "EH N D IH NG" in en.rhyme_keys("bending", syllables=2)
    assert en.rhyme_keys("bending", syllables=2) & en.rhyme_keys("ending", syllables=2)
    assert not en.rhymes("bending", "sing", syllables=2)


def test_any_pronunciation_rhymes():
    assert en.rhymes("wind", "kind")   # W AY N D
    assert en.rhymes("wind", "sinned")  # W IH N D


def test_unknown_word_rhyme_fallback():
    # borrowed from a dictionary word with the same spelt ending ("fantastic")
    assert en.rhymes("blorptastic", "fantastic")
    assert en.rhymes("zorbation", "nation")
    # no usable analogue: a spelling key marked "~"
    keys = en.rhyme_keys("glorbious")
    assert keys and all(k.startswith("~") for k in keys)
    assert en.rhymes("glorbious", "snorbious")


# ---- lines and metre -------------------------------------------------------------------------

def test_line_syllables_sonnet_18():
    for line in SONNET_18:
        assert 10 in en.line_syllables(line), line
    assert en.line_syllables(SONNET_18[0]) == [10]
    assert en.line_syllables(SONNET_18[1]) == [9, 10]   # temperate: 2 or 3
    assert en.line_syllables("") == [0]


def test_line_stress():
    options = en.line_stress(SONNET_18[0])
    assert options and all(len(s) == 10 for s in options)
    assert options[0][2:4] == "01"            # com-PARE
    assert len(en.line_stress("the the the the the the the the", limit=5)) <= 5
    assert en.line_stress("") == [""]


@pytest.mark.parametrize("line", SONNET_18)
def test_sonnet_18_is_iambic_pentameter(line):
    assert en.fits_meter(line, IAMBIC_PENTAMETER)


def test_fits_meter_rejects():
    line = "Rough winds do shake the darling buds of May"
    assert en.fits_meter(line, IAMBIC_PENTAMETER)
    assert en.fits_meter(line, "x/ x/ x/ x/ x/")          # spaces ignored
    assert not en.fits_meter(line, "/x/x/x/x/x")            # DAR-ling on x
    assert not en.fits_meter(line, "x/x/x/x/x")             # wrong length
    assert not en.fits_meter("Compare the darling", "/xxx/x")  # com-PARE needs x/
    assert en.fits_meter("Compare the darling", "x/_/x")
    assert en.fits_meter("Compare the darling", "_____")
    with pytest.raises(ValueError):
        en.fits_meter(line, "abc")


def test_scan_words_takes_the_metre_the_stressed_words_fall_in():
    line = "We know not the time when He cometh"       # iambs fit too: monosyllables take any beat
    assert en.fits_meter(line, "x/x/x/x/x")
    assert en.scan_words(en.words(line)) == ([1, 1, 1, 1, 1, 1, 1, 2], "x/xx/xx/x")
    assert en.line_metre(line, 9) == "x/xx/xx/x"
    assert en.scan_words(en.words(SONNET_18[0]))[1] == IAMBIC_PENTAMETER.replace(" ", "")


def test_scan_words_reads_other_syllables_only_where_they_scan_clearly_better():
    # "our" and "every" in fewer syllables, as sung
    assert en.scan_words(en.words("O God, our help in ages past")) == ([1, 1, 1, 1, 1, 2, 1], "x/x/x/x/")
    assert en.scan_words(en.words("I need thee every hour, most gracious Lord"))[0] == [1, 1, 1, 2, 1, 1, 2, 1]
    # "victory" in three: two would scan only a little better
    assert sum(en.scan_words(en.words("On then, Christian soldiers, on to victory"))[0]) == 11
    # no metre: the usual syllables, and None
    words = en.words("Holy Spirit, faithful Guide, ever near the Christian's side")
    assert en.scan_words(words) == ([2, 2, 2, 1, 2, 1, 1, 2, 1], None)
    assert en.line_metre("Rough winds", 2) is None                # too short to have a metre


def test_scan_words_sets_a_stressed_line_end_on_the_last_beat():
    """A monosyllable ending the line (its rhyme) takes the last beat, so seven monosyllables
    read as headless trochees, never as iambs with the rhyme unstressed and "the" on a beat."""
    assert en.scan_words(en.words("I will wait here by the shore")) == ([1] * 7, "/x/x/x/")
    assert en.scan_words(en.words("Till she comes to me once more"))[1] == "/x/x/x/"   # "more" too
    assert en.scan_words(en.words("I will sing for her sweet sake"))[1] == "/x/x/x/"
    # an unstressed word ending the line still takes either beat (iambs, "me" on the last)
    assert en.scan_words(en.words("That saved a wretch like me"))[1] == "x/x/x/"
    # no metre of the line's length sets "Rock" on a beat: none, rather than the rhyme unstressed
    assert en.scan_words(en.words("Firmly stand on the Rock")) == ([2, 1, 1, 1, 1], None)


def test_scan_words_keeps_articles_off_the_beat_where_metres_weigh_alike():
    # trochees set "The" on the first beat and anapests off it; the other words weigh alike
    line = "The loved of earth who have long been parted"
    assert en.scan_words(en.words(line)) == ([1] * 8 + [2], "xx/xx/xx/x")


def test_fits_meter_uses_any_pronunciation():
    # "fire" as one or two syllables; "every" as two or three
    assert en.fits_meter("the fire", "x/")
    assert en.fits_meter("the fire", "x/x")
    assert en.fits_meter("every day", "/x/")
    assert en.fits_meter("every day", "/xx/")


def test_compound_with_two_primaries():
    assert en.fits_meter("a well-known man", "x/x/")
    assert en.fits_meter("a well-known man", "xx//")


# ---- verse readings ---------------------------------------------------------------------------

def test_synaloepha_runs_a_final_vowel_into_the_next_words():
    # many a: two syllables in verse (Full many a glorious morning, with many a conflict)
    assert en.fits_meter("Full many a glorious morning have I seen", IAMBIC_PENTAMETER, verse=True)
    assert 8 in en.line_syllables("with many a conflict, many a doubt", verse=True)
    assert 10 in en.line_syllables("with many a conflict, many a doubt", verse=True)
    # only before a vowel sound, and never outside verse
    assert en.line_syllables("many men", verse=True) == [3]
    assert en.line_syllables("many a man") == [4]
    # 'the' is elided before a vowel sound, not before a vowel letter sounded as a consonant
    assert en.line_syllables("the honest", verse=True)[0] == 1     # th' hon'st
    assert en.line_syllables("the one", verse=True) == [2]


def test_metre_variants_invert_a_foot_or_the_first_and_one_apart():
    variants = en.metre_variants("x/x/x/x/")
    assert "/xx/x/x/" in variants and "x/x//xx/" in variants     # one foot, not the last
    assert "/xx//xx/" in variants                                # the first and the third
    assert "/x/xx/x/" not in variants                            # never two side by side
    assert not any(v.endswith("/x") for v in variants)           # nor the last foot
    line = "Jesus, my Lord, mighty to save,"
    assert not en.fits_meter(line, "x/x/x/x/", verse=True)
    assert any(en.fits_meter(line, v, verse=True) for v in variants)


def test_a_preposition_of_two_syllables_is_as_free_as_a_monosyllable_in_verse():
    line = "More about Jesus I would know,"                        # MORE a-bout JE-sus
    assert en.fits_meter(line, "/xx/x/x/", verse=True)
    assert not en.fits_meter(line, "/xx/x/x/")                     # outside verse a-BOUT holds
    assert not en.fits_meter("More abating Jesus I would know", "/xx/x/x/", verse=True)


def test_diaeresis_sounds_a_spelt_vowel_the_modern_word_glides_over():
    # Sonnet 135: spa-ci-ous and gra-ci-ous, four syllables' worth in a pentameter
    assert en.fits_meter("Wilt thou, whose will is large and spacious,", IAMBIC_PENTAMETER, verse=True)
    assert "100" in en.verse_stress_patterns("transient") and "100" in en.verse_stress_patterns("Saviour")
    assert en.verse_stress_patterns("value") == ["10"]             # no spelt vowel to sound
    assert en.syllable_counts("nation") == [2]                     # the writer's count is unchanged


def test_printers_ugh_abbreviations():
    assert en.pronunciations("tho't") == en.pronunciations("thought")
    assert en.rhymes("tho't", "fraught")


def test_elided_ed_keeps_the_er_of_its_stem_and_verse_may_sound_ed():
    # tatter'd is TAT-ter'd, remember'd re-MEM-ber'd: the apostrophe takes the -ed's vowel only
    assert en.syllable_counts("tatter'd") == [2] and en.syllable_counts("remember'd") == [3]
    assert en.syllable_counts("fir'd") == [1] and en.syllable_counts("stirr'd") == [1]
    # a sounded -ed after -er and -y (rememberèd, burièd) and on a word CMUdict lacks (bewailèd)
    assert "100" in en.verse_stress_patterns("buried")
    assert en.fits_meter("And all those friends which I thought buried.", IAMBIC_PENTAMETER, verse=True)
    assert 10 in en.line_syllables("Lest my bewailed guilt should do thee shame,", verse=True)
    assert en.verse_stress_patterns("agreed") == ["01"]               # no -ed to sound


def test_an_unknown_prefixed_word_keeps_the_stress_of_the_word_it_joins():
    assert en.stress_patterns("uprear") == ["01", "12"]            # up-REAR (or UP-land's way)
    assert en.stress_patterns("enchain") == ["01"] and not en.in_dictionary("enchain")
    assert en.rhymes("uprear", "here", "slant")                    # Sonnet 49
    assert en.fits_meter("And this my hand against myself uprear,", IAMBIC_PENTAMETER, verse=True)
    assert "12" in en.stress_patterns("inmost")                    # IN-most: a particle may lead


def test_beauteous_is_beauty_and_ous_and_verse_may_run_it_into_two():
    assert en.stress_patterns("bounteous") == ["100"] and not en.in_dictionary("bounteous")
    assert "10" in en.verse_stress_patterns("beauteous")           # BEAU-teous (synaeresis)
    assert en.fits_meter("Which bounteous gift thou shouldst in bounty cherish:",
                         IAMBIC_PENTAMETER + "x", verse=True)


def test_sung_stress_patterns_weigh_syllables_against_beats():
    from songwriter.prosody.english import UNSTRESSED_WORDS, sung_stress_patterns

    assert sung_stress_patterns("amazing") == ["010"]
    assert sung_stress_patterns("love") == ["1"]                    # a monosyllable with meaning
    assert sung_stress_patterns("the") == ["0"] and "the" in UNSTRESSED_WORDS
    assert sung_stress_patterns("now") == ["_"]                     # a function word that takes stress
    assert sung_stress_patterns("about") == ["__"]                  # a light preposition: either
    assert sung_stress_patterns("moonlight") == ["1_"]              # a secondary stress: either


def test_open_syllables():
    from songwriter.prosody.english import open_syllables

    assert open_syllables("go") == ["o"] and open_syllables("night") == ["c"]
    assert open_syllables("window") == ["co"] and open_syllables("mother") == ["oo"]
    assert open_syllables("hair") == ["o"] and open_syllables("morning") == ["oc"]   # r colours the vowel
    assert open_syllables("xqzt") == []                                             # a guess: not judged


@pytest.mark.parametrize("word, phones", [
    ("scorning", "S K AO1 R N IH0 NG"),        # scorn + ing
    ("slumbers", "S L AH1 M B ER0 Z"),         # slumber + s (voiced)
    ("tempests", "T EH1 M P AH0 S T S"),       # tempest + s (voiceless)
    ("thrones", "TH R OW1 N Z"),               # throne + s, not thron + es
    ("wretches", "R EH1 CH IH0 Z"),            # wretch + es after a sibilant
    ("quenched", "K W EH1 N CH T"),            # quench + ed (voiceless: t)
    ("wakened", "W EY1 K AH0 N D"),            # waken + ed (voiced: d)
    ("paler", "P EY1 L ER0"),                  # pale + r: the silent e's stem before "pal"
    ("loveliest", "L AH1 V L IY0 AH0 S T"),    # lovely + est, y to i
    ("running", "R AH1 N IH0 NG"),             # run + n + ing
])
def test_regular_inflections_of_dictionary_words_keep_the_stems_stress(word, phones):
    assert phones in en.pronunciations(word) and en.in_dictionary(word)


def test_an_inflection_rhymes_as_its_stem_does():
    assert en.rhymes("morning", "scorning") and en.rhymes("slumbers", "numbers")
    assert not en.pronunciations("sed") and not en.pronunciations("jes")     # "s", "je": no stems
    assert not en.pronunciations("zvanted")


@pytest.mark.parametrize("system", ["perfect", "slant"])
def test_an_elided_ed_rhymes_as_the_ed_spelling(system):
    """untrimm'd is no dictionary word (nor is untrimmed: un + trimmed): its rhyme read the
    apostrophe away ("~immd"), so dimm'd / untrimm'd failed perfect rhyme while dimmed / untrimmed
    passed. The -'d is read as the -ed the syllable counter reads, the e not sounded."""
    assert en.rhymes("dimmed", "untrimmed", system)
    assert en.rhymes("dimm'd", "untrimm'd", system) and en.rhymes("dimm'd", "untrimmed", system)
    assert en.rhyme_keys("untrimm'd", "perfect") == en.rhyme_keys("untrimmed", "perfect") == {"IH M D"}
    assert not en.rhymes("untrimm'd", "untrimmest", "perfect")


def test_a_couplet_in_elided_spellings_fits_perfect_rhyme():
    from songwriter.checks import check
    from songwriter.forms import named_form

    for a, b in (("dimmed", "untrimmed"), ("dimm'd", "untrimm'd")):
        text = (f"And often is his gold complexion {a};\n"
                f"By chance or nature's changing course {b};")
        report = check(text, named_form("Heroic couplet"), "perfect")
        assert report.ok, report.summary()

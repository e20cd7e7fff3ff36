"""Word pairs no writer of English verse writes, which the English decoder keeps away from while
another word fits: readers of its sonnets named "live a and die", "an profound" and "a our"
(runs/blind/en-5, 2026-11-27; real verse of the same file: none).

- after an article or a possessive determiner (a, an, the, my, thy, your, our, their): no
  article, conjunction, preposition, personal pronoun, auxiliary or other function word of
  ``NOT_AFTER_DETERMINER`` (an adjective or a noun follows: "the deep", "my love");
- "a" before a word whose first sound is a vowel, "an" before one whose first sound is a
  consonant, by CMUdict through the checks' own readings ("an hour", "a one", "a unicorn"); a
  word with no reading is left alone;
- a subject pronoun and a form of "be", "have" or "do" that does not agree ("he am", "they
  is"); subjunctives and old forms that verse keeps ("if he were", "I were", "thou art") are not
  in the table, nor "I are" and "he are", which a compound subject makes right ("you and I are").

Rules are kept by the word as the vocabulary spells it: Scots "a'" (all: "for a' that") and
"an'" (and) are other words than "a" and "an". Data for ``decode_en``: ``followers_barred(words)``
gives, for each word that has a rule, the words that may not follow it. numpy only.
"""

from __future__ import annotations

import numpy as np

DETERMINERS = ("a", "an", "the", "my", "thy", "your", "our", "their")
NOT_AFTER_DETERMINER = frozenset((
    "a", "an", "the", "my", "thy", "your", "our", "their", "its",
    "and", "or", "but", "nor", "if", "than", "that", "which", "who", "whom",
    "of", "to", "in", "on", "at", "by", "for", "from", "with", "into", "upon", "unto", "as",
    # auxiliaries that are no nouns too ("thy will", "his might", "the art", "the May" stay)
    "is", "are", "was", "were", "be", "been", "am", "shall", "would", "should", "could",
    "does", "did", "has", "have", "had",
    "i", "he", "she", "we", "they", "me", "him", "us", "them", "thou", "thee", "ye", "not",
))
DISAGREEING = {
    "i": ("is", "has", "does"),
    "he": ("am",),
    "she": ("am",),
    "it": ("am",),
    "we": ("am", "is", "has", "does", "was"),
    "they": ("am", "is", "has", "does", "was"),
    "you": ("am", "is", "has", "does"),
}


def first_sound_is_vowel(form: str) -> bool | None:
    """Whether ``form`` is heard to begin with a vowel (None: no reading, or readings that differ)."""
    from songwriter.prosody import english

    firsts = {p.split()[0][0] in "AEIOU" for p in english.pronunciations(form) if p}
    return firsts.pop() if len(firsts) == 1 else None


def followers_barred(words: list[str]) -> dict[int, np.ndarray]:
    """Per vocabulary id of a word with a rule: a bool mask over the vocabulary, True where the
    word may not follow it. ``words``: each id's word as the vocabulary spells it ("" for
    specials and marks)."""
    ids: dict[str, int] = {w: i for i, w in enumerate(words) if w}
    V = len(words)

    def mask_of(some) -> np.ndarray:
        m = np.zeros(V, dtype=bool)
        m[[ids[w] for w in some if w in ids]] = True
        return m

    function_words = mask_of(NOT_AFTER_DETERMINER)
    vowel = np.zeros(V, dtype=bool)
    consonant = np.zeros(V, dtype=bool)
    if "a" in ids or "an" in ids:
        for i, w in enumerate(words):
            if w and w[0].isalpha():
                v = first_sound_is_vowel(w)
                if v is not None:
                    (vowel if v else consonant)[i] = True
    out: dict[int, np.ndarray] = {}

    def bar(word: str, m: np.ndarray) -> None:
        if word in ids:
            i = ids[word]
            out[i] = out[i] | m if i in out else m.copy()

    for d in DETERMINERS:
        bar(d, function_words)
    bar("a", vowel)
    bar("an", consonant)
    for pronoun, verbs in DISAGREEING.items():
        bar(pronoun, mask_of(verbs))
    return out

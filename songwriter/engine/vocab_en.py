"""The English word vocabulary: special symbols, punctuation marks, then words by frequency, each
word with its syllable counts and stress patterns.

A token is a lower-cased word as the prosody module reads a line (inner apostrophes and hyphens
kept: "summer's", "o'er", "well-known", "'tis") or one punctuation mark. Every word carries what the
decoder needs to fit words to syllable slots: its syllable counts (most usual first) and a stress
string per pronunciation ("1" primary, "2" secondary, "0" none), from CMUdict through
songwriter.prosody.english, which derives verse forms and guesses from spelling for the rest
(``known`` says which). ``<unk>`` and the other specials that stand for no text, and slurs
(``english.SLURS``), are listed in ``never_generate``: the decoder masks them at every slot.

The special symbols are the Chinese vocabulary's (songwriter.engine.vocab), at the same ids, so the
model and the encoding treat both languages alike; the file adds ``language: "en"`` and the word
tables, and its hash covers the tokens exactly as the Chinese one does. No torch.
"""

from __future__ import annotations

import json
import unicodedata
from collections import Counter
from pathlib import Path

from songwriter.engine.vocab import BOS, FILL, PAD, SPECIALS, UNK, Vocab
from songwriter.prosody.english import SLURS

LANGUAGE = "en"
PUNCT_TOKENS = (",", ".", ";", ":", "?", "!", "\u2014", "(", ")", '"', "'")
# Marks of templates and texts that the vocabulary writes as its nearest mark.
PUNCT_ALIASES = {"\u2013": "\u2014", "-": "\u2014", "--": "\u2014", "\u2026": ".", "...": ".",
                 "\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "[": "(", "]": ")"}
NEVER_GENERATE = (PAD, UNK, BOS, FILL)
_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'", "\u201c": '"', "\u201d": '"'})


def tokenize(line: str, keep_case: bool = False) -> list[str]:
    """A line of verse -> lower-cased words (as written with ``keep_case``) and punctuation
    tokens, in order.

    Words are exactly those of ``songwriter.prosody.english.words`` (so the engine counts the
    syllables the checks count); the marks between them become PUNCT_TOKENS (aliases mapped), and
    any other symbol is dropped.
    """
    from songwriter.prosody import english

    text = unicodedata.normalize("NFC", line).translate(_APOSTROPHES)
    out: list[str] = []
    pos = 0
    for word in english.words(line):
        start = text.find(word, pos)
        if start < 0:                 # words() normalised it differently: keep the word, skip the gap
            out.append(word if keep_case else word.lower())
            continue
        out.extend(_marks(text[pos:start]))
        out.append(word if keep_case else word.lower())
        pos = start + len(word)
    out.extend(_marks(text[pos:]))
    return out


MIN_CONTENT_LETTERS = 3


def content_words(text: str) -> list[str]:
    """The content words of a text, lowercased as the vocabulary spells them: not prosody's
    grammar words; ASCII letters and apostrophes, three letters or more (a topic's words, the
    word associations' vocabulary: plan/build_en, engine/topic_en)."""
    from songwriter.prosody.english import FUNCTION_WORDS

    out = []
    for w in tokenize(text):
        bare = w.strip("'")
        letters = bare.replace("'", "")
        if len(bare) >= MIN_CONTENT_LETTERS and letters.isascii() and letters.isalpha() \
                and w not in FUNCTION_WORDS and bare not in FUNCTION_WORDS:
            out.append(w)
    return out


FAMILY_PREFIX = 4     # letters both words of a family have


def same_family(a: str, b: str) -> bool:
    """Two words of one family: one spelt as the other's start (sail / sails / sailing), both of
    at least FAMILY_PREFIX letters. A family is one subject, not two: the word associations never
    pair one, the planner proposes one, the content lean spends one."""
    return min(len(a), len(b)) >= FAMILY_PREFIX and (a.startswith(b) or b.startswith(a))


def _marks(gap: str) -> list[str]:
    gap = gap.replace("...", "\u2026").replace("--", "\u2014")
    out = []
    for ch in gap:
        mark = PUNCT_ALIASES.get(ch, ch)
        if mark in PUNCT_TOKENS and not (mark == out[-1:] == ["\u2014"]):
            out.append(mark)
    return out


def word_prosody(word: str) -> dict:
    """{"syllables": [counts, most usual first], "stress": [patterns], "known": CMUdict or a form
    derived from it (False: a guess from the spelling)}."""
    from songwriter.prosody import english

    return {"syllables": english.syllable_counts(word), "stress": english.stress_patterns(word),
            "known": english.in_dictionary(word)}


class EnglishVocab(Vocab):
    """The Chinese vocabulary's layout and checks (specials, then punctuation, then the units a
    slot holds: here words), with each word's syllable counts and stress patterns."""

    punct_tokens = PUNCT_TOKENS
    punct_aliases = PUNCT_ALIASES
    language = LANGUAGE

    def __init__(self, tokens: list[str], prosody: dict[str, dict] | None = None, capitalized=None):
        super().__init__(tokens)
        self.first_word = self.first_char
        if tuple(self.tokens[len(SPECIALS):self.first_word]) != tuple(p for p in PUNCT_TOKENS if p in self.stoi):
            raise ValueError("the punctuation marks must follow the special symbols")
        words = self.tokens[self.first_word:]
        prosody = dict(prosody or {})
        for w in words:          # a file without a word's tables, or a vocabulary built in code
            if w not in prosody:
                prosody[w] = word_prosody(w)
        self.prosody = {w: prosody[w] for w in words}
        self.never_generate = [self.stoi[s] for s in NEVER_GENERATE] + [self.stoi[w] for w in words if w in SLURS]
        # words written with a capital inside a line most of the time (God, England, Christ)
        self.capitalized = frozenset(w for w in (capitalized or ()) if w in self.prosody)

    def id(self, token: str) -> int:
        return self.stoi.get(token.lower() if token not in SPECIALS else token, self.unk)

    def is_word(self, i: int) -> bool:
        return i >= self.first_word

    def may_generate(self, i: int) -> bool:
        return i not in self.never_generate

    def syllables(self, i: int) -> list[int]:
        """Syllable counts of token ``i``: a word's (most usual first); [0] for a punctuation mark
        or a special symbol."""
        return list(self.prosody[self.tokens[i]]["syllables"]) if self.is_word(i) else [0]

    def stress(self, i: int) -> list[str]:
        return list(self.prosody[self.tokens[i]]["stress"]) if self.is_word(i) else [""]

    def encode_line(self, line: str) -> list[int]:
        return [self.id(t) for t in tokenize(line)]

    def summary(self) -> dict:
        words = self.tokens[self.first_word:]
        return {"size": len(self), "words": len(words),
                "words_known": sum(1 for w in words if self.prosody[w]["known"]),
                "syllables": dict(sorted(Counter(self.prosody[w]["syllables"][0] for w in words).items())),
                "never_generate": [self.tokens[i] for i in self.never_generate]}

    def save(self, path: str | Path) -> None:
        data = {"language": LANGUAGE, "tokens": self.tokens, "sha256": self.sha256,
                "never_generate": [self.tokens[i] for i in self.never_generate],
                "capitalized": sorted(self.capitalized), "words": self.prosody}
        Path(path).write_text(json.dumps(data, ensure_ascii=False, indent=0), encoding="utf-8")

    @classmethod
    def load(cls, path: str | Path) -> "EnglishVocab":
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        if data.get("language") != LANGUAGE:
            raise ValueError(f"{path}: not an English vocabulary (no \"language\": \"en\")")
        v = cls(data["tokens"], data.get("words"), data.get("capitalized"))
        if data.get("sha256") and data["sha256"] != v.sha256:
            raise ValueError(f"{path}: the vocabulary's hash does not match its tokens")
        return v

    @classmethod
    def build(cls, lines, min_count: int = 3, max_size: int | None = None) -> "EnglishVocab":
        """From an iterable of lines of verse: every word seen ``min_count`` times or more, most
        frequent first (ties alphabetical), at most ``max_size`` tokens in all."""
        counts: Counter = Counter()
        inside: Counter = Counter()       # uses inside a line (not its first word) ...
        capital: Counter = Counter()      # ... of them with a capital
        for line in lines:
            words = [t for t in tokenize(line, keep_case=True) if t not in PUNCT_TOKENS]
            counts.update(w.lower() for w in words)
            for w in words[1:]:
                lw = w.lower()
                inside[lw] += 1
                if w[:1].isupper() or (w[:1] == "'" and w[1:2].isupper()):
                    capital[lw] += 1
        from songwriter.prosody import english

        # a word must fill at least one syllable slot (a stray symbol the tokenizer took for a letter
        # does not)
        words = [w for w, n in counts.items() if n >= min_count and w not in SPECIALS
                 and min(english.syllable_counts(w)) > 0]
        words.sort(key=lambda w: (-counts[w], w))
        if max_size:
            words = words[:max_size - len(SPECIALS) - len(PUNCT_TOKENS)]
        capitalized = [w for w in words if inside[w] >= min_count and capital[w] * 2 > inside[w]]
        return cls(list(SPECIALS) + list(PUNCT_TOKENS) + words, capitalized=capitalized)


def load_vocab(path: str | Path):
    """The vocabulary a model folder's vocab.json holds: EnglishVocab when the file says
    ``language: "en"``, otherwise the Chinese Vocab, loaded exactly as before."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    if data.get("language") == LANGUAGE:
        return EnglishVocab.load(path)
    from songwriter.engine.vocab import Vocab

    return Vocab.load(path)

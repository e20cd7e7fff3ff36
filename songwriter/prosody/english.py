"""English prosody: words, syllables, stress, rhyme and metre.

Pronunciations come from CMUdict (through the ``pronouncing`` package), loaded lazily on first
use and cached per word.  Words CMUdict does not know get pronunciations derived from a known
word where verse spelling makes that safe (``o'er``, ``heav'n``, ``lov'd``, ``singin'``,
``summer's``, compounds, numbers) and otherwise a spelling-based guess.  See docs/prosody-en.md.

No Qt, no torch; nothing is loaded at import time.
"""
from __future__ import annotations

import bisect
import functools
import itertools
import re
import unicodedata
from collections import Counter

__all__ = [
    "words",
    "in_dictionary",
    "pronunciations",
    "syllable_counts",
    "stress_patterns",
    "rhyme_keys",
    "rhymes",
    "resolve_rhyme_system",
    "RHYME_SYSTEMS",
    "line_syllables",
    "line_stress",
    "fits_meter",
    "verse_stress_patterns",
    "sung_stress_patterns",
    "open_syllables",
    "spelled_nuclei",
    "preload",
]

Phones = tuple[str, ...]

# Caps that keep combinatorics of multi-part words and lines bounded.
_MAX_PRONS = 16          # pronunciations kept for a compound / number / derived word
LINE_STRESS_LIMIT = 64   # default number of stress strings line_stress returns

# a grave accent stands for an apostrophe in typed-in old texts (show`rs, bid`st)
_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'", "\u2032": "'", "`": "'"})
_WORD_CHAR = r"[^\W_]"
_TOKEN_RE = re.compile(rf"{_WORD_CHAR}+(?:['\-]{_WORD_CHAR}+)*")

# Poetic and colloquial forms CMUdict lacks (or spells differently).  ARPAbet, CMUdict style.
_ELISIONS: dict[str, str] = {
    "o'er": "OW1 R",
    "e'er": "EH1 R",
    "ne'er": "N EH1 R",
    "e'en": "IY1 N",
    "whate'er": "W AH0 T EH1 R",
    "howe'er": "HH AW0 EH1 R",
    "where'er": "W EH0 R EH1 R",
    "whene'er": "W EH0 N EH1 R",
    "whoe'er": "HH UW0 EH1 R",
    "'twere": "T W ER1",
    "'twill": "T W IH1 L",
    "'twould": "T W UH1 D",
    "'neath": "N IY1 TH",
    "'gainst": "G EH1 N S T",
    "'mid": "M IH1 D",
    "'midst": "M IH1 D S T",
    "'mongst": "M AH1 NG S T",
    "'tween": "T W IY1 N",
    "'twixt": "T W IH1 K S T",
    "'twas": "T W AH1 Z",
    "'tis": "T IH1 Z",
    "'fore": "F AO1 R",
    "'bout": "B AW1 T",
    "'cause": "K AH0 Z",
    "'em": "AH0 M",
    "'til": "T IH1 L",
    "'round": "R AW1 N D",
    "o'": "AH0",
    "th'": "DH AH0",
    "ol'": "OW1 L",
    "an'": "AH0 N",
    "y'all": "Y AO1 L",
}

_VOWEL_PHONES = frozenset("AA AE AH AO AW AY EH ER EY IH IY OW OY UH UW".split())


# --------------------------------------------------------------------------------------------
# Dictionary access
# --------------------------------------------------------------------------------------------

@functools.lru_cache(maxsize=1)
def _cmu() -> dict[str, list[str]]:
    """The CMUdict table (word -> phone strings), loaded on first use."""
    import pronouncing

    pronouncing.init_cmu()
    return pronouncing.lookup


def preload() -> None:
    """Load CMUdict and the spelling-ending index now (0.5-1.5 s; call it off the UI
    thread).  Otherwise both load on first use."""
    _cmu()
    _suffix_index()


def _cmu_get(word: str) -> tuple[Phones, ...]:
    out = []
    for p in _cmu().get(word, ()):
        ph = tuple(p.split())
        if ph and not any(_is_vowel_phone(x) for x in ph):
            # a handful of entries have no vowel ("hmm" HH M, "shh" SH): sung, they are a
            # syllable, so give them a nucleus before the last phone
            ph = ph[:-1] + ("AH1",) + ph[-1:]
        out.append(ph)
    return tuple(out)


@functools.lru_cache(maxsize=1)
def _suffix_index() -> tuple[list[str], list[str]]:
    """CMUdict's plain-letter words sorted by their reversed spelling (for rhyme by analogy)."""
    pairs = sorted((w[::-1], w) for w in _cmu() if w.isalpha() and w.isascii())
    return [r for r, _ in pairs], [w for _, w in pairs]


def _is_vowel_phone(p: str) -> bool:
    return p[-1].isdigit()


def _strip_stress(p: str) -> str:
    return p.rstrip("012")


def _stress_of(phones: Phones) -> str:
    return "".join(p[-1] for p in phones if _is_vowel_phone(p))


def _syllables_of(phones: Phones) -> int:
    return sum(1 for p in phones if _is_vowel_phone(p))


def _dedupe(items):
    seen = set()
    out = []
    for it in items:
        if it not in seen:
            seen.add(it)
            out.append(it)
    return out


# --------------------------------------------------------------------------------------------
# Normalisation and tokenising
# --------------------------------------------------------------------------------------------

def _normalise(word: str) -> str:
    """Lower-case, straight apostrophes, NFC, surrounding punctuation removed."""
    w = unicodedata.normalize("NFC", word).translate(_APOSTROPHES).strip().lower()
    # strip surrounding punctuation but keep a leading/trailing apostrophe when it is part of a
    # known form ("'tis", "o'", "singin'")
    core = re.sub(r"^[^\w']+|[^\w']+$", "", w)
    core = core.strip("-_")
    if core.startswith("'") and core not in _ELISIONS and core not in _cmu():
        core = core.lstrip("'")
    if core.endswith("'") and not _keep_trailing_apostrophe(core):
        core = core.rstrip("'")
    return core


def _keep_trailing_apostrophe(token: str) -> bool:
    t = token.lower()
    return t in _ELISIONS or t.endswith("in'") and len(t) > 3


def _strip_accents(w: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFD", w) if not unicodedata.combining(c))


def words(line: str) -> list[str]:
    """Word tokens of a line of verse, in original case, punctuation stripped.

    Inner apostrophes and hyphens stay ("summer's", "o'er", "well-known"); curly apostrophes become
    "'".  A leading apostrophe is kept for known elisions ("'tis", "'twas"), a trailing one for
    "o'", "th'" and dropped-g forms ("singin'").  Dashes ("--", "—") separate words.
    """
    text = unicodedata.normalize("NFC", line).translate(_APOSTROPHES)
    out: list[str] = []
    for m in _TOKEN_RE.finditer(text):
        tok = m.group(0)
        start, end = m.start(), m.end()
        if start > 0 and text[start - 1] == "'":
            cand = "'" + tok
            if cand.lower() in _ELISIONS or cand.lower() in _cmu():
                tok = cand
        if end < len(text) and text[end] == "'":
            cand = tok + "'"
            if cand.lower() in _ELISIONS:
                # "o' the", "th' expense": only before another word, so a closing quote
                # after "O" or "and" is not taken for an elision
                rest = text[end + 1:].lstrip()
                if rest[:1].isalpha() and text[end + 1:end + 2].isspace():
                    tok = cand
            elif _keep_trailing_apostrophe(cand):
                tok = cand
        out.append(tok)
    return out


# --------------------------------------------------------------------------------------------
# Pronunciations: dictionary, derived forms
# --------------------------------------------------------------------------------------------

def _combine(parts: list[tuple[Phones, ...]]) -> tuple[Phones, ...]:
    combos = itertools.islice(itertools.product(*parts), _MAX_PRONS)
    return tuple(_dedupe(tuple(itertools.chain.from_iterable(c)) for c in combos))


def _possessive(prons: tuple[Phones, ...]) -> tuple[Phones, ...]:
    out = []
    for p in prons:
        last = _strip_stress(p[-1])
        if last in ("S", "Z", "SH", "ZH", "CH", "JH"):
            out.append(p + ("IH0", "Z"))
        elif last in ("P", "T", "K", "F", "TH"):
            out.append(p + ("S",))
        else:
            out.append(p + ("Z",))
    return tuple(out)


def _drop_vowel(p: Phones, k: int) -> Phones | None:
    """Remove the k-th vowel (or the nearest unstressed one); ER0 becomes R."""
    vidx = [i for i, ph in enumerate(p) if _is_vowel_phone(ph)]
    unstressed = [j for j, i in enumerate(vidx) if p[i].endswith("0")]
    if not unstressed:
        return None
    j = min(unstressed, key=lambda u: (abs(u - k), u))
    i = vidx[j]
    repl = ("R",) if p[i] == "ER0" else ()
    return p[:i] + repl + p[i + 1:]


def _elide(full: tuple[Phones, ...], k: int) -> tuple[Phones, ...]:
    """Pronunciations of a word with one vowel elided (heav'n, ev'ry, pow'r)."""
    if not full:
        return ()
    m = max(_syllables_of(p) for p in full)
    shorter = [p for p in full if _syllables_of(p) == m - 1]
    if shorter:
        return tuple(shorter)
    reduced = [_drop_vowel(p, k) for p in full if _syllables_of(p) == m]
    return tuple(_dedupe(r for r in reduced if r is not None))


_ONES = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
         "fifteen sixteen seventeen eighteen nineteen").split()
_TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()


def _cardinal(n: int) -> list[str]:
    if n < 20:
        return [_ONES[n]]
    if n < 100:
        return [_TENS[n // 10]] + ([_ONES[n % 10]] if n % 10 else [])
    if n < 1000:
        return [_ONES[n // 100], "hundred"] + (_cardinal(n % 100) if n % 100 else [])
    return _cardinal(n // 1000) + ["thousand"] + (_cardinal(n % 1000) if n % 1000 else [])


def _number_readings(digits: str) -> list[list[str]]:
    if len(digits) > 1 and digits.startswith("0") or len(digits) > 6:
        return [[_ONES[int(d)] for d in digits]]
    n = int(digits)
    readings = []
    if len(digits) == 4 and (1100 <= n <= 1999 or 2010 <= n <= 2099):
        hi, lo = divmod(n, 100)
        if lo == 0:
            readings.append(_cardinal(hi) + ["hundred"])
        elif lo < 10:
            readings.append(_cardinal(hi) + ["oh", _ONES[lo]])
        else:
            readings.append(_cardinal(hi) + _cardinal(lo))
    readings.append(_cardinal(n))
    return readings


_BRITISH_SPELLINGS = (
    (re.compile(r"(?<=[a-z])our(?=(s|ed|ing|er|ers|ite|able|ably|less)?$)"), "or"),
    (re.compile(r"(?<=[a-z])ence(?=(s)?$)"), "ense"),
)


@functools.lru_cache(maxsize=1 << 17)
def _derive(w: str) -> tuple[Phones, ...]:
    """Pronunciations for a normalised word, from the dictionary or derived from it; () if none."""
    if not w:
        return ()
    prons = _cmu_get(w)
    if prons:
        return prons
    if w in _ELISIONS:
        return (tuple(_ELISIONS[w].split()),)

    if w.isdigit():
        out: list[Phones] = []
        for reading in _number_readings(w):
            parts = [_derive(x) for x in reading]
            if all(parts):
                out.extend(_combine(parts))
        return tuple(_dedupe(out))[:_MAX_PRONS]

    plain = _strip_accents(w)
    if plain != w:
        if w.endswith("\u00e8d") or w.endswith("\u00e9d"):   # belovèd: the -ed is sounded
            base = _derive(plain)
            out = []
            for p in base:
                if p[-1] in ("D", "T") and not _is_vowel_phone(p[-2] if len(p) > 1 else "X"):
                    out.append(p[:-1] + ("IH0", "D"))
                else:
                    out.append(p)
            return tuple(_dedupe(out))
        return _derive(plain)

    if "-" in w:
        parts = [_derive(x) for x in w.split("-") if x]
        if parts and all(parts):
            return _combine(parts)
        return ()

    if "'" in w:
        return _derive_apostrophe(w)

    # British spellings for CMUdict's American ones: saviour, endeavoured, labouring; offence
    for british, american in _BRITISH_SPELLINGS:
        respelt = british.sub(american, w)
        if respelt != w and _cmu_get(respelt):
            return _cmu_get(respelt)
    # dropped-g spelt without apostrophe: "lovin", "nothin"
    if w.endswith("in") and len(w) > 3:
        return _dropped_g(w + "g")
    # the second and third person of the Bible and Shakespeare: growest, viewest, staineth
    if w.endswith(("est", "eth")) and len(w) > 4:
        ending = ("IH0", "S", "T") if w.endswith("est") else ("IH0", "TH")
        for stem in (w[:-3], w[:-3] + "e", w[:-2]):
            base = _cmu_get(stem)
            if base:
                return tuple(_dedupe(p + ending for p in base))
    return _inflected(w)


_SIBILANTS = frozenset("S Z SH ZH CH JH".split())
_VOICELESS = frozenset("P T K F TH S SH CH".split())
_MIN_STEM = 3        # letters: "b" + "ed", "me" + "ed" are no stems


def _stems(w: str, suffix: str) -> list[str]:
    """The spellings ``w`` less ``suffix`` may come from: scorn-ing, wreath(e)-d, throne-s,
    run(n)-ing, lovel(y)-ier, fur(y)-ies."""
    base = w[:-len(suffix)]
    out = [base]
    if suffix in ("ing", "ed", "er", "est"):
        # a silent e goes before a vowel: pale-r, hop(e)-ing, wreath(e)-d; where both spellings are
        # words the e's is likelier (a stem without it would double its consonant: hopping)
        out.insert(0, base + "e")
        if len(base) > 1 and base[-1] == base[-2] and base[-1] not in "aeiouslz":
            out.append(base[:-1])                                  # run-n-ing, plan-n-ed
    if suffix in ("ed", "er", "est", "es") and base.endswith("i"):
        out.append(base[:-1] + "y")                                # cri-ed, lovel-ier, furi-es
    return [b for b in out if len(b) >= _MIN_STEM]


def _inflected(w: str) -> tuple[Phones, ...]:
    """A regular inflection of a CMUdict word, pronounced from the stem (the stem's stress kept):
    -ing, -ed, -s / -es, -er, -est. CMUdict lacks many (scorning, slumbers, quenched, loveliest);
    spelt-out guesses lose the stress, and with it the rhyme (scorning / morning). Derivations
    (-ness, -ly, -ful, ...) stay with the unknown words' suffix rule (docs/prosody-en.md)."""
    for suffix in ("ing", "ed", "es", "s", "er", "est"):
        if not w.endswith(suffix) or len(w) <= len(suffix) + 2:
            continue
        for stem in _stems(w, suffix):
            base = _cmu_get(stem)
            if not base:
                continue
            out = []
            for p in base:
                last = p[-1]
                if suffix == "ing":
                    out.append(p + ("IH0", "NG"))
                elif suffix == "ed":
                    if stem.endswith("e") and not w.endswith("eed") and w[:-1] != stem:
                        continue                                   # wake + ed is not a stem of "waked"
                    out.append(p + (("IH0", "D") if last in ("T", "D") else ("T",) if last in _VOICELESS else ("D",)))
                elif suffix in ("s", "es"):
                    if suffix == "es" and stem == w[:-2] and last not in _SIBILANTS and not stem.endswith(("o", "y")):
                        continue                                   # thron-es is throne-s
                    out.append(p + (("IH0", "Z") if last in _SIBILANTS else ("S",) if last in _VOICELESS else ("Z",)))
                elif suffix == "er":
                    out.append(p + ("ER0",))
                elif suffix == "est":
                    out.append(p + ("AH0", "S", "T"))
            if out:
                return tuple(_dedupe(out))[:_MAX_PRONS]
    return ()


def _dropped_g(full_word: str) -> tuple[Phones, ...]:
    out = []
    for p in _derive(full_word):
        if p and p[-1] == "NG":
            out.append(p[:-1] + ("N",))
    return tuple(_dedupe(out))


def _derive_apostrophe(w: str) -> tuple[Phones, ...]:
    if w.startswith("th'") and len(w) > 3:                 # th'expense
        rest = _derive(w[3:])
        return tuple(("DH",) + p for p in rest)
    if w.startswith("t'") and len(w) > 2:                  # t'have
        rest = _derive(w[2:])
        return tuple(("T",) + p for p in rest)
    if w.startswith("'"):
        return _derive(w.lstrip("'"))
    if w.endswith("in'"):
        return _dropped_g(w[:-1] + "g")
    if w.endswith("s'"):                                   # plural possessive: birds'
        return _derive(w[:-1])
    if w.endswith("'s"):
        got = _derive(w[:-2])
        return _possessive(got) if got else ()
    if w.endswith("'d") and w[-3:-2] in "aeiouyw" and _derive(w[:-2]):   # allay'd, bestow'd
        return tuple(p + ("D",) for p in _derive(w[:-2]))
    if w.endswith("'d"):                                   # lov'd, fir'd: -ed not sounded
        base = w[:-2]
        return _unsounded_ed(base, _derive(base + "ed") + _derive(base + "d"))
    if w.endswith("'st"):                                  # lov'st
        base = _derive(w[:-3])
        return tuple(p + ("S", "T") for p in base)
    # an inner apostrophe standing for an elided vowel: heav'n, ev'ry, pow'r, wand'ring
    pos = w.index("'")
    k = len(_nuclei(w[:pos]))
    for letter in "eoaiu":
        cand = w[:pos] + letter + w[pos + 1:]
        if "'" in cand:
            continue
        full = _derive(cand)
        if full:
            got = _elide(full, k)
            if got:
                return got
    # the printers' silent -ugh- (tho't, bro't, thro'out: thought, brought, throughout)
    if w[pos - 1:pos] == "o" and "'" not in w[pos + 1:] and _cmu_get(w[:pos] + "ugh" + w[pos + 1:]):
        return _cmu_get(w[:pos] + "ugh" + w[pos + 1:])
    joined = w.replace("'", "")
    return _cmu_get(joined)


def _unsounded_ed(base: str, full: tuple[Phones, ...]) -> tuple[Phones, ...]:
    """The pronunciations ``full`` of ``base`` + -ed as ``base`` + -'d says them: the -ed not
    sounded (lov'd, fir'd, untrimm'd)."""
    # the -ed sounded is an unstressed vowel before the D/T; a stressed one is the stem's own
    # (sighed, stirred, eyed), which the apostrophe does not take away, and so is the ER of a
    # stem spelt -er, -or (tatter'd, remember'd, conquer'd: not fir'd, whose ER is fi-er)
    own_er = len(base) > 3 and base.endswith(("er", "or", "ar", "ur"))
    quiet = [p for p in full if not (len(p) >= 2 and p[-1] in ("D", "T")
                                     and _is_vowel_phone(p[-2]) and p[-2].endswith("0")
                                     and not (own_er and p[-2] == "ER0"))]
    if quiet:
        return tuple(_dedupe(quiet))
    dropped = [p[:-2] + ("D",) for p in full if len(p) >= 2 and _is_vowel_phone(p[-2])]
    return tuple(_dedupe(dropped))


def pronunciations(word: str) -> list[str]:
    """CMUdict-style phone strings for ``word`` (dictionary or derived); [] if it would be a guess."""
    return [" ".join(p) for p in _derive(_normalise(word))]


def in_dictionary(word: str) -> bool:
    """True if the word's pronunciation comes from CMUdict rather than a spelling guess.

    Case-insensitive; curly and straight apostrophes are the same.  Derived forms count as known:
    poetic elisions (o'er, heav'n, lov'd), possessives, dropped-g (singin'), hyphenated compounds
    whose parts are all known, and numerals.
    """
    return bool(_derive(_normalise(word)))


# --------------------------------------------------------------------------------------------
# Spelling-based fallbacks
# --------------------------------------------------------------------------------------------

_HIATUS_SOFT_BEFORE = frozenset("cstxg")   # -tion, -cial, -sion, -gion: no split


def _letters(w: str) -> str:
    return "".join(c for c in _strip_accents(w).lower() if "a" <= c <= "z")


def _is_vowel_letter(w: str, i: int) -> bool:
    c = w[i]
    if c in "aeio":
        return True
    if c == "u":
        return not (i > 0 and w[i - 1] == "q")
    if c == "y":
        # a consonant before a vowel ("yes", "beyond", "lawyer"), a vowel otherwise
        return not (i + 1 < len(w) and w[i + 1] in "aeiou")
    return False


def _split_group(w: str, start: int, end: int) -> list[tuple[int, int]]:
    """Split one written vowel group into syllable nuclei where it usually breaks (hiatus)."""
    spans = []
    s = start
    prev = w[start - 1] if start > 0 else ""
    for i in range(start, end - 1):
        pair = w[i:i + 2]
        before = w[i - 1] if i > start else prev
        split = False
        if pair in ("ia", "io", "iu") and before not in _HIATUS_SOFT_BEFORE:
            split = True
        elif pair == "eo" and before != "g":
            split = True
        elif pair in ("ua", "uo") and before not in "qg":
            split = True
        elif pair == "ue" and before not in "qg" and end < len(w) and \
                w[end:] not in ("s", "d"):
            split = True
        elif pair == "oe" and end < len(w) and w[end:] != "s":
            split = True
        elif pair == "ea" and end == len(w) and start > 0 and any(
                _is_vowel_letter(w, j) for j in range(start)):
            split = True                                  # idea, Korea
        elif pair == "ii":
            split = True                                  # skiing, Hawaii
        elif pair in ("ai", "ei") and i + 2 == end and w[end:] in ("ng", "ngs", "c", "cs"):
            split = True                                  # archaic, being-like endings
        elif pair == "ie" and w[end:] in ("r", "st") and any(
                _is_vowel_letter(w, j) for j in range(start)):
            split = True                                  # happier, happiest
        if split:
            spans.append((s, i + 1))
            s = i + 1
    spans.append((s, end))
    return spans


def _raw_groups(w: str) -> list[tuple[int, int]]:
    groups = []
    i = 0
    n = len(w)
    while i < n:
        if _is_vowel_letter(w, i):
            j = i
            while j < n and _is_vowel_letter(w, j):
                j += 1
            groups.append((i, j))
            i = j
        else:
            i += 1
    return groups


def _consonant(c: str) -> bool:
    return c.isalpha() and c not in "aeiouy"


_SILENT_E_SUFFIXES = ("lessly", "fully", "ments", "ment", "ness", "less", "ful", "ly")


def _nuclei(w: str) -> list[tuple[int, int]]:
    """Letter spans of the syllable nuclei of a spelt word (lower-case a-z), by rule."""
    w = _letters(w)
    if not w:
        return []
    # a silent-e stem before a consonant suffix: lonely, movement, likeness
    for suf in _SILENT_E_SUFFIXES:
        stem = w[:-len(suf)]
        if w.endswith(suf) and len(stem) >= 3 and stem.endswith("e"):
            head = _nuclei(stem)
            if len(head) < len(_raw_groups(stem)):       # the stem's final e was silent
                return head + [(len(stem) + a, len(stem) + b) for a, b in _nuclei(suf)]
            break
    spans: list[tuple[int, int]] = []
    for a, b in _raw_groups(w):
        spans.extend(_split_group(w, a, b))
    if len(spans) > 1:
        a, b = spans[-1]
        n = len(w)
        if w[a:b] == "e" and b == n:                                   # final e
            syllabic = n >= 3 and w[-2] in "lr" and _consonant(w[-3]) and w[-3] != w[-2]
            if not syllabic:
                spans.pop()
        elif w[a:b] == "e" and b == n - 1 and w[-1] == "s":            # final -es
            c1 = w[-3] if n >= 3 else ""
            c2 = w[-4:-2] if n >= 4 else ""
            sounded = (c1 in ("s", "x", "z", "c", "g") or c2 in ("ch", "sh")
                       or (c1 in "lr" and n >= 4 and _consonant(w[-4]) and w[-4] != c1))
            if not sounded:
                spans.pop()
        elif w[a:b] == "e" and b == n - 1 and w[-1] == "d":            # final -ed
            if w[-3:-2] not in ("t", "d"):
                spans.pop()
        elif w[a:b] == "ue" and b == n and a > 0 and w[a - 1] == "g":  # vague, tongue
            spans.pop()
    if w.endswith("sm") or w.endswith("thm"):                          # prism, rhythm
        spans.append((len(w) - 1, len(w)))
    if not spans:                                                      # hmm, shh, nth
        spans = [(0, len(w))]
    return spans


def spelled_nuclei(word: str) -> list[tuple[int, int]]:
    """[start, end) in ``word`` itself of each written syllable nucleus (its vowel letters), by
    the spelling rules the fallback syllable counter uses (silent final e, -ed, -es, hiatus, qu);
    letters that are not a-z (apostrophes, hyphens) are skipped, accents read as their letter."""
    at = [i for i, c in enumerate(word) if _letters(c)]
    return [(at[a], at[b - 1] + 1) for a, b in _nuclei("".join(_letters(word[i]) for i in at))]


_FINAL_STRESS = ("esque", "aire", "ette", "ique", "eer", "ese", "oon", "ee")
_PRE_STRESS = ("ographer", "ography", "ologist", "ometer", "ically", "itude", "ious", "eous",
               "uous", "tion", "sion", "cian", "tial", "cial", "cious", "tious", "ical", "ient",
               "ience", "iency", "ular", "ity", "ety", "ify", "ian", "ial", "ual", "iar", "ior",
               "ogy", "ics", "ic", "ia")
_NEUTRAL = ("ingly", "ings", "ing", "ness", "ment", "ments", "less", "ful", "ers", "est", "ed",
            "es", "er", "ly", "s")
_PREFIXES = ("dis", "mis", "be", "de", "re", "un", "a")


def _guess_stress(w: str) -> str:
    w = _letters(w)
    n = len(_nuclei(w))
    if n <= 1:
        return "1" * max(n, 1)
    for suf in _FINAL_STRESS:
        if w.endswith(suf):
            return _stress_string(n, n - 1)
    for suf in _PRE_STRESS:
        if w.endswith(suf) and len(w) > len(suf) + 1:
            p = len(_nuclei(suf)) + 1
            if p <= n:
                return _stress_string(n, n - p)
    for suf in _NEUTRAL:
        stem = w[:-len(suf)]
        if w.endswith(suf) and len(stem) >= 3 and _nuclei(stem):
            head = _guess_stress(stem)
            if len(head) < n:
                return head + "0" * (n - len(head))
    if n == 2:
        for pre in _PREFIXES:
            rest = w[len(pre):]
            if w.startswith(pre) and len(rest) >= 3 and _consonant(rest[0]):
                return "01"
        return "10"
    return _stress_string(n, n - 3)


def _stress_string(n: int, primary: int) -> str:
    primary = max(0, min(n - 1, primary))
    chars = ["0"] * n
    chars[primary] = "1"
    if primary >= 2:
        chars[primary - 2] = "2"
    return "".join(chars)


# --------------------------------------------------------------------------------------------
# Public per-word API
# --------------------------------------------------------------------------------------------

def _parts_unknown(w: str) -> list[str] | None:
    """Hyphen parts of a word that is not derivable as a whole, else None."""
    if "-" in w:
        parts = [p for p in w.split("-") if p]
        if len(parts) > 1:
            return parts
    return None


_UNSTRESSED_SUFFIXES = {
    "ness": ("N", "AH0", "S"), "less": ("L", "AH0", "S"), "ful": ("F", "AH0", "L"),
    "ly": ("L", "IY0"), "ment": ("M", "AH0", "N", "T"), "ments": ("M", "AH0", "N", "T", "S"),
    "lessly": ("L", "AH0", "S", "L", "IY0"), "fully": ("F", "AH0", "L", "IY0"),
    "lessness": ("L", "AH0", "S", "N", "AH0", "S"),
    "eous": ("IY0", "AH0", "S"),      # beauteous, bounteous, duteous: beauty, bounty, duty + -ous
}


def _plausible(spelling: str, prons: tuple[Phones, ...]) -> bool:
    return len(_nuclei(spelling)) in {_syllables_of(p) for p in prons}


def _left_part(left: str) -> tuple[Phones, ...]:
    got = _cmu_get(left)
    if not got and left.endswith("i"):          # lovel(i)ness <- lovely
        got = _cmu_get(left[:-1] + "y")
    if not got and left.endswith("t") and _cmu_get(left + "y"):   # beaut(e)ous <- beauty
        got = tuple(p[:-1] for p in _cmu_get(left + "y") if p[-1] == "IY0")
    return got


# Prefixes that leave the stress on the word they join (un-SEEN, up-REAR, en-CHAIN, in-FOLD,
# be-WEEP, a-RIGHT, out-BRAVES): verbs and adjectives verse makes freely. A particle (in, up,
# out) takes the stress in a noun or adjective instead (IN-most, UP-land), so it gets both.
_UNSTRESSED_PREFIXES = {
    "un": ("AH0", "N"), "up": ("AH0", "P"), "en": ("IH0", "N"), "em": ("IH0", "M"),
    "in": ("IH0", "N"), "im": ("IH0", "M"), "be": ("B", "IH0"), "out": ("AW2", "T"), "a": ("AH0",),
}
_STRESSED_PARTICLES = {"in": ("IH1", "N"), "up": ("AH1", "P"), "out": ("AW1", "T")}


@functools.lru_cache(maxsize=1 << 16)
def _compound(w: str) -> tuple[Phones, ...]:
    """Pronunciations of an unknown closed compound ("dreamcatchers", "starwind") made of two
    dictionary words of 3+ letters each, the second part's primary stress made secondary; of
    a dictionary word plus an unstressed suffix ("loveliness", "moonless"); or of an unstressed
    prefix plus a dictionary word of 3+ letters ("uprear", "enchain", "beweep")."""
    if not w.isalpha() or not w.isascii() or len(w) < 5:
        return ()
    for suf, phones in sorted(_UNSTRESSED_SUFFIXES.items(), key=lambda kv: -len(kv[0])):
        if w.endswith(suf) and len(w) - len(suf) >= 3:
            left = _left_part(w[:-len(suf)])
            if left:
                return tuple(_dedupe(p + phones for p in left))
    for pre, phones in sorted(_UNSTRESSED_PREFIXES.items(), key=lambda kv: -len(kv[0])):
        rest = w[len(pre):]
        if w.startswith(pre) and len(rest) >= 3:
            right = _cmu_get(rest)
            if right and _plausible(rest, right):
                out = [phones + p for p in right]
                if pre in _STRESSED_PARTICLES:
                    out += [_STRESSED_PARTICLES[pre] + _demoted(p) for p in right]
                return tuple(_dedupe(out))
    best = None
    for i in range(3, len(w) - 3):                 # left part 3+ letters, right part 4+
        left, right = _left_part(w[:i]), _cmu_get(w[i:])
        # CMUdict is full of names and abbreviations; keep parts whose spelling agrees with
        # their pronunciation on the number of syllables
        if left and right and _plausible(w[:i], left) and _plausible(w[i:], right):
            score = (min(i, len(w) - i), len(w) - i)
            if best is None or score > best[0]:
                best = (score, left, right)
    if best is None:
        return ()
    _, left, right = best
    return _combine([left, tuple(_demoted(p) for p in right)])


def _demoted(p: Phones) -> Phones:
    """A pronunciation with its primary stress made secondary (the second part of a compound)."""
    return tuple(ph[:-1] + "2" if ph.endswith("1") else ph for ph in p)


def _bare(w: str) -> str:
    """The spelling a guess works on: apostrophes and hyphens removed."""
    return w.replace("'", "").replace("-", "")


def _elided_ed(w: str) -> str | None:
    """The stem of a word spelt with an elided -'d (untrimm'd: "untrimm"), else None."""
    return _bare(w[:-2]) if w.endswith("'d") and len(w) > 2 else None


def _rhyme_compound(w: str) -> tuple[Phones, ...]:
    """``_compound`` for the rhyme of a word the dictionary does not know, with an elided -'d
    read as the -ed the dictionary spells (untrimm'd as untrimmed, the -ed not sounded), as
    ``_derive`` reads a known one (dimm'd as dimmed)."""
    stem = _elided_ed(w)
    if stem is not None:
        return _unsounded_ed(stem, _compound(stem + "ed"))
    return _compound(_bare(w))


def _rhyme_spelling(w: str) -> str:
    """The spelling the rhyme of an unknown word is guessed from: an elided -'d spelt -ed."""
    stem = _elided_ed(w)
    return stem + "ed" if stem is not None else _bare(w)


@functools.lru_cache(maxsize=1 << 17)
def _stress_options(w: str) -> tuple[str, ...]:
    prons = _derive(w)
    if prons:
        return tuple(_dedupe(_stress_of(p) for p in prons))
    parts = _parts_unknown(w)
    if parts:
        combos = itertools.islice(itertools.product(*(_stress_options(p) for p in parts)),
                                  _MAX_PRONS)
        return tuple(_dedupe("".join(c) for c in combos))
    if not _letters(w) and not any(c.isdigit() for c in w):
        return ("",)
    compound = _compound(_bare(w))
    if compound:
        return tuple(_dedupe(_stress_of(p) for p in compound))
    return (_guess_stress(_bare(w)),)


def syllable_counts(word: str) -> list[int]:
    """Distinct syllable counts over all pronunciations, most common first (the order CMUdict
    lists its pronunciations in: the usual one first).

    Unknown words get one count from the spelling rules (see docs); never 0 for a word with
    letters.  A string with no letters or digits gives [0].
    """
    w = _normalise(word)
    prons = _derive(w)
    if prons:
        return _dedupe(_syllables_of(p) for p in prons)
    return _dedupe(len(s) for s in _stress_options(w)) if w else [0]


def stress_patterns(word: str) -> list[str]:
    """One string per distinct pronunciation, a char per syllable: "1" primary, "2" secondary,
    "0" unstressed ("compare" -> ["01"]).  Unknown words: one guess from spelling rules."""
    w = _normalise(word)
    if not w:
        return [""]
    return list(_stress_options(w))


# --------------------------------------------------------------------------------------------
# Verse readings: the syllables a poet may drop or sound
# --------------------------------------------------------------------------------------------

_LIQUIDS_NASALS = frozenset({"L", "R", "N", "M"})


def _contractions(p: Phones) -> list[Phones]:
    """Readings of a pronunciation one syllable shorter, as verse of the period reads them:
    synaeresis (an unstressed vowel next to another vowel: fi-re, pow-er, be-ing, vi-olet) and
    syncope (an unstressed vowel before a liquid or nasal after a consonant: heav'n, ev'ry,
    wand'ring, gen'ral)."""
    vidx = [i for i, ph in enumerate(p) if _is_vowel_phone(ph)]
    if len(vidx) < 2:
        return []
    out = []
    for i in vidx:
        if not p[i].endswith("0"):
            continue
        before = p[i - 1] if i > 0 else ""
        after = p[i + 1] if i + 1 < len(p) else ""
        beside_vowel = (before and _is_vowel_phone(before)) or (after and _is_vowel_phone(after))
        syncope = before and not _is_vowel_phone(before) and (
            _strip_stress(after) in _LIQUIDS_NASALS or p[i] == "ER0") and i != vidx[0]
        if beside_vowel or syncope:
            repl = ("R",) if p[i] == "ER0" else ()
            out.append(p[:i] + repl + p[i + 1:])
    return out


_GLIDES = frozenset({"SH", "ZH", "CH", "JH", "Y"})
_GLIDE_SPELT_AS_VOWEL = re.compile(r"i[aeou]|[cg]e[aou]")


def _diaeresis(w: str, p: Phones) -> Phones | None:
    """The reading one syllable longer that sounds a spelt i or e the modern word glides over
    (diaeresis: na-ti-on, tran-si-ent, spa-ci-ous, Sav-i-our, o-ce-an), or None."""
    if not _GLIDE_SPELT_AS_VOWEL.search(w):
        return None
    for i in range(1, len(p)):
        if _is_vowel_phone(p[i]) and p[i].endswith("0") and _strip_stress(p[i - 1]) in _GLIDES:
            return p[:i] + ("IH0",) + p[i:]
    return None


@functools.lru_cache(maxsize=1 << 16)
def _verse_stress(w: str) -> tuple[str, ...]:
    """Stress strings of a word as verse may read it: its own, one syllable fewer (synaeresis,
    syncope; -est/-eth heard as -'st/-'th), one more (diaeresis: na-ti-on), or a silent -ed
    sounded (belovèd)."""
    prons = _derive(w)
    own = _stress_options(w)
    if not prons and w.endswith(("est", "eth")):          # owest, wanderest: a verb's 2nd person
        stem = next((x for x in (w[:-3], w[:-3] + "e", w[:-2]) if _derive(x)), None)
        if stem:
            return tuple(_dedupe([st + "0" for st in _stress_options(stem)]
                                 + list(_stress_options(stem))))
    if not prons:
        if w.endswith("ed") and len(w) > 3 and w[-3] not in "tde":     # a word CMUdict lacks
            return tuple(_dedupe(list(own) + [st + "0" for st in own]))   # (throned, bewailed)
        if _letters(w) and "-" not in w and "'" not in w:
            prons = _compound(_bare(w))                    # beauteous: made of known words
        if not prons:
            return own
    extra = []
    for p in prons:
        extra += [_stress_of(q) for q in _contractions(p)]
        longer = _diaeresis(w, p)
        if longer:
            extra.append(_stress_of(longer))
        if w.endswith(("est", "eth")) and len(p) > 2 and p[-3] in ("IH0", "AH0", "EH0"):
            extra.append(_stress_of(p[:-3] + p[-2:]))            # ow'st, know'st, doth
        if w.endswith("ed") and p[-1] in ("D", "T") and (
                not _is_vowel_phone(p[-2]) or p[-2] in ("ER0", "IY0")):
            extra.append(_stress_of(p) + "0")          # the -ed sounded (vexèd, rememberèd, burièd)
    return tuple(_dedupe(list(own) + [e for e in extra if e]))


def verse_stress_patterns(word: str) -> list[str]:
    """``stress_patterns`` plus the readings verse allows (see ``_verse_stress``): 'fire' 1 or
    10, 'heaven' 10 or 1, 'owest' 1 or 10, 'vexed' 1 or 10. For checking written verse; the
    writer's own syllable counts (``syllable_counts``) stay the dictionary's."""
    w = _normalise(word)
    if not w:
        return [""]
    return list(_verse_stress(w))


# --------------------------------------------------------------------------------------------
# Rhyme
# --------------------------------------------------------------------------------------------

RHYME_SYSTEMS = ("perfect", "slant")
_SYSTEM_ALIASES = {
    "perfect": "perfect", "perfect rhyme": "perfect", "full": "perfect", "full rhyme": "perfect",
    "strict": "perfect", "true": "perfect", "true rhyme": "perfect", "exact": "perfect",
    "slant": "slant", "slant rhyme": "slant", "near": "slant", "near rhyme": "slant",
    "half": "slant", "half rhyme": "slant", "imperfect": "slant", "imperfect rhyme": "slant",
    "loose": "slant",
}


def resolve_rhyme_system(name: str) -> str:
    """Canonical rhyme system name: "perfect" or "slant" (case, spaces, '-'/'_' ignored)."""
    key = re.sub(r"[\s_\-]+", " ", str(name)).strip().lower()
    if key in _SYSTEM_ALIASES:
        return _SYSTEM_ALIASES[key]
    names = ", ".join(sorted(_SYSTEM_ALIASES))
    raise ValueError(f"unknown English rhyme system {name!r}; accepted names: {names}")


def _key_from_phones(p: Phones, system: str, syllables: int) -> str | None:
    vidx = [i for i, ph in enumerate(p) if _is_vowel_phone(ph)]
    if len(vidx) < syllables or not vidx:
        return None
    stressed = [i for i in vidx if p[i][-1] in "12"]
    last = stressed[-1] if stressed else vidx[-1]
    start = min(last, vidx[-syllables])
    if system == "perfect":
        return " ".join(_strip_stress(ph) for ph in p[start:])
    if syllables == 1:
        return _strip_stress(p[last])
    return " ".join(_strip_stress(ph) for ph in p[start:] if _is_vowel_phone(ph))


def _guess_rime_start(letters: str, syllables: int) -> int | None:
    """Index of the nucleus a rhyme of an unknown word starts at: the last guessed stressed
    nucleus, or the one ``syllables`` from the end if that is earlier; None if too short."""
    nuc = _nuclei(letters)
    if not nuc or len(nuc) < syllables:
        return None
    stress = _guess_stress(letters)
    if len(stress) != len(nuc):
        stress = "1" * len(nuc)
    stressed = [i for i, c in enumerate(stress) if c in "12"]
    last = stressed[-1] if stressed else len(nuc) - 1
    return min(last, len(nuc) - syllables)


@functools.lru_cache(maxsize=1 << 16)
def _fallback_keys(w: str, system: str, syllables: int) -> frozenset[str]:
    """Keys for a word with no dictionary pronunciation.

    Borrowed from the dictionary words with the longest common spelling ending, provided that
    ending covers the whole guessed rhyming part of the word and the borrowed key has as many
    vowels as that part has syllables; else a spelling key marked with "~".
    """
    letters = _letters(w)
    first = _guess_rime_start(letters, syllables)
    if first is None:
        return frozenset()
    nuc = _nuclei(letters)
    rime = letters[nuc[first][0]:]
    n_vowels = len(nuc) - first
    rev_words, fwd_words = _suffix_index()
    target = letters[::-1]
    i = bisect.bisect_left(rev_words, target)

    def lcp(j: int) -> int:
        k = 0
        for a, b in zip(rev_words[j], target):
            if a != b:
                break
            k += 1
        return k

    best = max((lcp(j) for j in (i - 1, i) if 0 <= j < len(rev_words)), default=0)
    if best >= len(rime):
        analogs = []
        j = i - 1
        while j >= 0 and lcp(j) >= best and len(analogs) < 12:
            analogs.append(fwd_words[j])
            j -= 1
        j = i
        while j < len(rev_words) and lcp(j) >= best and len(analogs) < 24:
            analogs.append(fwd_words[j])
            j += 1
        votes: Counter[str] = Counter()
        for a in sorted(analogs, key=len):      # ties go to the shortest analogue
            for p in _cmu_get(a)[:1]:
                pk = _key_from_phones(p, "perfect", syllables)
                if pk is None or sum(x in _VOWEL_PHONES for x in pk.split()) != n_vowels:
                    continue
                votes[_key_from_phones(p, system, syllables)] += 1
        if votes:
            return frozenset([votes.most_common(1)[0][0]])
    if system == "perfect":
        return frozenset(["~" + rime])
    if syllables == 1:
        a, b = nuc[first]
        return frozenset(["~" + letters[a:b]])
    return frozenset(["~" + " ".join(letters[x:y] for x, y in nuc[first:])])


# A final unstressed syllable promoted to a rhyme (OR-na-MENT, MEM-o-RY), read from its spelling
# as Early Modern English said it: final -y was /əi/ (memory rhymes with die, eye); a vowel
# letter before a consonant and a silent e is long (temperate with date).
_LONG = {"a": "EY", "e": "IY", "i": "AY", "o": "OW", "u": "UW"}
_SHORT = {"a": "AE", "e": "EH", "i": "IH", "o": "AA", "u": "AH"}


def _period_keys(w: str, prons: tuple[Phones, ...]) -> set[str]:
    """Slant keys a reader of the period hears besides the modern ones: a promoted final
    unstressed syllable (memory/die, ornament/content, temperate/date) and the eye rhymes that
    were rhymes then (love/prove, come/home, blood/good: the same spelt rime)."""
    letters = _letters(w)
    out: set[str] = set()
    # a final unstressed syllable (or any, for a word the dictionary does not know)
    promotable = not prons and len(_nuclei(letters)) > 1 or any(
        len([ph for ph in p if _is_vowel_phone(ph)]) > 1 and [ph for ph in p if _is_vowel_phone(ph)][-1].endswith("0")
        for p in prons)
    if promotable:
        if re.search(r"[^aeiou](y|ie|ies)$", letters):
            out |= {"AY", "IY"}
        else:
            m = re.search(r"([aeiou])([^aeiouy]+)(e?)s?$", letters)
            if m:
                out.add((_LONG if m.group(3) and len(m.group(2)) == 1 else _SHORT)[m.group(1)])
    out |= _spelling_keys(w)
    for p in prons:
        coda = _coda(p)
        if coda:
            out.add("C:" + coda)
    return out


def _coda(p: Phones) -> str:
    """The consonants after a pronunciation's last vowel (ER counts as a vowel and an R)."""
    vidx = [i for i, ph in enumerate(p) if _is_vowel_phone(ph)]
    if not vidx:
        return ""
    tail = [_strip_stress(x) for x in p[vidx[-1] + 1:]]
    if _strip_stress(p[vidx[-1]]) == "ER":
        tail = ["R"] + tail
    return " ".join(tail)


def _spelling_keys(w: str) -> set[str]:
    """The eye rhyme: the spelt rime of the last syllable (love/prove, alone/one, spring/
    niggarding, offence/defence), marked with "~"."""
    letters = _letters(w)
    m = re.search(r"([aeiou]+[^aeiouy]*e?s?)$", letters) if letters else None
    return {"~" + m.group(1)} if m and len(m.group(1)) >= 2 else set()


@functools.lru_cache(maxsize=1 << 17)
def _rhyme_keys(w: str, system: str, syllables: int) -> frozenset[str]:
    keys = _modern_rhyme_keys(w, system, syllables)
    if system == "slant" and syllables == 1 and _letters(w):
        prons = _derive(w) or _rhyme_compound(w)
        keys = keys | _period_keys(w, prons)
    return keys


def _modern_rhyme_keys(w: str, system: str, syllables: int) -> frozenset[str]:
    prons = _derive(w)
    if prons:
        keys = {_key_from_phones(p, system, syllables) for p in prons}
        return frozenset(k for k in keys if k is not None)
    parts = _parts_unknown(w)
    if parts:
        return _rhyme_keys(parts[-1], system, syllables)
    if not _letters(w):
        return frozenset()
    compound = _rhyme_compound(w)
    if compound:
        keys = (_key_from_phones(p, system, syllables) for p in compound)
        return frozenset(k for k in keys if k is not None)
    return _fallback_keys(_rhyme_spelling(w), system, syllables)


def rhyme_keys(word: str, system: str = "perfect", syllables: int = 1) -> frozenset[str]:
    """Rhyme keys of every pronunciation of ``word``; two words rhyme if they share a key.

    perfect: the phones (stress digits stripped) from the last stressed vowel to the end, e.g.
    "day" -> {"EY"}, "compare" -> {"EH R"}.  With syllables=n the key starts at the vowel n
    syllables from the end, or earlier if the last stressed vowel is earlier ("bending",
    syllables=2 -> {"EH N D IH NG"}); words with fewer than n syllables have no keys.
    slant: the last stressed vowel alone ("time" -> {"AY"}); with syllables=n the vowels of that
    same span ("bending" -> {"EH IH"}).
    Unknown words borrow the key of the dictionary word with the longest common spelling ending
    (at least their last spelt syllable), else get a spelling key starting with "~".
    """
    if syllables < 1:
        raise ValueError("syllables must be >= 1")
    return _rhyme_keys(_normalise(word), resolve_rhyme_system(system), int(syllables))


def rhymes(a: str, b: str, system: str = "perfect", syllables: int = 1) -> bool:
    """True if some pronunciation of ``a`` and some of ``b`` share a rhyme key.

    The same word twice (case, apostrophe style ignored) is an identical rhyme: False in every
    system.  Homophones and rime riche ("right"/"write", "leave"/"believe") do count.
    """
    na, nb = _normalise(a), _normalise(b)
    if not na or not nb or na == nb:
        return False
    return bool(rhyme_keys(na, system, syllables) & rhyme_keys(nb, system, syllables))


# --------------------------------------------------------------------------------------------
# Lines and metre
# --------------------------------------------------------------------------------------------

# Final unstressed vowels that verse runs into a vowel starting the next word (synaloepha):
# the -y of *many a*, *glory and* (a glide, man-ya) and the schwa of *-a*.
_SYNALOEPHA_VOWELS = frozenset({"IY0", "IH0", "AH0"})


def _starts_with_vowel(word: str) -> bool:
    prons = _derive(_normalise(word))
    if prons:
        return any(_is_vowel_phone(p[0]) for p in prons)
    return word[:1].lower() in "aeio"


def _synaloepha(word: str) -> bool:
    """Does the word end in an unstressed vowel verse may run into the next word's vowel?"""
    prons = _derive(_normalise(word))
    return any(len(p) > 1 and p[-1] in _SYNALOEPHA_VOWELS and _syllables_of(p) > 1 for p in prons)


# Slurs the old books of the corpus print (minstrel songs, dialect verse): no writer here wants one
# written or offered, so the engine never writes them and Rhymes and Words never lists them.
SLURS = frozenset("""
    nigger niggers nigga niggas niggah darkey darkeys darkie darkies darky pickaninny pickaninnies
    sambo sambos coon coons kike kikes spic spics wetback wetbacks gook gooks injun injuns redskin
    redskins dago dagos wop wops chink chinks squaw squaws
""".split())


# Words that carry grammar rather than meaning (articles, pronouns, prepositions, conjunctions,
# auxiliaries, determiners, the commonest adverbs of time, place and degree). Every writer has them
# to hand, so a list of words for a slot shows them after the content words.
FUNCTION_WORDS = frozenset("""
    a an the
    i me my mine myself we us our ours ourselves you your yours yourself yourselves thou thee thy
    thine thyself ye he him his himself she her hers herself it its itself they them their theirs
    themselves one who whom whose which what that this these those
    of to in on at by for with from into onto upon unto about above across after against along
    among amongst around before behind below beneath beside besides between betwixt beyond down
    during except inside near off out outside over past since through throughout till toward
    towards under underneath until up within without
    and or but nor so yet if as than because though although while whilst whether unless lest
    whereas
    am is are was were be been being have has had having do does did doing done
    shall should would could must ought
    not no also too very just only even quite rather such some any each every either neither
    both all few many much more most less least other another own same
    there here then now when where why how thus hence whence thence
    o oh ah eh
""".split())

# The function words said unstressed (clitics). At a line end the stress falls on the rhyme, so a
# rhyme on one of these is weak ("a" rhymes with "day" only as the letter's name, "of" with "love"
# only by the dictionary); the function words that take the stress end lines well and rhyme
# for real (above / love, here / near, now / how), and in a list of rhymes they stand with the
# content words. A subset of FUNCTION_WORDS.
UNSTRESSED_WORDS = frozenset("""
    a an the
    i me my we us our you your thou thee thy ye he him his she her it its they them their who
    which that
    of to in on at by for with from as into unto onto
    and or but nor if than
    am is are was were be been have has had do does did shall should would could must
    not some
""".split())


# Words no reading stresses: a metre that sets one on a beat is a poor reading of the line, and a
# template read from it asks nothing of the new words there (lyrics.py).
ARTICLES = frozenset({"a", "an", "the"})
_NEVER_STRESSED = "-"      # an article's sung stress in a scan (``_beat_agreement``)

# The modal verbs that are also nouns ("thy will", "the month of May", "a can") and so are no
# FUNCTION_WORDS; as auxiliaries ("I will wait", "you can go") they are said unstressed, so a scan
# lets them take either beat.
_MODAL_VERBS = frozenset({"will", "can", "may", "might"})


# Prepositions and conjunctions of two syllables: function words, whose stress verse (and a
# tune) may set on either syllable or neither, as it does a monosyllable's (MORE a-bout JE-sus,
# I will COM-ment up-on THAT of-FENCE).
_LIGHT_FUNCTION_WORDS = frozenset(
    "about above across after against along among amongst around before behind below beneath "
    "beside besides between betwixt beyond into onto unto upon within without until unless "
    "toward towards over under".split())


@functools.lru_cache(maxsize=1 << 16)
def _sung_stress(w: str) -> tuple[str, ...]:
    pats = _stress_options(w) or ("",)
    if w in _LIGHT_FUNCTION_WORDS:
        return tuple(_dedupe("_" * len(p) for p in pats))
    out = []
    for p in pats:
        if len(p) == 1:
            p = "0" if w in UNSTRESSED_WORDS else "_" if w in FUNCTION_WORDS else "1"
        else:
            p = p.replace("2", "_")
        out.append(p)
    return tuple(_dedupe(out))


def sung_stress_patterns(word: str) -> list[str]:
    """How a word's syllables weigh against a tune's beats: one string per reading (those of
    ``stress_patterns``, in its order), a character per syllable: "1" stressed (wants the stronger
    beat), "0" unstressed (the weaker), "_" either. A monosyllable is stressed when it carries
    meaning ("love", "sky"), unstressed when it is one of UNSTRESSED_WORDS ("a", "the", "of",
    "and", "is" ...), either for the other function words ("now", "here", "no"); a preposition
    or conjunction of two syllables ("about", "upon") takes either on every syllable, as the metre
    lets it; a longer word keeps CMUdict's primary stress as "1" and its unstressed syllables as
    "0", a secondary stress taking either ("moonlight" "1_")."""
    w = _normalise(word)
    return list(_sung_stress(w)) if w else [""]


def _open_of(phones: Phones) -> str:
    vowels = [i for i, p in enumerate(phones) if _is_vowel_phone(p)]
    out = []
    for k, i in enumerate(vowels):
        end = vowels[k + 1] if k + 1 < len(vowels) else len(phones)
        coda = list(phones[i + 1:end])
        if k + 1 < len(vowels) and coda:
            coda = coda[:-1]               # the consonant before the next vowel begins its syllable
        out.append("c" if any(c != "R" for c in coda) else "o")
    return "".join(out)


def open_syllables(word: str) -> list[str]:
    """Whether each syllable of a word is open (ends in its vowel) or closed (ends in a
    consonant), one string per pronunciation (``pronunciations``' order), a character per
    syllable: "o" open, "c" closed. Between two vowels the last consonant starts the next syllable
    (win-dow: "co"; mo-ther: "oo"); an r after a vowel colours it and leaves it open (far, hair,
    morning: sung on the vowel). [] for a word whose pronunciation would be a guess."""
    return _dedupe(_open_of(p) for p in _derive(_normalise(word)))


def _word_options(line: str, verse: bool) -> list[list[str]]:
    """Per word of the line, its stress strings; with ``verse`` also the verse readings, and a
    vowel ending a word may run into one starting the next (synaloepha): 'the' elided (th'
    expense), an unstressed final -y or -a merged (*many a* two syllables, *glory and*); a
    preposition or conjunction of two syllables is as free as a monosyllable (*about*, *upon*)."""
    toks = words(line)
    if not verse:
        return [stress_patterns(t) for t in toks]
    out = []
    for k, tok in enumerate(toks):
        opts = verse_stress_patterns(tok)
        nxt = toks[k + 1] if k + 1 < len(toks) else ""
        if _normalise(tok) in _LIGHT_FUNCTION_WORDS:
            opts = _dedupe(opts + ["0" * len(o) for o in opts])
        if nxt and _starts_with_vowel(nxt):
            if tok.lower() == "the":
                opts = opts + [""]
            elif _synaloepha(tok):
                opts = _dedupe(opts + [o[:-1] for o in opts if len(o) > 1 and o.endswith("0")])
        out.append(opts)
    return out


def line_syllables(line: str, verse: bool = False) -> list[int]:
    """All possible total syllable counts of a line, sorted (every combination of the words'
    counts; the set of totals is small, so nothing is lost to a cap). ``verse``: count the
    readings verse allows too (``verse_stress_patterns``)."""
    totals = {0}
    if not verse:
        for tok in words(line):
            counts = syllable_counts(tok)
            totals = {t + c for t in totals for c in counts}
        return sorted(totals)
    for opts in _word_options(line, True):
        totals = {t + len(o) for t in totals for o in opts}
    return sorted(totals)


def line_stress(line: str, limit: int = LINE_STRESS_LIMIT) -> list[str]:
    """Possible stress strings of a line (concatenated word patterns), at most ``limit``.

    The first string uses every word's first (most usual) pronunciation.
    """
    options = [stress_patterns(t) for t in words(line)]
    if not options:
        return [""]
    out: list[str] = []
    seen: set[str] = set()
    for n, combo in enumerate(itertools.product(*options)):
        s = "".join(combo)
        if s not in seen:
            seen.add(s)
            out.append(s)
            if len(out) >= limit:
                break
        if n > limit * 64:
            break
    return out


_METER_CHARS = frozenset("x/_")


def _clean_pattern(pattern: str) -> str:
    pat = re.sub(r"[\s|]+", "", pattern)
    bad = set(pat) - _METER_CHARS
    if bad:
        raise ValueError(f"metre pattern may contain only 'x', '/', '_' (and spaces or '|'); "
                         f"got {''.join(sorted(bad))!r}")
    return pat


def _word_fits(stress: str, seg: str) -> bool:
    if len(stress) <= 1:
        return True                       # monosyllables take either position
    primaries = [i for i, c in enumerate(stress) if c == "1"]
    if not primaries:
        return True
    if "0" not in stress:
        # spondaic words, every syllable stressed ("well-known" 11, "sometime" 12, "moonlight"
        # 12): the beat may fall on any of them
        return any(c != "x" for c in seg)
    # several primaries: one of them on a beat is enough
    return any(seg[i] != "x" for i in primaries)


def metre_variants(pattern: str, feminine: bool = False) -> list[str]:
    """The pattern and the standard substitutions of accentual-syllabic verse: one foot of two
    syllables inverted anywhere but in the last foot (a trochee for an iamb: *Rough winds*,
    *Never*; an iamb for a trochee), or the first foot and one more not next to it, and, with
    ``feminine``, an extra unstressed syllable after a final stress (a feminine ending)."""
    pat = _clean_pattern(pattern)
    out = [pat]
    starts = [i for i in range(0, len(pat) - 2, 2) if pat[i:i + 2] in ("x/", "/x")]

    def inverted(p: str, i: int) -> str:
        return p[:i] + p[i:i + 2][::-1] + p[i + 2:]

    out += [inverted(pat, i) for i in starts]
    # an inverted first foot may be joined by one more, not next to it (Richer than wealth,
    # prouder than garments' cost; Jesus, my Lord, mighty to save)
    if starts and starts[0] == 0:
        out += [inverted(inverted(pat, 0), i) for i in starts if i >= 4]
    if feminine and pat.endswith("/"):
        out += [v + "x" for v in out]
    return _dedupe(out)


def metre_patterns(n: int) -> list[str]:
    """The metres a line of n syllables is tried against, in order: iambic, trochaic, then (six
    syllables or more) anapestic, dactylic and amphibrachic, as hymns in 11.10.11.10 and ballads
    have them."""
    out = [("x/" * n)[:n], ("/x" * n)[:n]]
    if n >= 6:
        out += [("xx/" * n)[:n], ("/xx" * n)[:n], ("x/x" * n)[:n]]
    return out


METRE_LINE_SYLLABLES = (4, 16)   # lines shorter or longer are not given a metre


def line_metre(line: str, n: int) -> str | None:
    """The metre of ``metre_patterns(n)`` the line, read in n syllables, reads to best, or None:
    none fits, or n is outside METRE_LINE_SYLLABLES (``scan_words``). The training corpus's lines
    are given their metre this way."""
    return scan_words(words(line), total=n)[1]


# a line read in other than its usual syllables (our, hour, ev'ry, pow'r) must read to its metre
# at least this well, and this much better than in its usual syllables (agreement per syllable,
# ``_beat_agreement``): chosen on the dev and test hymns' 1,202 lines, where it keeps
# "On then, Christian soldiers" and "In this thine house of prayer" as sung
SCAN_OTHER_LENGTH = (0.5, 0.15)


def scan_words(line_words: list[str], total: int | None = None) -> tuple[list[int], str | None]:
    """How a line of words is best read: per word its syllables, and the metre of
    ``metre_patterns`` it reads to (None: none, or a length outside METRE_LINE_SYLLABLES).

    A reading takes one pronunciation of each word (``stress_patterns``, the usual first) and fits
    a metre when every polysyllable's primary stress falls on a beat (``fits_meter``'s rule).
    Monosyllables fit either beat, so a line of them fits several metres; the reading and metre
    whose beats fall on the most stressed words and off the most unstressed ones
    (``sung_stress_patterns``), per syllable, win, the usual reading and the earlier metre on a
    tie: "We know not the time when He cometh" is amphibrachs, not iambs, and "O God, our
    help in ages past" eight syllables of iambs ("our" in one), not nine of trochees. A reading
    of other than the usual syllables is taken only where it scans clearly better
    (SCAN_OTHER_LENGTH). ``total``: only readings of that many syllables."""
    stress = [stress_patterns(w) or [""] for w in line_words]
    usual = [len(sts[0]) for sts in stress]
    best = _best_scans(line_words, stress, sum(usual) if total is None else total)
    found = best.get(sum(usual) if total is None else total)
    if total is None and best:
        other = max(best.values(), key=lambda b: b[0])
        if other[0] >= SCAN_OTHER_LENGTH[0] and other[0] >= (found[0] if found else 0.0) + SCAN_OTHER_LENGTH[1]:
            found = other
    return (found[1], found[2]) if found else (usual, None)


def _best_scans(line_words: list[str], stress: list[list[str]], first: int) -> dict:
    """Per line length reachable by the words' readings (within METRE_LINE_SYLLABLES), the best
    (score per syllable, counts, metre) of ``scan_words``; the length ``first`` is tried first, so
    a tie between lengths keeps it."""
    sung = [list(_heard_readings(w)) for w in line_words]
    end_stressed = bool(sung) and _ends_on_stress(line_words[-1])
    if sung:     # a line's last word takes the beat its rhyme gives it ("That saved a wretch like me")
        sung[-1] = ["1" if end_stressed and len(sg) == 1 else "_" if sg == "0" else sg for sg in sung[-1]]
    totals = {0}
    for sts in stress:
        totals = {t + len(st) for t in totals for st in sts if t + len(st) <= METRE_LINE_SYLLABLES[1]}
    out: dict[int, tuple[float, list[int], str]] = {}
    for n in sorted(totals, key=lambda t: (t != first, t)):
        if n < METRE_LINE_SYLLABLES[0]:
            continue
        for pattern in metre_patterns(n):
            got = _scan_to(stress, sung, pattern)
            # a stressed monosyllable ending the line (the rhyme) takes the last beat, whatever
            # the words before it weigh: "I will wait here by the shore" is /x/x/x/, never
            # x/x/x/x with the rhyme unstressed; a line no metre reads so has none of them
            if got is None or (end_stressed and got[1][-1] == 1 and not pattern.endswith("/")):
                continue
            if n not in out or got[0] / n > out[n][0]:
                out[n] = (got[0] / n, got[1], pattern)
    return out


def _ends_on_stress(word: str) -> bool:
    """Whether a line's last word, said in one syllable, takes the line's last beat: a content
    word or a function word that can carry stress ("shore", "more", "here"; the rhyme falls on
    it), not one said unstressed ("me", "the")."""
    w = _normalise(word)
    return bool(w) and w not in UNSTRESSED_WORDS and any(len(st) == 1 for st in stress_patterns(w))


def _scan_to(stress: list[list[str]], sung: list[list[str]], pattern: str) -> tuple[int, list[int]] | None:
    """The reading of the words that fits ``pattern`` with the most beat agreement: (agreement,
    syllables per word), or None when none fits. A walk over the syllable positions, each word's
    readings in order, so a tie keeps the usual ones."""
    best: dict[int, tuple[int, list[int]]] = {0: (0, [])}
    for sts, sgs in zip(stress, sung):
        nxt: dict[int, tuple[int, list[int]]] = {}
        for at, (score, counts) in best.items():
            for st, sg in zip(sts, sgs):
                end = at + len(st)
                if end > len(pattern) or not _word_fits(st, pattern[at:end]):
                    continue
                got = score + _beat_agreement(sg, pattern[at:end])
                if end not in nxt or got > nxt[end][0]:
                    nxt[end] = (got, counts + [len(st)])
        if not nxt:
            return None
        best = nxt
    return best.get(len(pattern))


@functools.lru_cache(maxsize=1 << 16)
def _heard_readings(word: str) -> tuple[str, ...]:
    """The sung stress of each of the word's readings (``stress_patterns``, in their order); an
    unstressed word is heard so in every reading ("our" in two syllables is no stressed word)."""
    stresses = stress_patterns(word) or [""]
    w = _normalise(word)
    if w in ARTICLES:
        return tuple(_NEVER_STRESSED * len(st) for st in stresses)
    if w in UNSTRESSED_WORDS:
        return tuple("0" * len(st) for st in stresses)
    if w in _MODAL_VERBS:
        return tuple("_" * len(st) for st in stresses)
    sung = sung_stress_patterns(word)
    if len(sung) == len(stresses):
        return tuple(sung)
    return tuple(next((sg for sg in sung if len(sg) == len(st)), "_" * len(st)) for st in stresses)


@functools.lru_cache(maxsize=1 << 14)
def _beat_agreement(heard: str, pattern: str) -> int:
    """Syllables whose sung stress ("1", "0", "_" either, "-" never stressed) agrees with the
    metre's beat less those that disagree; a never-stressed word on a beat counts twice, so of
    two metres that weigh alike the one that leaves "the" off the beat wins."""
    agree = sum((c == "1" and b == "/") or (c in "0-" and b == "x") for c, b in zip(heard, pattern))
    return agree - sum((c == "1" and b == "x") or (c == "0" and b == "/") or 2 * (c == "-" and b == "/")
                       for c, b in zip(heard, pattern))


def fits_meter(line: str, pattern: str, verse: bool = False) -> bool:
    """Can the line be read to ``pattern`` ("x" unstressed, "/" stressed, "_" either)?

    Some choice of pronunciations must give exactly len(pattern) syllables.  Monosyllables fit
    any position; a polysyllable's primary stress must fall on "/" or "_" (its unstressed and
    secondary syllables may fall anywhere).  Spaces and "|" in the pattern are ignored.
    ``verse``: the words may take the readings verse allows (``verse_stress_patterns``).
    """
    pat = _clean_pattern(pattern)
    reach = {0}
    for options in _word_options(line, verse):
        nxt = set()
        for pos in reach:
            for st in options:
                end = pos + len(st)
                if end <= len(pat) and _word_fits(st, pat[pos:end]):
                    nxt.add(end)
        if not nxt:
            return False
        reach = nxt
    return len(pat) in reach

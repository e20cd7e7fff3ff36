"""Rhymes and Words for English, with or without a model: what fits a slot of an English template,
from CMUdict through ``songwriter.prosody.english`` (the checks' own readings).

    from songwriter.engine.words_en import english_words, rhymes_for
    english_words(template, text, line=3, slot=6)        # words that fit there, best first
    rhymes_for("day", syllables=2, stress="x/")           # perfect, then slant rhymes

Words come from the loaded English model's vocabulary when an engine is passed, else from the
word list the app ships (``assets/en_words.txt``: the 16,000 commonest words of the English
training corpus, most frequent first, written by ``write_word_list``). Without a model a word's
score is its frequency; with one, its log-probability at the slot in the context of the text
around it (the engine's ``suggest``, when the engine has one for English).

The order is what a writer looking for a word wants (``_ranked``), the score deciding only
within a rank: at a line end, the words that end the line on a rhyme before the shorter ones
that leave room for one; content words, perfect rhymes before slant ones; then weak rhymes:
identical ones (the same sound from the consonant before the vowel: day / today / birthday),
which rhyme by the dictionary but not to the ear, and words that rhyme only in a reading other
than their usual one; then function words (a writer knows them; as rhymes, the unstressed ones:
"a" rhymes with "day" only as the letter's name); then tokens that are no English words (de,
roman numerals, stray letters). A rhyme word itself is never offered as its own rhyme, and a
hyphenated spelling (to-day) gives way to the joined one (today) when both are there.

No torch; numpy only. The tables are made once per word list (a few seconds) and kept.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from songwriter.prosody.english import FUNCTION_WORDS, UNSTRESSED_WORDS  # noqa: F401  (their home)

WORD_LIST = Path(__file__).resolve().parents[2] / "assets" / "en_words.txt"


@dataclass(frozen=True)
class WordChoice:
    word: str
    syllables: int          # the syllables it fills at the slot
    rhyme: str = ""         # at a rhyme slot: "perfect" or "slant"; "" elsewhere
    score: float = 0.0      # higher first: -(frequency rank) without a model, log-prob with one


# Tokens of the corpus that no writer of English wants offered: foreign particles of names and
# quotations (de, la, von, que, est), Scots spellings (nae, frae), stray letters and roman numerals
# (a corpus of old books numbers its poems). The model ranks some of them high in context (it saw
# them in French and Latin lines), so they are named here rather than left to the score. They go
# to the bottom of a list, not out of it: a song may want its la-la-la.
_NOT_ENGLISH = frozenset(
    "de la le les du des et el del di da von van der den und ich que qui pas est un une en il je ce "
    "au fu er ne nae sae frae gae ane twa wi".split()
    # Scots and dialect spellings of the corpus's songs, which the model strings into pastiche
    # ("O gin my mother be, / O wadna she!", "An'a the sight o' the woman": runs/blind/en-6,
    # "Scots imitation with no sense" to all three readers); as the vocabulary spells them
    + "a' an' o' wi' fu' lo'e gi'e ha'e ca' wad wadna canna dinna winna didna couldna wouldna "
      "shouldna isna wasna hae hame awa wha whare gie gied ken kens kent ilka mony ony amang aboon "
      "ahint atween auld lang syne bairn bairns braw brae braes een ither mair maist mither muckle "
      "nane naething oot owre sair thegither wae weel wus gin lassie laddie".split()
    # and more of Burns's ("There's monie a beautiful creature": runs/blind/rr-83, "imitates Scots
    # song"); bonny, mickle and laird are English verse's too
    + "monie bonie ain tae doon roun ance cauld fou gowd loe luve mak maun nicht tak wark gane gaed "
      "whan".split()
    # and the minstrel dialect of some of its hymns and songs ("Oh, I'se gwine back to heaven":
    # runs/blind/hy3-43, "imitates spiritual dialect" to all three readers)
    + "gwine i'se dat dis dey dem wid ob dar dere wuz lak dese dose jes ter fer ez chillun massa".split())
_ONES = ("", "i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix")
_ROMAN = frozenset(("", "x", "xx", "xxx")[n // 10] + _ONES[n % 10] for n in range(2, 40))


def is_junk(word: str) -> bool:
    """A token of the word list that is no English word a writer would choose."""
    w = word.lower()
    if w in _NOT_ENGLISH or w in _ROMAN:
        return True
    if len(w) == 1 and w not in ("a", "i", "o"):
        return True
    return not any(c in "aeiouy" for c in w)      # st, th, nth: abbreviations, not words


@lru_cache(maxsize=4096)
def _onset_rhymes(word: str) -> frozenset[tuple[str, str]]:
    """Each perfect rhyme key of ``word`` with the consonant before it ("" for none): two words
    that share one (day, today) are an identical rhyme, the same sound twice."""
    from songwriter.prosody import english

    keys = english.rhyme_keys(word, "perfect")
    out = set()
    for pron in english.pronunciations(word):
        phones = [p.rstrip("012") for p in pron.split()]
        for key in keys:
            k = key.split()
            if len(k) <= len(phones) and phones[len(phones) - len(k):] == k:
                out.add((phones[len(phones) - len(k) - 1] if len(phones) > len(k) else "", key))
    return frozenset(out)


@lru_cache(maxsize=4096)
def _usual_rhymes(word: str) -> frozenset[str] | None:
    """The perfect rhyme keys of the word's first (usual) reading in the dictionary; None when
    the dictionary does not know it."""
    from songwriter.prosody import english

    prons = english.pronunciations(word)
    if not prons:
        return None
    phones = [p.rstrip("012") for p in prons[0].split()]
    return frozenset(key for key in english.rhyme_keys(word, "perfect")
                     if phones[max(0, len(phones) - len(key.split())):] == key.split())


def _weak_rhyme(word: str, partners: tuple[str, ...]) -> bool:
    """Is ``word``, a perfect rhyme of ``partners`` by the dictionary, a weak one: an identical
    rhyme, or one only in a reading other than its usual one (resume read as résumé)?"""
    from songwriter.prosody import english

    mine = _onset_rhymes(word)
    if any(mine & _onset_rhymes(p) for p in partners):
        return True
    usual = _usual_rhymes(word)
    return usual is not None and not any(usual & english.rhyme_keys(p, "perfect") for p in partners)


def is_old_spelling(word: str) -> bool:
    """A spelling of the corpus's old printings that the dictionary has in its modern form: a
    silent e added (growes: grows, selfe: self, sunne: sun, feare: fear) or u and v the other way
    round (loue: love, vpon: upon). The prosody reads some of them (by the stem), but no writer of
    today wants one offered. A word CMUdict itself lists is never one (owe, axe)."""
    from songwriter.prosody import english

    w = word.lower()
    if len(w) < 4 or not w.isalpha() or _cmudict_lists(w):
        return False
    for i, c in enumerate(w):
        if c in "uv" and _cmudict_lists(w[:i] + ("v" if c == "u" else "u") + w[i + 1:]):
            return True
    stem = w[:-1] if w.endswith("es") else w       # growes: growe, as selfe
    if not stem.endswith("e"):
        return False
    ending = w[len(stem):]
    bases = [b for b in [stem[:-1]] + ([stem[:-2]] if stem[-2] == stem[-3] else []) if _cmudict_lists(b + ending)]
    mine = set(english.pronunciations(w))
    if mine:        # read as the modern spelling is (prate is no old spelling of prat, nor lasses of lass)
        return any(mine & set(english.pronunciations(b + ending)) for b in bases)
    # the dictionary cannot read it: the spelling says whether the e is silent (not an e that
    # lengthens the vowel, clime: clim, nor the modern -ce, -se, -ge, -ve, -the: copse, lathe)
    # (a doubled consonant keeps it short: sunne, runne)
    return any(b[-1] not in "aeiou" and (len(b) == len(stem) - 2 or not _lengthening_e(b))
               and not b.endswith(("c", "s", "g", "v", "z", "th")) for b in bases)


def _lengthening_e(m: str) -> bool:
    """Would an e after ``m`` lengthen its vowel (clim-e, crap-e: one vowel letter, then one
    consonant)?"""
    vowels = "aeiou"
    return (len(m) >= 2 and m[-1] not in vowels + "wy" and m[-2] in vowels + "y"
            and (len(m) < 3 or m[-3] not in vowels))


def _cmudict_lists(word: str) -> bool:
    """Does CMUdict itself (not a reading derived from it) list the word?"""
    from songwriter.prosody import english

    english.preload()
    import pronouncing

    return word in pronouncing.lookup


# Where a word stands in a list (lower first), before its score counts (see ``_ranked``); an old
# spelling is left out of every list.
CONTENT, WEAK_RHYME, FUNCTION, JUNK, OLD_SPELLING = 0, 1, 2, 3, 4


@lru_cache(maxsize=4)
def _word_classes(et) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per token of the tables' vocabulary, what does not depend on the slot, made once per word
    list: its standing as a plain word and as a rhyme (CONTENT, FUNCTION or JUNK; a rhyme's
    WEAK_RHYME depends on what it rhymes with), and the id of its spelling without hyphens
    (to-day -> today; -1 when there is none)."""
    tokens = et.vocab.tokens
    stoi = {w: i for i, w in enumerate(tokens)}
    plain = np.zeros(len(tokens), dtype=np.int8)
    as_rhyme = np.zeros(len(tokens), dtype=np.int8)
    joined = np.full(len(tokens), -1, dtype=np.int64)
    for i, w in enumerate(tokens):
        w = w.lower()
        if not any(c.isalpha() for c in w):
            continue                # specials and marks: the slot's fit leaves them out anyway
        if is_junk(w):
            plain[i] = as_rhyme[i] = JUNK
            continue
        if is_old_spelling(w):
            plain[i] = as_rhyme[i] = OLD_SPELLING
            continue
        clipped = "'" in w and w.strip("'") in FUNCTION_WORDS      # an' (and), o' (of)
        plain[i] = FUNCTION if w in FUNCTION_WORDS or clipped else CONTENT
        as_rhyme[i] = FUNCTION if w in UNSTRESSED_WORDS or clipped else CONTENT
        if "-" in w:
            joined[i] = stoi.get(w.replace("-", ""), -1)
    return plain, as_rhyme, joined


def _ranked(et, ids: np.ndarray, kinds: np.ndarray, counts: np.ndarray, scores: np.ndarray,
            partners: tuple[str, ...], syllables: int | None = None, k: int = 40,
            nearness: np.ndarray | None = None) -> list[WordChoice]:
    """The best ``k`` of the words ``ids`` (with their rhyme kinds, syllable counts and scores),
    best first: a rhyme before a word that is none (at a line end the others only leave room for
    one), then by standing (content words, weak rhymes, function words, junk), perfect before
    slant, the nearer slant rhyme first (``nearness`` per vocabulary id, ``_slant_nearness``), a
    word that fills all ``syllables`` before a shorter one, then by score. A partner itself and a
    hyphenated spelling whose joined form is among ``ids`` are left out."""
    plain, as_rhyme, joined = _word_classes(et)
    tokens = et.vocab.tokens
    present = np.zeros(len(tokens), dtype=bool)
    present[ids] = True
    j = joined[ids]
    keep = ~((j >= 0) & present[np.maximum(j, 0)]) & (plain[ids] != OLD_SPELLING)
    own = {p.lower() for p in partners}
    if own:
        keep &= ~np.isin(ids, [i for i, w in enumerate(tokens) if w.lower() in own])
    ids, kinds, counts, scores = ids[keep], kinds[keep], counts[keep], scores[keep]
    near = np.where(kinds == "slant", nearness[ids], 0) if nearness is not None else np.zeros(len(ids), dtype=int)
    is_rhyme = kinds != ""
    standing = np.where(is_rhyme, as_rhyme[ids], plain[ids]).astype(np.int8)
    # the identical-rhyme and usual-reading checks read the dictionary: only for the perfect
    # rhymes that are content words, a few hundred at most
    if partners:
        for n in np.nonzero((kinds == "perfect") & (standing == CONTENT))[0]:
            if _weak_rhyme(tokens[ids[n]].lower(), partners):
                standing[n] = WEAK_RHYME
    kind_rank = np.where(kinds == "perfect", 0, np.where(kinds == "slant", 1, 2))
    short = (counts != syllables) if syllables is not None else np.zeros(len(ids), dtype=bool)
    filler = ~is_rhyme if is_rhyme.any() else np.zeros(len(ids), dtype=bool)
    order = np.lexsort((-scores, short, -near, kind_rank, standing, filler))[:k]
    return [WordChoice(tokens[ids[n]], int(counts[n]), str(kinds[n]), float(scores[n])) for n in order]


def _slant_nearness(et, system: str, words) -> np.ndarray:
    """Per vocabulary id: how many of the slant rhyme keys of ``words`` it shares (the stressed
    vowel, the ending, the last consonant: ``english.rhyme_keys``), summed over the words. A word
    shares one to be a slant rhyme at all; one that shares the vowel and the ending ("trigger":
    river, quicker) is nearer than one that shares the vowel alone ("this") or the last
    consonant ("there"), and one more for a rhyme of as many syllables."""
    from songwriter.prosody import english

    out = np.zeros(len(et.vocab), dtype=np.int64)
    lengths = _rhyme_lengths(et)
    for w in words:
        for key in english.rhyme_keys(w, system):
            out += et.with_keys(system, frozenset([key]))
        # a rhyme as long as the word's own (heaven: given, even; not when, then) is nearer
        mine = sum({1 << _rhyme_syllables(k) for k in english.rhyme_keys(w, "perfect")})
        out += (lengths & mine) > 0
    return out


def _rhyme_syllables(key: str) -> int:
    """Syllables of a perfect rhyme key, from the stressed vowel on ("IH G ER": 2)."""
    from songwriter.engine.encoding_en import EN_VOWELS

    return min(sum(1 for ph in key.split() if ph in EN_VOWELS), 30)


@lru_cache(maxsize=4)
def _rhyme_lengths(et) -> np.ndarray:
    """Per vocabulary id, a bit for each length (``_rhyme_syllables``) of its perfect rhymes."""
    per, _ = et.keys("perfect")
    return np.asarray([sum({1 << _rhyme_syllables(k) for k in keys}) for keys in per], dtype=np.int64)


def write_word_list(vocab_json: str | Path, out: str | Path = WORD_LIST) -> int:
    """The words of an English vocabulary file (most frequent first) that the decoder may write,
    one a line: the app's word list. Returns how many."""
    from songwriter.engine.decode_en import form_of
    from songwriter.engine.vocab_en import EnglishVocab

    v = EnglishVocab.load(vocab_json)
    words = [w for w in v.tokens[v.first_word:] if form_of(w) == w and any(c.isalpha() for c in w)]
    Path(out).write_text("# The commonest words of Songwriter's English training corpus (Gutenberg poetry, "
                         "hymns), most frequent first; written by songwriter.engine.words_en.write_word_list\n"
                         + "\n".join(words) + "\n", encoding="utf-8")
    return len(words)


@lru_cache(maxsize=4)
def _tables_for(words: tuple[str, ...]):
    from songwriter.engine.decode_en import EnglishTables
    from songwriter.engine.vocab import SPECIALS
    from songwriter.engine.vocab_en import PUNCT_TOKENS, EnglishVocab

    # the tables read the prosody module themselves: the vocabulary's own tables are not needed
    blank = {"syllables": [1], "stress": [""], "known": True}
    tokens = list(SPECIALS) + list(PUNCT_TOKENS) + [w for w in dict.fromkeys(words)
                                                    if w not in SPECIALS and w not in PUNCT_TOKENS]
    return EnglishTables(EnglishVocab(tokens, {w: blank for w in tokens[len(SPECIALS) + len(PUNCT_TOKENS):]}))


def word_list() -> tuple[str, ...]:
    """The shipped word list (empty when the file is missing)."""
    return _read_word_list(WORD_LIST)


@lru_cache(maxsize=4)
def _read_word_list(path: Path) -> tuple[str, ...]:
    # read once: every request for words asks for the list, and reading 16,000 lines each time
    # cost more than ranking them
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return ()
    return tuple(ln.strip() for ln in text.splitlines() if ln.strip() and not ln.startswith("#"))


def _tables(engine=None):
    if engine is not None and getattr(getattr(engine, "vocab", None), "language", "") == "en":
        return engine.tables.english()
    return _tables_for(word_list())


def _system(name: str | None) -> str:
    from songwriter.prosody import english

    return english.resolve_rhyme_system(name or "perfect")


def rhymes_for(word: str, system: str = "slant", syllables: int | None = None, stress: str | None = None,
               limit: int = 100, engine=None) -> list[WordChoice]:
    """Words that rhyme with ``word``: perfect rhymes first (the sound from the last stressed vowel
    to the end: multi-syllable rhymes such as bending/sending come out so), then, with ``system``
    slant, the slant ones (the same stressed vowel, or a rhyme the period heard). ``syllables``:
    at most this many; ``stress``: the marks ("x", "/", "_") of the syllables the word would fill,
    from its first (a word fits when one reading does, as in decoding). Most frequent first
    within each kind, in the order of ``_ranked`` (content words before function words and junk;
    a word of exactly ``syllables`` before a shorter one); ``word`` itself is left out."""
    from songwriter.prosody import english

    et = _tables(engine)
    own = word.strip().lower()
    fits = _fits(et, syllables, stress)
    kinds = np.full(len(et.vocab), "", dtype=object)
    systems = ["perfect"] + (["slant"] if _system(system) == "slant" else [])
    for sysname in reversed(systems):       # perfect last: a word that rhymes both ways is perfect
        keys = english.rhyme_keys(own, sysname)
        if keys:
            kinds[et.with_keys(sysname, frozenset(keys)) & fits[0]] = sysname
    ids = np.nonzero(kinds != "")[0]
    nearness = _slant_nearness(et, "slant", [own]) if "slant" in systems else None
    return _ranked(et, ids, kinds[ids], fits[1][ids], -ids.astype(float), (own,), syllables, limit, nearness)


def _fits(et, syllables: int | None, stress: str | None) -> tuple[np.ndarray, np.ndarray]:
    """(bool per id: fills some count <= syllables fitting the stress marks, the count it fills)."""
    V = len(et.vocab)
    m = np.zeros(V, dtype=bool)
    count = np.zeros(V, dtype=np.int64)
    top = min(syllables or et.max_count, et.max_count)
    for c in range(1, top + 1):
        seg = (stress or "")[:c].ljust(c, "_")
        f = et.fit(c, seg) & ~m
        count[f] = c
        m |= f
    return m, count


def english_words(template, text: str, line: int, slot: int, k: int = 40, engine=None,
                  lean=None) -> list[WordChoice]:
    """Words that can start at (line, slot) of an English template: they fill no more syllables
    than the free stretch from the slot has (to a locked word, a mark or the line end), their
    stress fits the slots' marks, and a word that would end a rhymed line rhymes with the label's
    other lines as written in ``text`` (one line per template line) or locked: perfect rhymes
    first, then slant ones where the template's rhyme system allows; the other lines' end words
    themselves are left out. Best first, in the order of ``_ranked`` (rhymes, then content words
    before function words and junk), and within that by the model in context when ``engine`` is
    an English engine (``model_scores``), else by frequency; ``lean`` (nats per word: a request's
    content on this line, ``topic_en.ContentLean.at``) is added to the model's scores, so the list
    leans the way generation does. ``(line, slot)`` is the template's slot; the words written
    before it on the line are taken to fill the syllables before it."""
    from songwriter.prosody import english
    from songwriter.template import syllable_units, text_lines

    if not 0 <= line < len(template.lines) or not 0 <= slot < len(template.lines[line].slots):
        raise ValueError(f"no syllable {slot + 1} on line {line + 1}")
    tl = template.lines[line]
    slots = tl.slots
    # the free stretch from the slot (to a locked word, a mark or the line end): its syllables' marks
    marks: list[str] = []
    last = slot - 1
    for j in range(slot, len(slots)):
        if slots[j].lock is not None:
            break
        marks.append(slots[j].tone or "_")
        last = j
        if slots[j].punct and j < len(slots) - 1:
            break
    room = len(marks)
    if room == 0:
        return []
    final = last == len(slots) - 1
    et = _tables(engine)
    fit, count = _fits(et, room, "".join(marks))
    system = _system(template.effective_rhyme_system())
    rhyme_kind = np.full(len(et.vocab), "", dtype=object)
    ends: list[str] = []        # the words this line's end is to rhyme with
    if final and tl.rhyme:
        lines = text_lines(text, template) if text.strip() else []
        for i in template.rhyme_groups()[tl.rhyme]:
            if i == line:
                continue
            last = template.lines[i].slots[-1].lock
            if last is None and i < len(lines):
                units = syllable_units(lines[i], "en")
                last = units[-1][0] if units else None
            if last and last != "_":
                ends.append(last)
        if ends:
            perfect = np.ones(len(et.vocab), dtype=bool)
            loose = np.ones(len(et.vocab), dtype=bool)
            for w in ends:
                perfect &= et.with_keys("perfect", frozenset(english.rhyme_keys(w, "perfect")))
                loose &= et.with_keys(system, frozenset(english.rhyme_keys(w, system)))
            ends_line = fit & (count == room)
            rhyme_kind[ends_line & loose] = "slant"
            rhyme_kind[ends_line & perfect] = "perfect"
            # a word that ends the line must rhyme; shorter ones leave room for one that does
            fit = fit & ((count < room) | (rhyme_kind != ""))
    ids = np.nonzero(fit)[0]
    scores = -ids.astype(float)
    if engine is not None and getattr(engine.vocab, "language", "") == "en":
        scores = model_scores(engine, template, text, line, slot)[ids].astype(float)
        if lean is not None:
            scores = scores + lean[ids]
    nearness = _slant_nearness(et, system, ends) if ends and system != "perfect" else None
    ranked = _ranked(et, ids, rhyme_kind[ids], count[ids], scores, tuple(ends), None, k, nearness)
    # as a line would have them: I and I'll with a capital, and the names the corpus capitalises
    from dataclasses import replace

    from songwriter.engine.decode_en import render

    capitalized = getattr(et.vocab, "capitalized", frozenset())
    return [replace(c, word=render(c.word, False, capitalized)) for c in ranked]


def model_scores(engine, template, text: str, line: int, slot: int) -> np.ndarray:
    """The English model's log-probability of every token as the word starting at (line, slot),
    given the text around it: the other lines as written (where their words fill the line's
    syllables), the words before the slot on its line, and the template's form and locks."""
    from songwriter.engine import encoding as E
    from songwriter.engine.encoding_en import encode_template_en, given_lines_en, word_counts_for
    from songwriter.template import Slot, syllable_units, text_lines

    vocab = engine.vocab
    t = given_lines_en(template, text, lambda i: i != line)
    tl = t.lines[line]
    before = sum(s.span for s in tl.slots[:slot])
    have = text_lines(text, t) if text.strip() else []
    units = syllable_units(have[line], "en") if line < len(have) else []
    if before and all(s.lock is None for s in tl.slots[:slot]):
        for m in range(len(units), 0, -1):      # the most written words that fill the syllables before
            counts = word_counts_for([u for u, _ in units[:m]], before)
            if counts:
                tl.slots = [Slot(lock=u, span=c, punct=p) for (u, p), c in zip(units[:m], counts)] + tl.slots[slot:]
                break
    enc = encode_template_en(t, vocab)
    at = np.nonzero((enc.slot_line == line) & (enc.syllable == before))[0]
    position = int(at[0])
    stream = np.where((enc.given != vocab.fill) & ((enc.word_start == 1) | (enc.syllable < 0)), enc.given,
                      np.where(enc.given != vocab.fill, vocab.fill, vocab.unk))
    stream[(enc.fmt == E.F_PUNCT) | (enc.fmt == E.F_EOL) | (enc.fmt == E.F_EOS)] = \
        enc.given[(enc.fmt == E.F_PUNCT) | (enc.fmt == E.F_EOL) | (enc.fmt == E.F_EOS)]
    with engine._lock:
        state = engine.backend.start(enc.arrays(), 1)
        prev = np.array([vocab.bos])
        logp = None
        for p in range(position + 1):
            logp = engine.backend.step(state, prev, p)
            prev = np.array([stream[p]])
    return logp[0]

"""Constrained decoding for English: every candidate fits the template's syllables, rhymes, stress
and locks by construction.

The positions are syllables (``encoding.encode_template_en``); a row writes a word at the first
syllable it fills and ``<fill>`` at each further one. At a word's first syllable the allowed words
are the ones that:

- fill a number of syllables (one of their CMUdict readings) that the free stretch left can take:
  a word never runs past a locked word, past a mark inside the line or past the line end;
- fit the stress asked for at the syllables they cover (``prosody.english``'s rule for a word on
  a metre: a monosyllable fits either beat, a longer word's primary stress must not fall on an
  "x"); a word with several readings fits when one of them does (allowed, not forced);
- at the line end of a rhymed line, rhyme with the other lines of the label: every line of a
  label shares a rhyme key under the template's rhyme system (``prosody.english.rhyme_keys``, the
  key the checks use), chosen among keys with a word for every line of the label; a slant-rhymed
  form prefers perfect rhymes while one fits; a word that does not end the line leaves room for a
  rhyme word that does.

Preferences that yield when nothing else fits: a rhyme word not used before in the piece, a word
a line can end on (not "the", "of", "and", ...), one CMUdict knows, labels that do not sound alike
and unrhymed line ends that do not rhyme with them, and everywhere a word rather than a stray
letter, a foreign particle or a roman numeral (``words_en.is_junk``).
On a melody's template, words whose stresses the tune's beats contradict least and words not cut
by a rest (``StressFit``), the same kind of preference, with a score for long notes on open
syllables.
Sampling is the Chinese decoder's (temperature, top-k, top-p, a repetition penalty), with the
same seeds, progress and cancel; the penalty spares grammar words only, and a word pair written
again, a line opening with an earlier line's first two words, and a first word opening its third
line and more cost more. Each line is written ``decode.LINE_CHOICES`` times per candidate and the
likeliest kept (``decode.LineChoice``).
Locked words are copied (an unknown one is fed as ``<unk>`` and written as itself). Lines start
with a capital, and "I" is written so. ``<unk>`` and the other specials are never written.
"""

from __future__ import annotations

import threading
from typing import Callable

import numpy as np

from songwriter.engine import encoding as E
from songwriter.engine.errors import GenerationCancelled, GenerationError
from songwriter.engine.table_cache import load_tables, store_tables, table_path

NEG = -1e9
_STRESS_CHARS = {0: "_", 1: "/", 2: "x"}
_CAPITAL_WORDS = {"i": "I", "o": "O"}
# The repetition penalty spares the words that carry grammar, which verse repeats as a matter of
# course (prosody's FUNCTION_WORDS and the modal verbs). It spared the 150 commonest words before,
# and those hold "love", "heart", "world", "soul", "light": blind readers of the 8x320 model named
# their repetition first ("the world the world", "my heart ... my heart").
REPEATABLE_MODALS = frozenset({"will", "may", "can", "might"})
# the interjections are function words the penalty counts all the same: ours wrote "O" or "oh"
# three times as often as the corpus's hymns, three or more in a stanza in 9 of 72 (the corpus's
# hymns 1 in 240), and readers named the "piled-up 'O' invocations"
COUNTED_INTERJECTIONS = frozenset({"o", "oh", "ah", "eh"})
# an English word's penalty per earlier use (``Sampling.repetition_penalty`` where a request
# sets one): twice a modern Chinese lyric's per character (0.35), as a word is a larger unit
# than a character and its repetition shows more
REPEAT_COST_EN = 0.7
# subtracted from a word's log-prob where it would follow the word before it a second time in the
# piece ("silk cloak ... silk cloak", "his treasure, his treasure"); a cost, not a ban, so that a
# line whose only fitting words repeat a pair is still written
PAIR_REPEAT_COST = 3.0
# the same for a pair whose second word carries grammar ("are the", "of the"): verse repeats those
# pairs, but a piece that says "you are the ... of the" on every line reads as a machine's, and
# the likeliest lines do. Word pairs written again, of all a sonnet's (8 sonnets, seed 8): real
# 2.9 %; one draft per line 12 %; four drafts 32 % without this cost and OPENING_ECHO_COST, 16 %
# with them at 1.0 and 2.0, 3.5 % at 2.0 and 3.0.
FUNCTION_PAIR_COST = 2.0
# subtracted where a line's first two words would be another line's first two ("She was so ...",
# "I would I were ..." line after line): lines that open as an earlier line does, real 4.5 %;
# one draft per line 29 %, four 60 %, four with this cost at 3.0 (and the pair cost at 2.0) none
OPENING_ECHO_COST = 3.0
# subtracted, per line beyond the second, for opening a line with a word earlier lines opened with
# ("My heart ... / My pulse ... / My feet ..." for nine lines, "Because ..." for ten): a real
# sonnet has 0.5 lines a piece beyond a word's second opening, this decoder's had 6.4-6.9
FIRST_WORD_COST = 1.5
_CONTENT_MASKS: dict[str, np.ndarray] = {}
# Words that do not end a line of verse (articles, determiners, conjunctions, prepositions that
# take an object): a line end avoids them while another word fits.
NO_LINE_END = frozenset(
    "a an the my thy his her its our your their whose and or nor but if than as of to in into on "
    "upon with from by at for o'er unto 'mid 'twixt".split())


def form_of(word: str) -> str:
    """A vocabulary word as the checks read it back from a line (``template.syllable_units``
    strips quotes and an opening bracket around a word)."""
    return word.strip("\"'\u201c\u201d\u2018\u2019(")


def render(word: str, line_start: bool, capitalized=frozenset()) -> str:
    """A vocabulary word as written in a line: "I" (and "I'll", "O") capital, a line's first word
    capitalised, and the words the corpus writes with a capital (``EnglishVocab.capitalized``:
    God, England)."""
    w = _CAPITAL_WORDS.get(word, word)
    if w.startswith("i'"):
        w = "I" + w[1:]
    if line_start or word in capitalized:
        for k, ch in enumerate(w):
            if ch.isalpha():
                return w[:k] + ch.upper() + w[k + 1:]
    return w


def content_mask(vocab) -> np.ndarray:
    """1.0 for each word the repetition penalty counts, 0.0 for marks, specials and the words that
    carry grammar (function words but the interjections, modal verbs; "an'" and "o'" as "and"
    and "of")."""
    from songwriter.prosody.english import FUNCTION_WORDS

    got = _CONTENT_MASKS.get(vocab.sha256)
    if got is None:
        spared = (FUNCTION_WORDS | REPEATABLE_MODALS) - COUNTED_INTERJECTIONS | {"o'"}     # o' is "of"
        got = np.asarray([0.0 if i < vocab.first_word or t in spared or t.strip("'") in spared else 1.0
                          for i, t in enumerate(vocab.tokens)])
        _CONTENT_MASKS[vocab.sha256] = got
    return got


def _cache_file(vocab, what: str):
    """The tables' file (engine/table_cache): en-<what>-<vocab hash>-<code stamp>.npz, the tables
    of one vocabulary as the prosody code of the moment reads it (the stamp covers the prosody
    module, the grammar's word lists and this module)."""
    from pathlib import Path

    from songwriter.engine import grammar_en
    from songwriter.prosody import english

    return table_path(f"en-{what}", vocab.sha256,
                      (Path(english.__file__), Path(grammar_en.__file__), Path(__file__)))


def _load_cache(vocab, what: str) -> dict | None:
    return load_tables(_cache_file(vocab, what))


def _store_cache(vocab, what: str, **arrays) -> None:
    store_tables(_cache_file(vocab, what), **arrays)


class EnglishTables:
    """Per-vocabulary-id syllable counts, stress fits and rhyme keys of one English vocabulary,
    computed from the prosody module (the checks' own readings) once, and kept on disk
    (``_cache_file``) for the next start."""

    def __init__(self, vocab):
        self.vocab = vocab
        V = len(vocab)
        self.forms: list[str] = [form_of(w) if i >= vocab.first_word else "" for i, w in enumerate(vocab.tokens)]
        cached = _load_cache(vocab, "words")
        if cached is not None and len(cached.get("gen", ())) == V:
            self.gen, self.known = cached["gen"], cached["known"]
            self.counts = [tuple(int(c) for c in row if c) for row in cached["counts"]]
            rc, rid, rprim, rsp = cached["row_c"], cached["row_id"], cached["row_prim"], cached["row_sp"]
            self._rows = {int(c): (rid[rc == c], rprim[rc == c], rsp[rc == c]) for c in np.unique(rc)}
        else:
            self._compute()
            rows = sorted(self._rows.items())
            counts = np.zeros((V, max([len(c) for c in self.counts] + [1])), dtype=np.int8)
            for i, cs in enumerate(self.counts):
                counts[i, :len(cs)] = cs
            _store_cache(vocab, "words", gen=self.gen, known=self.known, counts=counts,
                         row_c=np.concatenate([np.full(len(v[0]), c) for c, v in rows] or [np.zeros(0, int)]),
                         row_id=np.concatenate([v[0] for _, v in rows] or [np.zeros(0, int)]),
                         row_prim=np.concatenate([v[1] for _, v in rows] or [np.zeros(0, int)]),
                         row_sp=np.concatenate([v[2] for _, v in rows] or [np.zeros(0, bool)]))
        self.max_count = max(self._rows) if self._rows else 0
        self._fit: dict[tuple[int, str], np.ndarray] = {}
        self._keys: dict[str, tuple[list[frozenset], dict[str, np.ndarray]]] = {}
        self._union: dict[tuple[str, frozenset], np.ndarray] = {}
        self._sung = None
        self.line_end = self.gen.copy()       # words a line may end on
        # words a writer of English would choose: no stray letters ("... of R"), foreign particles,
        # Scots spellings or roman numerals (words_en.is_junk, what Rhymes and Words puts last), by
        # the written form and as the vocabulary spells it (an' and o' are forms "an" and "o")
        from songwriter.engine.words_en import is_junk

        self.plain = self.gen & ~np.asarray([is_junk(f) or is_junk(w) if f else True
                                             for f, w in zip(self.forms, vocab.tokens)])
        self._barred_after: dict[int, np.ndarray] | None = None
        for w in NO_LINE_END:
            i = vocab.stoi.get(w)
            if i is not None:
                self.line_end[i] = False

    @property
    def barred_after(self) -> dict[int, np.ndarray]:
        """Per word id with a rule, the words that may not follow it ("the and", "an profound",
        "they is": grammar_en), made at the first generation and kept on disk."""
        if self._barred_after is None:
            cached = _load_cache(self.vocab, "grammar")
            if cached is not None and cached["barred"].shape[1:] == (len(self.vocab),):
                self._barred_after = {int(i): row for i, row in zip(cached["ids"], cached["barred"])}
            else:
                from songwriter.engine.grammar_en import followers_barred

                words = [w if i >= self.vocab.first_word else "" for i, w in enumerate(self.vocab.tokens)]
                self._barred_after = followers_barred(words)       # ~0.6 s for 16,000 words
                ids = sorted(self._barred_after)
                _store_cache(self.vocab, "grammar", ids=np.asarray(ids, dtype=np.int64),
                             barred=np.asarray([self._barred_after[i] for i in ids], dtype=bool).reshape(
                                 len(ids), len(self.vocab)))
        return self._barred_after

    def _compute(self) -> None:
        from songwriter.prosody import english

        vocab = self.vocab
        V = len(vocab)
        self.counts: list[tuple[int, ...]] = [()] * V
        self.gen = np.zeros(V, dtype=bool)          # words the decoder may write
        self.known = np.zeros(V, dtype=bool)        # CMUdict or a form derived from it
        rows: dict[int, list[tuple[int, int, bool]]] = {}   # count -> (id, primary bits, all stressed)
        for i in range(vocab.first_word, V):
            w = vocab.tokens[i]
            if not vocab.may_generate(i):
                continue
            form = form_of(w)
            if not form or not any(c.isalpha() for c in form) or len(english.words(form)) != 1:
                continue
            counts = tuple(c for c in english.syllable_counts(form) if c > 0)
            if not counts:
                continue
            self.counts[i] = counts
            self.gen[i] = True
            self.known[i] = english.in_dictionary(form)
            for st in english.stress_patterns(form):
                if len(st) in counts:
                    prim = sum(1 << k for k, c in enumerate(st) if c == "1")
                    rows.setdefault(len(st), []).append((i, prim, "0" not in st))
            for c in counts:     # a count no stress string has (a guess): it fits any beat
                if not any(len(st) == c for st in english.stress_patterns(form)):
                    rows.setdefault(c, []).append((i, 0, False))
        self._rows = {c: (np.asarray([r[0] for r in v], dtype=np.int64), np.asarray([r[1] for r in v], dtype=np.int64),
                          np.asarray([r[2] for r in v], dtype=bool)) for c, v in rows.items()}

    def fit(self, c: int, seg: str) -> np.ndarray:
        """Bool per id: the word can fill ``c`` syllables whose stress marks are ``seg`` ("/", "x",
        "_" any) with one of its readings."""
        key = (c, seg)
        got = self._fit.get(key)
        if got is None:
            got = np.zeros(len(self.vocab), dtype=bool)
            if c in self._rows:
                ids, prim, spondaic = self._rows[c]
                ok_bits = sum(1 << k for k, ch in enumerate(seg) if ch != "x")
                fits = (prim == 0) | np.where(spondaic, ok_bits != 0, (prim & ok_bits) != 0)
                if c <= 1:
                    fits[:] = True
                got[ids[fits]] = True
            self._fit[key] = got
        return got

    def sung(self) -> tuple[dict[int, list[tuple[str, np.ndarray]]], dict[int, np.ndarray]]:
        """For fitting words to a tune: per syllable count, the readings
        (``prosody.english.sung_stress_patterns``: "1" stressed, "0" unstressed, "_" either) with
        the ids that have each (a count no reading has fits any beat: all "_"); and per count, the
        closed syllables of each id as bits (bit k: syllable k ends in a consonant in every
        pronunciation of that many syllables, ``prosody.english.open_syllables``; 0 unknown)."""
        if self._sung is not None:
            return self._sung
        V = len(self.vocab)
        cached = _load_cache(self.vocab, "sung")
        if cached is not None and "pat" in cached and int(cached["V"]) == V:
            rc, rid, rpat = cached["row_c"], cached["row_id"], cached["pat"]
            cc, cid, cbits = cached["cl_c"], cached["cl_id"], cached["cl_bits"]
        else:
            from songwriter.prosody import english

            rows: list[tuple[int, int, str]] = []
            closed: list[tuple[int, int, int]] = []
            for i in np.nonzero(self.gen)[0]:
                form = self.forms[i]
                pats = english.sung_stress_patterns(form)
                opens = english.open_syllables(form)
                for c in self.counts[i]:
                    mine = [q for q in pats if len(q) == c] or ["_" * c]
                    rows += [(c, int(i), q) for q in mine]
                    shut = [o for o in opens if len(o) == c]
                    bits = sum(1 << k for k in range(c) if shut and all(o[k] == "c" for o in shut))
                    if bits:
                        closed.append((c, int(i), bits))
            rc = np.asarray([r[0] for r in rows], dtype=np.int64)
            rid = np.asarray([r[1] for r in rows], dtype=np.int64)
            rpat = np.asarray([r[2] for r in rows] or [""], dtype=str)[:len(rows)]
            cc = np.asarray([r[0] for r in closed], dtype=np.int64)
            cid = np.asarray([r[1] for r in closed], dtype=np.int64)
            cbits = np.asarray([r[2] for r in closed], dtype=np.int64)
            _store_cache(self.vocab, "sung", V=np.asarray(V), row_c=rc, row_id=rid, pat=rpat,
                         cl_c=cc, cl_id=cid, cl_bits=cbits)
        readings: dict[int, list[tuple[str, np.ndarray]]] = {}
        for c in np.unique(rc):
            at = rc == c
            ids, pats = rid[at], rpat[at]
            readings[int(c)] = [(str(q), ids[pats == q]) for q in np.unique(pats)]
        shut_bits: dict[int, np.ndarray] = {}
        for c in np.unique(cc):
            arr = np.zeros(V, dtype=np.int64)
            at = cc == c
            arr[cid[at]] = cbits[at]
            shut_bits[int(c)] = arr
        self._sung = (readings, shut_bits)
        return self._sung

    def keys(self, system: str) -> tuple[list[frozenset], dict[str, np.ndarray]]:
        """(rhyme keys per id, key -> ids) under a rhyme system, for the words the decoder writes."""
        got = self._keys.get(system)
        if got is None:
            cached = _load_cache(self.vocab, "keys-" + system)
            if cached is not None and "names" in cached:
                names, ptr, ids = cached["names"], cached["ptr"], cached["ids"]
                index = {str(k): ids[ptr[j]:ptr[j + 1]] for j, k in enumerate(names)}
                sets: list[set] = [set() for _ in range(len(self.vocab))]
                for k, v in index.items():
                    for i in v:
                        sets[i].add(k)
                per = [frozenset(x) for x in sets]
            else:
                from songwriter.prosody import english

                per = [frozenset()] * len(self.vocab)
                lists: dict[str, list[int]] = {}
                for i in np.nonzero(self.gen)[0]:
                    ks = english.rhyme_keys(self.forms[i], system)
                    per[i] = ks
                    for k in ks:
                        lists.setdefault(k, []).append(int(i))
                index = {k: np.asarray(v, dtype=np.int64) for k, v in lists.items()}
                names = sorted(index)
                ptr = np.cumsum([0] + [len(index[k]) for k in names])
                _store_cache(self.vocab, "keys-" + system, names=np.asarray(names or [""], dtype=str)[:len(names)],
                             ptr=ptr, ids=np.concatenate([index[k] for k in names] or [np.zeros(0, np.int64)]))
            got = self._keys[system] = (per, index)
        return got

    def with_keys(self, system: str, keys: frozenset) -> np.ndarray:
        """Bool per id: the word has one of ``keys``."""
        ck = (system, keys)
        got = self._union.get(ck)
        if got is None:
            _, index = self.keys(system)
            got = np.zeros(len(self.vocab), dtype=bool)
            for k in keys:
                ids = index.get(k)
                if ids is not None:
                    got[ids] = True
            if len(self._union) > 4096:
                self._union.clear()
            self._union[ck] = got
        return got


def _word_start_of(enc: E.Encoded, p: int) -> int:
    """The position where the word holding syllable p starts."""
    while p > 0 and not enc.word_start[p]:
        p -= 1
    return p


def _prefer(m: np.ndarray, want: np.ndarray) -> np.ndarray:
    kept = m & want
    return kept if kept.any() else m


class _Layout:
    """Where the words of each line may go: per free syllable, the free syllables left in its
    stretch (``room``), whether the stretch ends the line (``final``) and whether it ends at a
    mark inside the line (``before_mark``)."""

    def __init__(self, enc: E.Encoded, vocab):
        T = len(enc)
        syl = (enc.fmt == E.F_CHAR) | (enc.fmt == E.F_RHYME)
        self.free = syl & (enc.given == vocab.fill)
        self.room = np.zeros(T, dtype=np.int64)
        self.final = np.zeros(T, dtype=bool)
        self.before_mark = np.zeros(T, dtype=bool)
        self.seg = ["_"] * T
        for p in np.nonzero(syl)[0]:
            self.seg[p] = _STRESS_CHARS.get(int(enc.tone[p]), "_")
        self.line_of = np.where(syl, enc.slot_line, -1)
        self.line_label: dict[int, int] = {}
        self.line_last: dict[int, int] = {}
        self.stretch: dict[int, int] = {}     # line -> first syllable of the stretch that ends it
        run, run_final, run_mark, seen = 0, False, False, False
        for p in range(T - 1, -1, -1):
            if enc.fmt[p] == E.F_EOL:
                run, run_final, run_mark, seen = 0, True, False, False
            elif enc.fmt[p] == E.F_PUNCT:
                if seen:                  # a mark inside the line: a word ends before it
                    run, run_final, run_mark = 0, False, True
            elif syl[p]:
                seen = True
                li = int(enc.slot_line[p])
                if li not in self.line_last:
                    self.line_last[li] = p
                    self.line_label[li] = int(enc.label[p])
                if self.free[p]:
                    run += 1
                    self.room[p], self.final[p], self.before_mark[p] = run, run_final, run_mark
                    if run_final:
                        self.stretch[li] = p
                else:
                    run, run_final, run_mark = 0, False, False

    def tail(self, li: int, f: int) -> str:
        """The stress marks of line li's last f syllables."""
        end = self.line_last[li]
        return "".join(self.seg[end - f + 1:end + 1])


# What the tune's softer wishes cost a word inside the decoder, in log-probability (nats) per
# misfit, times the fit strength (``StressFit``): a stress the beats contradict between the word
# and its neighbour (within a word it is avoided outright); a word that leans on the next one
# ("the", "a", "my", "of": NO_LINE_END) on a beat stronger than the next syllable's, which would
# then clash; a closed syllable on a long note. Chosen on the Irish tunes of bench/melody_fit.py
# --lang en (docs/results.md, "Writing to a melody").
NEIGHBOUR_CLASH = 1.5
LEANING_BEFORE_WEAKER = 2.0
CLOSED_ON_LONG = 0.5
SHOW_MARKS = True       # the beats' stress marks shown to the model (the bench turns them off to compare)
_MARKS = "_10"          # a syllable's stress as StressFit keeps it: 0 either or unknown, 1, 2


class StressFit:
    """Keeps a melody's English words' stresses on its beats, per candidate row: the English
    sibling of ``decode.ToneFit``, on a template made from a melody (``template.meta.melody``,
    fit strength above 0; ``melody.fit.beat_plan``).

    Where a word starts, among the words the slot's other constraints allow:

    - a word that would run over a rest inside the line is avoided;
    - a word whose own stress the beats contradict (``melody.fit.stress_clashes`` within the
      word, the check's own judgement: "amazing" sung a-ma-ZING) is avoided; a word with several
      readings counts its best;
    - a stress the beats contradict between the word and the syllable the row has just written
      before it, or a locked word straight after it, costs ``NEIGHBOUR_CLASH`` nats of
      log-probability; a word that leans on the next ("the", "of") on a beat stronger than the
      next syllable's, ``LEANING_BEFORE_WEAKER``; a closed syllable on a long note,
      ``CLOSED_ON_LONG``; each times the strength (a score, not a mask).

    The two avoidances are preferences like the rhyme separation's: each yields when nothing else
    fits. The model is shown the stress the beats ask for (``melody.fit.beat_marks``, where the
    template asks for none) as a metre, which it has learnt to write to, so it plans its words to
    the tune rather than being corrected word by word. Function words on downbeats and the other
    misfits are weighed again by the ranking (``melody.fit.melody_ranking``, above strength 1)."""

    def __init__(self, enc: E.Encoded, et: EnglishTables, plan, n: int):
        from songwriter.prosody import english

        T = len(enc)
        self.strength = float(plan.strength)
        self.readings, self.shut = et.sung()
        self.V = len(et.vocab)
        syl = (enc.fmt == E.F_CHAR) | (enc.fmt == E.F_RHYME)
        self.beat = np.zeros(T)
        self.rest = np.zeros(T, dtype=bool)
        self.long = np.zeros(T, dtype=bool)
        self.prev = np.full(T, -1)
        self.next = np.full(T, -1)
        self.known = np.zeros(T, dtype=bool)           # a locked syllable: its stress is the lock's
        marks = np.zeros(T, dtype=np.int8)
        last: dict[int, int] = {}
        for p in np.nonzero(syl)[0]:
            li, k = int(enc.slot_line[p]), int(enc.syllable[p])
            if li < len(plan.beats) and k < len(plan.beats[li]):
                self.beat[p] = plan.beats[li][k]
                self.rest[p] = plan.rests[li][k]
                self.long[p] = plan.long[li][k]
            if li in last:
                self.prev[p], self.next[last[li]] = last[li], p
            last[li] = p
        for p in np.nonzero(syl & (enc.word_start == 1))[0]:
            if enc.given[p] == et.vocab.fill and not enc.text[p]:
                continue
            span = [p]
            while self.next[span[-1]] >= 0 and enc.given[self.next[span[-1]]] == enc.given[p] \
                    and not enc.word_start[self.next[span[-1]]] and enc.slot_index[self.next[span[-1]]] == enc.slot_index[p]:
                span.append(int(self.next[span[-1]]))
            pats = [q for q in english.sung_stress_patterns(_plain(enc.text[p])) if len(q) == len(span)]
            for q, ch in zip(span, pats[0] if pats else "_" * len(span)):
                marks[q] = _MARKS.index(ch)
                self.known[q] = True
        self.leaning = ~et.line_end & et.gen           # the, a, my, of, to ...: lean on the next word
        # the stress the beats ask for, shown to the model where the template asks for none (a
        # metre it has learnt to write to: the model plans its words to it)
        self.tone = enc.tone.copy()
        marks_of = plan.marks
        for p in np.nonzero(syl & (enc.tone == 0) & (enc.given == et.vocab.fill))[0]:   # free syllables: a
            li, k = int(enc.slot_line[p]), int(enc.syllable[p])                    # lock's carry none
            if li < len(marks_of) and k < len(marks_of[li]):
                self.tone[p] = {"/": 1, "x": 2}.get(marks_of[li][k], 0)
        self.marks = np.repeat(marks[None, :], n, axis=0)   # per row: the stress written at each syllable
        self._cost: dict[tuple, tuple] = {}
        self._soft: dict[tuple, np.ndarray] = {}

    @classmethod
    def of(cls, template, enc: E.Encoded, et: EnglishTables, n: int) -> "StressFit | None":
        """The template's stress fit, or None when it has no melody to fit (or the fit is off)."""
        from songwriter.melody.fit import beat_plan

        plan = beat_plan(template)
        return cls(enc, et, plan, n) if plan is not None else None

    def _neighbour(self, r: int, q: int) -> tuple[str, float] | None:
        if q < 0:
            return None
        return _MARKS[int(self.marks[r, q])], float(self.beat[q])

    def _clashes(self, c: int, beats: tuple, before, after) -> tuple[np.ndarray | None, np.ndarray]:
        """Per id, for its reading of ``c`` syllables the beats contradict least: the clashes
        within the word (None when none can have any: a monosyllable, or no word here) and those
        with its neighbours ``before`` and ``after``."""
        from songwriter.melody.fit import stress_clashes

        key = (c, beats, before, after)
        got = self._cost.get(key)
        if got is None:
            both = np.full(self.V, 1 << 20, dtype=np.int64)       # 100 x inside + across
            for pattern, ids in self.readings.get(c, ()):
                pairs = stress_clashes(pattern, beats, before, after)
                inside = sum(1 for i, j in pairs if 0 <= i < c and 0 <= j < c)
                both[ids] = np.minimum(both[ids], 100 * inside + len(pairs) - inside)
            inside = (both // 100).astype(np.int32)
            wrenched = c > 1 and bool(((inside > 0) & (both < 1 << 20)).any())
            got = (inside if wrenched else None, (both % 100).astype(np.float32))
            if len(self._cost) > 4096:
                self._cost.clear()
            self._cost[key] = got
        return got

    def _base(self, c: int, longs: tuple, weaker: bool) -> np.ndarray:
        """Per id, the soft cost that does not depend on the row: a leaning word before a weaker
        beat (``weaker``), closed syllables on the long notes ``longs``."""
        key = (c, longs, weaker)
        got = self._soft.get(key)
        if got is None:
            got = np.zeros(self.V, dtype=np.float32)
            if weaker:
                got += LEANING_BEFORE_WEAKER * self.leaning
            shut = self.shut.get(c)
            if shut is not None:
                for k, is_long in enumerate(longs):
                    if is_long:
                        got += CLOSED_ON_LONG * ((shut >> k) & 1)
            self._soft[key] = got
        return got

    def narrow(self, r: int, p: int, by_c: dict[int, np.ndarray]) -> tuple[dict[int, np.ndarray], np.ndarray]:
        """Row r's words at syllable p, by syllable count, narrowed as the class says, and the
        soft cost per id (nats, times the strength) to subtract from their log-probabilities."""
        uncut = {c: m for c, m in by_c.items() if not self.rest[p + 1:p + c].any()}
        if any(m.any() for m in uncut.values()):
            by_c = uncut
        before = self._neighbour(r, int(self.prev[p]))
        parts = {}
        for c in by_c:
            end = p + c - 1
            nxt = int(self.next[end])
            after = self._neighbour(r, nxt) if nxt >= 0 and self.known[nxt] else None
            weaker = bool(nxt >= 0 and not self.known[nxt] and self.beat[nxt] < self.beat[end])
            inside, across = self._clashes(c, tuple(float(b) for b in self.beat[p:p + c]), before, after)
            parts[c] = (inside, across, self._base(c, tuple(bool(x) for x in self.long[p:p + c]), weaker))
        wrenched = {c: parts[c][0] for c, m in by_c.items() if parts[c][0] is not None}
        if any((by_c[c] & (w > 0)).any() for c, w in wrenched.items()):
            # the fewest clashes within the word there can be (most often none)
            clean = any(m.any() for c, m in by_c.items() if c not in wrenched) or \
                any((by_c[c] & (w == 0)).any() for c, w in wrenched.items())
            best = 0 if clean else min(int(w[by_c[c]].min()) for c, w in wrenched.items() if by_c[c].any())
            by_c = {c: (m & (wrenched[c] == best)) if c in wrenched else (m if best == 0 else m & False)
                    for c, m in by_c.items()}
        soft = np.full(self.V, np.inf, dtype=np.float32)
        for c, m in by_c.items():
            _, across, base = parts[c]
            np.minimum(soft, base + NEIGHBOUR_CLASH * across, out=soft, where=m)
        soft[soft == np.inf] = 0.0
        return by_c, self.strength * soft

    def record(self, r: int, p: int, c: int, word: str) -> None:
        """Row r wrote ``word`` over c syllables from p: keep the stresses of its reading that
        the beats contradict least."""
        from songwriter.melody.fit import stress_clashes
        from songwriter.prosody import english

        pats = [q for q in english.sung_stress_patterns(word) if len(q) == c] or ["_" * c]
        before = self._neighbour(r, int(self.prev[p]))
        beats = tuple(float(b) for b in self.beat[p:p + c])
        best = min(pats, key=lambda q: len(stress_clashes(q, beats, before)))
        self.marks[r, p:p + c] = [_MARKS.index(ch) for ch in best]     # a word's syllables are consecutive


def _plan_labels(enc: E.Encoded, lay: _Layout, et: EnglishTables, system: str, vocab) -> dict[int, frozenset]:
    """Per rhyme label, the keys its lines may rhyme on: shared by its locked rhyme words, and with
    a word for every free line's end (its room and stress) and enough distinct words in all.
    Raises GenerationError naming the label when none is left."""
    from songwriter.prosody import english

    per, index = et.keys(system)
    out: dict[int, frozenset] = {}
    for lab in range(1, len(enc.labels) + 1):
        lines = [li for li, lb in lay.line_label.items() if lb == lab]
        if not lines:
            continue
        where = ", ".join(str(li + 1) for li in sorted(lines))
        letter = enc.labels[lab - 1]
        allowed: set[str] | None = None
        free_lines = []
        for li in lines:
            end = lay.line_last[li]
            if lay.free[end]:
                free_lines.append(li)
                continue
            q = end
            while q > 0 and not enc.word_start[q]:
                q -= 1
            word = enc.text[q]
            ks = set(english.rhyme_keys(_plain(word), system)) if word else set()
            if not ks:
                raise GenerationError(f"rhyme {letter} (lines {where}): the locked word {word!r} on line {li + 1} "
                                      f"has no known rhyme ({system})")
            allowed = ks if allowed is None else allowed & ks
            if not allowed:
                raise GenerationError(f"rhyme {letter} (lines {where}): the locked rhyme words do not rhyme "
                                      f"together ({system})")
        if not free_lines:
            out[lab] = frozenset(allowed or ())
            continue
        ends = []
        for li in free_lines:
            R = int(lay.room[lay.stretch[li]])     # the free syllables of the stretch ending the line
            m = np.zeros(len(vocab), dtype=bool)
            for f in range(1, min(R, et.max_count) + 1):
                m |= et.fit(f, lay.tail(li, f))
            ends.append(m)
        need = len(free_lines)
        good = []
        for k, ids in index.items():
            if allowed is not None and k not in allowed:
                continue
            if len(ids) < need:
                continue
            if all(m[ids].any() for m in ends):
                good.append(k)
        if not good:
            raise GenerationError(f"rhyme {letter} (lines {where}): no {system} rhyme in the vocabulary has a "
                                  f"word for every line's end (syllables and stress left)")
        out[lab] = frozenset(good)
    return out


def _plain(word: str) -> str:
    return word.strip("\"\u201c\u201d\u2018\u2019()[],.;:?!").replace("\u2019", "'")


def decode_en(backend, vocab, tables, template, enc: E.Encoded, sampling,
              rhyme_system: str | None = None, progress: Callable[[int, int], None] | None = None,
              cancel: threading.Event | None = None, lean=None):
    """Sample ``sampling.n`` rows that fit an English ``template`` (encoded as ``enc``); ``lean``:
    the request's content as nats per word (engine/topic_en.ContentLean), or None."""
    from songwriter.engine.decode import Decoded, LineChoice, _sample, costs_for
    from songwriter.prosody import english

    T = len(enc)
    if T > backend.max_len:
        raise GenerationError(f"the template needs {T} model positions; this model handles at most "
                              f"{backend.max_len} (about {backend.max_len * 4 // 5} syllables)")
    name = rhyme_system or template.effective_rhyme_system()
    try:
        system = english.resolve_rhyme_system(name)
    except ValueError as e:
        raise GenerationError(str(e)) from None
    et = tables.english()
    lay = _Layout(enc, vocab)
    plan = _plan_labels(enc, lay, et, system, vocab)
    # a slant-rhymed form still prefers perfect rhymes: the perfect keys with a word for every line
    plan_perfect = plan
    if system != "perfect":
        try:
            plan_perfect = _plan_labels(enc, lay, et, "perfect", vocab)
        except GenerationError:
            plan_perfect = {}
    per_sys, _ = et.keys(system)
    per_perf, _ = et.keys("perfect")
    choice = LineChoice.of(sampling)
    k = choice.k
    n = choice.rows     # rows: k per candidate
    rng = np.random.default_rng(sampling.seed)
    stress_fit = StressFit.of(template, enc, et, n)     # a melody's beats: stresses on them
    arrays = enc.arrays()
    if stress_fit is not None and SHOW_MARKS:
        arrays = dict(arrays, tone=stress_fit.tone)
    state = backend.start(arrays, n)
    copies = E.repeat_sources(enc, template)        # a refrain line's words are its source line's
    problem = E.refrain_copy_problem(copies, lay.free, enc)
    if problem:
        raise GenerationError(problem)
    prev = np.full(n, vocab.bos, dtype=np.int64)
    out = np.zeros((n, T), dtype=np.int64)
    span = np.zeros((n, T), dtype=np.int64)          # syllables of the word started at a position
    cont = np.zeros(n, dtype=np.int64)
    counts = np.zeros((n, len(vocab)), dtype=np.int32)
    n_labels = len(enc.labels) + 1
    K: list[list[frozenset | None]] = [[None] * n_labels for _ in range(n)]     # keys left per label
    Kp: list[list[frozenset | None]] = [[None] * n_labels for _ in range(n)]    # perfect keys so far
    # line-end words written, per row: a rhyme word is not used twice while another fits; the
    # locked ones count from the start, wherever they stand in the piece
    locked_ends = {int(enc.given[_word_start_of(enc, q)]) for q in lay.line_last.values() if not lay.free[q]}
    locked_ends.discard(vocab.unk)
    used: list[set[int]] = [set(locked_ends) for _ in range(n)]
    score_sum = np.zeros(n)
    score_n = np.zeros(n)
    final_cache: dict[tuple, bool] = {}
    content = content_mask(vocab)
    repeat_cost = REPEAT_COST_EN if sampling.repetition_penalty is None else sampling.repetition_penalty
    # the model's word costs (engine/word_costs): words this decoder would overuse, anywhere and
    # as a line's first word
    word_costs, line_start_costs = costs_for(tables, template)
    # per row: the leaned words it has written, with their families (the lean spares them)
    spent = np.zeros((n, len(vocab)), dtype=bool) if lean is not None else None
    followers: list[dict[int, set[int]]] = [{} for _ in range(n)]   # per row: word -> words written after it
    capitalized = getattr(vocab, "capitalized", frozenset())
    # the word just written, per row: never written again straight after itself ("and and",
    # "I I", "that that" filled early samples; verse's "had had" is rare enough to give up)
    last_word = np.full(n, -1)
    # per row: the current line's words so far (up to two), and every earlier line's opening pair
    # as first word -> second words
    opening: list[list[int]] = [[] for _ in range(n)]
    openings: list[dict[int, set[int]]] = [{} for _ in range(n)]
    first_words = np.zeros((n, len(vocab)), dtype=np.int32)     # per row: lines each word opened
    row_line = np.full(n, -1)

    def wrote(r: int, w: int, li: int) -> None:
        """Row r wrote word w (chosen or locked) on line li: keep the line's opening pair, and
        spend the content's lean on w's family."""
        if spent is not None and content[w] > 0:
            spent[r, w] = True
            spent[r, lean.family(vocab.tokens[w])] = True
        if row_line[r] != li:
            row_line[r] = li
            opening[r] = []
        if len(opening[r]) < 2:
            opening[r].append(w)
            if len(opening[r]) == 1:
                first_words[r, w] += 1
            if len(opening[r]) == 2:
                openings[r].setdefault(opening[r][0], set()).add(w)

    def rhyme_mask(r: int, lab: int) -> np.ndarray:
        keys = K[r][lab] if K[r][lab] is not None else plan[lab]
        return et.with_keys(system, keys)

    def go_on_from(rows: np.ndarray) -> None:
        """Every row takes over the state of ``rows[r]`` (the model's and the decoder's)."""
        nonlocal state, prev, out, span, cont, counts, K, Kp, used, followers, last_word, score_sum, score_n
        nonlocal opening, openings, row_line, first_words, spent
        state = backend.select(state, rows)
        prev, out, span, cont, counts = prev[rows], out[rows], span[rows], cont[rows], counts[rows]
        last_word, score_sum, score_n, row_line = last_word[rows], score_sum[rows], score_n[rows], row_line[rows]
        opening = [list(opening[i]) for i in rows]
        first_words = first_words[rows]
        if spent is not None:
            spent = spent[rows]
        openings = [{a: set(b) for a, b in openings[i].items()} for i in rows]
        K = [list(K[i]) for i in rows]
        Kp = [list(Kp[i]) for i in rows]
        used = [set(used[i]) for i in rows]
        followers = [{a: set(b) for a, b in followers[i].items()} for i in rows]
        if stress_fit is not None:
            stress_fit.marks = stress_fit.marks[rows]

    def perfect_keys(r: int, lab: int) -> frozenset | None:
        """The perfect rhyme keys label lab's line ends should take: its rhyme words' so far, or
        before any, the planned ones (locked rhyme words, a word for every line)."""
        return Kp[r][lab] or plan_perfect.get(lab) or None

    def final_fits(r: int, lab: int, li: int, left: int, perfect: bool = False) -> bool:
        """Can a rhyme word for label lab end line li in the last ``left`` syllables (or fewer)?
        ``perfect``: a perfect rhyme on ``perfect_keys``."""
        if perfect:
            keys, sys_name = perfect_keys(r, lab), "perfect"
        else:
            keys, sys_name = (K[r][lab] if K[r][lab] is not None else plan[lab]), system
        ck = (sys_name, keys, li, left)
        got = final_cache.get(ck)
        if got is None:
            rm = et.with_keys(sys_name, keys)
            got = any((et.fit(f, lay.tail(li, f)) & rm).any() for f in range(1, min(left, et.max_count) + 1))
            final_cache[ck] = got
        return got

    for p in range(T):
        if cancel is not None and cancel.is_set():
            raise GenerationCancelled("generation was cancelled")
        logp = backend.step(state, prev, p)
        if not lay.free[p]:
            fmt = int(enc.fmt[p])
            if fmt in (E.F_CHAR, E.F_RHYME) and not enc.word_start[p]:
                out[:, p] = vocab.fill          # a locked word's further syllable
            else:
                out[:, p] = enc.given[p]
                if enc.word_start[p] and fmt in (E.F_CHAR, E.F_RHYME):
                    last_word[:] = enc.given[p]
                    for r in range(n):
                        wrote(r, int(enc.given[p]), int(enc.slot_line[p]))
            prev = out[:, p]
            if fmt == E.F_EOL:
                rows = choice.winners()
                if rows is not None:
                    go_on_from(rows)
            if progress is not None:
                progress(p + 1, T)
            continue
        R = int(lay.room[p])
        fin = bool(lay.final[p])
        li = int(enc.slot_line[p])
        line_lean = lean.at(li) if lean is not None else None
        lab = lay.line_label.get(li, 0) if fin else 0
        for r in range(n):
            if cont[r] > 0:
                out[r, p] = vocab.fill
                choice.score[r] += float(logp[r, vocab.fill])
                cont[r] -= 1
                continue
            if copies[p] >= 0:      # a refrain: the word its source line has at this syllable
                w = int(out[r, copies[p]])
                c = int(span[r, copies[p]])
                if stress_fit is not None:
                    stress_fit.record(r, p, c, et.forms[w])
                out[r, p] = w
                last_word[r] = w
                wrote(r, w, li)
                span[r, p] = c
                cont[r] = c - 1
                counts[r, w] += 1
                continue
            by_c: dict[int, np.ndarray] = {}
            allowed = np.zeros(len(vocab), dtype=bool)
            for c in range(1, min(R, et.max_count) + 1):
                m = et.fit(c, "".join(lay.seg[p:p + c]))
                if fin and c == R:
                    end_ok = m & rhyme_mask(r, lab) if lab else m
                    if used[r]:
                        fresh = end_ok.copy()
                        fresh[list(used[r])] = False
                        end_ok = fresh if fresh.any() else end_ok
                    end_ok = _prefer(end_ok, et.line_end)
                    end_ok = _prefer(end_ok, et.known)
                    if lab and perfect_keys(r, lab):
                        end_ok = _prefer(end_ok, et.with_keys("perfect", perfect_keys(r, lab)))
                    avoid = _other_rhymes(Kp[r], lab)
                    if avoid:
                        end_ok = _prefer(end_ok, ~et.with_keys("perfect", avoid))
                    m = end_ok
                elif fin and lab and not final_fits(r, lab, li, R - c):
                    continue
                elif c == R and lay.before_mark[p]:
                    # a word before a comma inside the line ends a phrase as a line's last word
                    # does: no "And our, through faith," while another word fits
                    m = _prefer(m, et.line_end)
                by_c[c] = m
                allowed |= m
            if (fin and lab and system != "perfect" and perfect_keys(r, lab) and R > 1 and R in by_c
                    and not (by_c[R] & et.with_keys("perfect", perfect_keys(r, lab))).any()):
                # the words that would end the line here only slant-rhyme: a shorter word that
                # leaves room for a perfect rhyme goes first ("... understand" / "... immortality"
                # was a rhyme to the slant rule; "... the land" is one to the ear)
                towards = {c: m for c, m in by_c.items() if c < R and m.any()
                           and final_fits(r, lab, li, R - c, perfect=True)}
                if towards:
                    by_c = towards
                    allowed = np.zeros(len(vocab), dtype=bool)
                    for m in by_c.values():
                        allowed |= m
            if not allowed.any():
                raise GenerationError(f"line {li + 1}, syllable {int(enc.syllable[p]) + 1}: no word in the "
                                      f"vocabulary fits the {R} syllable{'s' if R != 1 else ''} left"
                                      + (f" and rhymes ({enc.labels[lab - 1]}, {system})" if lab else ""))
            soft = 0.0
            if stress_fit is not None:        # the tune's beats: stresses, rests, long notes
                by_c, soft = stress_fit.narrow(r, p, by_c)
                allowed = np.zeros(len(vocab), dtype=bool)
                for m in by_c.values():
                    allowed |= m
            allowed = _prefer(allowed, et.plain)
            barred = et.barred_after.get(int(last_word[r])) if last_word[r] >= 0 else None
            if barred is not None:        # no "the and", "an profound", "they is" while a word fits
                allowed = _prefer(allowed, ~barred)
            if last_word[r] >= 0 and allowed[last_word[r]] and allowed.sum() > 1:
                allowed[last_word[r]] = False
            cost = repeat_cost * np.minimum(counts[r], 3) * content
            if word_costs is not None:
                cost = cost + word_costs
            if line_lean is not None:          # not to a word (or its family) written: a repeat
                cost = cost - np.where(spent[r], 0.0, line_lean)
            again = followers[r].get(int(last_word[r]))
            if again:
                idx = np.fromiter(again, dtype=np.int64)
                cost[idx] += np.where(content[idx] > 0, PAIR_REPEAT_COST, FUNCTION_PAIR_COST)
            if row_line[r] == li and len(opening[r]) == 1:
                echo = openings[r].get(opening[r][0])
                if echo:
                    cost[np.fromiter(echo, dtype=np.int64)] += OPENING_ECHO_COST
            elif row_line[r] != li:       # the line's first word
                cost += FIRST_WORD_COST * np.maximum(first_words[r] - 1, 0)
                if line_start_costs is not None:
                    cost += line_start_costs
            row = np.where(allowed, logp[r] - cost - soft, NEG)
            w = _sample(row, rng, sampling)
            c = next(c for c in et.counts[w] if c in by_c and by_c[c][w])
            if stress_fit is not None:
                stress_fit.record(r, p, c, et.forms[w])
            out[r, p] = w
            choice.score[r] += float(row[w])
            if last_word[r] >= 0:
                followers[r].setdefault(int(last_word[r]), set()).add(int(w))
            last_word[r] = w
            wrote(r, int(w), li)
            span[r, p] = c
            cont[r] = c - 1
            counts[r, w] += 1
            score_sum[r] += float(logp[r, w])
            score_n[r] += 1
            if fin and c == R:
                used[r].add(w)
                if lab:
                    base = K[r][lab] if K[r][lab] is not None else plan[lab]
                    K[r][lab] = frozenset(base & per_sys[w]) or base
                    both = (Kp[r][lab] or per_perf[w]) & per_perf[w]
                    Kp[r][lab] = both or Kp[r][lab] or per_perf[w]
                else:
                    Kp[r][0] = frozenset((Kp[r][0] or frozenset()) | per_perf[w])
        prev = out[:, p]
        if progress is not None:
            progress(p + 1, T)
    rows = choice.winners()       # a template whose last line has no line end of its own
    if rows is not None:
        go_on_from(rows)
    results = []
    for r in range(0, n, k):
        lines: list[list[str]] = [[] for _ in template.lines]
        for p in range(T):
            f = int(enc.fmt[p])
            if f in (E.F_CHAR, E.F_RHYME):
                li = int(enc.slot_line[p])
                if lay.free[p] and out[r, p] != vocab.fill:
                    lines[li].append(render(vocab.tokens[out[r, p]], not lines[li], capitalized))
                elif not lay.free[p] and enc.word_start[p]:
                    lines[li].append(enc.text[p])
            elif f == E.F_PUNCT:
                li = int(enc.line[p])
                if lines[li]:
                    lines[li][-1] += enc.text[p]
        score = float(score_sum[r] / score_n[r]) if score_n[r] else 0.0
        results.append(Decoded(lines=[" ".join(ws) for ws in lines], score=score))
    return results


def _other_rhymes(kp: list, lab: int) -> frozenset:
    """Perfect rhyme keys of the row's other labels (index 0: the unrhymed line ends) that a line
    end of label ``lab`` (0: unrhymed) should not sound like."""
    out: set = set()
    for j, keys in enumerate(kp):
        if j != lab and keys:
            if lab == 0 and j == 0:
                continue
            out |= keys
    return frozenset(out)

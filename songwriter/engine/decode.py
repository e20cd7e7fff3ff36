"""Constrained decoding: every candidate fits the template by construction.

Per position the allowed tokens are:

- line end / piece end / punctuation positions: exactly the template's token (copied);
- locked slots: the locked character (copied; an out-of-vocabulary lock is fed as <unk> and
  written as itself);
- free slots: characters only (no punctuation, no specials), narrowed by the slot's tone class
  (平/仄, characters whose every reading has that class) and, at a rhyme slot, by the label's
  rhyme group under the chosen rhyme system.

A rhyme label's group is fixed by locked rhyme characters anywhere in the label (before or after
its first free slot); otherwise the model picks it at the label's first free rhyme slot, among the
groups for which every other slot of the label can still be filled. Rhymes are kept apart
(``RhymeSeparation``): unrhymed line ends avoid the piece's rhyme sounds and different labels avoid
each other's, as preferences that yield when nothing else fits. On a melody's template, Chinese
words avoid clear 倒字 (``ToneFit``: a tone sung against the melody's direction), the same kind of
preference. When nothing in the vocabulary
fits, a GenerationError names the line, the slot and the constraint.

Sampling: temperature, top-k, top-p and a repetition penalty over the row's own characters,
echoes costing more (``Echoes``: a character pair written again, a line opening with an earlier
line's first character) and the model's word costs where it has them; each line drafted
``LINE_CHOICES`` times per candidate and the likeliest draft kept (``LineChoice``, shared with the
English decoder); the rows in one batch with a KV cache; candidates ranked by the mean model
log-probability of the characters they chose. A numpy Generator seeded per request makes it deterministic. Each position
narrows and samples all rows in one vectorised pass (``RowDraws``), drawing what sampling row
after row (``_sample``) would draw from the same generator.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Callable

import numpy as np

from songwriter.engine import encoding as E
from songwriter.engine.errors import GenerationCancelled, GenerationError
from songwriter.engine.table_cache import load_tables, store_tables, table_path
from songwriter.engine.vocab import Vocab
from songwriter.template import Template

NEG = -1e9


class ProsodyTables:
    """Per-vocabulary-id tone and rhyme-group tables for one vocabulary, computed once per system."""

    def __init__(self, vocab: Vocab):
        self.vocab = vocab
        self._tone: dict[str, np.ndarray] = {}
        self._either: dict[str, np.ndarray] = {}
        self._rhyme: dict[str, tuple[np.ndarray, list[str]]] = {}
        self._sounds: np.ndarray | None = None
        self._usual: np.ndarray | None = None
        self._mandarin: np.ndarray | None = None
        self.char_mask = np.zeros(len(vocab), dtype=bool)
        self.char_mask[vocab.first_char:] = True
        self._english = None
        # nats per vocabulary id the decoders subtract (engine/word_costs: a model's tables),
        # anywhere, at a line's first word and right after itself (a Chinese character), on the
        # kinds of piece the costs name (None: all)
        self.word_costs: np.ndarray | None = None
        self.line_start_costs: np.ndarray | None = None
        self.doubled_costs: np.ndarray | None = None
        # a line's second character after its first: first id -> (second ids, nats)
        self.opening_pair_costs: dict[int, tuple[np.ndarray, np.ndarray]] | None = None
        self.cost_kinds: frozenset[str] | None = None
        self.associations = None        # an English model's word associations (engine/topic_en)

    def english(self):
        """The English tables of an English vocabulary (decode_en.EnglishTables), made once."""
        if self._english is None:
            from songwriter.engine.decode_en import EnglishTables

            self._english = EnglishTables(self.vocab)
        return self._english

    @staticmethod
    def _cache_file(kind: str, vocab: Vocab, system: str, also: tuple = ()):
        """The tables' file (engine/table_cache): <kind>-<system>-<vocab hash>-<prosody version>.npz
        (``also``: more source files the table depends on)"""
        from pathlib import Path

        from songwriter.prosody import chinese

        src = Path(chinese.__file__).parent
        sources = (sorted(src.glob("*.py")) + sorted((src.parents[1] / "assets").glob("*rhyme*"))
                   + [Path(E.__file__), *map(Path, also)])
        return table_path(f"{kind}-{system}", vocab.sha256, sources)

    def _load(self, kind: str, system: str, also: tuple = ()):
        return load_tables(self._cache_file(kind, self.vocab, system, also))

    def _store(self, kind: str, system: str, also: tuple = (), **arrays) -> None:
        store_tables(self._cache_file(kind, self.vocab, system, also), **arrays)

    def _per_char(self, kind: str, system: str, dtype, value: Callable[[str], int], also: tuple = ()) -> np.ndarray:
        """A table of ``value(character)`` per vocabulary id (0 for specials), from the disk cache
        when it has one for this vocabulary and prosody code (and the files ``also``)."""
        cached = self._load(kind, system, also)
        if cached is not None and "table" in cached and len(cached["table"]) == len(self.vocab):
            return cached["table"]
        out = np.zeros(len(self.vocab), dtype=dtype)
        for i in range(self.vocab.first_char, len(self.vocab)):
            out[i] = value(self.vocab.tokens[i])
        self._store(kind, system, also, table=out)
        return out

    def tone(self, system: str) -> np.ndarray:
        """int8 per id: 1 only 平, 2 only 仄, 0 both/unknown/not a character."""
        if system not in self._tone:
            from songwriter.prosody import chinese

            def tone_of(ch: str) -> int:
                classes = chinese.tone_classes(ch, 0, system)
                return E.TONE_IDS.get(next(iter(classes)), 0) if len(classes) == 1 else 0

            self._tone[system] = self._per_char("tone", system, np.int8, tone_of)
        return self._tone[system]

    def either_tone(self, system: str) -> np.ndarray:
        """bool per id: a character with a 平 and a 仄 reading (看, 思, 乡), which fits a slot of
        either tone as the checks read it (``checks``: a heteronym passes on either reading
        unless its phrase settles it)."""
        if system not in self._either:
            self._either[system] = self._per_char("either-tone", system, np.bool_,
                                                  lambda ch: E.has_both_tones(ch, system))
        return self._either[system]

    def sounds(self) -> np.ndarray:
        """int32 bit set per id of the character's sound classes over all its readings (bit k for
        class k, SongNet's 13 final groups + er; see encoding.sound_classes); 0 when unknown."""
        if self._sounds is None:
            self._sounds = self._per_char("sounds", "all", np.int32, sound_bits)
        return self._sounds

    def mandarin_tones(self) -> np.ndarray:
        """int8 per id: the Mandarin tone (1-4, 5 neutral) the character is read in alone
        (``melody.fit.char_tone``); 0 when unknown or not a character."""
        if self._mandarin is None:
            from songwriter.melody import fit

            self._mandarin = self._per_char("mandarin", "all", np.int8, fit.char_tone, also=(fit.__file__,))
        return self._mandarin

    def usual_sounds(self) -> np.ndarray:
        """int8 per id: the sound class of the character's usual reading (how it is read alone,
        see encoding.heard_sound_class); 0 when unknown."""
        if self._usual is None:
            self._usual = self._per_char("usual", "all", np.int8, lambda ch: E.heard_sound_class(ch, 0))
        return self._usual

    def rhyme(self, system: str) -> tuple[np.ndarray, list[str]]:
        """(int32 per id: group index when the character has exactly one group else -1, names)."""
        if system not in self._rhyme:
            cached = self._load("rhyme", system)
            if cached is not None and len(cached["gid"]) == len(self.vocab):
                self._rhyme[system] = (cached["gid"], [str(x) for x in cached["names"]])
                return self._rhyme[system]
            from songwriter.prosody import chinese

            names: dict[str, int] = {}
            out = np.full(len(self.vocab), -1, dtype=np.int32)
            for i in range(self.vocab.first_char, len(self.vocab)):
                groups = chinese.rhyme_groups(self.vocab.tokens[i], 0, system)
                if len(groups) == 1:
                    out[i] = names.setdefault(next(iter(groups)), len(names))
            self._rhyme[system] = (out, list(names))
            self._store("rhyme", system, gid=out, names=np.asarray(list(names) or [""], dtype=str))
        return self._rhyme[system]


def sound_bits(text: str) -> int:
    """Bit set of the sound classes of a character (0 for none or unknown)."""
    bits = 0
    for k in E.sound_classes(text):
        bits |= 1 << k
    return bits


class RhymeSeparation:
    """Keeps the rhymes a template asks for apart from the ones it does not, per candidate row.

    A line end the template leaves unrhymed should not rhyme with the piece's rhymes, two rhyme
    labels (A, B) should not sound alike, and the unrhymed line ends should not make up a rhyme
    of their own as large as one the template asks for: a reader hears any shared final as a
    rhyme, so "alike" is judged by the loose modern sound classes (SongNet's 13 final groups),
    and, within the chosen rhyme system, by its group. The lines of one label keep the modern
    sound class of its first rhyme as heard in its line, so a classical rhyme (词林正韵 and 平水韵
    groups span several modern finals) also rhymes to a modern ear. All are preferences that
    yield when nothing else fits.
    """

    def __init__(self, enc: E.Encoded, tables: ProsodyTables, gid: np.ndarray, n: int):
        self.sounds = tables.sounds()
        self.usual = tables.usual_sounds()
        self.gid = gid
        n_labels = len(enc.labels) + 1
        self.label_bits = np.zeros((n, n_labels), dtype=np.int64)    # classes used by each label
        self.label_class = np.zeros((n, n_labels), dtype=np.int64)   # class each label's rhyme is heard in
        self.loose_bits = np.zeros(n, dtype=np.int64)                # classes of unrhymed line ends
        self.loose_count = np.zeros((n, E.N_GROUPS + 1), dtype=np.int32)  # unrhymed ends per class
        ends = np.nonzero(enc.fmt == E.F_RHYME)[0]
        sizes = np.bincount(enc.label[ends].astype(np.int64), minlength=n_labels)[1:]
        # unrhymed ends may share a class fewer times than the smallest rhyme has lines
        self.cap = int(sizes[sizes >= 2].min()) - 1 if (sizes >= 2).any() else None
        for p in ends:
            if not enc.text[p]:
                continue
            bits = sound_bits(enc.text[p])
            lab = int(enc.label[p])
            if lab:
                self.label_bits[:, lab] |= bits
                if not self.label_class[0, lab]:
                    self.label_class[:, lab] = _locked_heard_class(enc, p)
            else:
                self._add_loose(slice(None), bits)

    def select(self, rows: np.ndarray) -> None:
        """Row r goes on from row ``rows[r]`` (a line's drafts: the best one's record)."""
        self.label_bits, self.label_class = self.label_bits[rows], self.label_class[rows]
        self.loose_bits, self.loose_count = self.loose_bits[rows], self.loose_count[rows]

    def _add_loose(self, rows, bits: int) -> None:
        self.loose_bits[rows] |= bits
        for k in range(E.N_GROUPS + 1):
            if bits >> k & 1:
                self.loose_count[rows, k] += 1

    @staticmethod
    def _prefer(m: np.ndarray, avoid: np.ndarray) -> np.ndarray:
        kept = m & ~avoid
        return kept if kept.any() else m

    def _unrhymed_avoid(self, r: int) -> int:
        """Classes an unlabelled line end of row r should not sound like."""
        bits = int(np.bitwise_or.reduce(self.label_bits[r]))
        if self.cap is not None:
            for k in np.nonzero(self.loose_count[r] >= self.cap)[0]:
                bits |= 1 << int(k)
        return bits

    def _label_avoid(self, r: int, lab: int) -> int:
        """Classes the rhymes of label ``lab`` of row r should not sound like (the other labels',
        the unrhymed line ends')."""
        return int(np.bitwise_or.reduce(np.delete(self.label_bits[r], lab))) | int(self.loose_bits[r])

    def unrhymed_end(self, r: int, m: np.ndarray, chosen_groups: np.ndarray) -> np.ndarray:
        """Narrow the mask of an unlabelled line end of row r away from the row's rhymes."""
        avoid = (self.sounds & self._unrhymed_avoid(r)) != 0
        groups = chosen_groups[chosen_groups >= 0]
        if len(groups):
            avoid |= np.isin(self.gid, groups)
        return self._prefer(m, avoid)

    def apart_from_other_rhymes(self, r: int, lab: int, m: np.ndarray,
                                chosen_groups: np.ndarray) -> np.ndarray:
        """Narrow the mask of a slot of label ``lab``: away from the other labels' sounds and
        groups, and the unrhymed line ends' sounds. ``chosen_groups`` is indexed by label."""
        avoid = (self.sounds & self._label_avoid(r, lab)) != 0
        groups = np.delete(chosen_groups, lab)
        groups = groups[groups >= 0]
        if len(groups):
            avoid |= np.isin(self.gid, groups)
        return self._prefer(m, avoid)

    def same_sound(self, r: int, lab: int, m: np.ndarray) -> np.ndarray:
        """Narrow the mask of a later slot of label ``lab`` to characters usually read in the
        class its rhyme is heard in."""
        cls = int(self.label_class[r, lab])
        return self._prefer(m, self.usual != cls) if cls else m

    def heard_fits(self, r: int, lab: int, heard: int) -> bool:
        """Whether a line end heard in class ``heard`` (0 unknown) keeps row r's rhymes apart."""
        if not heard:
            return True
        if lab:
            cls = int(self.label_class[r, lab])
            return heard == cls if cls else not self._label_avoid(r, lab) >> heard & 1
        return not self._unrhymed_avoid(r) >> heard & 1

    def record(self, r: int, lab: int, tok: int, heard: int = 0) -> None:
        bits = int(self.sounds[tok])
        if lab:
            self.label_bits[r, lab] |= bits
            if not self.label_class[r, lab]:
                self.label_class[r, lab] = heard
        else:
            self._add_loose(r, bits)

    # The same narrowings for all rows at once: ``m`` is (rows, V), row r narrowed exactly as the
    # per-row method above narrows it (tests/test_decode_rows.py holds them to that).

    @staticmethod
    def _prefer_rows(m: np.ndarray, avoid: np.ndarray) -> np.ndarray:
        kept = m & ~avoid
        return np.where(kept.any(axis=1)[:, None], kept, m)

    def _group_avoid_rows(self, groups: np.ndarray) -> np.ndarray:
        """(rows, V): the characters whose group is one of row r's ``groups`` (-1: none)."""
        avoid = np.zeros((len(groups), len(self.gid)), dtype=bool)
        for g in groups.T:
            if (g >= 0).any():
                avoid |= (self.gid[None, :] == g[:, None]) & (g >= 0)[:, None]
        return avoid

    def unrhymed_end_rows(self, m: np.ndarray, chosen_groups: np.ndarray) -> np.ndarray:
        """``unrhymed_end`` for every row: ``chosen_groups`` is (rows, labels)."""
        bits = np.bitwise_or.reduce(self.label_bits, axis=1)
        if self.cap is not None:
            over = self.loose_count >= self.cap
            bits |= (over.astype(np.int64) << np.arange(over.shape[1], dtype=np.int64)).sum(axis=1)
        avoid = (self.sounds[None, :] & bits[:, None]) != 0
        avoid |= self._group_avoid_rows(chosen_groups)
        return self._prefer_rows(m, avoid)

    def apart_from_other_rhymes_rows(self, lab: int, m: np.ndarray, chosen_groups: np.ndarray) -> np.ndarray:
        """``apart_from_other_rhymes`` for every row: ``chosen_groups`` is (rows, labels + 1)."""
        bits = np.bitwise_or.reduce(np.delete(self.label_bits, lab, axis=1), axis=1) | self.loose_bits
        avoid = (self.sounds[None, :] & bits[:, None]) != 0
        avoid |= self._group_avoid_rows(np.delete(chosen_groups, lab, axis=1))
        return self._prefer_rows(m, avoid)

    def same_sound_rows(self, lab: int, m: np.ndarray) -> np.ndarray:
        """``same_sound`` for every row (rows whose label has no class yet are left as they are)."""
        cls = self.label_class[:, lab]
        if not cls.any():
            return m
        avoid = (self.usual[None, :] != cls[:, None]) & (cls != 0)[:, None]
        return self._prefer_rows(m, avoid)


class ToneFit:
    """Keeps a melody's Chinese words from being sung against their tones (倒字), per candidate row.

    At a slot of a template made from a melody (``template.meta.melody``, tone fit on), the
    characters whose tone makes a clear 倒字 with the syllable before it in the line, as the row
    has it, over the interval between their notes, are avoided, and so are those that make one
    with a locked syllable after it. The judgement is ``melody.fit``'s (``bad_tone_pairs``, from
    ``pair_grade``), each character's tone as read alone (``ProsodyTables.mandarin_tones``). A
    preference, like RhymeSeparation's: it yields when nothing else fits. Weaker misfits are left
    to the ranking (``melody.fit.melody_ranking``).
    """

    def __init__(self, enc: E.Encoded, tables: ProsodyTables, steps: list[list[int | None]]):
        from songwriter.melody.fit import bad_tone_pairs, char_tone

        self.tone = tables.mandarin_tones().astype(np.int64)
        where = {(int(enc.slot_line[p]), int(enc.slot_index[p])): p
                 for p in range(len(enc)) if enc.fmt[p] in (E.F_CHAR, E.F_RHYME)}
        tables_of: dict[int, np.ndarray] = {}

        def bad(interval: int) -> np.ndarray:     # (6, 6): [tone before, tone after], 0 unknown
            if interval not in tables_of:
                t = np.zeros((6, 6), dtype=bool)
                for a, b in bad_tone_pairs(interval):
                    t[a, b] = True
                tables_of[interval] = t
            return tables_of[interval]

        self.before: dict[int, tuple[int, np.ndarray]] = {}    # p: (position before, bad table)
        self.after: dict[int, np.ndarray] = {}                 # p: (V,) avoided before a lock
        for (li, k), p in where.items():
            if li >= len(steps) or k >= len(steps[li]):
                continue
            q = where.get((li, k - 1))
            if steps[li][k] is not None and q is not None:
                self.before[p] = (q, bad(steps[li][k]))
            nxt = where.get((li, k + 1))
            if nxt is not None and enc.text[nxt] and k + 1 < len(steps[li]) and steps[li][k + 1] is not None:
                self.after[p] = bad(steps[li][k + 1])[:, char_tone(enc.text[nxt])][self.tone]

    @classmethod
    def of(cls, template: Template, enc: E.Encoded, tables: ProsodyTables) -> "ToneFit | None":
        """The template's tone fit, or None when it has no melody to fit (or the fit is off)."""
        from songwriter.melody.fit import tone_steps

        steps = tone_steps(template)
        return cls(enc, tables, steps) if steps is not None else None

    def avoid_rows(self, p: int, out: np.ndarray) -> np.ndarray | None:
        """(rows, V): the characters position p avoids in each row (``out``: the rows' ids so
        far), or None where nothing is avoided."""
        avoid = None
        if p in self.before:
            q, bad = self.before[p]
            avoid = bad[self.tone[out[:, q]]][:, self.tone]
        if p in self.after:
            avoid = self.after[p][None, :] if avoid is None else avoid | self.after[p][None, :]
        return avoid

    def narrow_rows(self, p: int, m: np.ndarray, out: np.ndarray) -> np.ndarray:
        avoid = self.avoid_rows(p, out)
        return m if avoid is None else RhymeSeparation._prefer_rows(m, avoid)


def _locked_heard_class(enc: E.Encoded, p: int) -> int:
    """Class of the locked rhyme character at p, as read in its line when the whole line is locked
    (else as read alone)."""
    where = E.line_positions(enc, int(enc.slot_line[p]))
    line = "".join(enc.text[q] for q in where)
    if len(line) == len(where):
        return E.heard_sound_class(line, int(enc.slot_index[p]))
    return E.heard_sound_class(enc.text[p], 0)


# Each candidate writes every line this many times (independent samples from where the candidate
# stands, rows of one batch) and keeps the draft the model finds likeliest as a whole, with the
# repetition costs: a character sampled early can leave a line's end only a forced one that fits
# the tone and the rhyme; the line's total score sees that, a character's draw cannot. Both
# decoders' default (``Sampling.line_choices`` None).
LINE_CHOICES = 4
# Chinese: nats off a character's log-prob per earlier use in the piece (at most three uses
# counted). Shi and ci (ECHO_KINDS) 1.0: at 0.35 our 七绝/五律/阮郎归 wrote a character again 6.5
# times in 100 (real ones of the test split 3.8), at 1.0 4.3, and readers rated them higher in two
# blind files (docs/results.md, "The repetition penalty"); modern lyrics keep 0.35, as they echo
# by design
REPEAT_COST_ZH = 0.35
REPEAT_COST_CLASSICAL_ZH = 1.0
# Chinese: subtracted from a character's log-prob where it would follow the character before it in
# its line a second time in the piece (相逢 ... 相逢, 只今 ... 只今): real 七绝/五律/阮郎归 of the test split
# write 0.1-0.2 % of their character pairs again, one draft per line 0.5-1.3 %.
PAIR_REPEAT_COST_ZH = 2.0
# Chinese: subtracted, per earlier line that opened with it, from a line's first character: the
# real pieces open a line with an earlier line's first character in 0.4-0.7 % of lines, one draft
# per line in 9 % (不 opens 13 % of its lines, 只 9 %; real 1.5-2.8 % and under 1 %).
FIRST_CHAR_COST_ZH = 1.5
# the kinds of piece the Chinese echo costs apply to: regulated verse and ci hardly ever echo, but
# modern poems and lyrics do by design (anaphora, refrains). Held-out modern poems (16, the blind
# modern set) write 4.3-6.5 % of their character pairs again and open 3.3-6.2 % of their lines as
# an earlier one; lyrics with four drafts and no echo costs 5.6-8.2 % and 6.2-11.5 %, with the
# costs 1.4 % and 3.3 % (read blind: a tie, both word salad)
ECHO_KINDS = frozenset({"shi", "ci"})


class LineChoice:
    """Rows in groups of k, one group per candidate: each row of a group samples the line on its
    own, adding up the score of what it writes (the model's log-probability of every free position
    less the repetition and tune costs); at the line's end every row of a group goes on from the
    group's best row."""

    def __init__(self, n: int, k: int):
        self.n, self.k = n, k
        self.score = np.zeros(n * k)

    @classmethod
    def of(cls, sampling: "Sampling") -> "LineChoice":
        """The request's drafts: ``line_choices`` (the decoders' LINE_CHOICES when None) rows per
        candidate, one when sampling is greedy (its drafts would all be the same line)."""
        k = max(1, int(getattr(sampling, "line_choices", None) or LINE_CHOICES))
        return cls(max(1, int(sampling.n)), 1 if sampling.temperature <= 0 else k)

    @property
    def rows(self) -> int:
        return self.n * self.k

    def winners(self) -> np.ndarray | None:
        """The row each row goes on from (the scores start again), or None when each row keeps
        its own (k of 1)."""
        if self.k == 1:
            return None
        best = self.score.reshape(self.n, self.k).argmax(axis=1) + np.arange(self.n) * self.k
        self.score[:] = 0.0
        return np.repeat(best, self.k)


class Echoes:
    """What each row of the Chinese decoder has written that a later line should not echo: the
    character pairs of its lines and the characters its lines opened with (``PAIR_REPEAT_COST_ZH``,
    ``FIRST_CHAR_COST_ZH``). Costs, never bans: a slot whose only fitting characters echo is still
    filled."""

    def __init__(self, enc: E.Encoded, n: int, size: int, on: bool = True):
        self.on = on          # off: nothing costs more (the kinds outside ECHO_KINDS)
        self.firsts = np.zeros((n, size), dtype=np.int32)       # lines each character opened
        self.followers: list[dict[int, set[int]]] = [{} for _ in range(n)]
        # the position before p in its line (-1 at a line's first slot)
        slots = (enc.fmt == E.F_CHAR) | (enc.fmt == E.F_RHYME)
        self.before = np.full(len(enc), -1, dtype=np.int64)
        self.first = np.zeros(len(enc), dtype=bool)
        self.second = np.zeros(len(enc), dtype=bool)     # a line's second slot
        last: dict[int, int] = {}
        for p in np.nonzero(slots)[0]:
            li = int(enc.slot_line[p])
            self.before[p] = last.get(li, -1)
            self.first[p] = li not in last
            self.second[p] = li in last and self.first[last[li]]
            last[li] = int(p)

    def costs(self, p: int, out: np.ndarray) -> np.ndarray | None:
        """(rows, V) nats to subtract at slot p, or None where nothing is echoed."""
        if not self.on:
            return None
        if self.first[p]:
            return FIRST_CHAR_COST_ZH * self.firsts if self.firsts.any() else None
        q = int(self.before[p])
        cost = None
        for r, follow in enumerate(self.followers):
            again = follow.get(int(out[r, q]))
            if again:
                if cost is None:
                    cost = np.zeros(self.firsts.shape)
                cost[r, list(again)] = PAIR_REPEAT_COST_ZH
        return cost

    def record(self, p: int, out: np.ndarray) -> None:
        """Every row wrote ``out[:, p]`` at slot p (chosen, locked or copied)."""
        tok = out[:, p]
        if self.first[p]:
            self.firsts[np.arange(len(tok)), tok] += 1
            return
        q = int(self.before[p])
        for r, follow in enumerate(self.followers):
            follow.setdefault(int(out[r, q]), set()).add(int(tok[r]))

    def select(self, rows: np.ndarray) -> None:
        self.firsts = self.firsts[rows]
        self.followers = [{a: set(b) for a, b in self.followers[i].items()} for i in rows]


def costs_for(tables: ProsodyTables, template: Template) -> tuple[np.ndarray | None, np.ndarray | None]:
    """The model's word costs (anywhere, at a line's first word) that apply to ``template``'s kind
    of piece: (None, None) where the costs were measured on other kinds."""
    if not _costs_apply(tables, template):
        return None, None
    return getattr(tables, "word_costs", None), getattr(tables, "line_start_costs", None)


def doubled_costs_for(tables: ProsodyTables, template: Template) -> np.ndarray | None:
    """The cost of each character written right after itself, where the model's costs apply."""
    return getattr(tables, "doubled_costs", None) if _costs_apply(tables, template) else None


def opening_pair_costs_for(tables: ProsodyTables, template: Template
                           ) -> dict[int, tuple[np.ndarray, np.ndarray]] | None:
    """What a line's second character costs after its first, where the model's costs apply."""
    return getattr(tables, "opening_pair_costs", None) if _costs_apply(tables, template) else None


def _costs_apply(tables: ProsodyTables, template: Template) -> bool:
    kinds = getattr(tables, "cost_kinds", None)
    return kinds is None or template.kind in kinds


@dataclass
class Sampling:
    n: int = 8
    seed: int | None = None
    temperature: float = 1.0
    top_k: int = 32
    top_p: float = 0.95
    # subtracted from a word's log-prob per earlier use (None: the decoder's own,
    # REPEAT_COST_CLASSICAL_ZH / REPEAT_COST_ZH by the kind of piece, or decode_en.REPEAT_COST_EN)
    repetition_penalty: float | None = None
    # times each line is sampled per candidate, the likeliest kept (None: ``LINE_CHOICES``)
    line_choices: int | None = None


@dataclass
class Decoded:
    lines: list[str]
    score: float            # mean log-prob of the freely chosen characters


def _rhyme_system_name(template: Template, requested: str | None) -> str:
    from songwriter.prosody import chinese

    name = requested or template.effective_rhyme_system()
    try:
        return chinese.resolve_rhyme_system(name)
    except Exception as e:
        raise GenerationError(f"unknown rhyme system {name!r}: {e}") from None


def plan_rhymes(enc: E.Encoded, template: Template, tables: ProsodyTables, system: str,
                tone_system: str) -> tuple[dict[int, np.ndarray], dict[int, int]]:
    """For each rhyme label: the feasible group indices, and the position of its first free slot.

    Raises GenerationError when a label cannot be satisfied."""
    from songwriter.prosody import chinese

    gid, names = tables.rhyme(system)
    tone = tables.tone(tone_system)
    feasible: dict[int, np.ndarray] = {}
    first_free: dict[int, int] = {}
    letters = enc.labels
    for lab in range(1, len(letters) + 1):
        where = np.nonzero(enc.label == lab)[0]
        if len(where) == 0:
            continue
        lines_txt = ", ".join(str(int(enc.slot_line[p]) + 1) for p in where)
        options = set(range(len(names)))
        locked = [p for p in where if enc.text[p]]
        for p in locked:
            ch = enc.text[p]
            li = int(enc.slot_line[p])
            line_chars = "".join(s.lock or "" for s in template.lines[li].slots)
            k = int(enc.slot_index[p])
            g = chinese.rhyme_groups(line_chars, k, system) if len(line_chars) == len(template.lines[li].slots) \
                else chinese.rhyme_groups(ch, 0, system)
            g = {names.index(x) for x in g if x in names}
            if not g:
                raise GenerationError(
                    f"rhyme {letters[lab - 1]} (lines {lines_txt}): the locked rhyme character {ch!r} on line "
                    f"{li + 1} has no known rhyme group in {system}")
            options &= g
            if not options:
                raise GenerationError(
                    f"rhyme {letters[lab - 1]} (lines {lines_txt}): the locked rhyme characters do not share "
                    f"a rhyme group in {system}")
        free = [p for p in where if not enc.text[p]]
        for p in free:
            want = int(enc.tone[p])
            ok = gid >= 0
            if want:
                ok &= tone == want
            have = set(np.unique(gid[ok]).tolist())
            options &= have
            if not options:
                li, k = int(enc.slot_line[p]) + 1, int(enc.slot_index[p]) + 1
                tone_txt = f" with tone {'平' if want == 1 else '仄'}" if want else ""
                raise GenerationError(
                    f"rhyme {letters[lab - 1]} (lines {lines_txt}): no character in the vocabulary fits line "
                    f"{li}, syllable {k}{tone_txt} in a rhyme group shared by the other lines ({system})")
        if free:
            first_free[lab] = int(free[0])
            # prefer groups with a different character for every slot of the label
            need = len(where)
            roomy = {g for g in options if int((gid == g).sum()) >= need}
            options = roomy or options
        feasible[lab] = np.asarray(sorted(options), dtype=np.int32)
    return feasible, first_free


def static_masks(enc: E.Encoded, tables: ProsodyTables, tone_system: str) -> dict[int, np.ndarray]:
    """Allowed ids per free character position (before rhyme), checked to be non-empty."""
    tone, either = tables.tone(tone_system), tables.either_tone(tone_system)
    masks = {}
    for p in range(len(enc)):
        if enc.fmt[p] not in (E.F_CHAR, E.F_RHYME) or enc.text[p]:
            continue
        m = tables.char_mask.copy()
        m[tables.vocab.unk] = False
        want = int(enc.tone[p])
        if want:
            m &= (tone == want) | either
            if not m.any():
                raise GenerationError(f"line {int(enc.slot_line[p]) + 1}, syllable {int(enc.slot_index[p]) + 1}: "
                                      f"no character in the vocabulary has tone {'平' if want == 1 else '仄'}")
        masks[p] = m
    return masks


def topk_order(x: np.ndarray, k: int) -> np.ndarray:
    """The first k of ``np.argsort(-x, kind="stable")`` without sorting all of x (the same ids in
    the same order, so seeded draws do not change): partition at the k-th largest value, keep
    everything above it and the lowest-index ties at it, then sort those by (-x, index)."""
    n = len(x)
    if k >= n // 8:
        return np.argsort(-x, kind="stable")[:k]
    kth = np.partition(x, n - k)[n - k]
    above = np.flatnonzero(x > kth)
    tie = np.flatnonzero(x == kth)[:k - len(above)]
    sel = np.concatenate([above, tie])
    return sel[np.lexsort((sel, -x[sel]))]


def _sample(logp: np.ndarray, rng: np.random.Generator, s: Sampling) -> int:
    """One id from masked log-probs (-1e9 = forbidden) with temperature, top-k, top-p."""
    if s.temperature <= 0:
        return int(np.argmax(logp))
    x = logp / s.temperature
    allowed = int((x > NEG / 2).sum())
    k = min(s.top_k if s.top_k and s.top_k > 0 else allowed, allowed)
    order = topk_order(x, max(1, k))
    z = x[order] - x[order[0]]
    p = np.exp(z)
    p /= p.sum()
    if 0 < s.top_p < 1:
        c = np.cumsum(p)
        cut = int(np.searchsorted(c, s.top_p)) + 1
        p = p[:cut] / p[:cut].sum()
        order = order[:cut]
    return int(order[rng.choice(len(order), p=p)])


def topk_order_rows(x: np.ndarray, k: int) -> np.ndarray:
    """``topk_order`` of every row of x (rows, V) in one pass: (rows, k) ids, each row the first k
    of its stable descending sort."""
    n, V = x.shape
    if k >= V // 8:
        return np.argsort(-x, axis=1, kind="stable")[:, :k]
    top = np.argpartition(x, V - k, axis=1)[:, V - k:]
    vals = np.take_along_axis(x, top, axis=1)
    order = np.take_along_axis(top, np.lexsort((top, -vals), axis=1), axis=1)
    # where the k-th largest value also occurs outside the k taken, argpartition chose among the
    # ties arbitrarily; the stable sort keeps the lowest ids: that row goes the per-row way
    kth = vals.min(axis=1)
    for r in np.nonzero((x == kth[:, None]).sum(axis=1) > (vals == kth[:, None]).sum(axis=1))[0]:
        order[r] = topk_order(x[r], k)
    return order


def _prefix_sums(p: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """``p[r, :lengths[r]].sum()`` per row, summed as numpy sums the 1-D slice (same rounding, so
    the probabilities are bit for bit those of ``_sample``); rows of one length in one call."""
    out = np.empty(len(p))
    for length in set(lengths.tolist()):
        rows = lengths == length
        out[rows] = p[rows, :length].sum(axis=1)
    return out


class RowDraws:
    """The top-k / top-p distributions of every row of masked log-probs (rows, V), built in one
    pass; ``pick(r, u)`` is the id ``_sample`` draws for row r when the generator's next uniform
    is u (``Generator.choice`` with p draws one uniform and searches the normalised cdf), so
    ``picks(rng.random(rows))`` equals calling ``_sample`` row after row on the same generator."""

    def __init__(self, logp: np.ndarray, s: Sampling):
        self.greedy = s.temperature <= 0
        if self.greedy:
            self.ids = np.argmax(logp, axis=1)
            return
        x = logp if s.temperature == 1 else logp / s.temperature   # x / 1 is x: the same draws
        allowed = (x > NEG / 2).sum(axis=1)
        k = np.minimum(s.top_k, allowed) if s.top_k and s.top_k > 0 else allowed
        k = np.maximum(1, k)
        order = topk_order_rows(x, int(k.max()))
        cols = np.arange(order.shape[1])[None, :]
        top = np.take_along_axis(x, order, axis=1)
        p = np.where(cols < k[:, None], np.exp(top - top[:, :1]), 0.0)
        p /= _prefix_sums(p, k)[:, None]
        cut = k
        if 0 < s.top_p < 1:
            below = (np.cumsum(p, axis=1) < s.top_p) & (cols < k[:, None])
            cut = np.minimum(below.sum(axis=1) + 1, k)
            p = np.where(cols < cut[:, None], p / _prefix_sums(p, cut)[:, None], 0.0)
        cdf = np.cumsum(p, axis=1)
        self.cdf = cdf / cdf[np.arange(len(cdf)), cut - 1][:, None]
        self.cut = cut
        self.order = order

    def pick(self, r: int, u: float) -> int:
        if self.greedy:
            return int(self.ids[r])
        return int(self.order[r, np.searchsorted(self.cdf[r, :self.cut[r]], u, side="right")])

    def picks(self, rng: np.random.Generator) -> np.ndarray:
        """One id per row, drawing one uniform per row (none when greedy)."""
        if self.greedy:
            return self.ids.astype(np.int64)
        u = rng.random(len(self.cut))
        cols = np.arange(self.cdf.shape[1])[None, :]
        idx = ((self.cdf <= u[:, None]) & (cols < self.cut[:, None])).sum(axis=1)
        return self.order[np.arange(len(u)), idx].astype(np.int64)


def decode(backend, vocab: Vocab, tables: ProsodyTables, template: Template, enc: E.Encoded,
           sampling: Sampling, rhyme_system: str | None = None,
           progress: Callable[[int, int], None] | None = None,
           cancel: threading.Event | None = None, completion=None) -> list[Decoded]:
    """Sample ``sampling.n`` rows that fit ``template`` (already encoded as ``enc``). An English
    vocabulary's rows are decoded by ``decode_en`` (syllables, words, English rhymes).
    ``completion``: a request's content words to complete (``content_words.WordCompletion``), or
    for English the content's lean (``topic_en.ContentLean``)."""
    if getattr(vocab, "language", "zh") == "en":
        from songwriter.engine.decode_en import decode_en

        return decode_en(backend, vocab, tables, template, enc, sampling, rhyme_system, progress, cancel,
                         lean=completion)
    T = len(enc)
    if T > backend.max_len:
        raise GenerationError(f"the template needs {T} model positions; this model handles at most "
                              f"{backend.max_len} (about {backend.max_len * 4 // 5} characters)")
    system = _rhyme_system_name(template, rhyme_system)
    tone_system = template.tone_system
    masks = static_masks(enc, tables, tone_system)
    if completion is not None:
        completion.fit(masks)
    feasible, first_free = plan_rhymes(enc, template, tables, system, tone_system)
    gid, _ = tables.rhyme(system)
    choice = LineChoice.of(sampling)
    n = choice.rows      # k rows per candidate: the drafts of each line
    rng = np.random.default_rng(sampling.seed)
    state = backend.start(enc.arrays(), n)
    prev = np.full(n, vocab.bos, dtype=np.int64)
    out = np.zeros((n, T), dtype=np.int64)
    chosen_group = np.full((n, len(enc.labels) + 1), -1, dtype=np.int64)
    for lab, opts in feasible.items():
        if len(opts) == 1:
            chosen_group[:, lab] = opts[0]
    counts = np.zeros((n, len(vocab)), dtype=np.int32)
    # repeat_cost * min(count, 3) per row and id, updated where a count changes
    repeat_cost = sampling.repetition_penalty
    if repeat_cost is None:
        repeat_cost = REPEAT_COST_CLASSICAL_ZH if template.kind in ECHO_KINDS else REPEAT_COST_ZH
    penalty = np.zeros((n, len(vocab)))
    used_rhyme = np.zeros((n, len(vocab)), dtype=bool)   # no rhyme character twice in a row
    for p in np.nonzero(enc.label > 0)[0]:
        if enc.text[p]:
            used_rhyme[:, int(enc.given[p])] = True
    separation = RhymeSeparation(enc, tables, gid, n)
    echoes = Echoes(enc, n, len(vocab), on=template.kind in ECHO_KINDS)
    word_costs, line_start_costs = costs_for(tables, template)
    doubled = doubled_costs_for(tables, template)
    opening_pairs = opening_pair_costs_for(tables, template)
    tone_fit = ToneFit.of(template, enc, tables)     # a melody's 倒字, avoided
    copies = E.repeat_sources(enc, template)         # a refrain line's characters are its source's
    problem = E.refrain_copy_problem(copies, np.asarray([p in masks for p in range(T)]), enc)
    if problem:
        raise GenerationError(problem)
    rows = np.arange(n)
    score_sum = np.zeros(n)
    score_n = 0

    def go_on_from(picked: np.ndarray) -> None:
        """Every row takes over the state of ``picked[r]`` (the model's and the decoder's)."""
        nonlocal state, prev, out, counts, penalty, used_rhyme, chosen_group, score_sum
        state = backend.select(state, picked)
        prev, out, counts, penalty = prev[picked], out[picked], counts[picked], penalty[picked]
        used_rhyme, chosen_group, score_sum = used_rhyme[picked], chosen_group[picked], score_sum[picked]
        separation.select(picked)
        echoes.select(picked)

    for p in range(T):
        if cancel is not None and cancel.is_set():
            raise GenerationCancelled("generation was cancelled")
        logp = backend.step(state, prev, p)
        if p in masks and copies[p] >= 0:
            tok = out[:, copies[p]].copy()
            out[:, p] = tok
            counts[rows, tok] += 1
            penalty[rows, tok] = repeat_cost * np.minimum(counts[rows, tok], 3)
            echoes.record(p, out)
            if enc.fmt[p] == E.F_RHYME:       # the rhyme's sound, as the source line's end recorded it
                lab = int(enc.label[p])
                for r in range(n):
                    line_start = _line_start(enc, vocab, out[r], p)
                    separation.record(r, lab, int(tok[r]), E.heard_sound_class(
                        line_start + vocab.tokens[tok[r]], len(line_start)))
        elif p in masks:
            lab = int(enc.label[p])
            line_end = enc.fmt[p] == E.F_RHYME
            m = np.broadcast_to(masks[p], (n, len(vocab)))
            if lab:
                g = chosen_group[:, lab]
                in_group = np.where((g >= 0)[:, None], gid[None, :] == g[:, None],
                                    np.isin(gid, feasible[lab])[None, :])
                m = m & in_group
                if not m.any(axis=1).all():
                    raise GenerationError(
                        f"line {int(enc.slot_line[p]) + 1}, syllable {int(enc.slot_index[p]) + 1}: no "
                        f"character fits rhyme {enc.labels[lab - 1]} ({system}) and the tone")
                # every rhyme of a label keeps away from the other rhymes' sounds (its group may
                # be fixed already: one feasible, or a lock); later ones keep the first's sound
                m = separation.apart_from_other_rhymes_rows(lab, m, chosen_group)
                m = separation.same_sound_rows(lab, m)
                m = RhymeSeparation._prefer_rows(m, used_rhyme)
            elif line_end:
                m = separation.unrhymed_end_rows(m, chosen_group[:, 1:])
            if tone_fit is not None:
                m = tone_fit.narrow_rows(p, m, out)
            preferred = logp - penalty
            echo = echoes.costs(p, out)
            if echo is not None:
                preferred = preferred - echo
            if word_costs is not None:
                preferred = preferred - word_costs
            if line_start_costs is not None and echoes.first[p]:
                preferred = preferred - line_start_costs
            if doubled is not None and echoes.before[p] >= 0:
                # each row's character before, in this line, costs its ``doubled`` nats again
                again = out[:, echoes.before[p]]
                preferred[rows, again] -= doubled[again]
            if opening_pairs is not None and echoes.second[p]:
                for r, first in enumerate(out[:, echoes.before[p]]):
                    costed = opening_pairs.get(int(first))
                    if costed is not None:
                        preferred[r, costed[0]] -= costed[1]
            if completion is not None:
                completion.add(p, out, preferred)
            masked = np.where(m, preferred, NEG)
            draws = RowDraws(masked, sampling)
            if line_end:
                # one row after another: a row's redraws come before the next row's draw
                tok = np.empty(n, dtype=np.int64)
                for r in range(n):
                    first = draws.pick(r, 0.0 if draws.greedy else rng.random())
                    line_start = _line_start(enc, vocab, out[r], p)
                    tok[r], heard = _draw_line_end(
                        masked[r], first, rng, sampling,
                        hear=lambda t: E.heard_sound_class(line_start + vocab.tokens[t], len(line_start)),
                        fits=lambda h: separation.heard_fits(r, lab, h))
                    separation.record(r, lab, int(tok[r]), heard)
            else:
                tok = draws.picks(rng)
            out[:, p] = tok
            echoes.record(p, out)
            choice.score += preferred[rows, tok]
            counts[rows, tok] += 1
            penalty[rows, tok] = repeat_cost * np.minimum(counts[rows, tok], 3)
            score_sum += logp[rows, tok]
            if lab:
                used_rhyme[rows, tok] = True
                unset = chosen_group[:, lab] < 0
                chosen_group[unset, lab] = gid[tok[unset]]
            score_n += 1
        else:
            out[:, p] = enc.given[p]
            if enc.fmt[p] in (E.F_CHAR, E.F_RHYME):
                echoes.record(p, out)           # a locked character
        prev = out[:, p]
        if enc.fmt[p] == E.F_EOL:
            picked = choice.winners()
            if picked is not None:
                go_on_from(picked)
        if progress is not None:
            progress(p + 1, T)
    picked = choice.winners()       # a template whose last line has no line end of its own
    if picked is not None:
        go_on_from(picked)
    results = []
    for r in range(0, n, choice.k):
        lines: list[str] = [""] * len(template.lines)
        for p in range(T):
            li = int(enc.line[p]) if enc.fmt[p] != E.F_EOS else -1
            if enc.fmt[p] in (E.F_CHAR, E.F_RHYME):
                li = int(enc.slot_line[p])
                lines[li] += enc.text[p] or vocab.tokens[out[r, p]]
            elif enc.fmt[p] == E.F_PUNCT:
                lines[_line_of_punct(enc, p)] += enc.text[p]
        results.append(Decoded(lines=lines, score=float(score_sum[r] / score_n) if score_n else 0.0))
    return results


LINE_END_REDRAWS = 6


def _draw_line_end(row: np.ndarray, tok: int, rng: np.random.Generator, s: Sampling,
                   hear: Callable[[int], int], fits: Callable[[int], bool]) -> tuple[int, int]:
    """A line-end character heard (in its line, phrase-aware) in a sound class that breaks the
    rhyme scheme is drawn again, a few times, then kept: a preference, like the masks' others.
    Returns (token, the class it is heard in)."""
    heard = hear(tok)
    for _ in range(LINE_END_REDRAWS):
        if fits(heard):
            break
        row[tok] = NEG
        if not (row > NEG / 2).any():
            break
        tok = _sample(row, rng, s)
        heard = hear(tok)
    return tok, heard


def _line_start(enc: E.Encoded, vocab: Vocab, row_ids: np.ndarray, p: int) -> str:
    """The characters of position p's line before p, as row ``row_ids`` has them so far."""
    where = E.line_positions(enc, int(enc.slot_line[p]))
    return "".join(enc.text[q] or vocab.tokens[row_ids[q]] for q in where if q < p)


def _line_of_punct(enc: E.Encoded, p: int) -> int:
    q = p
    while q >= 0 and enc.slot_line[q] < 0:
        q -= 1
    return int(enc.slot_line[q])


def suggest(backend, vocab: Vocab, tables: ProsodyTables, template: Template, enc: E.Encoded,
            text_ids: np.ndarray, position: int, k: int, rhyme_system: str | None = None,
            group_lines: list[str] | None = None) -> list[tuple[str, float]]:
    """Characters that fit ``position`` ranked by log-prob given the text (teacher-forced) before
    it and the memory (which sees every given character, before and after)."""
    system = _rhyme_system_name(template, rhyme_system)
    tone = tables.tone(template.tone_system)
    state = backend.start(enc.arrays(), 1)
    prev = np.array([vocab.bos])
    logp = None
    for p in range(position + 1):
        logp = backend.step(state, prev, p)
        prev = np.array([text_ids[p]])
    m = tables.char_mask.copy()
    m[vocab.unk] = False
    want = int(enc.tone[position])
    if want:
        m &= (tone == want) | tables.either_tone(template.tone_system)     # as static_masks
    lab = int(enc.label[position])
    if lab and group_lines:
        from songwriter.checks import rhyme_groups_of

        gid, names = tables.rhyme(system)
        sets = [rhyme_groups_of(t, "zh", system) for t in group_lines]
        sets = [s for s in sets if s]
        if sets:
            common = set.intersection(*(set(s) for s in sets))
            idx = [names.index(g) for g in common if g in names]
            m &= np.isin(gid, idx)
    row = np.where(m, logp[0], NEG)
    order = np.argsort(-row)[:k]
    return [(vocab.tokens[i], float(row[i])) for i in order if row[i] > NEG / 2]

"""English training examples: pieces laid out in syllables as ``engine.encoding`` lays out an
English template, with infilling masks.

Each line becomes one position per syllable (a word at its first syllable, ``<fill>`` at each
further one), a position per mark after a word, and ``</s>``. A word fills its usual syllable
count (CMUdict's first reading; the prosody module's guess for the rest), unless the line's usual
count is not one of the piece's common line lengths and another CMUdict reading of its words
(ev'ry, fire in one syllable, tem-per-ate) makes the nearest one; a word outside the vocabulary is
``<unk>`` over as many syllables. Marks before a line's first word, quotes and
brackets are left out (a template's marks follow a syllable). Per piece, from the real text:

- stress (``tone``): where a line reads as iambic or trochaic verse of its length, or failing
  those as anapestic, dactylic or amphibrachic (``prosody.english.fits_meter``), that metre on
  every syllable, as a metrical form's template has it; elsewhere the lexical stress of words of two syllables or more (primary "/",
  unstressed "x"); monosyllables any;
- rhyme labels: lines whose last words share a perfect rhyme, numbered by first appearance;
  ``group`` the stressed vowel of the rhyme (``encoding.en_vowel_class``);
- the kind of piece (poem, song, hymn).

Each example then draws its masks (``make_example_en``): given words (whole words, never part of
one): 30 % of pieces none; otherwise per line none (40 %), all (7 %) or 0-30 % of its words in
spans of 1-3 words; stress: the metre/lexical stress (50 %), lexical only (20 %) or none (30 %);
rhyme labels 85 %, their vowel 35 % (or when a labelled rhyme word is given); the kind 90 %.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from songwriter.engine import encoding as E
from songwriter.engine import encoding_en as EN
from songwriter.train.dataset import FlatPieces, layout_workers, lay_out_in_processes, rhyme_and_kind_channels
from songwriter.train.dataset import label_lines as _label_lines

KINDS = ("poem", "song", "hymn", "prose")
DEFAULT_WEIGHTS = {"poem": 0.6, "song": 0.3, "hymn": 0.1}
DEFAULT_VOCAB_SIZE = 16000
_DROP_MARKS = frozenset('"()\'')


class _Words:
    """Per distinct word: (id, syllable counts, stress strings) and perfect rhyme keys, computed
    once."""

    def __init__(self, vocab):
        self.vocab = vocab
        self.info: dict[str, tuple[int, tuple[int, ...], tuple[str, ...]]] = {}
        self.keys: dict[str, frozenset] = {}

    def get(self, w: str) -> tuple[int, tuple[int, ...], tuple[str, ...]]:
        got = self.info.get(w)
        if got is None:
            from songwriter.prosody import english

            i = self.vocab.id(w)
            if self.vocab.is_word(i):
                counts, stresses = self.vocab.syllables(i), self.vocab.stress(i)
            else:
                counts, stresses = english.syllable_counts(w), english.stress_patterns(w)
            got = self.info[w] = (i, tuple(c for c in counts if c > 0), tuple(stresses))
        return got

    @staticmethod
    def lexical(stresses: tuple[str, ...], n: int) -> tuple[int, ...]:
        """Per syllable of an n-syllable reading: 1 primary stress, 2 unstressed, 0 either (a
        monosyllable, a secondary stress, or no reading of that length)."""
        st = next((x for x in stresses if len(x) == n), "")
        if n < 2 or not st:
            return (0,) * n
        return tuple(1 if c == "1" else 2 if c == "0" else 0 for c in st)

    def rhyme_keys(self, w: str) -> frozenset:
        got = self.keys.get(w)
        if got is None:
            from songwriter.prosody import english

            got = self.keys[w] = english.rhyme_keys(w, "perfect")
        return got


def label_lines(keys: list[frozenset]) -> tuple[list[int], list[int]]:
    """Rhyme labels of a piece's lines from their last words' perfect rhyme keys (dataset.label_lines),
    each labelled line's group the vowel class of its key."""
    return _label_lines(keys, EN.en_vowel_class)


def line_items(text: str, words: _Words) -> list[tuple]:
    """A line's words ("w", id, counts, stresses, word) and the marks after them ("p", id)."""
    from songwriter.engine.vocab_en import tokenize

    vocab = words.vocab
    items: list[tuple] = []
    for t in tokenize(text):
        if t in vocab.punct_tokens:
            if items and t not in _DROP_MARKS:
                items.append(("p", vocab.stoi[t]))
            continue
        i, counts, stresses = words.get(t)
        if counts:
            items.append(("w", i, counts, stresses, t))
    return items


def usual_syllables(items: list[tuple]) -> int:
    return sum(it[2][0] for it in items if it[0] == "w")


def layout_line(text: str, words: _Words, metre: bool = True, lengths: tuple[int, ...] = (),
                items: list[tuple] | None = None) -> dict[str, list] | None:
    """One line of verse -> its positions (tok, fmt, bpos, wid, wstart, tmetre, tlex), or None
    when it has no word. Each word fills its usual syllable count, except where the line's usual
    count is not one of the piece's common line lengths (``lengths``) and other CMUdict readings
    of its words (ev'ry, fire in one syllable, tem-per-ate) make the nearest one (at most two
    away)."""
    from songwriter.prosody import english

    vocab = words.vocab
    items = line_items(text, words) if items is None else items
    ws = [it for it in items if it[0] == "w"]
    if not ws:
        return None
    counts = [it[2][0] for it in ws]
    n_syl = sum(counts)
    if lengths and n_syl not in lengths:
        for target in sorted(lengths, key=lambda L: (abs(L - n_syl), L)):
            if abs(target - n_syl) > 2:
                break
            got = EN.counts_for([it[2] for it in ws], target)
            if got:
                counts, n_syl = got, target
                break
    tmetre = [0] * n_syl
    pattern = english.line_metre(text, n_syl) if metre else None
    if pattern:
        tmetre = [EN.STRESS_IDS[c] for c in pattern]
    out = {k: [] for k in ("tok", "fmt", "bpos", "wid", "wstart", "tmetre", "tlex")}
    done = 0
    k = 0
    last_word = ""
    for it in items:
        if it[0] == "p":
            out["tok"].append(it[1]), out["fmt"].append(E.F_PUNCT), out["bpos"].append(n_syl - done)
            out["wid"].append(it[1]), out["wstart"].append(0), out["tmetre"].append(0), out["tlex"].append(0)
            continue
        _, i, _, stresses, w = it
        n = counts[k]
        k += 1
        last_word = w
        lex = _Words.lexical(stresses, n)
        for j in range(n):
            out["tok"].append(i if j == 0 else vocab.fill)
            out["fmt"].append(E.F_RHYME if done == n_syl - 1 else E.F_CHAR)
            out["bpos"].append(min(n_syl - done, E.MAX_BPOS - 1))
            out["wid"].append(i)
            out["wstart"].append(int(j == 0))
            out["tmetre"].append(tmetre[done])
            out["tlex"].append(lex[j])
            done += 1
    out["tok"].append(vocab.eol), out["fmt"].append(E.F_EOL), out["bpos"].append(0)
    out["wid"].append(vocab.eol), out["wstart"].append(0), out["tmetre"].append(0), out["tlex"].append(0)
    out["last_word"] = last_word
    return out


def common_lengths(totals: list[int]) -> tuple[int, ...]:
    """The line lengths (usual syllable counts) a piece is written in: those of at least a quarter
    of its lines, and of two lines or more."""
    from collections import Counter

    c = Counter(t for t in totals if t)
    need = max(2, len(totals) / 4)
    return tuple(sorted(L for L, n in c.items() if n >= need))


COLS = ("tok", "fmt", "bpos", "line", "lstart", "label", "group", "wid", "wstart", "tmetre", "tlex")
_DTYPES = {"tok": np.int32, "wid": np.int32, "fmt": np.int8, "bpos": np.int8, "line": np.int16, "lstart": np.int8,
           "label": np.int8, "group": np.int8, "wstart": np.int8, "tmetre": np.int8, "tlex": np.int8}
def lay_out_pieces(pieces, vocab, metre: bool = True, log=None) -> dict:
    """Pieces -> their flat columns, ``lengths`` (tokens of each piece kept), ``kinds`` and ``ids``
    (a piece with no line laid out is left out)."""
    words = _Words(vocab)
    cols = {k: [] for k in COLS}
    lengths, kinds, ids = [], [], []
    t0 = time.time()
    for n_piece, p in enumerate(pieces):
        if log and n_piece and n_piece % 5000 == 0:
            log(f"  laid out {n_piece} English pieces ({time.time() - t0:.0f}s)")
        parts = {k: [] for k in COLS}
        keys, last_pos = [], []
        li = 0
        items = [line_items(text, words) for text in p["lines"]]
        lengths_common = common_lengths([usual_syllables(it) for it in items])
        for text, its in zip(p["lines"], items):
            lay = layout_line(text, words, metre, lengths_common, its)
            if lay is None:
                continue
            start = len(parts["tok"])
            for k in ("tok", "fmt", "bpos", "wid", "wstart", "tmetre", "tlex"):
                parts[k].extend(lay[k])
            m = len(lay["tok"])
            parts["line"].extend([min(li, E.MAX_LINE - 1)] * m)
            parts["lstart"].extend([1] + [0] * (m - 1))
            last_pos.append(start + lay["fmt"].index(E.F_RHYME))
            keys.append(words.rhyme_keys(lay["last_word"]))
            li += 1
        if not parts["tok"]:
            continue
        for k, v in (("tok", vocab.eos), ("fmt", E.F_EOS), ("bpos", 0), ("wid", vocab.eos), ("wstart", 0),
                     ("tmetre", 0), ("tlex", 0), ("line", min(li, E.MAX_LINE - 1)), ("lstart", 1)):
            parts[k].append(v)
        labs, grps = label_lines(keys)
        label = np.zeros(len(parts["tok"]), dtype=np.int8)
        group = np.zeros(len(parts["tok"]), dtype=np.int8)
        label[last_pos] = labs
        group[last_pos] = grps
        parts["label"], parts["group"] = label, group
        for k in COLS:
            cols[k].append(np.asarray(parts[k], dtype=_DTYPES[k]))
        lengths.append(len(parts["tok"]))
        kinds.append(p["kind"] if p["kind"] in KINDS else "poem")
        ids.append(p["id"])
    return {"cols": {k: (np.concatenate(v) if v else np.zeros(0, dtype=_DTYPES[k])) for k, v in cols.items()},
            "lengths": lengths, "kinds": kinds, "ids": ids}


def lay_out_parallel(pieces, vocab, metre: bool = True, workers: int = 1, log=None) -> dict:
    """``lay_out_pieces`` shared among ``workers`` processes (``dataset.lay_out_in_processes``):
    the same columns as one process makes (pieces are laid out one by one)."""
    pieces = list(pieces)
    if min(workers, len(pieces)) <= 1:
        return lay_out_pieces(pieces, vocab, metre, log)
    t0 = time.time()
    got = lay_out_in_processes(lay_out_pieces, pieces, (vocab, metre), workers, {k: _DTYPES[k] for k in COLS})
    if log:
        log(f"  laid out {len(pieces)} English pieces in {workers} processes ({time.time() - t0:.0f}s)")
    return got


class EnglishPieceStore(FlatPieces):
    """Flat arrays of all pieces (the interface of ``dataset.PieceStore``), laid out in
    ``layout_workers`` processes unless ``workers`` says how many."""

    COLS = COLS

    def __init__(self, pieces, vocab, max_len: int = 320, metre: bool = True, log=None, workers: int | None = None):
        self.vocab = vocab
        self.max_len = max_len
        pieces = list(pieces)
        got = lay_out_parallel(pieces, vocab, metre, layout_workers(len(pieces)) if workers is None else workers, log)
        self.cols = got["cols"]
        self.offsets = np.concatenate([[0], np.cumsum(got["lengths"], dtype=np.int64)]).astype(np.int64)
        self.kinds = np.asarray(got["kinds"])
        self.ids = got["ids"]
        self.mix = self.kinds          # the --mix group each piece is drawn in: its kind

    def piece(self, i: int, rng: np.random.Generator | None = None) -> dict[str, np.ndarray]:
        out, windowed = self.window(i, rng)
        if windowed:
            # labels of the window renumbered by first appearance
            labs = out["label"]
            order: dict[int, int] = {}
            for x in labs[labs > 0]:
                order.setdefault(int(x), len(order) + 1)
            out["label"] = np.asarray([order.get(int(x), 0) for x in labs], dtype=np.int64)
        out["kind"] = np.full(len(out["tok"]), EN.en_kind_id(str(self.kinds[i])), dtype=np.int64)
        return out


@dataclass
class EnglishMaskConfig:
    p_no_given_piece: float = 0.30
    p_no_given_line: float = 0.40
    p_whole_line: float = 0.07
    max_share: float = 0.30
    p_tone_metre: float = 0.50
    p_tone_lexical: float = 0.20
    p_label: float = 0.85
    p_group: float = 0.35
    p_kind: float = 0.90


def make_example_en(p: dict[str, np.ndarray], vocab, rng: np.random.Generator,
                    mc: EnglishMaskConfig = EnglishMaskConfig(), train: bool = True) -> dict[str, np.ndarray]:
    """One piece -> inputs, targets and template channels (numpy int64, length T)."""
    tok, fmt, wid = p["tok"], p["fmt"], p["wid"]
    T = len(tok)
    syl = (fmt == E.F_CHAR) | (fmt == E.F_RHYME)
    given = np.where(syl, vocab.fill, tok)
    if train and rng.random() >= mc.p_no_given_piece:
        starts = np.nonzero(p["lstart"])[0].tolist() + [T]
        wstarts = np.nonzero(p["wstart"])[0]
        for a, b in zip(starts[:-1], starts[1:]):
            ws = wstarts[(wstarts >= a) & (wstarts < b)]
            if len(ws) == 0:
                continue
            r = rng.random()
            if r < mc.p_no_given_line:
                continue
            if r < mc.p_no_given_line + mc.p_whole_line:
                chosen = range(len(ws))
            else:
                want = int(round(rng.random() * mc.max_share * len(ws)))
                chosen = set()
                while len(chosen) < want:
                    span = int(rng.integers(1, 4))
                    s = int(rng.integers(0, len(ws)))
                    chosen.update(range(s, min(s + span, len(ws))))
            for j in chosen:
                q = int(ws[j])
                given[q] = wid[q]
                q += 1
                while q < T and syl[q] and not p["wstart"][q]:
                    given[q] = wid[q]
                    q += 1
    if train:
        r = rng.random()
        if r < mc.p_tone_metre:
            tone = np.where(p["tmetre"] > 0, p["tmetre"], p["tlex"])
        elif r < mc.p_tone_metre + mc.p_tone_lexical:
            tone = p["tlex"].copy()
        else:
            tone = np.zeros(T, dtype=np.int64)
    else:
        tone = np.where(p["tmetre"] > 0, p["tmetre"], p["tlex"])
    # a given word's syllables carry no stress request (a locked word's do not at decode time)
    tone = np.where(given != vocab.fill, 0, tone) * syl
    label, group, kind = rhyme_and_kind_channels(p, given, vocab, rng, mc, train)
    inputs = np.concatenate([[vocab.bos], tok[:-1]])
    return {"inputs": inputs, "targets": tok.astype(np.int64), "fmt": fmt, "bpos": p["bpos"], "line": p["line"],
            "tone": tone.astype(np.int64), "label": label, "group": group, "kind": kind, "given": given.astype(np.int64)}


def build_vocab_en(corpus_dir, split: dict, min_count: int = 3, max_size: int = DEFAULT_VOCAB_SIZE):
    """The word vocabulary of the training part of an English corpus, at most ``max_size`` tokens."""
    from pathlib import Path

    from songwriter.engine.vocab_en import EnglishVocab
    from songwriter.train import corpus as C

    held = set(split["dev"]) | set(split["test"])
    return EnglishVocab.build((ln for p in C.load_pieces(Path(corpus_dir)) if p["id"] not in held
                               for ln in p["lines"]), min_count=min_count, max_size=max_size or None)


def pick_dev_en(dev: list[dict], n: int) -> dict[str, list[dict]]:
    """The dev pieces the trainer reports on: n poems, n songs, every dev hymn (few) and, in a
    corpus with prose, n prose pieces; the same every run."""
    rng = np.random.default_rng(0)
    pick = lambda xs, k: [xs[i] for i in sorted(rng.permutation(len(xs))[:k])]  # noqa: E731
    by_kind = {k: [p for p in dev if p["kind"] == k] for k in KINDS}
    out = {"poem": pick(by_kind["poem"], n), "song": pick(by_kind["song"], n), "hymn": by_kind["hymn"]}
    if by_kind["prose"]:
        out["prose"] = pick(by_kind["prose"], n)
    return out

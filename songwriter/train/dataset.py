"""Training examples: pieces laid out as in engine.encoding, with infilling masks.

All pieces are tokenised once into flat arrays (tokens, format, backwards position, line, real
tone class, rhyme label, sound class); each example then draws its own masks:

- given tokens (infilling): 30 % of pieces have none; otherwise per line none (40 %), the whole
  line (7 %) or a random 0-30 % of its characters in spans of 1-3;
- tones from the real text: all characters (45 %), a random half (20 %) or none (35 %);
- rhyme labels from the real text (85 %), their sound class (35 %, or whenever a labelled rhyme
  character is given, as at decode time);
- the kind of piece (shi, ci, qu, modern) in 90 % of examples, else unknown, as a template of
  no known kind has it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from songwriter.engine import encoding as E
from songwriter.engine.vocab import Vocab
from songwriter.train.corpus import channel_kind

CLASSICAL = ("shi", "ci", "qu")


def label_lines(classes: list[frozenset], group=None) -> tuple[list[int], list[int]]:
    """Rhyme labels and groups of a piece's lines from the sound classes of their ends (a
    Chinese line's last character: its rhyme groups; an English line's last word: its perfect
    rhyme keys): the class most lines share gets label 1 (of a tie, the smallest class), the next
    class shared by two or more of the lines left label 2, ...; labels are then numbered by first
    appearance, as a template's A, B, ... are at decode time. A line's group is its class, or
    ``group(class)`` where given."""
    n = len(classes)
    labels, groups = [0] * n, [0] * n
    left = set(range(n))
    lab = 0
    while left and lab < E.MAX_LABEL - 1:
        tally: dict = {}
        for i in left:
            for k in classes[i]:
                tally[k] = tally.get(k, 0) + 1
        if not tally:
            break
        k, c = min(tally.items(), key=lambda kv: (-kv[1], kv[0]))
        if c < 2:
            break
        lab += 1
        for i in sorted(left):
            if k in classes[i]:
                labels[i], groups[i] = lab, (k if group is None else group(k))
                left.discard(i)
    order: dict[int, int] = {}
    for x in labels:
        if x and x not in order:
            order[x] = len(order) + 1
    return [order.get(x, 0) for x in labels], groups


class FlatPieces:
    """Pieces laid end to end in flat column arrays (``cols``, split at ``offsets``): their count,
    lengths and windows. The Chinese and English stores fill the columns each their own way."""

    cols: dict[str, np.ndarray]
    offsets: np.ndarray
    max_len: int

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def length(self, i: int) -> int:
        return int(min(self.offsets[i + 1] - self.offsets[i], self.max_len))

    def window(self, i: int, rng: np.random.Generator | None = None) -> tuple[dict[str, np.ndarray], bool]:
        """Piece ``i``'s columns (int64), and whether they are a window: a piece longer than
        ``max_len`` gives a window of whole lines (from a random line start with ``rng``), its line
        indices restarting at 0."""
        s, e, is_window = self.window_range(i, rng)
        out = {k: v[s:e].astype(np.int64) for k, v in self.cols.items()}
        if is_window:
            out["line"] = out["line"] - out["line"][0]
        return out, is_window

    def window_range(self, i: int, rng: np.random.Generator | None = None) -> tuple[int, int, bool]:
        """Where ``window(i, rng)`` lies in the flat columns: (start, end, whether it is a window),
        drawing from ``rng`` exactly as ``window`` does."""
        a, b = int(self.offsets[i]), int(self.offsets[i + 1])
        if b - a <= self.max_len:
            return a, b, False
        starts = np.nonzero(self.cols["lstart"][a:b])[0] + a
        cands = [s for s in starts if s < b - 8] or [a]
        s = int(rng.choice(cands)) if rng is not None else a
        ends = [e for e in starts if s < e <= s + self.max_len]
        e = int(ends[-1]) if ends else min(b, s + self.max_len)
        return s, e, True


ZH_COLS = {"tok": np.int32, "fmt": np.int8, "bpos": np.int8, "line": np.int16, "tone": np.int8,
           "label": np.int8, "group": np.int8, "lstart": np.int8}
PARALLEL_FROM = 2000   # pieces from which the layout is shared among processes (fewer: not worth a spawn)


def layout_workers(n_pieces: int) -> int:
    """Processes that lay the pieces out: ``SONGWRITER_LAYOUT_WORKERS`` if set, else every core
    for a corpus (the whole Chinese one takes ~4 minutes of one core, the English one 4-5), one
    for a few pieces."""
    env = os.environ.get("SONGWRITER_LAYOUT_WORKERS", "").strip()
    if env:
        return max(1, int(env))
    return max(1, os.cpu_count() or 1) if n_pieces >= PARALLEL_FROM else 1


def _run_chunk(job) -> dict:
    lay_out, pieces, args, kwargs = job
    return lay_out(pieces, *args, **kwargs)


def lay_out_in_processes(lay_out, pieces: list, args: tuple, workers: int, dtypes: dict,
                         indexed: bool = False) -> dict:
    """``lay_out(chunk, *args)`` (with ``first=`` the chunk's first index in ``pieces`` when
    ``indexed``) over contiguous chunks in ``workers`` spawned processes, the parts joined in
    order: the same columns (``dtypes``) and lists as one call over all pieces makes."""
    workers = min(workers, max(1, len(pieces)))
    n_chunks = workers * 4 if workers > 1 else 1     # smaller chunks even out the slow pieces
    bounds = np.linspace(0, len(pieces), n_chunks + 1).astype(int)
    jobs = [(lay_out, pieces[a:b], args, {"first": int(a)} if indexed else {})
            for a, b in zip(bounds[:-1], bounds[1:])]
    if workers <= 1:
        parts = [_run_chunk(job) for job in jobs]
    else:
        import multiprocessing as mp

        # spawned, not forked: the trainer has torch's thread pools (and a GPU) by now, and a fork
        # of those once left the children waiting on a lock (tests, 2026-11-26)
        with mp.get_context("spawn").Pool(workers) as pool:
            parts = pool.map(_run_chunk, jobs, chunksize=1)
    out = {k: [x for pt in parts for x in pt[k]] for k in parts[0] if k != "cols"}
    out["cols"] = {k: np.concatenate([pt["cols"][k] for pt in parts]).astype(dt, copy=False)
                   for k, dt in dtypes.items()}
    return out


def lay_out_zh(pieces, vocab: Vocab, first: int = 0) -> dict:
    """Chinese pieces -> their flat columns (``ZH_COLS``), ``lengths`` (tokens of each piece kept),
    ``kinds``, ``mix`` and ``ids`` (a piece with no line is left out). ``first``: the index of
    ``pieces[0]`` in the whole list, which keys the tone drawn for a free heteronym."""
    sounds_by_id: dict[int, frozenset] = {}
    tone_tab = {s: np.zeros(len(vocab), dtype=np.int8) for s in ("modern", "classical")}
    both_tab = {s: np.zeros(len(vocab), dtype=bool) for s in tone_tab}
    for i, tok in enumerate(vocab.tokens):
        if vocab.is_char(i):
            sounds_by_id[i] = E.sound_classes(tok)
            for s in tone_tab:
                tone_tab[s][i] = E.tone_class(tok, s)
                both_tab[s][i] = E.has_both_tones(tok, s)
    cols = {k: [] for k in ZH_COLS}
    lengths, kinds, mix, ids = [], [], [], []
    for n_piece, p in enumerate(pieces):
        system = "classical" if p["kind"] in CLASSICAL else "modern"
        toks, fmt, bpos, line, lstart = [], [], [], [], []
        sounds, last_pos = [], []
        for li, text in enumerate(p["lines"]):
            chars = [c for c in text if c not in "，。、；：？！"]
            marks = text[len(chars):] if text[:len(chars)] == "".join(chars) else ""
            if not chars:
                continue
            start = len(toks)
            for k, c in enumerate(chars):
                toks.append(vocab.id(c))
                fmt.append(E.F_RHYME if k == len(chars) - 1 else E.F_CHAR)
            for m in marks:
                toks.append(vocab.punct_id(m))
                fmt.append(E.F_PUNCT)
            toks.append(vocab.eol)
            fmt.append(E.F_EOL)
            n = len(toks) - start
            bpos.extend(min(n - 1 - j, E.MAX_BPOS - 1) for j in range(n))
            line.extend([min(li, E.MAX_LINE - 1)] * n)
            lstart.extend([1] + [0] * (n - 1))
            last_pos.append(start + len(chars) - 1)
            sounds.append(sounds_by_id.get(toks[start + len(chars) - 1], frozenset()))
        if not toks:
            continue
        toks.append(vocab.eos)
        fmt.append(E.F_EOS)
        bpos.append(0)
        line.append(min(line[-1] + 1, E.MAX_LINE - 1))
        lstart.append(1)
        labs, grps = label_lines(sounds)
        label = np.zeros(len(toks), dtype=np.int8)
        group = np.zeros(len(toks), dtype=np.int8)
        label[last_pos] = labs
        group[last_pos] = grps
        t = np.asarray(toks, dtype=np.int32)
        cols["tok"].append(t)
        cols["fmt"].append(np.asarray(fmt, dtype=np.int8))
        cols["bpos"].append(np.asarray(bpos, dtype=np.int8))
        cols["line"].append(np.asarray(line, dtype=np.int16))
        tone = tone_tab[system][t]
        tone[np.asarray(fmt) >= E.F_PUNCT] = 0
        both = both_tab[system][t]
        if both.any():
            f = np.asarray(fmt)
            heteronym_tones(tone, both & ((f == E.F_CHAR) | (f == E.F_RHYME)), np.asarray(lstart),
                            (f == E.F_CHAR) | (f == E.F_RHYME), p["kind"] == "shi", first + n_piece)
        cols["tone"].append(tone)
        cols["label"].append(label)
        cols["group"].append(group)
        cols["lstart"].append(np.asarray(lstart, dtype=np.int8))
        lengths.append(len(toks))
        kinds.append(p["kind"])
        mix.append(p.get("mix", p["kind"]))   # the --mix share it is drawn in
        ids.append(p["id"])
    return {"cols": {k: (np.concatenate(v) if v else np.zeros(0, dtype=ZH_COLS[k])) for k, v in cols.items()},
            "lengths": lengths, "kinds": kinds, "mix": mix, "ids": ids}


class PieceStore(FlatPieces):
    """Flat arrays of all pieces of some kinds; ``piece(i)`` gives slices. Laid out in
    ``layout_workers`` processes unless ``workers`` says how many."""

    def __init__(self, pieces, vocab: Vocab, max_len: int = 320, workers: int | None = None):
        self.vocab = vocab
        self.max_len = max_len
        pieces = list(pieces)
        got = lay_out_in_processes(lay_out_zh, pieces, (vocab,),
                                   layout_workers(len(pieces)) if workers is None else workers, ZH_COLS,
                                   indexed=True)
        self.cols = got["cols"]
        self.offsets = np.concatenate([[0], np.cumsum(got["lengths"], dtype=np.int64)]).astype(np.int64)
        self.kinds = np.asarray(got["kinds"])
        self.mix = np.asarray(got["mix"])
        self.ids = got["ids"]

    @cached_property
    def kind_ids(self) -> np.ndarray:
        """What the kind channel shows the model of each piece (``corpus.channel_kind``: modern
        Chinese in its registers); from the kinds, mix groups and ids, so a cached layout has it."""
        return np.asarray([E.KIND_IDS.get(channel_kind(str(k), str(m), str(i)), 0)
                           for k, m, i in zip(self.kinds, self.mix, self.ids)], dtype=np.int64)

    def piece(self, i: int, rng: np.random.Generator | None = None) -> dict[str, np.ndarray]:
        out, _ = self.window(i, rng)
        out["kind"] = np.full(len(out["tok"]), self.kind_ids[i], dtype=np.int64)
        return out


def heteronym_tones(tone: np.ndarray, both: np.ndarray, lstart: np.ndarray, is_char: np.ndarray,
                    regulated: bool, key: int) -> None:
    """Give each heteronym (a character with a 平 and a 仄 reading: 看, 思, 乡) of a laid-out
    piece a tone in place, so that the model learns they stand on fixed tones too. Left at 0
    (either) they taught it never to put one on a 平 or 仄 slot: 14 % of the characters of real
    shi, which the decoder then could not use there (故乡 only where 乡 is free). In a five- or
    seven-character line of regulated verse (``regulated``) the tone is the one every 律句 its
    other characters fit agrees on there, the reading the poet used; elsewhere one of the two
    drawn from the piece's index and the position (the checks accept either reading)."""
    pos = np.flatnonzero(both)
    tone[pos] = 1 + ((pos * 2654435761 + key * 40503) >> 7) % 2
    if not regulated:
        return
    starts = np.flatnonzero(lstart).tolist() + [len(tone)]
    for a, b in zip(starts[:-1], starts[1:]):
        n = int(np.count_nonzero(is_char[a:b]))          # the line's characters come first
        at = np.flatnonzero(both[a:a + n])
        if n not in (5, 7) or not len(at):
            continue
        line = tone[a:a + n]
        known = ~both[a:a + n] & (line > 0)
        fits = [pat for pat in _LU_JU[n] if np.all(line[known & _FIXED[n]] == pat[known & _FIXED[n]])]
        if fits:
            # where every 律句 the line fits agrees, that tone
            got = np.stack(fits)[:, at]
            agreed = np.all(got == got[0], axis=0)
            line[at[agreed]] = got[0][agreed]


def _lu_ju() -> tuple[dict, dict]:
    """The strict 律句 of five and seven characters as tone ids, and the characters they fix
    (二四六分明 and the last; 一三五不论)."""
    from songwriter.prosody import regulated as R

    patterns = {n: [np.asarray([E.TONE_IDS[c] for c in R.full_pattern(b, n)], dtype=np.int8) for b in R.BASES]
                for n in (5, 7)}
    fixed = {}
    for n in (5, 7):
        f = np.zeros(n, dtype=bool)
        f[1::2] = True
        f[n - 1] = True
        fixed[n] = f
    return patterns, fixed


_LU_JU, _FIXED = _lu_ju()


@dataclass
class MaskConfig:
    p_no_given_piece: float = 0.30
    p_no_given_line: float = 0.40
    p_whole_line: float = 0.07
    max_share: float = 0.30
    p_tone_all: float = 0.45
    p_tone_half: float = 0.20
    p_label: float = 0.85
    p_group: float = 0.35
    p_kind: float = 0.90     # else the kind is left unknown (0), as for a template of no known kind


def make_example(p: dict[str, np.ndarray], vocab: Vocab, rng: np.random.Generator,
                 mc: MaskConfig = MaskConfig(), train: bool = True) -> dict[str, np.ndarray]:
    """One piece -> inputs, targets and template channels (numpy, int64, length T). An English
    vocabulary's pieces (``dataset_en.EnglishPieceStore``) go to ``dataset_en.make_example_en``."""
    if getattr(vocab, "language", "zh") == "en":
        from songwriter.train.dataset_en import EnglishMaskConfig, make_example_en

        return make_example_en(p, vocab, rng, mc if isinstance(mc, EnglishMaskConfig) else EnglishMaskConfig(),
                               train)
    tok, fmt = p["tok"], p["fmt"]
    T = len(tok)
    is_char = (fmt == E.F_CHAR) | (fmt == E.F_RHYME)
    given = np.where(is_char, vocab.fill, tok)
    if train and rng.random() >= mc.p_no_given_piece:
        starts = np.nonzero(p["lstart"])[0].tolist() + [T]
        for a, b in zip(starts[:-1], starts[1:]):
            chars = np.nonzero(is_char[a:b])[0] + a
            if len(chars) == 0:
                continue
            r = rng.random()
            if r < mc.p_no_given_line:
                continue
            if r < mc.p_no_given_line + mc.p_whole_line:
                given[chars] = tok[chars]
                continue
            want = int(round(rng.random() * mc.max_share * len(chars)))
            got = 0
            while got < want:
                span = int(rng.integers(1, 4))
                s = int(rng.integers(0, len(chars)))
                sel = chars[s:s + span]
                given[sel] = tok[sel]
                got += len(sel)
    tone = p["tone"].copy()
    if train:
        r = rng.random()
        if r >= mc.p_tone_all + mc.p_tone_half:
            tone[:] = 0
        elif r >= mc.p_tone_all:
            tone[rng.random(T) < 0.5] = 0
    label, group, kind = rhyme_and_kind_channels(p, given, vocab, rng, mc, train)
    inputs = np.concatenate([[vocab.bos], tok[:-1]])
    return {"inputs": inputs, "targets": tok, "fmt": fmt, "bpos": p["bpos"], "line": p["line"],
            "tone": tone, "label": label, "group": group, "kind": kind, "given": given}


def rhyme_and_kind_channels(p: dict[str, np.ndarray], given: np.ndarray, vocab, rng: np.random.Generator,
                            mc, train: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The label, group and kind channels of an example, each dropped in training at the mask
    config's rates (``p_label``, ``p_group``, ``p_kind``; Chinese and English alike). Where the
    group is hidden, a given (locked) rhyme fixes its label's class, as at decode time."""
    label = p["label"].copy()
    group = p["group"].copy()
    if train and rng.random() >= mc.p_label:
        label[:] = 0
    if label.any():
        if not (train and rng.random() < mc.p_group):
            real = group.copy()
            group[:] = 0
            for lab in np.unique(label[(label > 0) & (given != vocab.fill)]):
                at = label == lab
                g = real[at & (given != vocab.fill)]
                group[at] = g[0] if len(g) else 0
    else:
        group[:] = 0
    kind = p["kind"] if not (train and rng.random() >= mc.p_kind) else np.zeros_like(p["kind"])
    return label, group, kind


def collate(examples: list[dict[str, np.ndarray]], pad: int = 0) -> dict[str, np.ndarray]:
    T = max(len(e["targets"]) for e in examples)
    out = {}
    for k in examples[0]:
        arr = np.full((len(examples), T), pad if k in ("inputs", "targets", "given") else 0, dtype=np.int64)
        for i, e in enumerate(examples):
            arr[i, :len(e[k])] = e[k]
        out[k] = arr
    return out


# Masks drawn apart from the arrays they apply to: ``draw_masks`` makes every random draw of
# ``make_example`` (same generator calls, same order) for a piece's window and returns what they
# decided; ``make_batch`` builds a whole collated batch from the flat columns with numpy. The
# Sampler's batches come out byte for byte as make_example + collate make them
# (tests/test_train_batches.py); the draws are the cheap part, so a batch's plan can be drawn in
# one process and its arrays made in others (train/prefetch.py).
TONE_KEEP, TONE_NONE = 0, 1          # a row's tone plan: these, or a bool mask (True: tone hidden)
GROUP_KEEP, GROUP_FROM_GIVEN, GROUP_NONE = 0, 1, 2


def draw_masks(fmt: np.ndarray, lstart: np.ndarray, has_label: bool, rng: np.random.Generator,
               mc: MaskConfig = MaskConfig(), train: bool = True) -> tuple:
    """The random choices ``make_example`` makes for a (Chinese) example with these ``fmt`` and
    ``lstart`` columns: (revealed character ranges as (lo, hi) over the example's character
    positions in order, tone plan, label dropped, group plan, kind dropped)."""
    reveal = []
    if train and rng.random() >= mc.p_no_given_piece:
        starts = np.flatnonzero(lstart)
        if len(starts):
            is_char = (fmt == E.F_CHAR) | (fmt == E.F_RHYME)
            c0 = np.zeros(len(fmt) + 1, dtype=np.int64)
            np.cumsum(is_char, out=c0[1:])
            at = c0[starts].tolist()
            at.append(int(c0[-1]))
            p_none, p_whole = mc.p_no_given_line, mc.p_no_given_line + mc.p_whole_line
            for off, end in zip(at[:-1], at[1:]):
                n = end - off
                if n == 0:
                    continue
                r = rng.random()
                if r < p_none:
                    continue
                if r < p_whole:
                    reveal.append((off, end))
                    continue
                want = int(round(rng.random() * mc.max_share * n))
                got = 0
                while got < want:
                    span = int(rng.integers(1, 4))
                    a = int(rng.integers(0, n))
                    b = min(a + span, n)
                    reveal.append((off + a, off + b))
                    got += b - a
    tone = TONE_KEEP
    if train:
        r = rng.random()
        if r >= mc.p_tone_all + mc.p_tone_half:
            tone = TONE_NONE
        elif r >= mc.p_tone_all:
            tone = rng.random(len(fmt)) < 0.5
    label_drop = bool(train and rng.random() >= mc.p_label)
    if has_label and not label_drop:
        group = GROUP_KEEP if (train and rng.random() < mc.p_group) else GROUP_FROM_GIVEN
    else:
        group = GROUP_NONE
    kind_drop = bool(train and rng.random() >= mc.p_kind)
    return reveal, tone, label_drop, group, kind_drop


def make_batch(store: PieceStore, rows: list[tuple]) -> dict[str, np.ndarray]:
    """A collated batch from its plan: one row per example, (start, end, is_window, kind id,
    *draw_masks(...)) over ``store``'s flat columns; equal to collate([make_example(...), ...])."""
    vocab = store.vocab
    B = len(rows)
    s = np.fromiter((r[0] for r in rows), dtype=np.int64, count=B)
    L = np.fromiter((r[1] - r[0] for r in rows), dtype=np.int64, count=B)
    T = int(L.max())
    ar = np.arange(T)
    valid = ar[None, :] < L[:, None]
    idx = np.where(valid, s[:, None] + ar[None, :], 0)
    cols = store.cols

    def take(k):
        return np.where(valid, cols[k][idx], 0).astype(np.int64)

    tok = np.where(valid, cols["tok"][idx], vocab.pad).astype(np.int64)
    inputs = np.empty_like(tok)
    inputs[:, 0] = vocab.bos
    inputs[:, 1:] = tok[:, :-1]
    inputs[~valid] = vocab.pad
    fmt = take("fmt")
    line = take("line")
    base = np.asarray([cols["line"][r[0]] if r[2] else 0 for r in rows], dtype=np.int64)
    line -= np.where(valid, base[:, None], 0)
    # given: characters hidden (<fill>) except the revealed ranges
    is_char = (fmt == E.F_CHAR) | (fmt == E.F_RHYME)
    given = np.where(is_char, vocab.fill, tok)
    nchar = is_char.sum(1)
    coff = np.zeros(B + 1, dtype=np.int64)
    np.cumsum(nchar, out=coff[1:])
    lo = [coff[j] + a for j, r in enumerate(rows) for a, _ in r[4]]
    if lo:
        hi = [coff[j] + b for j, r in enumerate(rows) for _, b in r[4]]
        n = int(coff[-1])
        depth = np.cumsum(np.bincount(lo, minlength=n + 1) - np.bincount(hi, minlength=n + 1))[:n]
        pos = np.flatnonzero(is_char)[depth > 0]
        given.reshape(-1)[pos] = tok.reshape(-1)[pos]
    tone = take("tone")
    for j, r in enumerate(rows):
        if isinstance(r[5], np.ndarray):
            tone[j, :L[j]][r[5]] = 0
        elif r[5] == TONE_NONE:
            tone[j] = 0
    label = take("label")
    label[[j for j, r in enumerate(rows) if r[6]]] = 0
    real = take("group")
    mode = np.fromiter((r[7] for r in rows), dtype=np.int64, count=B)
    group = np.where((mode == GROUP_KEEP)[:, None], real, 0)
    fix = mode == GROUP_FROM_GIVEN
    if fix.any():
        # a label's group is that of its first given (locked) rhyme character, else unknown (0)
        key = np.arange(B)[:, None] * E.MAX_LABEL + label
        known = np.flatnonzero((fix[:, None] & (label > 0) & (given != vocab.fill)).reshape(-1))
        keys, first = np.unique(key.reshape(-1)[known], return_index=True)
        tab = np.zeros(B * E.MAX_LABEL, dtype=np.int64)
        tab[keys] = real.reshape(-1)[known[first]]
        group = np.where(fix[:, None] & (label > 0), tab[key], group)
    kind_id = np.asarray([0 if r[8] else r[3] for r in rows], dtype=np.int64)
    kind = np.where(valid, kind_id[:, None], 0)
    return {"inputs": inputs, "targets": tok, "fmt": fmt, "bpos": take("bpos"), "line": line, "tone": tone,
            "label": label, "group": group, "kind": kind, "given": given}


class Sampler:
    """Endless batches of about ``tokens`` padded tokens, pieces drawn by the weights of their
    mix groups (``corpus.mix_group``: a group inside a kind, drawn at its kind's weight where the
    weights do not name it)."""

    def __init__(self, store: PieceStore, weights: dict[str, float], tokens: int, seed: int,
                 mc: MaskConfig = MaskConfig(), pool: int = 64):
        self.store, self.tokens, self.mc, self.pool = store, tokens, mc, pool
        self.rng = np.random.default_rng(seed)
        # a piece is drawn in its own mix group where the weights name it, else in its kind's
        groups = np.where(np.isin(store.mix, list(weights)), store.mix, store.kinds) if len(store) else store.kinds
        self.by_kind = {k: np.nonzero(groups == k)[0] for k in weights if (groups == k).any()}
        w = np.asarray([weights[k] for k in self.by_kind], dtype=float)
        self.kinds = list(self.by_kind)
        self.w = w / w.sum()
        self.lengths = np.asarray([store.length(i) + 0 for i in range(len(store))])
        self.queue: list[list[int]] = []

    def _refill(self):
        kinds = self.rng.choice(len(self.kinds), size=self.pool * 32, p=self.w)
        idx = np.asarray([self.by_kind[self.kinds[k]][self.rng.integers(len(self.by_kind[self.kinds[k]]))]
                          for k in kinds])
        idx = idx[np.argsort(self.lengths[idx], kind="stable")]
        batches, cur, longest = [], [], 0
        for i in idx:
            L = int(self.lengths[i])
            if cur and max(longest, L) * (len(cur) + 1) > self.tokens:
                batches.append(cur)
                cur, longest = [], 0
            cur.append(int(i))
            longest = max(longest, L)
        if cur:
            batches.append(cur)
        self.rng.shuffle(batches)
        self.queue.extend(batches)

    def next(self) -> dict[str, np.ndarray]:
        if self.plans():
            return make_batch(self.store, self.plan_next())
        if not self.queue:
            self._refill()
        ids = self.queue.pop()
        ex = [make_example(self.store.piece(i, self.rng), self.store.vocab, self.rng, self.mc) for i in ids]
        return collate(ex, self.store.vocab.pad)

    def plans(self) -> bool:
        """Whether this sampler's batches are drawn as plans (``plan_next``) and made by
        ``make_batch``: Chinese pieces (a PieceStore), ``next`` not overridden."""
        return (isinstance(self.store, PieceStore) and getattr(self.store.vocab, "language", "zh") == "zh"
                and type(self).next is Sampler.next)

    def plan_next(self) -> list[tuple]:
        """Every random draw of the next batch (the same as ``next`` makes), as ``make_batch``'s
        rows; the sampler's state moves on as if the batch had been made."""
        if not self.queue:
            self._refill()
        ids = self.queue.pop()
        store, cols, rng, mc = self.store, self.store.cols, self.rng, self.mc
        rows = []
        for i in ids:
            a, b, is_window = store.window_range(i, rng)
            kind = int(store.kind_ids[i])
            rows.append((a, b, is_window, kind,
                         *draw_masks(cols["fmt"][a:b], cols["lstart"][a:b], bool(cols["label"][a:b].any()), rng, mc)))
        return rows

    def state(self) -> dict:
        return {"rng": self.rng.bit_generator.state, "queue": self.queue}

    def load_state(self, st: dict) -> None:
        self.rng.bit_generator.state = st["rng"]
        self.queue = [list(b) for b in st["queue"]]

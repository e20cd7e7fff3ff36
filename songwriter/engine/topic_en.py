"""An English model's word associations, per vocabulary id: the neighbours by PMI within stanzas
that ``plan.json`` of the model folder holds (``build-plan --lang en``, plan/build_en.py), and the
content lean built from them: a request's content ("the sea at night") raises its words and their
associates (waves, shore, ships, ...) wherever the English decoder may write them. This is the
English model's content steering; it has no CoCon block (docs/english.md, "Content"). Core: no
torch, no Qt."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from songwriter.engine.vocab_en import FAMILY_PREFIX, content_words, same_family

# nats per unit of summed PMI at strength 0, over the square root of the content's known words
CONTENT_LEAN = 1.0
SEED_PMI = 3.0          # a content word's own share, as if it were its best neighbour


def lean_weight(strength: float) -> float:
    """Nats per unit of the lean at a steering strength (the sliders' tau, -2..5; 0 the default):
    doubling every 2, as a logit added to attention scales what it steers."""
    return CONTENT_LEAN * 2.0 ** (float(strength) / 2.0)


class Associations:
    """Per vocabulary id, its neighbours (vocabulary ids) and their PMI, as flat arrays."""

    def __init__(self, stats, vocab):
        index = {t: i for i, t in enumerate(vocab.tokens)}
        ids = np.asarray([index.get(w, -1) for w in stats.words], dtype=np.int64)
        start = np.zeros(len(vocab) + 1, dtype=np.int64)
        rows: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        for k, pairs in enumerate(stats.neighbors):
            wid = int(ids[k])
            if wid < vocab.first_word:
                continue
            got = [(int(ids[j]), s) for j, s in pairs if ids[j] >= vocab.first_word]
            if got:
                rows[wid] = (np.asarray([j for j, _ in got], dtype=np.int64),
                             np.asarray([s for _, s in got], dtype=np.float32))
        for wid, (nb, _) in rows.items():
            start[wid + 1] = len(nb)
        self.start = np.cumsum(start)
        self.ids = np.zeros(int(self.start[-1]), dtype=np.int64)
        self.pmi = np.zeros(int(self.start[-1]), dtype=np.float32)
        for wid, (nb, s) in rows.items():
            a = int(self.start[wid])
            self.ids[a:a + len(nb)] = nb
            self.pmi[a:a + len(nb)] = s
        self.words = len(rows)

    def of(self, wid: int) -> tuple[np.ndarray, np.ndarray]:
        """The neighbours of vocabulary id ``wid`` and their PMI (empty when it has none)."""
        a, b = int(self.start[wid]), int(self.start[wid + 1])
        return self.ids[a:b], self.pmi[a:b]

    def lean(self, text: str, vocab, strength: float = 0.0) -> np.ndarray | None:
        """Nats to add per vocabulary id for a content ``text`` at ``strength``: its words
        (SEED_PMI each) and their neighbours (their PMI), summed over its words and divided by the
        square root of their number; None when the vocabulary knows none of its words."""
        seeds = []
        for w in content_words(text):
            i = vocab.stoi.get(w)
            if i is not None and i >= vocab.first_word and i not in seeds:
                seeds.append(i)
        if not seeds:
            return None
        out = np.zeros(len(vocab), dtype=np.float64)
        for i in seeds:
            ids, pmi = self.of(i)
            out[ids] += pmi
        out[seeds] += SEED_PMI
        return out * (lean_weight(strength) / np.sqrt(len(seeds)))


class ContentLean:
    """A request's content as nats per vocabulary id: the whole piece's (every line) and each
    line's own (``line_content``, only that line's positions)."""

    def __init__(self, piece: np.ndarray | None, lines: dict[int, np.ndarray], vocab=None):
        self.piece = piece
        self.lines = lines
        # the leaned words by their first letters, to find a written word's family among them
        self._by_prefix: dict[str, list[int]] = {}
        self._tokens = vocab.tokens if vocab is not None else []
        if vocab is not None:
            support = set()
            for v in ([piece] if piece is not None else []) + list(lines.values()):
                support.update(int(i) for i in np.flatnonzero(v))
            for i in sorted(support):
                self._by_prefix.setdefault(vocab.tokens[i][:FAMILY_PREFIX], []).append(i)

    def family(self, word: str) -> list[int]:
        """The leaned words of ``word``'s family (one spelt as the other's start, sail / sailing /
        sails): once one is written the lean spares them all, or a piece says "sailed sailing"."""
        return [i for i in self._by_prefix.get(word[:FAMILY_PREFIX], ()) if same_family(word, self._tokens[i])]

    def at(self, line: int) -> np.ndarray | None:
        own = self.lines.get(line)
        if own is None:
            return self.piece
        return own if self.piece is None else self.piece + own

    @classmethod
    def of(cls, associations: Associations, vocab, contents: list[str], strengths: list[float],
           line_content: list[str] | None, line_strength: float) -> "ContentLean | None":
        """The lean of a request's contents (None when none of their words is known)."""
        piece = None
        for text, tau in zip(contents, strengths):
            got = associations.lean(text, vocab, tau)
            if got is not None:
                piece = got if piece is None else piece + got
        lines = {}
        for i, text in enumerate(line_content or ()):
            if text.strip():
                got = associations.lean(text, vocab, line_strength)
                if got is not None:
                    lines[i] = got
        if piece is None and not lines:
            return None
        return cls(piece, lines, vocab)


def load_for(model_dir: str | Path, vocab) -> Associations | None:
    """The associations of the English model in ``model_dir`` (its plan.json), or None when it has
    none; PlanError (the file and the problem) for a file that does not read or is not English."""
    from songwriter.plan.stats import PLAN_FILE, PlanError, load_stats

    path = Path(model_dir) / PLAN_FILE
    if not path.is_file():
        return None
    stats = load_stats(path)
    if stats.lang != "en":
        raise PlanError(f"{path}: the word associations of an English model must be English (lang {stats.lang!r})")
    return Associations(stats, vocab)

"""An English model's word associations, per vocabulary id: the neighbours by PMI within stanzas
that ``plan.json`` of the model folder holds (``build-plan --lang en``, plan/build_en.py). The
English decoder keeps, per row, the sum of the associations of the content words written so far
and leans towards the words they call up (decode_en, ``TOPIC_WEIGHT``): a piece that has said
"snow" and "frost" finds "winter" likelier than "roses". Core: no torch, no Qt."""

from __future__ import annotations

from pathlib import Path

import numpy as np


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

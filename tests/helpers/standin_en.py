"""A stand-in for an English model in decoder tests: the same log-probabilities at every step,
the words a test names preferred, and a way to write one template with it greedily."""

import numpy as np

from songwriter.engine import encoding as E
from songwriter.engine.decode import Sampling
from songwriter.engine.decode_en import decode_en
from songwriter.template import parse_notation


class Backend:
    """A model stand-in: the same log-probabilities at every step."""

    name, max_len, supports_content = "stand-in", 512, False

    def __init__(self, vocab, prefer: dict[str, float]):
        self.logp = np.full(len(vocab), -10.0)
        for w, lp in prefer.items():
            self.logp[vocab.id(w)] = lp

    def start(self, arrays, n):
        return n

    def step(self, state, prev, p):
        return np.tile(self.logp, (state, 1))

    def select(self, state, rows):
        return len(rows)


def write(vocab, tables, text: str, prefer: dict[str, float]) -> list[str]:
    """The lines the decoder writes greedily for the template ``text`` with the stand-in."""
    t = parse_notation(text, lang="en")
    enc = E.encode_template(t, vocab)
    rows = decode_en(Backend(vocab, prefer), vocab, tables, t, enc, Sampling(n=1, seed=0, temperature=0))
    return rows[0].lines


def vocab_and_tables(words: str, cache_dir, monkeypatch):
    """An English vocabulary of ``words`` and its tables, cached under ``cache_dir``."""
    from songwriter.engine.decode import ProsodyTables
    from songwriter.engine.vocab_en import EnglishVocab

    monkeypatch.setenv("SONGWRITER_CACHE", str(cache_dir))
    vocab = EnglishVocab.build([words], min_count=1)
    return vocab, ProsodyTables(vocab)

"""Which words the English decoder writes: never a token no writer of English would choose (a
stray letter, a foreign particle, a roman numeral) while an English word fits, even where the
model ranks the token first; a locked one is still written as given."""

import numpy as np
import pytest

from songwriter.engine import encoding as E
from songwriter.engine.decode import ProsodyTables, Sampling
from songwriter.engine.decode_en import decode_en
from songwriter.engine.vocab_en import EnglishVocab
from songwriter.template import parse_notation

WORDS = "the sky is blue r de la xiv day grace sweet love night o' gin an' wadna"


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


@pytest.fixture()
def setup(tmp_path, monkeypatch):
    monkeypatch.setenv("SONGWRITER_CACHE", str(tmp_path))
    vocab = EnglishVocab.build([WORDS], min_count=1)
    return vocab, ProsodyTables(vocab)


def write(vocab, tables, text, prefer):
    t = parse_notation(text, lang="en")
    enc = E.encode_template(t, vocab)
    rows = decode_en(Backend(vocab, prefer), vocab, tables, t, enc, Sampling(n=1, seed=0, temperature=0))
    return rows[0].lines


def test_stray_letters_particles_and_numerals_are_not_written(setup):
    vocab, tables = setup
    prefer = {"r": -0.1, "de": -0.2, "la": -0.3, "xiv": -0.4, "sky": -3.0, "day": -3.5, "blue": -4.0}
    lines = write(vocab, tables, "_ _ _ _", prefer)
    words = lines[0].lower().strip(".,").split()
    assert words and not set(words) & {"r", "de", "la", "xiv"}


def test_scots_spellings_are_not_written(setup):
    """By the form and as the vocabulary spells them: an' and o' are the forms "an" and "o"."""
    vocab, tables = setup
    prefer = {"o'": -0.1, "gin": -0.2, "an'": -0.3, "wadna": -0.4, "sky": -3.0, "day": -3.5, "love": -4.0}
    lines = write(vocab, tables, "_ _ _ _", prefer)
    words = lines[0].lower().strip(".,").split()
    assert words and not set(words) & {"o'", "gin", "an'", "wadna"}


def test_a_locked_particle_is_kept(setup):
    vocab, tables = setup
    lines = write(vocab, tables, "de _ _ _", {"r": -0.1, "sky": -3.0, "day": -3.5})
    assert lines[0].split()[0].lower() == "de" and "r" not in lines[0].lower().split()

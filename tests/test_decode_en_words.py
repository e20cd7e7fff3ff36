"""Which words the English decoder writes: never a token no writer of English would choose (a
stray letter, a foreign particle, a Scots spelling, a roman numeral) while an English word fits,
even where the model ranks the token first; a locked one is still written as given."""

import pytest
from helpers.standin_en import vocab_and_tables, write


WORDS = "the sky is blue r de la xiv day grace sweet love night o' gin an' wadna"


@pytest.fixture()
def setup(tmp_path, monkeypatch):
    return vocab_and_tables(WORDS, tmp_path, monkeypatch)


@pytest.mark.parametrize("prefer, never", [
    ({"r": -0.1, "de": -0.2, "la": -0.3, "xiv": -0.4}, {"r", "de", "la", "xiv"}),
    # by the form and as the vocabulary spells them: an' and o' are the forms "an" and "o"
    ({"o'": -0.1, "gin": -0.2, "an'": -0.3, "wadna": -0.4}, {"o'", "gin", "an'", "wadna"}),
], ids=["stray letters, particles, numerals", "Scots spellings"])
def test_tokens_no_writer_of_english_chooses_are_not_written(setup, prefer, never):
    vocab, tables = setup
    lines = write(vocab, tables, "_ _ _ _", {**prefer, "sky": -3.0, "day": -3.5, "blue": -4.0})
    words = lines[0].lower().strip(".,").split()
    assert words and not set(words) & never


def test_a_locked_particle_is_kept(setup):
    vocab, tables = setup
    lines = write(vocab, tables, "de _ _ _", {"r": -0.1, "sky": -3.0, "day": -3.5})
    assert lines[0].split()[0].lower() == "de" and "r" not in lines[0].lower().split()

"""Modern prose cut into lines for the English corpus (songwriter/train/corpus_en_prose.py), on
fixtures written here; the real en_modern data is never read."""

import gzip
import json

from songwriter.cli import main
from songwriter.train import corpus_en_prose as P
from tests.test_corpus_en import source  # noqa: F401  (the verse fixture)

KNOWN = set("the a and was she he her his little girl boy found went to with in of on day one sun "
            "bright warm mom said yes we can go park play they all home happy sky blue".split())


def known(t):
    return t in KNOWN


def test_sentence_cut_into_clause_lines():
    assert P.sentence_lines("One day, the little girl went to the park with her mom.", known) == [
        "One day,", "the little girl went to the park with her mom."]


def test_unusable_sentences_refused():
    assert P.sentence_lines("The little girl found a zebra.", known) is None          # a word the vocabulary lacks
    assert P.sentence_lines("She was 4 and happy.", known) is None                    # digits
    assert P.sentence_lines("Yes.", known) is None                                    # a one-word line
    long = "the little girl and the boy went to the park and the sun was warm and bright"
    assert P.sentence_lines(long + ".", known) is None                                # a clause over 12 words


def test_pieces_run_over_usable_sentences_only():
    story = ["One day, the little girl went to the park. The sun was bright and warm. "
             "She found a boy in the park. They went home with her mom. Mom said yes. "
             "A zebra was in the park. She went home.",
             "We can go to the park. They all went, and the sky was blue."]
    got = P.pieces_of("stories", [story], known)
    # a piece closes once it has four lines; the zebra's sentence ends a run (two lines: dropped);
    # the paragraph break inside a piece is a stanza break
    assert got == [
        {"id": "prose:stories:0", "kind": "prose", "title": "", "author": "", "breaks": [],
         "lines": ["One day,", "the little girl went to the park.", "The sun was bright and warm.",
                   "She found a boy in the park."]},
        {"id": "prose:stories:1", "kind": "prose", "title": "", "author": "", "breaks": [1],
         "lines": ["She went home.", "We can go to the park.", "They all went,", "and the sky was blue."]}]
    # unrelated sentences: an unusable one is only left out
    got = P.pieces_of("speech", [[" ".join(story)]], known, skip_unusable=True)
    assert [len(p["lines"]) for p in got] == [4, 4] and not any("zebra" in x for p in got for x in p["lines"])


def test_pieces_stay_under_the_cap():
    para = "The sun was bright. She went to the park. "
    got = P.pieces_of("stories", [[para, para, para * 6]], known)
    assert [len(p["lines"]) for p in got] == [4, 4, 4, 4]
    assert got[0]["breaks"] == [2] and got[1]["breaks"] == []
    one = "The sun was bright, " * 14 + "the sun was bright."
    assert P.pieces_of("stories", [[one]], known) == []      # a sentence of fifteen lines: over the cap


def test_stories_split_where_a_story_opens(tmp_path):
    (tmp_path / P.STORIES_FILE).write_text("once upon a time, a girl.\n\nshe sang.\n\none day, a boy.\n\nhe ran.\n",
                                           encoding="utf-8")
    assert P._stories(tmp_path) == [["once upon a time, a girl.", "she sang."], ["one day, a boy.", "he ran."]]


def test_prose_split_leaves_the_verse_split_alone(source, tmp_path):  # noqa: F811
    from songwriter.engine.vocab_en import EnglishVocab

    plain, mixed = tmp_path / "plain", tmp_path / "mixed"
    assert main(["build-corpus-en", "--source", str(source), "--out", str(plain), "--min-count", "1"]) == 0
    vocab = EnglishVocab.load(plain / "vocab.json")
    words = [w for w in vocab.tokens[vocab.first_word:] if w.isalpha()]
    # stories in the verse's own words: sentences of three words, six to a paragraph
    sentence = [" ".join(words[(3 * i + j) % len(words)] for j in range(3)).capitalize() + "." for i in range(6)]
    prose = tmp_path / "en_modern"
    prose.mkdir()
    (prose / P.STORIES_FILE).write_text((" ".join(sentence) + "\n\n") * 40, encoding="utf-8")
    with gzip.open(prose / P.ADDRESSES_FILE, "wt", encoding="utf-8") as f:
        f.write(json.dumps({"year": 1790, "text": "The zebra quagga okapi. " * 12}) + "\n")
    assert main(["build-corpus-en", "--source", str(source), "--out", str(mixed), "--min-count", "1",
                 "--prose", str(prose)]) == 0
    read = lambda d, f: json.loads((d / f).read_text(encoding="utf-8"))  # noqa: E731
    pieces = [json.loads(x) for x in (mixed / "pieces.jsonl").read_text(encoding="utf-8").splitlines()]
    prose_ids = {p["id"] for p in pieces if p["kind"] == "prose"}
    assert len(prose_ids) == 60 and all(i.startswith("prose:stories:") for i in prose_ids)  # no address: not verse words
    s_plain, s_mixed = read(plain, "split.json"), read(mixed, "split.json")
    assert [i for i in s_mixed["dev"] if i not in prose_ids] == s_plain["dev"]
    assert [i for i in s_mixed["test"] if i not in prose_ids] == s_plain["test"]
    assert len(set(s_mixed["dev"]) & prose_ids) == 1 and len(set(s_mixed["test"]) & prose_ids) == 1
    assert (plain / "vocab.json").read_bytes() == (mixed / "vocab.json").read_bytes()
    assert read(mixed, "stats.json")["pieces"]["prose:train"] == 58


def test_prose_keeps_to_the_vocabulary_it_is_given(source, tmp_path):  # noqa: F811
    from songwriter.engine.vocab_en import EnglishVocab, tokenize

    plain = tmp_path / "plain"
    assert main(["build-corpus-en", "--source", str(source), "--out", str(plain), "--min-count", "1"]) == 0
    vocab = EnglishVocab.load(plain / "vocab.json")
    words = [w for w in vocab.tokens[vocab.first_word:] if w.isalpha()]
    prose = tmp_path / "en_modern"
    prose.mkdir()
    story = " ".join(f"{words[i]} {words[i + 1]} {words[i + 2]}." for i in range(0, 3 * 8, 3))
    (prose / P.STORIES_FILE).write_text(story + "\n", encoding="utf-8")
    smaller = EnglishVocab([t for t in vocab.tokens if t != words[3]])     # a model without the second sentence's word
    smaller.save(tmp_path / "model-vocab.json")
    out = tmp_path / "mixed"
    assert main(["build-corpus-en", "--source", str(source), "--out", str(out), "--min-count", "1",
                 "--prose", str(prose), "--prose-vocab", str(tmp_path / "model-vocab.json")]) == 0
    pieces = [json.loads(x) for x in (out / "pieces.jsonl").read_text(encoding="utf-8").splitlines()]
    lines = [x for p in pieces if p["kind"] == "prose" for x in p["lines"]]
    assert len(lines) == 4 and not any(words[3] in tokenize(x) for x in lines)


def test_the_english_mix_takes_prose():
    import pytest

    from songwriter.train.args import parse_mix

    assert parse_mix("poem=0.4,prose=0.5", "en") == {"poem": 0.4, "prose": 0.5}
    with pytest.raises(ValueError, match="prose"):
        parse_mix("prose=0.5", "zh")

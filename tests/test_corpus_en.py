"""The English corpus (songwriter/train/corpus_en.py) on fixtures written here: cleaning rules,
duplicates, the split that keeps every sonnet out of training, and the CLI command. No torch; the
real data (../shared/data/en) is never read."""

import gzip
import json

import pytest

from songwriter.cli import main
from songwriter.train import corpus_en
from songwriter.train.corpus_en import (clean_hymn_line, clean_line, clean_stanzas, drop_duplicates,
                                        is_heading, join_split_apostrophes)

SONNETS = [
    ["From fairest creatures we desire increase,", "That thereby beauty's rose might never die,",
     "But as the riper should by time decease,", "His tender heir might bear his memory:"],
    ["When forty winters shall beseige thy brow,", "And dig deep trenches in thy beauty's field,",
     "Thy youth's proud livery, so gazed on now,", "Will be a tatter'd weed, of small worth held:"],
    ["Look in thy glass, and tell the face thou viewest", "Now is the time that face should form another;",
     "Whose fresh repair if now thou not renewest,", "Thou dost beguile the world, unbless some mother."],
]


def _poem(gid, idx, stanzas, title="A Poem", author="Anon"):
    return {"gid": str(gid), "book": "Book", "author": author, "period": "1800-1850_Poetry",
            "poem_title": title, "idx": idx, "stanzas": stanzas}


GUTENBERG = [
    _poem(1, 1, [["The AVTHOR, was as much displeas\u2019 d, as Hee", "In such Adventures, is inclin\u2019 d to bee;",
                  "And so the morning came upon the hill,", "And all the birds were singing, sweet and still."]]),
    # the same poem again in another book, other punctuation and case: a duplicate
    _poem(2, 1, [["The Avthor was as much displeas\u2019 d as hee", "In such adventures is inclin\u2019 d to bee",
                  "Another ending follows here instead,", "With other words that no one ever said."]]),
    # a title line inside the stanza, an illustration, footnote marks and line numbers
    _poem(3, 1, [["[Illustration: The hounds]"], ["WINTER SONG.", "The snow is falling on the quiet town,[1]",
                  "And every roof is white beneath the moon, 10", "The bells are ringing slowly up and down,",
                  "And all the children sing a winter tune."]]),
    # a fragment: the tail of a poem split by a footnote, no title
    _poem(3, 2, [["And so it ended there."]], title=""),
    # Shakespeare's sonnets as one long poem of a Gutenberg book: held-out text, kept out of training
    # (a dedication first, so the first-two-lines rule does not see it)
    _poem(4, 1, [["To the onlie begetter of these ensuing sonnets,", "Mr. W. H. all happinesse"]]
          + [list(s) for s in SONNETS], title="Shakespeare's Sonnets"),
    # not English
    _poem(5, 1, [["Deg wawr erioed a gerais,", "Gwyn fyd y gwr a garo Dduw,",
                  "Ni chaiff ef ddim gofid byth,", "Ond hedd a gwynfyd fydd ei ran."]]),
] + [
    _poem(10, k, [[f"The {w} is calling from the valley floor,", f"And I will follow {w} for evermore,",
                   f"The river runs, the {w} lies in light,", f"And love is waiting, {w}, at the end of night."]],
          title=f"Song of the {w.title()}")
    for k, w in enumerate(("wind", "rain", "sea", "lark", "bell", "dove", "rose", "star"), 1)
]

HYMNS = [
    {"number": 1, "title": "Watchman Blow The Gospel Trumpet.", "lyrics": [
        {"type": "verse", "index": 1, "lines": ["Watchman, blow the gospel trumpet,", "Evry  soul a warning give;"]},
        {"type": "refrain", "lines": ["Blow the trumpet, trusty watchman,",
                                      "Blow it loud o\u2019er land and sea\u2026\u2026.", "(loud o\u2019er land  and sea)"]},
        {"type": "verse", "index": 2, "lines": ["Sound it loud o\u2019er ev\u2019ry hilltop,", "Gloomy shade, and sunny plain;"]},
        {"type": "refrain", "lines": ["Blow the trumpet, trusty watchman,",
                                      "Blow it loud o\u2019er land and sea\u2026\u2026.", "(loud o\u2019er land  and sea)"]},
    ]},
    {"number": 2, "title": "Holy Morning.", "lyrics": [
        {"type": "verse", "index": 1, "lines": ["Holy morning, bright and clear,", "Now the day of rest is here."]},
    ]},
]


@pytest.fixture()
def source(tmp_path):
    folder = tmp_path / "en"
    folder.mkdir()
    with gzip.open(folder / corpus_en.POEMS_FILE, "wt", encoding="utf-8") as f:
        for p in GUTENBERG:
            f.write(json.dumps(p) + "\n")
    with gzip.open(folder / corpus_en.SONGS_FILE, "wt", encoding="utf-8") as f:
        f.write(json.dumps(GUTENBERG[2]) + "\n")
    (folder / corpus_en.SONNETS_FILE).write_text("\n\n".join("\n".join(s) for s in SONNETS) + "\n", encoding="utf-8")
    (folder / corpus_en.HYMNS_FILE).write_text(json.dumps(HYMNS), encoding="utf-8")
    return folder


@pytest.mark.parametrize("raw, clean", [
    ("The AVTHOR, was as much displeas\u2019 d, as Hee", "The AVTHOR, was as much displeas\u2019d, as Hee"),
    ("You have shared your home\u2019 s comfort", "You have shared your home\u2019s comfort"),
    ("The utt\u2019 ring of such hidden Mysteries,", "The utt\u2019ring of such hidden Mysteries,"),
    ("This BOOKE contayning EMBLEMS,\u2019 twas thought fit,", "This BOOKE contayning EMBLEMS, \u2019twas thought fit,"),
    ("\u2019 Tis, likewise, thought expedient", "\u2019Tis, likewise, thought expedient"),
    ("Sweet love, the heav\u2019 n above", "Sweet love, the heav\u2019n above"),
    # real spaces after an apostrophe stay: a plural possessive, dialect "o’", "tho’"
    ("Of that high speech which angels\u2019 tongues turn gold!", None),
    ("Across the sands o\u2019 Dee!", None),
    ("A tress o\u2019 golden hair,", None),
    ("Tho\u2019 he should speak", None),
])
def test_split_apostrophes_joined_only_inside_a_word(raw, clean):
    assert join_split_apostrophes(raw) == (raw if clean is None else clean)


@pytest.mark.parametrize("raw, clean", [
    ("In my usual line in the prigging lay,[1]", "In my usual line in the prigging lay,"),
    ("To honour thee, the priest of Phoebus\u2019 quire, 10", "To honour thee, the priest of Phoebus' quire,"),
    ("80 For I must be straight upon her.", "For I must be straight upon her."),
    ("\u201cCome in,\u201d she said -- and  smiled.", '"Come in," she said \u2014 and smiled.'),
    ("To chafe o'erhYpppHeNmuch the virgin's cheek", "To chafe o'er-much the virgin's cheek"),
    ("[Greek: Mia psyche] \u03b6\u03c9\u03ae \u03bc\u03bf\u03c5, my life", None),
    ("[Illustration: EMBLEMES. Illustrated by Geo: Wither.]", None),
    ("[Enter the Warders of the Tower, with halbards.]", None),
    ("128. C. M. Cowper.  1660", None),
    ("Robert Lochore [1762-1852] wrote 3 books", None),
    ("O\u2019 is a contraction for of, commonly used by the Scotch when they write the songs of their "
     "country in the old manner of speaking.", None),
])
def test_clean_line(raw, clean):
    assert clean_line(raw) == clean


@pytest.mark.parametrize("line", ["When Mother Sleeps", "Edith M. Thomas", "\u2014 From the Danish.",
                                  "SONNET XII.", "xix.", "SABALLIDIN:", "Love Instigated.", "The Song of the Shirt"])
def test_headings(line):
    assert is_heading(line)


@pytest.mark.parametrize("line", ["Marked the railroad bind the prairies,", "Curling ev'ry dimpled ripple",
                                  "Got sort of the better of me.", "Shall I compare thee to a summer's day?",
                                  "Break, break, break,", "O Love!"])
def test_verse_lines_are_not_headings(line):
    assert not is_heading(line)


def test_a_title_line_inside_a_stanza_is_dropped_but_not_a_refrain_line():
    stanzas = [["WINTER SONG.", "The snow is falling on the town,", "And every roof is white."],
               ["Curling ev'ry dimpled ripple"], ["The Moondial"]]
    assert clean_stanzas(stanzas) == [["The snow is falling on the town,", "And every roof is white."],
                                      ["Curling ev'ry dimpled ripple"]]


def test_a_note_in_brackets_over_several_lines_is_dropped():
    stanzas = [["The snow is falling on the town,", "[Illustration: The town", "in winter.]",
                "And every roof is white. [1]"]]
    assert clean_stanzas(stanzas) == [["The snow is falling on the town,", "And every roof is white."]]


def test_hymn_lines_lose_echoes_and_held_notes():
    assert clean_hymn_line("Blow it loud o\u2019er land and sea\u2026\u2026.") == "Blow it loud o'er land and sea."
    assert clean_hymn_line("(loud o\u2019er land  and sea)") == ""
    assert clean_hymn_line("Evry  soul a warning give;") == "Ev'ry soul a warning give;"


def test_hymn_refrain_kept_once_with_sections(source):
    hymn = corpus_en.read_hymns(source / corpus_en.HYMNS_FILE)[0]
    assert hymn["sections"] == ["verse", "refrain", "verse"]
    assert hymn["breaks"] == [2, 4]
    assert hymn["lines"][2:4] == ["Blow the trumpet, trusty watchman,", "Blow it loud o'er land and sea."]
    assert hymn["title"] == "Watchman Blow The Gospel Trumpet"


def test_duplicates_by_first_two_lines_keep_the_first():
    a = {"id": "a", "lines": ["The Avthor, was much displeas'd,", "In such Adventures!", "one"]}
    b = {"id": "b", "lines": ["the avthor was much displeas'd", "in such adventures", "two"]}
    c = {"id": "c", "lines": ["The Avthor, was much displeas'd,", "Another second line", "three"]}
    kept, n = drop_duplicates([a, b, c])
    assert [p["id"] for p in kept] == ["a", "c"] and n == 1


def test_split_keeps_every_sonnet_in_test_and_is_seeded():
    pieces = ([{"id": f"sonnet:{n}", "kind": "sonnet"} for n in range(1, 155)]
              + [{"id": f"hymn:{n}", "kind": "hymn"} for n in range(30)]
              + [{"id": f"poem:{n}:1", "kind": "poem"} for n in range(500)])
    split = corpus_en.make_split(pieces, seed=5)
    assert {f"sonnet:{n}" for n in range(1, 155)} <= set(split["test"])
    assert not set(split["dev"]) & set(split["test"])
    assert sum(i.startswith("hymn:") for i in split["dev"]) == 3
    assert sum(i.startswith("poem:") for i in split["test"]) == 5
    assert corpus_en.make_split(pieces, seed=5) == split
    assert corpus_en.make_split(pieces, seed=6)["dev"] != split["dev"]


def test_build_on_fixtures(source, tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["build-corpus-en", "--source", str(source), "--out", str(out), "--min-count", "1"]) == 0
    printed = capsys.readouterr().out
    assert "cmudict_share_train_words" in printed
    pieces = [json.loads(x) for x in (out / "pieces.jsonl").read_text(encoding="utf-8").splitlines()]
    split = json.loads((out / "split.json").read_text(encoding="utf-8"))
    stats = json.loads((out / "stats.json").read_text(encoding="utf-8"))
    by_id = {p["id"]: p for p in pieces}
    assert set(pieces[0]) >= {"id", "kind", "lines", "breaks"}
    held = set(split["dev"]) | set(split["test"])
    train = [p for p in pieces if p["id"] not in held]
    # all sonnets in test, none in training, and no training piece holds their lines
    assert {f"sonnet:{n}" for n in (1, 2, 3)} <= set(split["test"])
    assert not any(p["kind"] == "sonnet" for p in train)
    assert "poem:4:1" not in by_id and stats["leaked_ids_dropped"] == ["poem:4:1"]
    sonnet_lines = {corpus_en.line_key(x) for s in SONNETS for x in s}
    assert not any(corpus_en.line_key(x) in sonnet_lines for p in train for x in p["lines"])
    # duplicate, fragment and foreign piece gone; the heading and the illustration stanza dropped
    assert "poem:1:1" in by_id and "poem:2:1" not in by_id
    assert "poem:3:2" not in by_id and "poem:5:1" not in by_id
    winter = by_id["song:3:1"]
    assert winter["kind"] == "song" and winter["breaks"] == []
    assert winter["lines"][:2] == ["The snow is falling on the quiet town,", "And every roof is white beneath the moon,"]
    assert by_id["poem:1:1"]["lines"][0] == "The AVTHOR, was as much displeas'd, as Hee"
    assert stats["cleaning"]["duplicates_dropped"] == 1
    assert stats["sonnets_in_test"] == 3 and stats["sonnets_in_train"] == 0
    assert stats["totals"]["train"]["pieces"] == len(train)
    from songwriter.engine.vocab_en import EnglishVocab

    vocab = EnglishVocab.load(out / "vocab.json")
    from songwriter.engine.vocab_en import tokenize

    train_tokens = {t for p in train for x in p["lines"] for t in tokenize(x)}
    assert set(vocab.tokens[vocab.first_word:]) == train_tokens - set(vocab.tokens[:vocab.first_word])
    assert "increase" not in vocab.stoi          # a sonnet's word: test material only


def test_missing_source_exits_2(tmp_path, capsys):
    assert main(["build-corpus-en", "--source", str(tmp_path), "--out", str(tmp_path / "o")]) == 2
    assert "shakespeare_sonnets.txt" in capsys.readouterr().err

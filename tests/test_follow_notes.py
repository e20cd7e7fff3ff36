"""The melody edits (a line break moved, two syllables joined, a melisma split) keep each written
syllable on the note it was sung on (Document.follow_notes), in Chinese and in English."""

import pytest
from conftest import DATA

pytest.importorskip("music21")

from songwriter.melody import melody_of, piece_from_melody_file  # noqa: E402
from songwriter.melody.build import join_syllables, move_line_break, split_syllable  # noqa: E402
from songwriter.project.form_edits import one_slot_per_syllable  # noqa: E402
from songwriter.project.layout import en_word_layout  # noqa: E402

TUNE = DATA / "melody" / "two_tunes.abc"        # tune 1: two lines of 11 notes, one note a syllable


def zh_piece():
    doc = piece_from_melody_file(TUNE, lang="zh")
    doc.lines = ["春风又绿江南岸边的杨柳，", "明月何时照我还乡路上人。"]
    return doc


def notes_of(doc):
    """Each written syllable with the first note it is sung on."""
    m = melody_of(doc.template)
    out = []
    for i, line in enumerate(m.lines):
        cells = doc.zh_cells(i)
        out += [(cells[k], notes[0]) for k, notes in enumerate(line) if cells[k]]
    return out


def test_a_moved_line_break_keeps_every_character_on_its_note():
    doc = zh_piece()
    before = notes_of(doc)
    change = doc.follow_notes(move_line_break(doc.template, 0, 3))
    assert doc.lines == ["春风又，", "绿江南岸边的杨柳明月何时照我还乡路上人。"]
    assert notes_of(doc) == before and change.unsung == []
    doc.follow_notes(move_line_break(doc.template, 0, 5))            # and back the other way
    assert doc.lines == ["春风又绿江，", "南岸边的杨柳明月何时照我还乡路上人。"] and notes_of(doc) == before


def test_a_join_leaves_out_only_the_second_syllable_and_the_rest_stays():
    doc = zh_piece()
    before = dict((note, ch) for ch, note in notes_of(doc))
    change = doc.follow_notes(join_syllables(doc.template, 1, 0))
    assert doc.lines[1] == "明何时照我还乡路上人。"
    assert change.unsung == ["月"]
    assert all(before[note] == ch for ch, note in notes_of(doc))      # nobody moved to another note
    doc.follow_notes(split_syllable(doc.template, 1, 0))
    assert doc.lines[1] == "明_何时照我还乡路上人。"                       # the freed note is an empty slot


def test_a_lock_follows_its_note():
    doc = zh_piece()
    doc.lock(0, 8)                                                    # 的
    doc.follow_notes(move_line_break(doc.template, 0, 3))
    assert [k for k, s in enumerate(doc.template.lines[1].slots) if s.lock] == [5]
    assert doc.template.lines[1].slots[5].lock == "的"


def en_piece():
    doc = piece_from_melody_file(TUNE, lang="en")
    doc.lines = ["cat dog river star tree sky sea wind rain snow,", "red blue green gold pink gray black white brown tan rose."]
    return doc


def word_notes(doc):
    m = melody_of(doc.template)
    out = []
    for i, line in enumerate(m.lines):
        for p in en_word_layout(doc.lines[i], doc.template.lines[i]):
            if p.word != "_" and p.start < len(line):
                out.append((p.word, line[p.start][0]))
    return out


def test_english_words_keep_their_notes_through_a_break_a_join_and_a_split():
    doc = en_piece()
    before = word_notes(doc)
    doc.follow_notes(move_line_break(doc.template, 0, 5))
    assert doc.lines == ["cat dog river star", "tree sky sea wind rain snow, red blue green gold pink gray black white brown tan rose."]
    assert word_notes(doc) == before
    doc = en_piece()
    doc.follow_notes(move_line_break(doc.template, 0, 3))            # the break cuts "river"
    assert doc.lines[0] == "cat dog river"                           # it stays whole where it starts
    assert doc.lines[1].startswith("_ star tree ")                   # and star keeps its note
    assert word_notes(doc) == before
    doc = en_piece()
    change = doc.follow_notes(join_syllables(doc.template, 1, 0))
    assert change.unsung == ["blue"] and doc.lines[1] == "red green gold pink gray black white brown tan rose."
    doc.follow_notes(split_syllable(doc.template, 1, 0))
    assert doc.lines[1] == "red _ green gold pink gray black white brown tan rose."


def test_an_english_lock_follows_its_word():
    from songwriter.project.locks import lock_english_word

    doc = en_piece()
    lock_english_word(doc, 0, 2)                                      # river, two syllables
    # the edits count syllables, so a locked word's slot is taken apart first (as the window does)
    doc.follow_notes(move_line_break(one_slot_per_syllable(doc.template), 0, 1))
    locked = [p for p in en_word_layout(doc.lines[1], doc.template.lines[1]) if p.locked]
    assert [(p.word, p.start) for p in locked] == [("river", 1)]

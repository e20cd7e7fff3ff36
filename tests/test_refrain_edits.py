"""A refrain and the line it repeats stay one shape through the writer's edits: locks, stresses,
marks, lengths and rhyme labels made on either are made on both; inserting and removing lines
keep each refrain on its line."""

from songwriter.lyrics import template_from_lyrics
from songwriter.document import Document, new_document


def _doc(text: str) -> Document:
    doc = new_document(template_from_lyrics(text))
    return doc


def test_a_lock_on_a_line_or_its_refrain_is_made_on_both():
    doc = _doc("好一朵美丽的茉莉花\n好一朵美丽的茉莉花\n芬芳美丽满枝桠")
    doc.set_text("好一朵美丽的茉莉花\n好一朵美丽的茉莉花\n芬芳美丽满枝桠")
    doc.lock(1, 2)
    assert doc.template.lines[0].slots[2].lock == "朵" and doc.template.lines[1].slots[2].lock == "朵"
    doc.unlock(0, 2)
    assert doc.template.lines[1].slots[2].lock is None
    assert not doc.template.refrain_problems()


def test_an_english_word_locked_in_a_refrain_is_locked_in_its_line():
    doc = _doc("Home on the range,\nWhere the deer play;\nHome on the range.")
    doc.set_text("Love in Kansas,\nWhere the deer play;\nLove in Kansas.")
    doc.lock(2, 2)                 # "Kansas": two syllables in one slot
    for i in (0, 2):
        assert [s.lock for s in doc.template.lines[i].slots] == [None, None, "Kansas"]
    assert doc.template.lines[2].punct == "." and doc.template.lines[0].punct == ","
    doc.unlock(0, 2)
    assert all(s.lock is None for s in doc.template.lines[2].slots) and len(doc.template.lines[2].slots) == 4
    assert not doc.template.refrain_problems()


def test_form_edits_keep_a_refrain_in_step_and_on_its_line():
    doc = _doc("Home on the range,\nWhere the deer play;\nHome on the range.")
    doc.set_line_length(0, 6)
    doc.set_tone(2, 0, "/")
    doc.set_punct(0, 1, ",")
    assert doc.template.lines[2].syllables == 6 and doc.template.lines[0].slots[0].tone == "/"
    assert doc.template.lines[2].slots[1].punct == "," and not doc.template.refrain_problems()
    doc.insert_line(1)
    assert doc.template.lines[3].repeats == 0
    doc.insert_line(0)
    assert doc.template.lines[4].repeats == 1 and not doc.template.refrain_problems()
    doc.remove_line(1)
    assert doc.template.lines[3].repeats is None
    doc.template.validate()


def test_what_is_written_in_a_line_is_written_in_its_refrain_in_one_undo_step():
    from songwriter.session import Session

    s = Session(_doc("Home on the range,\nWhere the deer play;\nHome on the range."))
    assert s.set_line_text(2, "Love in the hills.")
    assert s.doc.lines[0] == "Love in the hills," and s.doc.lines[2] == "Love in the hills."
    assert s.doc.check().lines[2].ok
    s.undo()
    assert s.doc.lines[0] == "" and s.doc.lines[2] == ""
    zh = Session(_doc("好一朵美丽的茉莉花，\n好一朵美丽的茉莉花。\n芬芳美丽满枝桠"))
    zh.type_chars((0, 0), "春风")
    assert zh.doc.lines[1].startswith("春风") and zh.doc.lines[1].endswith("。")
    assert zh.doc.zh_cells(1) == zh.doc.zh_cells(0)


def test_a_writer_makes_a_line_a_refrain_and_a_line_of_its_own_again():
    from songwriter.session import Session
    from songwriter.template import parse_notation

    s = Session(new_document(parse_notation("_ _ _ _, @A\n_ _ _ @B\n_ _ _ _ _.", "en")))
    s.set_line_text(0, "Come home to me,")
    assert s.doc.template.refrain_sources(2) == [0, 1]
    assert s.set_refrain([2], 0)
    line = s.doc.template.lines[2]
    assert line.repeats == 0 and line.syllables == 4 and line.rhyme == "A" and line.punct == "."
    assert s.doc.lines[2] == "Come home to me." and s.doc.check().lines[2].ok
    t = s.doc.template
    assert t.refrain_sources(0) == [] and t.refrain_sources(2) == [0, 1]     # line 1 is repeated: no refrain
    assert not s.set_refrain([0], 0) and s.doc.template.lines[0].repeats is None
    assert s.set_refrain([2], None) and s.doc.template.lines[2].repeats is None
    s.undo()
    assert s.doc.template.lines[2].repeats == 0


def test_a_rhyme_scheme_gives_a_refrain_its_lines_label():
    from songwriter.session import Session

    s = Session(_doc("Home on the range,\nWhere the deer play;\nHome on the range."))
    assert s.set_scheme("BAC")
    assert [ln.rhyme for ln in s.doc.template.lines] == ["B", "A", "B"]

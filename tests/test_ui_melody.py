"""A melody in the window (offscreen): Import reads MusicXML, MIDI (.mid, .kar) and ABC into a new
piece whose template keeps its melody, asking for the part, the tune and the language where the
file leaves a choice; a bad file is refused and the open piece stays."""

import pytest
from conftest import DATA

from test_ui_support import Answers, answers, make_window  # noqa: F401  (fixtures)

pytest.importorskip("music21")

from songwriter import document as D  # noqa: E402
from songwriter.melody import melody_of, template_from_melody_file  # noqa: E402
from songwriter.template import format_notation  # noqa: E402

MELODY = DATA / "melody"

TWO_PARTS = """<?xml version="1.0" encoding="UTF-8"?>
<score-partwise version="3.1">
  <part-list>
    <score-part id="P1"><part-name>Flute</part-name></score-part>
    <score-part id="P2"><part-name>Voice</part-name></score-part>
  </part-list>
  <part id="P1"><measure number="1">
    <attributes><divisions>1</divisions><time><beats>4</beats><beat-type>4</beat-type></time></attributes>
    <note><pitch><step>C</step><octave>5</octave></pitch><duration>4</duration></note>
  </measure></part>
  <part id="P2"><measure number="1">
    <attributes><divisions>1</divisions><time><beats>4</beats><beat-type>4</beat-type></time></attributes>
    <note><pitch><step>E</step><octave>4</octave></pitch><duration>1</duration></note>
    <note><pitch><step>G</step><octave>4</octave></pitch><duration>1</duration></note>
    <note><pitch><step>A</step><octave>4</octave></pitch><duration>2</duration></note>
  </measure></part>
</score-partwise>
"""


@pytest.fixture
def win(qtbot, answers):
    return make_window(qtbot)


def options(answers, monkeypatch, reply):
    """Answer the melody-options dialog with ``reply`` (a dict, or None for Cancel); record what
    it was asked."""
    from songwriter.ui import dialogs

    answers.melody_asked = []

    def ask(parent, name, parts, tunes, tune_count, lang):
        answers.melody_asked.append({"name": name, "parts": parts, "tunes": tunes, "lang": lang})
        return reply

    monkeypatch.setattr(dialogs, "melody_options", ask)


def test_import_musicxml_with_words_builds_the_cli_template_and_keeps_the_melody(win, answers, monkeypatch, tmp_path):
    options(answers, monkeypatch, None)
    answers.open_path = str(MELODY / "molihua.musicxml")
    win.files.import_melody()
    assert answers.melody_asked == []                 # words in the file: nothing to ask
    doc = win.doc
    cli = template_from_melody_file(MELODY / "molihua.musicxml")
    assert format_notation(doc.template) == format_notation(cli)
    assert melody_of(doc.template).matches(doc.template)
    assert doc.title == "茉莉花" and doc.original is not None
    assert doc.original.lines[0] == "好一朵美丽的茉莉花，"
    assert "melody" in win.statusBar().currentMessage()
    assert f"{doc.template.syllables} characters" in win.statusBar().currentMessage()   # a Chinese piece counts 字
    assert win.title_edit.text() == "茉莉花"
    answers.save_path = str(tmp_path / "m.song")        # the project keeps the melody
    assert win.files.file_save_as()
    again = D.load(tmp_path / "m.song")
    assert melody_of(again.template).to_dict() == melody_of(doc.template).to_dict()


@pytest.mark.parametrize("name", ["molihua.mid", "songbie.kar"])
def test_import_midi_and_karaoke(win, answers, monkeypatch, name):
    options(answers, monkeypatch, {"lang": "zh"})
    assert win.files.import_file(str(MELODY / name))        # Import Lyrics passes melodies on
    m = melody_of(win.doc.template)
    assert m.kind == "midi" and m.matches(win.doc.template) and win.doc.lang == "zh"


def test_abc_asks_for_the_tune_and_the_language(win, answers, monkeypatch):
    options(answers, monkeypatch, {"tune": 2, "lang": "en"})
    offered = win.doc.lang                               # the open piece's language comes first
    assert win.files.import_melody_file(str(MELODY / "two_tunes.abc"))
    asked = answers.melody_asked[0]
    assert asked["tunes"] == [1, 2] and asked["lang"] == offered and asked["parts"] == []
    m = melody_of(win.doc.template)
    assert m.tune == 2 and m.title == "Second tune" and win.doc.lang == "en"
    assert [len(ln) for ln in m.lines] == [ln.syllables for ln in win.doc.template.lines]


def test_a_score_with_several_parts_asks_which_is_the_melody(win, answers, monkeypatch, tmp_path):
    p = tmp_path / "duet.musicxml"
    p.write_text(TWO_PARTS, "utf-8")
    options(answers, monkeypatch, {"part": "2", "lang": "zh"})
    assert win.files.import_melody_file(str(p))
    assert answers.melody_asked[0]["parts"] == ["Flute", "Voice"]
    m = melody_of(win.doc.template)
    assert [n.pitch for n in m.notes] == [64, 67, 69] and m.part == "Voice"


def test_cancel_at_the_question_changes_nothing(win, answers, monkeypatch):
    before = win.doc.to_dict()
    options(answers, monkeypatch, None)
    assert not win.files.import_melody_file(str(MELODY / "two_tunes.abc"))
    assert win.doc.to_dict() == before and answers.warnings == []


@pytest.mark.parametrize("name", ["broken.mid", "broken.musicxml", "empty.abc"])
def test_a_bad_file_is_refused_and_the_piece_stays(win, answers, monkeypatch, name):
    options(answers, monkeypatch, {"lang": "zh"})
    win.view.set_cursor(0, 0)
    win.use_form("五绝")
    win.type_chars("白日依山尽")
    before = win.doc.to_dict()
    assert not win.files.import_melody_file(str(MELODY / name))
    assert win.doc.to_dict() == before
    title, text = answers.warnings[-1]
    assert title == "Cannot import the melody" and name in text


def test_unsaved_work_is_offered_a_save_before_the_melody_replaces_it(win, answers, monkeypatch):
    options(answers, monkeypatch, {"lang": "zh"})
    win.use_form("五绝")
    win.view.set_cursor(0, 0)
    win.type_chars("白日依山尽")
    answers.save_changes = "cancel"
    assert not win.files.import_melody_file(str(MELODY / "molihua.mid"))
    assert win.doc.lines[0].startswith("白日依山尽")


def test_the_options_dialog_answers_what_it_shows(qtbot, answers):
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication, QComboBox, QDialog

    from songwriter.ui import dialogs

    def choose():
        dlg = next(w for w in QApplication.topLevelWidgets() if isinstance(w, QDialog) and w.isVisible())
        boxes = dlg.findChildren(QComboBox)
        boxes[0].setCurrentIndex(1)                  # part 2
        boxes[1].setCurrentIndex(1)                  # tune 7
        boxes[2].setCurrentIndex(1)                  # English
        dlg.accept()

    QTimer.singleShot(50, choose)
    got = dialogs.melody_options(None, "x.abc", ["Flute", "Voice"], [3, 7], 2, "zh")
    assert got == {"part": "2", "tune": 7, "lang": "en"}


# ----------------------------------------------------------------------------------------------
# The notes over the cells

def melody_win(qtbot, path=MELODY / "molihua.musicxml", lang="zh", size=(1100, 700)):
    from songwriter.melody import piece_from_melody_file

    win = make_window(qtbot, doc=piece_from_melody_file(path, lang=lang))
    win.resize(*size)
    qtbot.waitUntil(lambda: win.view.melody_strip is not None and win.view.rows[0].strip is not None)
    return win


@pytest.mark.parametrize("size", [(1100, 700), (1600, 1000)])
def test_each_note_sits_over_its_syllable_and_pitch_is_height(qtbot, answers, size):
    win = melody_win(qtbot, size=size)
    strip, m = win.view.melody_strip, melody_of(win.doc.template)
    for row in win.view.rows:
        cells = {u.slot: u.rect for u in row.units if u.kind == "cell"}
        bars = strip.bars(row)
        assert sorted({b.note for b in bars}) == sorted(k for syl in m.lines[row.index] for k in syl)
        for bar in bars:
            cell = cells[bar.syllable]
            assert cell.left() <= bar.rect.left() and bar.rect.right() <= cell.right()   # aligned
            assert row.strip.top() <= bar.rect.top() and bar.rect.bottom() <= row.strip.bottom() <= cell.top()
        for a in bars:
            for b in bars:
                pa, pb = m.notes[a.note].pitch, m.notes[b.note].pitch
                assert (pa > pb) == (a.rect.top() < b.rect.top())    # higher note, higher bar
    assert win.view.rows[-1].strip.bottom() < win.view.legend_rect.top()
    # the melisma of line 1 (好一朵美丽的: 的 on two notes) shares its column by duration
    melisma = next(k for k, syl in enumerate(m.lines[0]) if len(syl) > 1)
    two = [b for b in strip.bars(win.view.rows[0]) if b.syllable == melisma]
    assert len(two) == 2 and two[0].rect.right() <= two[1].rect.left()


def test_a_longer_note_is_a_longer_bar_and_the_tooltip_names_it(qtbot, answers):
    win = melody_win(qtbot, MELODY / "two_tunes.abc", lang="en")     # tune 1: eighths, quarters, a half
    strip, m = win.view.melody_strip, melody_of(win.doc.template)
    bars = [b for row in win.view.rows for b in strip.bars(row)]
    by_length = {}
    for b in bars:
        by_length.setdefault(m.notes[b.note].duration, set()).add(round(b.rect.width()))
    lengths = sorted(by_length)
    assert len(lengths) >= 2 and max(by_length[lengths[0]]) < min(by_length[lengths[-1]])
    row = win.view.rows[0]
    first = strip.bars(row)[0]
    tip = win.view.tooltip_at(first.rect.center())
    assert tip.startswith("Syllable 1: G4, ½ beat\n")
    bar = m.notes[first.note].measure
    assert (f"bar {bar}" if bar else "pickup") in tip


def test_no_notes_without_a_melody_or_after_the_form_leaves_it(qtbot, answers):
    win = make_window(qtbot)
    assert win.view.melody_strip is None and all(r.strip is None for r in win.view.rows)
    win = melody_win(qtbot)
    win.view.set_cursor(0, 0)
    win.action_insert_below()                       # a line the melody does not have
    assert win.view.melody_strip is None and all(r.strip is None for r in win.view.rows)
    win.undo()
    assert win.view.melody_strip is not None


# ----------------------------------------------------------------------------------------------
# The tone fit, per slot, as a live check

SONGBIE = ["长亭雨，", "古道边，", "小花开满天。", "晚风拂柳笛声残，", "夕阳山外山。", "天之涯，", "地之角，",
           "知交半零落。", "一壶浊酒尽余欢，", "今宵别梦寒。"]


def test_dao_zi_is_marked_on_its_slot_with_the_reason(qtbot, answers):
    win = melody_win(qtbot, MELODY / "songbie.musicxml")
    for i, line in enumerate(SONGBIE):
        win.set_line_text(i, line)
    win.run_checks()
    fit = win.checks.fit
    assert fit is not None and fit.dao_zi == 2
    v = win.view
    assert v.fit_slots[0][2] == "bad" and v.fit_marks[0][2] == "bad"      # 亭雨: up a fourth onto 雨
    assert v.fit_slots[2][1] == "bad"                                     # 小花: down a fifth onto 花
    assert v.fit_slots[3][1] == "poor" and 0 not in v.fit_slots.get(1, {})
    cell = next(u for u in v.rows[0].units if u.slot == 2)
    tip = v.tooltip_at(cell.rect.center())
    assert "倒字: 亭雨" in tip and "rises 5 semitones" in tip
    assert "倒字" in v.line_summary(0, win.checks.statuses[0])
    assert "♪ 2 倒字, 3 weak" in win.check_label.text()
    assert "Line 1 ♪ 倒字: 亭雨" in win.check_label.toolTip()
    assert win.checks.statuses[0].state == "ok"          # the form's own checks are not changed
    win.set_line_text(0, "长亭外，")                     # the real words: no 倒字 there
    win.run_checks()
    assert 0 not in v.fit_slots and win.checks.fit.dao_zi == 1


def test_no_fit_marks_without_a_melody(qtbot, answers):
    win = make_window(qtbot)
    win.use_form("五绝")
    win.set_line_text(0, "长亭雨山尽，")
    win.run_checks()
    assert win.checks.fit is None and win.view.fit_slots == {} and "倒字" not in win.check_label.text()


def test_the_fit_reasons_read_in_the_chinese_interface():
    from songwriter.melody import piece_from_melody_file
    from songwriter.melody.fit import check_fit
    from songwriter.ui.i18n import set_language
    from songwriter.ui.wording import fit_text

    doc = piece_from_melody_file(MELODY / "songbie.musicxml", lang="zh")
    messages = [p.message for p in check_fit(doc.template, "\n".join(SONGBIE)).problems]
    messages += ["的 is a function word on a strong beat (bar 3); a strong beat wants a word that carries meaning",
                 "a rest cuts the word 春风 between 春 and 风",
                 "the line ends where the tune runs on: no rest or phrase mark follows its last note"]
    assert len(messages) >= 8
    try:
        set_language("zh")
        shown = [fit_text(m) for m in messages]
    finally:
        set_language("en")
    assert shown[0] == "倒字：亭雨：旋律上行 5 个半音；阳平接上声，旋律宜下行"
    for text in shown:
        assert not any(c.isascii() and c.isalpha() for c in text), text
    assert [fit_text(m) for m in messages] == messages          # the English UI shows them as they are


def test_join_split_and_move_a_line_break_keep_the_melody_in_step(qtbot, answers):
    win = melody_win(qtbot, MELODY / "two_tunes.abc")          # tune 1: one note per syllable
    lengths = [ln.syllables for ln in win.doc.template.lines]
    win.view.set_cursor(0, 1)
    assert win.melody.action_join()
    m = melody_of(win.doc.template)
    assert win.doc.template.lines[0].syllables == lengths[0] - 1 and m.matches(win.doc.template)
    assert len(m.lines[0][1]) == 2 and win.view.melody_strip is not None
    assert win.melody.action_split()
    assert [ln.syllables for ln in win.doc.template.lines] == lengths
    win.view.set_cursor(0, 2)
    assert win.melody.action_break()                          # line 1 ends after its third syllable
    got = [ln.syllables for ln in win.doc.template.lines]
    assert got[0] == 3 and got[1] == lengths[1] + lengths[0] - 3
    assert melody_of(win.doc.template).matches(win.doc.template)
    win.view.set_cursor(0, 0)
    assert not win.melody.action_split()                      # one note: nothing to split, said
    assert "one note" in win.statusBar().currentMessage()
    win.undo()
    win.undo()
    win.undo()
    assert [ln.syllables for ln in win.doc.template.lines] == lengths


def test_the_melody_edits_keep_each_written_character_on_its_note(qtbot, answers):
    win = melody_win(qtbot, MELODY / "two_tunes.abc")
    win.set_line_text(0, "春风又绿江南岸边的杨柳，")
    win.set_line_text(1, "明月何时照我还乡路上人。")
    win.view.set_cursor(0, 2)
    assert win.melody.action_break()                  # nothing is lost, nothing moves to another note
    assert win.doc.lines == ["春风又，", "绿江南岸边的杨柳明月何时照我还乡路上人。"]
    assert "every word stays on its notes" in win.statusBar().currentMessage()
    win.undo()
    win.view.set_cursor(1, 0)
    assert win.melody.action_join()
    assert win.doc.lines[1] == "明何时照我还乡路上人。"
    assert "月 now has no note of its own" in win.statusBar().currentMessage()
    win.view.set_cursor(1, 0)
    assert win.melody.action_split()
    assert win.doc.lines[1] == "明_何时照我还乡路上人。"


def test_a_one_phrase_melody_is_counted_in_the_singular(win, answers, monkeypatch, tmp_path):
    options(answers, monkeypatch, {"lang": "en"})
    tune = tmp_path / "one.abc"
    tune.write_text("X:1\nT:One\nM:4/4\nL:1/4\nK:C\nC D E F | G4 |]\n", encoding="utf-8")
    assert win.files.import_melody_file(str(tune))
    said = win.statusBar().currentMessage()
    assert "from the melody: 1 line, 5 syllables;" in said, said


def test_a_one_line_song_is_counted_in_the_singular(win, answers):
    assert win.files.import_song("The river runs so wide.\n", "lyrics", "one.txt")
    said = win.statusBar().currentMessage()
    assert said.startswith("Form made from the song: 1 line."), said


@pytest.mark.parametrize("ui", ["en", "zh"])
def test_the_legend_tells_a_weak_fit_from_a_lock_when_there_is_a_tune(qtbot, answers, ui):
    from songwriter.ui.i18n import set_language, tr
    from songwriter.ui.wording import plain

    set_language(ui)
    try:
        plain_win = make_window(qtbot)
        assert tr("dashed amber frame = a weak fit to the tune") not in plain(plain_win.view.legend())
        win = melody_win(qtbot)
        legend = plain(win.view.legend())
        for bit in ("amber fill = locked", "dashed amber frame = a weak fit to the tune",
                    "red frame 倒 = the tone sung against the tune"):
            assert tr(bit) in legend, legend
        assert tr("amber = locked") not in legend
    finally:
        set_language("en")


def test_what_reading_the_file_did_is_said(win, answers, monkeypatch, tmp_path):
    """Repeats sung out go in the status bar; what was left out or guessed (repeat signs music21
    cannot bar) also in a box, beside the form made."""
    options(answers, monkeypatch, {"lang": "en"})
    volta = tmp_path / "volta.abc"
    volta.write_text("X:1\nT:Volta\nM:4/4\nL:1/4\nK:C\n|: C D E F | G2 E2 |1 D E F D | C4 :|2 D E D B, | C4 |]\n",
                     encoding="utf-8")
    assert win.files.import_melody_file(str(volta))
    assert "Repeats sung out: bars" in win.statusBar().currentMessage()
    assert answers.infos == []
    short = tmp_path / "short.abc"
    short.write_text("X:1\nM:4/4\nL:1/4\nK:C\n|: C D E F :|\n", encoding="utf-8")
    assert win.files.import_melody_file(str(short))
    title, text = answers.infos[-1]
    assert title == "Melody imported" and "short.abc" in text
    assert "the repeat signs could not be read" in text and "Form made from the melody" in text

"""Where the editor puts things: a row per line of the piece, a unit per cursor position (a
Chinese cell, an English word, an empty syllable), the punctuation between them and the rhyme
label at the end. Pure geometry: nothing here paints or handles input.

Chinese cells are as wide as the editor allows: the longest line fits the width of the view
when it can (between MIN_CELL and MAX_CELL), so a 七言 line is whole at 1100 px and roomy at
1600 px. English words shrink the same way (to MIN_EN_SCALE of their size) when the longest line
would not fit."""

from __future__ import annotations

from dataclasses import dataclass, field

from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QFontMetricsF

from songwriter.document import HOLE, en_word_layout, zh_units
from songwriter.template import format_time

GUTTER = 78          # lock toggle, status mark, line number
ZH_CELL = 46         # the cell size the fonts and marks were drawn for
MIN_CELL = 30
MAX_CELL = 58
ZH_PUNCT_W = 24      # at ZH_CELL; scaled with the cell
ZH_GAP = 4
RHYME_W = 34         # the rhyme label after a line
REFRAIN_W = 40       # "= N" after a refrain line (and its rhyme label)
RIGHT_PAD = 24
EN_SYL = 30
EN_FONT_PX = 17
MIN_EN_SCALE = 0.72
EN_BOX_H = 38
TOP_PAD = 10
STANZA_GAP = 16


@dataclass
class Unit:
    rect: QRectF
    kind: str                 # cell | word | empty | overflow
    unit: int                 # the unit index (zh: slot; en: word, len(words) for the empty tail)
    slot: int | None          # template slot index (zh slot; en slot the word starts on)
    text: str = ""
    punct: str = ""
    locked: bool = False
    syllables: int = 1
    tones: list = field(default_factory=list)   # required tone/stress per syllable
    syl_start: int = 0


@dataclass
class Row:
    index: int
    y: float
    h: float
    units: list[Unit] = field(default_factory=list)
    puncts: list[tuple[QRectF, str, str]] = field(default_factory=list)   # rect, mark, form|text|wrong
    rhyme_rect: QRectF | None = None
    refrain_rect: QRectF | None = None   # "= N": the line repeats line N's words (a refrain)
    right: float = 0.0
    n_words: int = 0
    strip: QRectF | None = None      # the melody's notes above the cells (ui/melody_strip.py)

    def unit_at(self, pos: QPointF) -> Unit | None:
        for u in self.units:
            if u.rect.adjusted(-2, -TOP_PAD, 2, 8).contains(pos):
                return u
        return None


def punct_at_syllable(tline, syllable: int) -> str:
    """The form's punctuation after a syllable of the line ('' inside a multi-syllable slot)."""
    off = 0
    for s in tline.slots:
        off += s.span
        if off - 1 == syllable:
            return s.punct
        if off - 1 > syllable:
            return ""
    return ""


def punct_width(cell: float) -> float:
    return round(ZH_PUNCT_W * cell / ZH_CELL)


def zh_cell_size(template, texts: list[str], width: float) -> int:
    """The cell size at which every line of a Chinese piece fits ``width`` px (the form's own
    cells and marks and what the text adds beyond them), held between MIN_CELL and MAX_CELL."""
    best = MAX_CELL
    for tline, text in zip(template.lines, texts):
        units = zh_units(text)
        cells = max(len(tline.slots), len(units))
        if not cells:
            continue
        marks = gaps = 0
        for k in range(cells):
            typed = units[k][1] if k < len(units) else ""
            shown = typed or (tline.slots[k].punct if k < len(tline.slots) else "")
            if shown:
                marks += len(shown)
            else:
                gaps += 1
        fixed = GUTTER + RIGHT_PAD + gaps * ZH_GAP + (RHYME_W if tline.rhyme else 0) \
            + (REFRAIN_W if tline.repeats is not None else 0)
        per_cell = cells + marks * ZH_PUNCT_W / ZH_CELL
        best = min(best, int((width - fixed) / per_cell))
    return max(MIN_CELL, min(MAX_CELL, best))


def original_texts(doc) -> list[str]:
    """The original song's line (with its time) beside each line, '' where there is none: the
    same pairing the LRC export makes (``project.timing``), so a form of another length shows no
    song line beside lines that no longer stand for it."""
    from songwriter.project.timing import line_times, original_lines

    out = []
    for t, text in zip(line_times(doc), original_lines(doc)):
        text = text or ""
        if t is not None:
            text = f"[{format_time(t)}] {text}".rstrip()
        out.append(text)
    return out


def layout_zh(tline, i: int, y: float, text: str, previewed: bool, cell: float, strip: float = 0.0) -> Row:
    """A Chinese line: a cell per slot (the locked character unless a candidate is previewed),
    the form's or the typed punctuation after it, cells beyond the form marked as overflow;
    ``strip`` px above the cells for the melody's notes."""
    row = Row(i, y, cell + TOP_PAD + 12 + strip)
    pw = punct_width(cell)
    units = zh_units(text)
    x = float(GUTTER)
    top = y + TOP_PAD + strip
    if strip:
        row.strip = QRectF(GUTTER, y + TOP_PAD - 4, 0, strip - 2)
    for k, slot in enumerate(tline.slots):
        ch = units[k][0] if k < len(units) else ""
        if ch == HOLE:
            ch = ""
        if slot.lock is not None and not previewed:
            ch = slot.lock
        row.units.append(Unit(QRectF(x, top, cell, cell), "cell", k, k, ch, slot.punct,
                              slot.lock is not None, 1, [slot.tone]))
        x += cell
        typed = units[k][1] if k < len(units) else ""
        shown = typed or slot.punct
        if shown:
            w = pw * max(1, len(shown))
            state = "wrong" if typed and typed != slot.punct else "text" if typed else "form"
            row.puncts.append((QRectF(x, top, w, cell), shown, state))
            x += w
        else:
            x += ZH_GAP
    for k in range(len(tline.slots), len(units)):
        row.units.append(Unit(QRectF(x, top, cell, cell), "overflow", k, None, units[k][0], units[k][1]))
        x += cell
        if units[k][1]:
            w = pw * len(units[k][1])
            row.puncts.append((QRectF(x, top, w, cell), units[k][1], "wrong"))
            x += w
        else:
            x += ZH_GAP
    return _end_row(row, tline, x, top + cell / 2)


def _end_row(row: Row, tline, x: float, middle: float) -> Row:
    """After a line's last unit at ``x``: its rhyme label (centred on ``middle``), its right edge,
    its melody strip as wide as its units."""
    if tline.rhyme:
        row.rhyme_rect = QRectF(x + 6, middle - 11, 22, 22)
        x += RHYME_W
    if tline.repeats is not None:
        row.refrain_rect = QRectF(x + 6, middle - 11, REFRAIN_W - 6, 22)
        x += REFRAIN_W
    row.right = x
    _close_strip(row)
    return row


def _close_strip(row: Row) -> None:
    if row.strip is not None:
        row.strip.setRight(max(row.strip.left() + 10, max((u.rect.right() for u in row.units), default=0.0)))


def en_scale(widest: float, width: float) -> float:
    """The share of its width a line ``widest`` px wide must shrink to for ``width`` px: 1 when it
    fits (the caller keeps the result above MIN_EN_SCALE)."""
    room, need = width - GUTTER - RIGHT_PAD, widest - GUTTER
    if need <= 0 or need <= room:
        return 1.0
    return max(0.0, room / need)


def layout_en(tline, i: int, y: float, text: str, fm: QFontMetricsF, syl: float = EN_SYL,
              strip: float = 0.0) -> Row:
    """An English line: a box per word over its syllables, empty syllables after the words,
    the form's punctuation where the text has none; ``strip`` px above for the melody's notes
    (the stress marks stay between the notes and the boxes)."""
    row = Row(i, y, EN_BOX_H + TOP_PAD + 26 + strip)
    top = y + TOP_PAD + 6 + strip
    if strip:
        row.strip = QRectF(GUTTER, y + TOP_PAD - 6, 0, strip - 6)
    tones = tline.tones()
    total = tline.syllables
    words = en_word_layout(text, tline)
    row.n_words = len(words)
    x = float(GUTTER)
    used = 0
    for w, place in enumerate(words):
        width = max(place.syllables * syl, fm.horizontalAdvance(place.word) + 16 * syl / EN_SYL)
        kind = "word" if place.start + place.syllables <= total else "overflow"
        row.units.append(Unit(QRectF(x, top, width, EN_BOX_H), kind, w, place.slot, place.word,
                              place.punct, place.locked, place.syllables,
                              [tones[s] if s < len(tones) else None
                               for s in range(place.start, place.start + place.syllables)],
                              place.start))
        x += width
        want = punct_at_syllable(tline, place.start + place.syllables - 1)
        shown = place.punct or want
        if shown:
            pw = fm.horizontalAdvance(shown) + 4
            # English marks are the writer's own and go unchecked, except after a locked word,
            # which keeps the form's mark (checks._check_en_line): only there is one wrong
            state = "form" if not place.punct else ("wrong" if place.locked and place.punct != want else "text")
            row.puncts.append((QRectF(x, top, pw, EN_BOX_H), shown, state))
            x += pw
        x += 5
        used = place.start + place.syllables
    for s in range(used, total):
        row.units.append(Unit(QRectF(x, top, syl - 4, EN_BOX_H), "empty", len(words), None, "", "",
                              False, 1, [tones[s] if s < len(tones) else None], s))
        x += syl
        mark = punct_at_syllable(tline, s) if s < total - 1 else ""
        if mark:        # the form's mark inside the line, where the words will break (as Chinese cells show)
            pw = fm.horizontalAdvance(mark) + 4
            row.puncts.append((QRectF(x - 3, top, pw, EN_BOX_H), mark, "form"))
            x += pw - 3
    if used < total and tline.punct:
        row.puncts.append((QRectF(x, top, 12, EN_BOX_H), tline.punct, "form"))
        x += 14
    return _end_row(row, tline, x, top + EN_BOX_H / 2)


def slot_for_syllable(tline, syl: int) -> int | None:
    """The slot that starts at a syllable of the line (None inside a multi-syllable slot)."""
    off = 0
    for k, s in enumerate(tline.slots):
        if off == syl:
            return k
        off += s.span
    return None

"""The melody over the cells: a piano-roll strip above each line of a piece made from a melody.

Each syllable's column is the width of its cell (Chinese) or its share of its word's box
(English), so a note sits straight above the syllable sung on it. In the column a note is a bar:
its height is its pitch (the whole tune's range from the bottom of the strip to the top, so lines
compare), its length its duration (a note twice the tune's usual length or longer fills the
column; a melisma's notes share the column by duration). A thin line joins the notes of a phrase,
so the contour reads at a glance; a rest is a small block at the left of the column after it. The
syllable being played is lit; a tone pair that does not fit (倒字, or a weak fit) colours the line
into its second note. Geometry and painting only: the melody comes from the template
(songwriter.melody), the fit from the session's checks."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPen

from songwriter.melody.model import Melody, MelodyError, melody_of

from .editor_paint import C_BAD as C_FIT_BAD, C_PLAYING_EDGE as C_BAR_PLAYING, C_WARN as C_FIT_POOR
from .i18n import tr
from .wording import counted

STRIP_H = 40            # px above a line's cells
PAD = 5                 # px kept clear at the strip's top and bottom
BAR_H = 5
MIN_SPAN = 12           # semitones: a narrow tune is not stretched to the strip's full height
NAMES = ["C", "C♯", "D", "E♭", "E", "F", "F♯", "G", "A♭", "A", "B♭", "B"]
C_BAR = QColor("#5c6bc0")
C_CONTOUR = QColor("#c5cae9")
C_REST = QColor("#b0bec5")
C_BAND = QColor("#f5f6fb")
C_PLAYING = QColor(255, 152, 0, 70)


def note_name(pitch: int) -> str:
    """A MIDI pitch as a name with its octave (60 = C4)."""
    return f"{NAMES[pitch % 12]}{pitch // 12 - 1}"


def beats_text(quarters: float) -> str:
    q = round(quarters, 3)
    whole = int(q)
    frac = {0.5: "½", 0.25: "¼", 0.75: "¾", 0.333: "⅓", 0.667: "⅔"}.get(round(q - whole, 3), "")
    if not frac and abs(q - whole) > 1e-3:
        return f"{q:g}"
    return (str(whole) if whole or not frac else "") + frac


def melody_for(template) -> Melody | None:
    """The template's melody when its syllable map still fits the lines, else None (a broken
    record, or a form edited away from its melody, shows no notes)."""
    raw = template.meta.get("melody") if isinstance(template.meta, dict) else None
    if raw is None:
        return None
    key = id(raw)
    cached = _cache.get("melody")
    if cached is not None and cached[0] == key and cached[1] is raw:
        melody = cached[2]
    else:
        try:
            melody = melody_of(template)
        except MelodyError:
            melody = None
        _cache["melody"] = (key, raw, melody)
    return melody if melody is not None and melody.matches(template) else None


_cache: dict = {}


@dataclass
class Bar:
    note: int               # index in melody.notes
    syllable: int           # the syllable of the line it is sung on
    rect: QRectF


class MelodyStrip:
    """Where a melody's notes go above the rows of the editor (ui/editor_layout.Row)."""

    def __init__(self, melody: Melody):
        self.melody = melody
        pitches = [n.pitch for n in melody.notes] or [60]
        lo, hi = min(pitches), max(pitches)
        if hi - lo < MIN_SPAN:
            mid = (lo + hi) / 2
            lo, hi = mid - MIN_SPAN / 2, mid + MIN_SPAN / 2
        self.lo, self.hi = lo, hi
        durations = sorted(n.duration for n in melody.notes) or [1.0]
        self.full = max(1e-6, 2 * durations[len(durations) // 2])     # a note this long fills its column

    def columns(self, row) -> list[tuple[int, QRectF]]:
        """(syllable of the line, its column) for every syllable with a cell or a share of a word."""
        out = []
        if row.strip is None:
            return out
        for u in row.units:
            if u.kind == "overflow":
                continue
            first = u.slot if u.kind == "cell" else u.syl_start
            if first is None:
                continue
            n = max(1, u.syllables)
            w = u.rect.width() / n
            for j in range(n):
                out.append((first + j, QRectF(u.rect.left() + j * w, row.strip.top(), w, row.strip.height())))
        return out

    def y_of(self, pitch: int, strip: QRectF) -> float:
        share = (pitch - self.lo) / (self.hi - self.lo)
        return strip.bottom() - PAD - BAR_H - share * (strip.height() - 2 * PAD - BAR_H)

    def bars(self, row) -> list[Bar]:
        m = self.melody
        if row.strip is None or row.index >= len(m.lines):
            return []
        line = m.lines[row.index]
        out = []
        for syl, col in self.columns(row):
            if syl >= len(line):
                continue
            notes = line[syl]
            total = sum(m.notes[k].duration for k in notes) or 1.0
            x = col.left() + 2
            room = col.width() - 4
            for k in notes:
                note = m.notes[k]
                share = room * (note.duration / total if len(notes) > 1 else 1.0)
                length = share if len(notes) > 1 else max(6.0, room * min(1.0, note.duration / self.full))
                out.append(Bar(k, syl, QRectF(x, self.y_of(note.pitch, row.strip), max(4.0, length - 1), BAR_H)))
                x += share
        return out

    # --- painting -------------------------------------------------------------------------------
    def paint(self, p: QPainter, row, playing: int | None = None, fit: dict | None = None) -> None:
        """Draw the row's notes; ``playing``: the syllable being played; ``fit``: syllable ->
        "bad" or "poor", the grade of the tone pair that ends on it."""
        if row.strip is None:
            return
        m = self.melody
        band = QRectF(row.strip.left() - 4, row.strip.top(), row.right - row.strip.left(), row.strip.height())
        p.fillRect(band, C_BAND)
        cols = dict(self.columns(row))
        if playing is not None and playing in cols:
            p.fillRect(cols[playing], C_PLAYING)
        bars = self.bars(row)
        prev = None
        for bar in bars:
            note = m.notes[bar.note]
            if note.rest_before > 0 and prev is not None:
                p.fillRect(QRectF(cols[bar.syllable].left() - 3, row.strip.top() + PAD + 2, 3, 8), C_REST)
            if prev is not None:
                grade = (fit or {}).get(bar.syllable) if bar.syllable != prev.syllable else None
                colour = C_FIT_BAD if grade == "bad" else C_FIT_POOR if grade == "poor" else C_CONTOUR
                p.setPen(QPen(colour, 2.4 if grade else 1.2, Qt.SolidLine if grade != "poor" else Qt.DashLine))
                a = QPointF(prev.rect.right(), prev.rect.center().y())
                b = QPointF(bar.rect.left(), bar.rect.center().y())
                if note.rest_before <= 0 or grade:
                    p.drawLine(a, b)
            prev = bar
        p.setPen(Qt.NoPen)
        for bar in bars:
            p.setBrush(C_BAR_PLAYING if bar.syllable == playing else C_BAR)
            p.drawRoundedRect(bar.rect, 2, 2)

    def tooltip(self, row, pos: QPointF) -> str:
        """The note (or notes) over the syllable at ``pos``: name, length in beats, bar."""
        if row.strip is None or not row.strip.adjusted(-4, 0, 4, 0).contains(pos):
            return ""
        m = self.melody
        for syl, col in self.columns(row):
            if col.contains(pos) and syl < len(m.lines[row.index]):
                notes = [m.notes[k] for k in m.lines[row.index][syl]]
                parts = [counted("{name}, {beats} beat(s)", n.duration, name=note_name(n.pitch), beats=beats_text(n.duration))
                         for n in notes]
                head = tr("Syllable {n}").format(n=syl + 1) + ": " + " – ".join(parts)
                extra = [tr("bar {n}").format(n=notes[0].measure) if notes[0].measure > 0 else tr("pickup")]
                if notes[0].rest_before > 0:
                    extra.append(counted("after a rest of {beats} beat(s)", notes[0].rest_before, beats=beats_text(notes[0].rest_before)))
                if len(notes) > 1:
                    extra.append(tr("sung over {n} notes").format(n=len(notes)))
                return head + "\n" + " · ".join(extra)
        return ""

"""Changing the form under the text: taking another form (keeping the text and locks where it has
room for them, and saying what did not fit), adding and removing lines, a line's length, its
rhyme label, a slot's tone or punctuation. Each keeps the text and the template in step: one text
line per template line, and in Chinese the punctuation written where the template puts it.

The ``Document`` methods of the same names call these."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from songwriter.project.layout import compose_zh, en_word_layout
from songwriter.project.locks import lock_english_word, locked_count, sync_refrains
from songwriter.project.schema import HOLE, DocumentError
from songwriter.template import Line, Slot, Template, is_punct

if TYPE_CHECKING:
    from songwriter.project.document import Document


@dataclass
class FormChange:
    """What taking another form (``Document.adopt_form``) kept and dropped."""
    kept_locks: int = 0
    dropped_locks: int = 0
    dropped_chars: int = 0                  # characters past the end of the new lines (Chinese)
    dropped_lines: list[int] = field(default_factory=list)   # written lines the new form has no room for
    language_changed: bool = False
    # written syllables (Chinese characters, English words) whose note no longer starts a syllable
    # of their own (two syllables sung as one): left out, in the order of the piece
    unsung: list[str] = field(default_factory=list)

    @property
    def dropped_anything(self) -> bool:
        return bool(self.dropped_locks or self.dropped_chars or self.dropped_lines)


def set_template(doc: Document, template: Template, keep_text: bool = True) -> None:
    template.validate()
    doc.template = template
    if not keep_text:
        doc.lines = []
    doc.fit_lines()
    if doc.lang == "zh":   # keep locks and text consistent: a lock shows in the text
        for i in range(len(doc.lines)):
            if any(s.lock for s in template.lines[i].slots):
                doc.lines[i] = compose_zh(doc.zh_cells(i), template.lines[i])


def adopt_form(doc: Document, template: Template) -> FormChange:
    """Take another form, keeping the text and the locks wherever it has room for them: line
    by line, slot by slot (Chinese), or word by word at the same syllable (English). Returns
    what was kept and what did not fit. A form in another language starts the text afresh."""
    template = template.copy()
    template.validate()
    old = doc.template
    change = FormChange()
    if template.lang != old.lang:
        change.language_changed = True
        change.dropped_lines = [i for i in range(len(doc.lines)) if not doc.is_blank_line(i)]
        change.dropped_locks = locked_count(old)
        doc.template, doc.lines = template, []
        doc.fit_lines()
        return change
    n = len(template.lines)
    change.dropped_lines = [i for i in range(n, len(doc.lines)) if not doc.is_blank_line(i)]
    change.dropped_locks = sum(1 for line in old.lines[n:] for s in line.slots if s.lock is not None)
    if doc.lang == "zh":
        _adopt_zh(doc, old, template, change)
    else:
        _adopt_en(doc, old, template, change)
    return change


def _adopt_zh(doc: Document, old: Template, template: Template, change: FormChange) -> None:
    """Chinese: cell k of line i stays cell k of line i where the new line has one."""
    kept_lines = []
    for i, tline in enumerate(template.lines):
        if i >= len(old.lines):
            kept_lines.append("")
            continue
        cells, old_slots, room = doc.zh_cells(i), old.lines[i].slots, len(tline.slots)
        for k, ch in enumerate(cells[room:], start=room):
            if ch and ch != HOLE:
                change.dropped_chars += 1
                change.dropped_locks += k < len(old_slots) and old_slots[k].lock is not None
        for k in range(min(room, len(old_slots))):
            if old_slots[k].lock is not None and tline.slots[k].lock is None:
                tline.slots[k] = replace(tline.slots[k], lock=old_slots[k].lock)
                change.kept_locks += 1
        kept = cells[:room] + [""] * max(0, room - len(cells))
        kept_lines.append(compose_zh(kept, tline))
    doc.template, doc.lines = template, kept_lines
    doc.fit_lines()


def _adopt_en(doc: Document, old: Template, template: Template, change: FormChange) -> None:
    """English: the words stay as written; each locked word is locked again where a word of the
    new line starts on the same syllable with the same spelling."""
    n = len(template.lines)
    old_words = [[(w.start, w.word) for w in en_word_layout(doc.lines[i], old.lines[i]) if w.locked]
                 for i in range(min(n, len(old.lines)))]
    doc.template = template
    doc.fit_lines()
    for i, locked in enumerate(old_words):
        for start, word in locked:
            _relock_english_word(doc, i, start, change, spelled=word)


def _relock_english_word(doc: Document, line: int, start: int, change: FormChange,
                         spelled: str | None = None) -> None:
    """Lock again the unlocked word of ``line`` that starts on syllable ``start`` (spelled
    ``spelled`` when given), counting it in ``change`` as kept, or as dropped when no word of the
    line starts there or it cannot be locked."""
    layout = en_word_layout(doc.lines[line], doc.template.lines[line])
    at = next((w for w, p in enumerate(layout)
               if p.start == start and not p.locked and (spelled is None or p.word == spelled)), None)
    try:
        if at is None:
            raise DocumentError("no room")
        lock_english_word(doc, line, at)
        change.kept_locks += 1
    except DocumentError:
        change.dropped_locks += 1


def one_slot_per_syllable(template: Template) -> Template:
    """A copy whose locked English words (a slot spanning the word's syllables) are one unlocked
    slot per syllable again, the form's mark on the last: the melody edits count syllables, as
    the melody's syllable map does. The words' own locks are set again by ``follow_notes``."""
    t = template.copy()
    for line in t.lines:
        if any(s.span > 1 for s in line.slots):
            line.slots = [s if s.span == 1 else Slot(punct=s.punct if n == s.span - 1 else "")
                          for s in line.slots for n in range(s.span)]
    return t


def follow_notes(doc: Document, template: Template) -> FormChange:
    """Take a template whose melody sings the same notes grouped otherwise (a line break moved,
    two syllables joined into one, a melisma split: ``songwriter.melody.build``), keeping every
    written syllable and its lock on the note it starts on. Taken by position instead
    (``adopt_form``), the words after the edit would slide onto their neighbours' notes and the
    last ones fall off the line. A syllable whose first note now continues the syllable before it
    (a join) has no note of its own and is left out (``FormChange.unsung``); a syllable that is new
    (a split) is empty. A template without a melody that matches it is taken as any form is."""
    from songwriter.melody.model import melody_of

    old_melody, new_melody = melody_of(doc.template), melody_of(template)
    if (old_melody is None or new_melody is None or template.lang != doc.lang
            or not old_melody.matches(doc.template) or not new_melody.matches(template)):
        return adopt_form(doc, template)
    template = template.copy()
    template.validate()
    # the new (line, syllable) each note starts, and the old one each written syllable started on
    starts = {notes[0]: (j, k) for j, line in enumerate(new_melody.lines) for k, notes in enumerate(line)}
    moves = [[starts.get(notes[0]) for notes in line] for line in old_melody.lines]
    if doc.lang == "zh":
        return _follow_zh(doc, template, moves)
    return _follow_en(doc, template, moves)


def _follow_zh(doc: Document, template: Template, moves: list[list[tuple[int, int] | None]]) -> FormChange:
    change = FormChange()
    cells = [[""] * len(line.slots) for line in template.lines]
    locks = [[None] * len(line.slots) for line in template.lines]
    past_end: list[list[str]] = [[] for _ in template.lines]
    for i, line_moves in enumerate(moves):
        old_cells, old_slots = doc.zh_cells(i), doc.template.lines[i].slots
        for k, to in enumerate(line_moves):
            ch = old_cells[k] if k < len(old_cells) else ""
            if to is None:
                if ch:
                    change.unsung.append(ch)
                change.dropped_locks += old_slots[k].lock is not None
                continue
            cells[to[0]][to[1]] = ch
            locks[to[0]][to[1]] = old_slots[k].lock
        # characters written past the line's end stay past the end of the line its last note is in
        extra = [c for c in old_cells[len(line_moves):] if c]
        last = next((to for to in reversed(line_moves) if to is not None), None)
        if extra and last is not None:
            past_end[last[0]] += extra
        else:
            change.unsung += extra
    for j, line in enumerate(template.lines):
        line.slots = [replace(s, lock=lock) for s, lock in zip(line.slots, locks[j])]
    doc.template = template
    doc.lines = [compose_zh(cells[j] + past_end[j], line) for j, line in enumerate(template.lines)]
    doc.fit_lines()
    change.kept_locks = locked_count(template)
    return change


def _follow_en(doc: Document, template: Template, moves: list[list[tuple[int, int] | None]]) -> FormChange:
    change = FormChange()
    # (syllable it starts on, the word with its marks, its syllables, locked) per new line
    placed: list[list[tuple[int, str, int, bool]]] = [[] for _ in template.lines]
    for i, line_moves in enumerate(moves):
        if doc.is_blank_line(i):
            continue
        last = next((to for to in reversed(line_moves) if to is not None), None)
        for place in en_word_layout(doc.lines[i], doc.template.lines[i]):
            if place.word == HOLE:
                continue
            if place.start < len(line_moves):
                to = line_moves[place.start]
            else:       # a word past the line's end stays past the end of its last note's line
                to = (last[0], len(template.lines[last[0]].slots)) if last is not None else None
            if to is None:
                change.unsung.append(place.word)
                change.dropped_locks += place.locked
                continue
            placed[to[0]].append((to[1], place.word + place.punct, place.syllables, place.locked))
    # the words are placed afresh, so are their locks: each is locked again where its word lands
    doc.template = one_slot_per_syllable(template)
    for line in doc.template.lines:
        line.slots = [replace(s, lock=None) for s in line.slots]
    lines = []
    for words in placed:
        out, at = [], 0
        for start, word, syllables, _ in sorted(words, key=lambda w: w[0]):
            # an empty syllable (a split melisma, a word cut by a moved break) is held by a hole,
            # so the words after it keep their notes
            out += [HOLE] * max(0, start - at)
            out.append(word)
            at = max(at, start) + syllables
        lines.append(" ".join(out))
    doc.lines = lines
    doc.fit_lines()
    for j, words in enumerate(placed):
        for start, word, _, locked in words:
            if locked:
                _relock_english_word(doc, j, start, change)
    return change


def insert_line(doc: Document, at: int, like: int | None = None) -> None:
    """A new empty line at ``at``, shaped like line ``like`` (else its neighbour): the same
    syllables, tones and punctuation, no locks and no rhyme label."""
    t = doc.template
    model = t.lines[like] if like is not None and 0 <= like < len(t.lines) else (
        t.lines[min(at, len(t.lines) - 1)] if t.lines else None)
    if model is not None:
        slots = [Slot(tone=s.tone if s.span == 1 else None, punct=s.punct) for s in model.slots]
        new = Line(slots=slots, rhyme=None, stanza=model.stanza)
    else:
        new = Line(slots=[Slot() for _ in range(5)], stanza=0)
        new.slots[-1].punct = "。" if t.lang == "zh" else "."
    for line in t.lines:          # a refrain of a line that moves down follows it
        if line.repeats is not None and line.repeats >= at:
            line.repeats += 1
    t.lines.insert(at, new)
    doc.lines.insert(at, "")
    if doc.plan:
        doc.plan.insert(at, "")
    t.validate()


def remove_line(doc: Document, i: int) -> None:
    if len(doc.template.lines) <= 1:
        raise DocumentError("a piece needs at least one line")
    del doc.template.lines[i]
    del doc.lines[i]
    if doc.plan:
        del doc.plan[i]
    for line in doc.template.lines:    # a refrain of the removed line is a line of its own now
        if line.repeats == i:
            line.repeats = None
        elif line.repeats is not None and line.repeats > i:
            line.repeats -= 1


def set_line_length(doc: Document, i: int, n: int) -> None:
    """Give line i n syllables: slots are added (free) or removed at the end; the closing
    punctuation stays on the last slot."""
    line = doc.template.lines[i]
    if n < 1:
        raise DocumentError("a line needs at least one syllable")
    closing = line.punct
    line.slots[-1].punct = ""
    while line.syllables > n:
        last = line.slots[-1]
        if last.span > 1 and line.syllables - last.span < n:
            line.slots[-1].punct = closing
            raise DocumentError(f"line {i + 1}: a locked word is in the way; unlock it first")
        line.slots.pop()
    while line.syllables < n:
        line.slots.append(Slot())
    line.slots[-1].punct = closing
    doc.template.validate()
    for j in [i, *sync_refrains(doc.template, i)]:      # a refrain keeps its line's length
        if doc.lang == "zh" and doc.lines[j]:
            doc.lines[j] = compose_zh(doc.zh_cells(j)[:len(doc.template.lines[j].slots)], doc.template.lines[j])


def set_refrain(doc: Document, i: int, source: int | None) -> None:
    """Make line i a refrain of the earlier line ``source`` (it takes that line's syllables,
    locks, stresses, inner marks, rhyme label and words, keeping its closing mark), or, with
    None, a line of its own again."""
    t = doc.template
    line = t.lines[i]
    if source is None:
        line.repeats = None
        return
    if source not in t.refrain_sources(i):
        raise DocumentError(f"line {i + 1} cannot repeat line {source + 1}: a refrain repeats an earlier line "
                            "that is no refrain, and a line another line repeats is no refrain itself")
    line.repeats = source
    sync_refrains(t, source)
    doc.echo_refrains([source])


def set_rhyme(doc: Document, i: int, label: str | None) -> None:
    if label is not None and (len(label) != 1 or not "A" <= label <= "Z"):
        raise DocumentError(f"a rhyme label is one capital letter, not {label!r}")
    doc.template.lines[i].rhyme = label
    sync_refrains(doc.template, i)


def set_tone(doc: Document, i: int, k: int, tone: str | None) -> None:
    slot = doc.template.lines[i].slots[k]
    if slot.span > 1 and tone is not None:
        raise DocumentError("a locked word of several syllables takes no stress mark")
    allowed = ("平", "仄") if doc.lang == "zh" else ("/", "x")
    if tone is not None and tone not in allowed:
        raise DocumentError(f"tone must be one of {', '.join(allowed)}")
    doc.template.lines[i].slots[k] = replace(slot, tone=tone)
    sync_refrains(doc.template, i)


def set_punct(doc: Document, i: int, k: int, punct: str) -> None:
    if any(not is_punct(c) for c in punct):
        raise DocumentError(f"{punct!r} is not punctuation")
    line = doc.template.lines[i]
    line.slots[k] = replace(line.slots[k], punct=punct)
    for j in [i, *sync_refrains(doc.template, i)]:     # a mark inside a refrain is its line's too
        if doc.lang == "zh" and doc.lines[j]:
            doc.lines[j] = compose_zh(doc.zh_cells(j), doc.template.lines[j])

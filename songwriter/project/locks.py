"""Locking what is written, so that generating again keeps it. Locks live in the template
(``Slot.lock``): a Chinese lock is one cell; an English lock is one word, which may fill several
syllables, so its slots merge into one slot of that span and split again when it is unlocked.
The stress marks of the merged syllables are held in ``template.meta["held_tones"]`` meanwhile,
so unlocking gives the form back as it was. A locked English word keeps the mark written after it
("summer's day?"), as generation writes a locked slot's mark; the form's mark it replaced is held in
``template.meta["held_marks"]`` and comes back on unlock.

The ``Document`` methods of the same names call these; they take the document because a lock
is of what its text says at that place. A refrain and the line it repeats (``Line.repeats``) hold
the same locks: a lock or unlock on either is made on both (``sync_refrains``)."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from songwriter.project.layout import en_word_layout
from songwriter.project.schema import DocumentError
from songwriter.template import Line, Slot, Template, is_hanzi

if TYPE_CHECKING:
    from songwriter.project.document import Document


def lock(doc: Document, i: int, k: int) -> None:
    """Lock what is written at line i, slot/word k (Chinese: slot k; English: word k)."""
    if doc.lang == "zh":
        cells = doc.zh_cells(i)
        ch = cells[k] if k < len(cells) else ""
        if not ch or not is_hanzi(ch):
            raise DocumentError(f"line {i + 1}, slot {k + 1}: nothing to lock (write a character first)")
        slot = doc.template.lines[i].slots[k]
        doc.template.lines[i].slots[k] = replace(slot, lock=ch)
    else:
        lock_english_word(doc, i, k)
    sync_refrains(doc.template, i)


def unlock(doc: Document, i: int, k: int) -> None:
    """Unlock line i, slot k (Chinese) or word k (English)."""
    if doc.lang == "zh":
        unlock_slot(doc.template, i, k)
    else:
        words = en_word_layout(doc.lines[i], doc.template.lines[i])
        if k < len(words) and words[k].locked and words[k].slot is not None:
            unlock_slot(doc.template, i, words[k].slot)
    sync_refrains(doc.template, i)


def sync_refrains(template: Template, i: int) -> list[int]:
    """After line i's locks or form changed: each line tied to it by a refrain takes its slots
    (locks, spans, stresses, marks inside the line), its rhyme label and the stress marks its
    locked words hold, keeping its own closing mark, so the two can still be written with the same
    words. Returns the lines that changed."""
    tied = sorted(template.tied_lines([i]) - {i})
    for j in tied:
        line = template.lines[j]
        closing = line.slots[-1].punct if line.slots else ""
        line.slots = [replace(slot) for slot in template.lines[i].slots]
        line.slots[-1] = replace(line.slots[-1], punct=closing)
        line.rhyme = template.lines[i].rhyme
        for store in ("held_tones", "held_marks"):
            held = template.meta.get(store)
            if isinstance(held, dict):
                for key in [key for key in held if key.startswith(f"{j}:")]:
                    del held[key]
                for key, value in list(held.items()):
                    if key.startswith(f"{i}:"):
                        held[f"{j}:{key.split(':', 1)[1]}"] = list(value) if isinstance(value, list) else value
    return tied


def is_locked(doc: Document, i: int, k: int) -> bool:
    """Is line i's slot k (Chinese) or word k (English) locked?"""
    if doc.lang == "zh":
        slots = doc.template.lines[i].slots
        return k < len(slots) and slots[k].lock is not None
    words = en_word_layout(doc.lines[i], doc.template.lines[i])
    return k < len(words) and words[k].locked


def unlock_slot(template: Template, i: int, k: int) -> None:
    """Unlock template slot k of line i (an English locked word unlocks into its syllables)."""
    line = template.lines[i]
    slot = line.slots[k]
    if slot.lock is None:
        return
    punct = _take_held_mark(template, i, syllable_offset(line, k), slot.punct)
    if slot.span == 1:
        line.slots[k] = replace(slot, lock=None, punct=punct)
        return
    tones = _take_held_tones(template, i, syllable_offset(line, k), slot.span)
    new = [Slot(tone=t) for t in tones]
    new[-1].punct = punct
    line.slots[k:k + 1] = new


def lock_line(doc: Document, i: int) -> int:
    """Lock everything written in line i; returns how many slots/words were locked."""
    n = 0
    if doc.lang == "zh":
        for k, ch in enumerate(doc.zh_cells(i)[: len(doc.template.lines[i].slots)]):
            if ch and is_hanzi(ch) and doc.template.lines[i].slots[k].lock is None:
                lock(doc, i, k)
                n += 1
        return n
    n = _lock_english_line(doc, i)
    sync_refrains(doc.template, i)
    return n


def _lock_english_line(doc: Document, i: int) -> int:
    n = 0
    # the layout is read again after each lock: a locked word changes the slots under the rest
    w = 0
    while True:
        words = en_word_layout(doc.lines[i], doc.template.lines[i])
        if w >= len(words):
            return n
        if words[w].slot is None or doc.template.lines[i].slots[words[w].slot].lock is None:
            try:
                lock_english_word(doc, i, w)
                n += 1
            except DocumentError:     # a word that does not fit the form stays unlocked
                pass
        w += 1


def unlock_line(template: Template, i: int) -> None:
    """Unlock every slot of line i, from the end (unlocking a word splits its slot, which would
    move the slots after it)."""
    line = template.lines[i]
    k = len(line.slots) - 1
    while k >= 0:
        unlock_slot(template, i, k)
        k -= 1
    sync_refrains(template, i)


def locked_count(template: Template) -> int:
    return sum(1 for line in template.lines for s in line.slots if s.lock is not None)


def lock_english_word(doc: Document, i: int, w: int) -> None:
    """Lock word w of English line i: the slots of its syllables become one slot of that span.
    DocumentError when the word does not lie on the form's syllables (past the end, across
    another locked word)."""
    line = doc.template.lines[i]
    words = en_word_layout(doc.lines[i], line)
    if w >= len(words):
        raise DocumentError(f"line {i + 1}: no word {w + 1} to lock")
    place = words[w]
    if place.locked:
        return
    k = place.slot
    if k is None:
        raise DocumentError(f"line {i + 1}: {place.word!r} does not start on a syllable of the form")
    covered, total, j = [], 0, k
    while total < place.syllables and j < len(line.slots):
        if line.slots[j].lock is not None:
            raise DocumentError(f"line {i + 1}: {place.word!r} overlaps a locked word")
        covered.append(line.slots[j])
        total += line.slots[j].span
        j += 1
    if total != place.syllables:
        raise DocumentError(f"line {i + 1}: {place.word!r} ({place.syllables} syllables) runs past the end of the line")
    if place.syllables > 1:
        held = doc.template.meta.setdefault("held_tones", {})
        held[_held_key(i, place.start)] = [s.tone for s in covered]
    punct = covered[-1].punct
    if place.punct and place.punct != punct:
        # the writer's mark stays with the word they locked; the form's comes back on unlock
        doc.template.meta.setdefault("held_marks", {})[_held_key(i, place.start)] = punct
        punct = place.punct
    # one stress mark fits a one-syllable word; a longer word has its own stresses (CMUdict)
    tone = covered[0].tone if place.syllables == 1 else None
    line.slots[k:j] = [Slot(lock=place.word, span=place.syllables, tone=tone, punct=punct)]


def syllable_offset(line: Line, k: int) -> int:
    """The syllable of the line that slot k starts on."""
    return sum(s.span for s in line.slots[:k])


def _held_key(i: int, start: int) -> str:
    # a string key: template.meta is written to the project file as JSON
    return f"{i}:{start}"


def _take_held_mark(t: Template, i: int, start: int, mark: str) -> str:
    """The form's mark a locked word's own mark replaced, taken out of the store (``mark`` itself
    when none was held)."""
    store = t.meta.get("held_marks")
    held = store.pop(_held_key(i, start), None) if isinstance(store, dict) else None
    return held if isinstance(held, str) else mark


def _take_held_tones(t: Template, i: int, start: int, span: int) -> list[str | None]:
    """The stress marks a locked word's syllables had, taken out of the store (unmarked when
    none were kept, or when what was kept no longer matches the word)."""
    store = t.meta.get("held_tones")
    held = store.pop(_held_key(i, start), None) if isinstance(store, dict) else None
    if isinstance(held, list) and len(held) == span:
        return [x if x in ("/", "x") else None for x in held]
    return [None] * span

"""What a writer can do to a piece, without Qt: edit and erase, lock, change the form, ask for and
record candidates, undo and redo, open and save (autosave and recovery: songwriter/recovery.py).

The window is a view over one ``Session``: it turns keys, clicks and menu choices into calls here
and redraws when the session says the piece changed. Every change is one undoable step: a
snapshot of the project before and after (its history log, which only grows, is left out, so undo
never loses a remembered version). Messages for the writer are ``Note``s: an English text, the
key of the UI's translation table, and its fields; the UI translates and shows them.

No Qt and no torch here (a test checks): the engine is reached only through its light API types.
"""

from __future__ import annotations

import copy
import os
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Callable

from songwriter import document as D
from songwriter.project import steering
from songwriter.document import (
    CandidateRecord, Document, DocumentError, FormChange, Original, form_signature, new_document,
)
from songwriter.template import TemplateError, is_hanzi

Cursor = tuple[int, int]          # (line, unit): unit is a slot (Chinese) or a word (English)


def N_(text: str) -> str:
    """Marks a message for translation; the UI's table has every such text (a test checks)."""
    return text


@dataclass
class Note:
    """A message for the writer: an English text (its translation key) and its fields."""
    text: str
    fields: dict = field(default_factory=dict)

    def render(self, translate: Callable[[str], str] = lambda s: s) -> str:
        """The text in the UI's language (``translate``: its table). A field that is itself a
        note is rendered in the same language, a list of notes as its parts joined by "; "."""
        return translate(self.text).format(**{k: _rendered(v, translate) for k, v in self.fields.items()})


def _rendered(value, translate: Callable[[str], str]):
    if isinstance(value, Note):
        return value.render(translate)
    if isinstance(value, (list, tuple)) and value and all(isinstance(v, Note) for v in value):
        return translate("; ").join(v.render(translate) for v in value)
    return value


@dataclass
class Done:
    """The outcome of an action: whether the piece changed, and what to tell the writer."""
    changed: bool
    note: Note | None = None

    def __bool__(self) -> bool:
        return self.changed


def note(text: str, **fields) -> Note:
    return Note(text, fields)


# ----------------------------------------------------------------------------------------------
# Undo

@dataclass
class Step:
    label: Note
    before: dict
    after: dict
    merge_key: object = None


class UndoHistory:
    """A stack of snapshot steps with a clean mark (the state last saved). Steps with the same
    merge key in a row (typing into one line) merge into one, but never across a save."""

    def __init__(self):
        self.steps: list[Step] = []
        self.index = 0            # steps[:index] are done
        self.clean_index: int | None = 0

    def push(self, step: Step) -> None:
        del self.steps[self.index:]
        if self.clean_index is not None and self.clean_index > self.index:
            self.clean_index = None          # the saved state was undone and is now unreachable
        last = self.steps[-1] if self.steps else None
        if (step.merge_key is not None and last is not None and last.merge_key == step.merge_key
                and self.clean_index != self.index):
            last.after = step.after
            return
        self.steps.append(step)
        self.index += 1

    def undo(self) -> Step | None:
        if self.index == 0:
            return None
        self.index -= 1
        return self.steps[self.index]

    def redo(self) -> Step | None:
        if self.index >= len(self.steps):
            return None
        self.index += 1
        return self.steps[self.index - 1]

    @property
    def undo_label(self) -> Note | None:
        return self.steps[self.index - 1].label if self.index else None

    @property
    def redo_label(self) -> Note | None:
        return self.steps[self.index].label if self.index < len(self.steps) else None

    def is_clean(self) -> bool:
        return self.clean_index == self.index

    def set_clean(self) -> None:
        self.clean_index = self.index

    def clear(self) -> None:
        self.steps, self.index, self.clean_index = [], 0, 0

    def __len__(self) -> int:
        return len(self.steps)


def snapshot(doc: Document) -> dict:
    d = doc.to_dict()
    d.pop("history", None)
    d.pop("modified", None)
    return d


# ----------------------------------------------------------------------------------------------
# Checks

@dataclass
class Checks:
    report: object = None                      # checks.CheckReport, None when checks failed
    statuses: list[D.LineStatus] | None = None
    error: str = ""
    fit: object = None                         # melody.fit.FitReport: the words against the melody

    @property
    def summary(self) -> tuple[int, int, int]:
        """(lines that fit, lines with problems, lines in all)."""
        if self.statuses is None:
            return 0, 0, 0
        return (sum(1 for s in self.statuses if s.state == "ok"),
                sum(1 for s in self.statuses if s.state == "problem"), len(self.statuses))


# ----------------------------------------------------------------------------------------------
# Generation

@dataclass
class Sampling:
    n: int = 8
    temperature: float = 1.0
    top_k: int = 32
    top_p: float = 0.95
    seed: int | None = None
    line_choices: int | None = None     # drafts of each line (None: the decoder's own)


@dataclass
class Generation:
    """One request on its way: what was asked, which lines it may change, for which form."""
    request: object                     # engine.api.GenerationRequest
    apply_only: list[int] | None
    form: str
    form_name: str
    steered: "Steered | None" = None


@dataclass
class Steered:
    """What a generation was asked to be steered by, and whether the model could."""
    parts: list[Note]
    supported: bool

    def summary(self, translate: Callable[[str], str] = lambda s: s) -> str:
        """One line for the writer, in the UI's language (``translate``: its table)."""
        if not self.parts:
            return note("Last generation: not steered (no content, no plan)").render(translate)
        what = translate(", ").join(p.render(translate) for p in self.parts)
        if self.supported:
            return note("Last generation steered by {what}", what=what).render(translate)
        return note("Last generation: not steered (this model cannot steer); kept: {what}", what=what).render(translate)


class Session:
    def __init__(self, doc: Document | None = None, path: Path | None = None):
        from songwriter.forms import named_form

        self.doc: Document = doc if doc is not None else new_document(named_form(DEFAULT_FORM))
        self.path: Path | None = Path(path) if path else None
        self.recovered = False            # work recovered after a crash, not saved since
        self.suggested_path: Path | None = None   # offered by Save As (a recovered piece's old path)
        self.history = UndoHistory()
        self._listeners: list[Callable[[str], None]] = []
        self._autosaved_index: int | None = None
        self.last_steered: Steered | None = None   # what the last generation was steered by

    # --- telling the views -------------------------------------------------------------------
    def subscribe(self, listener: Callable[[str], None]) -> None:
        """listener(event): "changed" (the piece changed), "replaced" (another piece is open),
        "saved" (written to a file; nothing else changed)."""
        self._listeners.append(listener)

    def _emit(self, event: str) -> None:
        for listener in list(self._listeners):
            listener(event)

    # --- the one way to change the piece ----------------------------------------------------
    def edit(self, label: Note, fn: Callable[[Document], None], merge_key=None) -> Done:
        """Make one undoable change: fn(doc) changes the document. On a DocumentError or
        TemplateError nothing changes and the error is the note."""
        before = snapshot(self.doc)
        history = self.doc.history
        try:
            fn(self.doc)
            lines = str(before.get("text", "")).split("\n")
            self.doc.echo_refrains([i for i, text in enumerate(self.doc.lines)
                                    if i >= len(lines) or lines[i] != text])
        except (DocumentError, TemplateError) as e:
            self._restore(before, history)
            return Done(False, Note(str(e)))
        after = snapshot(self.doc)
        if after == before:
            return Done(False)
        self.history.push(Step(label, before, after, merge_key))
        self._emit("changed")
        return Done(True)

    def _restore(self, data: dict, history) -> None:
        self.doc = Document.from_dict(data)
        self.doc.history = history

    def undo(self) -> Done:
        step = self.history.undo()
        if step is None:
            return Done(False)
        self._restore(step.before, self.doc.history)
        self._emit("changed")
        return Done(True, note("Undone: {what}", what=step.label))

    def redo(self) -> Done:
        step = self.history.redo()
        if step is None:
            return Done(False)
        self._restore(step.after, self.doc.history)
        self._emit("changed")
        return Done(True, note("Redone: {what}", what=step.label))

    def is_modified(self) -> bool:
        return self.recovered or not self.history.is_clean()

    def set_clean(self) -> None:
        """Count the piece as it stands as saved (what a save does, without writing)."""
        self.history.set_clean()
        self._emit("saved")

    def replace(self, doc: Document, path: Path | None, recovered: bool = False) -> None:
        """Another piece in this session (new, open, import, recover): a fresh undo history."""
        self.doc, self.path, self.recovered = doc, (Path(path) if path else None), recovered
        self.suggested_path = None
        self.history.clear()
        self._autosaved_index = None
        self._emit("replaced")

    @property
    def display_name(self) -> str:
        return self.path.name if self.path else self.doc.title

    # --- checks -----------------------------------------------------------------------------
    def check(self) -> Checks:
        try:
            report = self.doc.check()
            checks = Checks(report, D.line_statuses(self.doc, report))
        except Exception as e:   # a prosody table missing must not stop the editor
            return Checks(error=f"{type(e).__name__}: {e}")
        if isinstance(self.doc.template.meta, dict) and "melody" in self.doc.template.meta:
            try:
                from songwriter.melody.fit import check_fit

                checks.fit = check_fit(self.doc.template, self.doc.check_text())
            except Exception:    # a broken melody record shows no fit; the form's checks stand
                checks.fit = None
        return checks

    # --- typing -----------------------------------------------------------------------------
    def free_slot_from(self, line: int, k: int) -> Cursor | None:
        t = self.doc.template
        while line < len(t.lines):
            slots = t.lines[line].slots
            while k < len(slots):
                if slots[k].lock is None:
                    return line, k
                k += 1
            line, k = line + 1, 0
        return None

    def type_chars(self, at: Cursor, chars: str) -> tuple[Done, Cursor]:
        """Chinese: put characters into the cells from ``at`` on, skipping locked cells. Returns
        where the cursor goes next."""
        positions, pos = [], at
        for _ in chars:
            nxt = self.free_slot_from(*pos)
            if nxt is None:
                break
            positions.append(nxt)
            pos = (nxt[0], nxt[1] + 1)
        if not positions:
            return Done(False, note("No free slot here: every slot from the cursor on is locked")), at

        def fn(d):
            for (i, s), ch in zip(positions, chars):
                d.set_zh_cell(i, s, ch)

        done = self.edit(note("Typing"), fn, merge_key=("type", positions[0][0]))
        last = positions[-1]
        nxt = self.free_slot_from(last[0], last[1] + 1)
        return done, (nxt if nxt is not None else (last[0], last[1] + 1))

    def erase(self, at: Cursor, backward: bool) -> tuple[Done, Cursor]:
        line, unit = at
        doc = self.doc
        if doc.lang == "zh":
            cells = doc.zh_cells(line)
            slots = doc.template.lines[line].slots
            k = unit
            if backward and (k >= len(cells) or not cells[k] or (k < len(slots) and slots[k].lock is not None)):
                k -= 1
                while 0 <= k < len(slots) and slots[k].lock is not None:
                    k -= 1
                if k < 0:
                    return Done(False), ((line - 1, len(doc.zh_cells(line - 1)) - 1) if line > 0 else at)
            if k < len(slots) and slots[k].lock is not None:
                return Done(False, note("That character is locked (Ctrl+L unlocks it)")), at
            if k >= len(slots):   # an overflow cell: drop it from the text
                def fn(d):
                    cells2 = d.zh_cells(line)
                    del cells2[k]
                    d.lines[line] = D.compose_zh(cells2, d.template.lines[line])
            else:
                def fn(d):
                    d.set_zh_cell(line, k, "")
            return self.edit(note("Erase"), fn, merge_key=("erase", line)), (line, k)
        words = D.en_word_layout(doc.lines[line], doc.template.lines[line])
        k = unit - 1 if backward else unit
        if not 0 <= k < len(words):
            return Done(False), at
        if words[k].locked:
            return Done(False, note("That word is locked (Ctrl+L unlocks it)")), at

        def fn(d):
            units = D.syllable_units(d.lines[line], "en")
            del units[k]
            d.lines[line] = " ".join(w + p for w, p in units)
        return self.edit(note("Erase"), fn, merge_key=("erase", line)), (line, k)

    def paste_text(self, at: Cursor, text: str) -> tuple[Done, Cursor]:
        if self.doc.lang == "zh":
            chars = "".join(c for c in text if is_hanzi(c))
            return self.type_chars(at, chars) if chars else (Done(False), at)
        lines = [x.strip() for x in text.splitlines() if x.strip()]
        start = at[0]

        def fn(d):
            for j, x in enumerate(lines):
                if start + j < len(d.lines):
                    d.lines[start + j] = x
        return self.edit(note("Paste"), fn), at

    def set_line_text(self, line: int, text: str) -> Done:
        def fn(d):
            d.lines[line] = text.strip()
            if d.lang == "zh" and any(s.lock for s in d.template.lines[line].slots):
                d.lines[line] = D.compose_zh(d.zh_cells(line), d.template.lines[line])
        return self.edit(note("Edit line {n}", n=line + 1), fn)

    def insert_word(self, at: Cursor, word: str) -> tuple[Done, Cursor]:
        if not word:
            return Done(False), at
        if self.doc.lang == "zh":
            return self.type_chars(at, word)
        line, unit = at

        def fn(d):
            units = D.syllable_units(d.lines[line], "en")
            if unit < len(units):
                units[unit] = (word, units[unit][1])
            else:
                units.append((word, ""))
            d.lines[line] = " ".join(w + p for w, p in units)
        return self.edit(note("Insert word"), fn), (line, unit + 1)

    # --- locks ------------------------------------------------------------------------------
    def lockable(self, line: int, unit: int) -> bool:
        doc = self.doc
        if doc.lang == "zh":
            cells = doc.zh_cells(line)
            return unit < len(doc.template.lines[line].slots) and bool(cells[unit]) and is_hanzi(cells[unit])
        return unit < len(D.en_word_layout(doc.lines[line], doc.template.lines[line]))

    def toggle_lock(self, units: list[Cursor]) -> Done:
        units = [u for u in units if self.lockable(*u)]
        if not units:
            return Done(False, note("Nothing written there to lock: write a character or word first"))
        if all(self.doc.is_locked(*u) for u in units):
            def fn(d):
                for i, k in sorted(units, reverse=True):
                    d.unlock(i, k)
            done = self.edit(note("Unlock"), fn)
            return Done(done.changed, done.note or note("Unlocked {n}", n=len(units)))

        def fn(d):
            for i, k in units:
                if not d.is_locked(i, k):
                    d.lock(i, k)
        done = self.edit(note("Lock"), fn)
        return Done(done.changed, done.note or note("Locked {n}: generation keeps it", n=len(units)))

    def toggle_line_lock(self, lines: list[int]) -> Done:
        t = self.doc.template
        if all(all(s.lock is not None for s in t.lines[i].slots) for i in lines):
            def fn(d):
                for i in lines:
                    d.unlock_line(i)
            return self.edit(note("Unlock line"), fn)
        if all(self.doc.is_blank_line(i) for i in lines):
            return Done(False, note("Nothing written on this line to lock"))

        def fn(d):
            for i in lines:
                d.lock_line(i)
        return self.edit(note("Lock line"), fn)

    def lock_all(self) -> Done:
        return self.edit(note("Lock all"), lambda d: [d.lock_line(i) for i in range(len(d.lines))])

    def unlock_all(self) -> Done:
        return self.edit(note("Unlock all"), lambda d: [d.unlock_line(i) for i in range(len(d.lines))])

    def clear_unlocked(self) -> Done:
        def fn(d):
            for i, tline in enumerate(d.template.lines):
                if d.lang == "zh":
                    d.lines[i] = D.compose_zh([s.lock or "" for s in tline.slots], tline)
                else:
                    d.lines[i] = " ".join(s.lock + s.punct for s in tline.slots if s.lock)
        return self.edit(note("Clear unlocked text"), fn)

    # --- the form ---------------------------------------------------------------------------
    def set_rhyme(self, lines: list[int], label: str | None) -> Done:
        return self.edit(note("Set rhyme"), lambda d: [d.set_rhyme(i, label) for i in lines])

    def set_refrain(self, lines: list[int], source: int | None) -> Done:
        """The lines repeat line ``source`` (refrains), or are lines of their own (None)."""
        return self.edit(note("Set refrain"), lambda d: [d.set_refrain(i, source) for i in lines if i != source])

    def set_tone(self, targets: list[Cursor], tone: str | None) -> Done:
        def fn(d):
            for i, s in targets:
                if d.template.lines[i].slots[s].span == 1:
                    d.set_tone(i, s, tone)
        return self.edit(note("Set tone"), fn) if targets else Done(False)

    def set_punct(self, line: int, slot: int, mark: str) -> Done:
        return self.edit(note("Set punctuation"), lambda d: d.set_punct(line, slot, mark))

    def insert_line(self, at: int, like: int) -> Done:
        return self.edit(note("Insert line"), lambda d: d.insert_line(at, like=like))

    def remove_lines(self, lines: list[int]) -> Done:
        return self.edit(note("Remove line"), lambda d: [d.remove_line(i) for i in sorted(lines, reverse=True)])

    def set_line_length(self, line: int, n: int) -> Done:
        return self.edit(note("Line length"), lambda d: d.set_line_length(line, n))

    def use_form(self, name: str) -> Done:
        """Take a named form (or 词牌), keeping text and locks where it has room; the note says
        what did not fit (undo brings it back)."""
        from songwriter.forms import named_form

        try:
            template = named_form(name)
        except TemplateError as e:
            return Done(False, Note(str(e)))
        return self.use_template(template, note("Use form {name}", name=template.name))

    def use_template(self, template, label: Note) -> Done:
        change: list[FormChange] = []
        before = Document.from_dict(snapshot(self.doc))
        done = self.edit(label, lambda d: change.append(d.adopt_form(template)))
        if not done:
            return done
        return Done(True, describe_form_change(template.name, change[0], before, self.doc))

    def apply_notation(self, text: str) -> Done:
        from songwriter.template import parse_notation

        try:
            template = parse_notation(text)
        except TemplateError as e:
            return Done(False, Note(str(e)))
        if not template.name:
            template.name = self.doc.template.name
        same_lang = template.lang == self.doc.lang
        done = self.edit(note("Edit form"), lambda d: d.set_template(template, keep_text=same_lang))
        if not done:
            return done
        return Done(True, note("The form is the notation's now: {n} lines", n=len(template.lines)))

    def set_kind(self, kind: str) -> Done:
        return self.edit(note("Kind of piece"), lambda d: setattr(d.template, "kind", kind))

    def set_rhyme_system(self, system: str | None) -> Done:
        return self.edit(note("Rhyme system"), lambda d: setattr(d.template, "rhyme_system", system))

    def set_tone_system(self, system: str) -> Done:
        return self.edit(note("Tone system"), lambda d: setattr(d.template, "tone_system", system))

    def set_scheme(self, text: str) -> Done:
        letters = [c for c in text.upper() if not c.isspace()]
        n = len(self.doc.template.lines)
        if len(letters) != n or any(not ("A" <= c <= "Z" or c in "-_.") for c in letters):
            return Done(False, note("The rhyme scheme needs one letter (or -) for each of the {n} lines", n=n))

        def fn(d):
            for i, c in enumerate(letters):
                if d.template.lines[i].repeats is None:     # a refrain rhymes as its line does
                    d.set_rhyme(i, c if "A" <= c <= "Z" else None)
        done = self.edit(note("Rhyme scheme"), fn)
        if not done:
            return done
        return Done(True, note("Rhyme scheme: {scheme}", scheme=rhyme_scheme(self.doc.template)))

    def set_title(self, title: str) -> Done:
        title = title.strip()
        return self.edit(note("Change title"), lambda d: setattr(d, "title", title))

    # --- steering (what the piece is about: songwriter.project.steering) ----------------------
    def set_content(self, entries: list[str]) -> Done:
        """All the content entries at once; an entry keeps its strength where its place does."""
        entries = [e.strip() for e in entries if e.strip()]

        def fn(d):
            d.content = entries
            steering.fit_strengths(d)
        return self.edit(note("Content"), fn)

    def add_entry(self, text: str, strength: float = 0.0) -> Done:
        text = text.strip()
        if not text:
            return Done(False, note("Type the keywords, line or passage first"))

        def fn(d):
            d.content.append(text)
            d.content_strengths.append(steering.check_strength(strength))
        return self.edit(note("Add content"), fn)

    def set_entry(self, i: int, text: str) -> Done:
        """Change entry i's text; an empty text removes the entry."""
        if not text.strip():
            return self.remove_entry(i)
        return self.edit(note("Edit content"), lambda d: d.content.__setitem__(i, text.strip())) \
            if 0 <= i < len(self.doc.content) else Done(False)

    def remove_entry(self, i: int) -> Done:
        if not 0 <= i < len(self.doc.content):
            return Done(False)

        def fn(d):
            del d.content[i]
            del d.content_strengths[i]
        return self.edit(note("Remove content"), fn)

    def set_entry_strength(self, i: int, value: float) -> Done:
        if not 0 <= i < len(self.doc.content):
            return Done(False)
        return self.edit(note("Strength"), lambda d: d.content_strengths.__setitem__(i, steering.check_strength(value)),
                         merge_key=("strength", i))

    def set_strength(self, value: float) -> Done:
        """The plan's strength (each line's keyword steers at it)."""
        return self.edit(note("Strength"), lambda d: setattr(d, "strength", steering.check_strength(value)),
                         merge_key=("strength", "plan"))

    def song_lines(self) -> list[str]:
        """The words of the song being re-lyricked: the original's lines, or a melody's own words."""
        if self.doc.original is not None:
            return list(self.doc.original.lines)
        try:
            from songwriter.melody import melody_of

            melody = melody_of(self.doc.template)
        except Exception:     # a broken melody record: no words to keep
            return []
        return [x for x in melody.original_lines() if x.strip()] if melody is not None else []

    def keeps_theme(self) -> bool:
        return steering.keeps_theme(self.doc, self.song_lines())

    def set_keep_theme(self, on: bool) -> Done:
        return self.edit(note("Keep the song's theme") if on else note("Drop the song's theme"),
                         lambda d: setattr(d, "keep_theme", bool(on)))

    def set_theme_strength(self, value: float) -> Done:
        return self.edit(note("Strength"), lambda d: setattr(d, "theme_strength", steering.check_strength(value)),
                         merge_key=("strength", "theme"))

    def propose_plan(self, stats, topic: str, seed: int | None = None) -> Done:
        """One keyword per line for ``topic`` (``stats``: the planner's, ``load_plan_stats``); one
        undo step. A topic the planner does not know changes nothing and says why."""
        from songwriter.plan import PlanError, propose_plan

        topic = topic.strip()
        unknown = _unknown_topic(stats, topic)
        if unknown:
            return Done(False, unknown)
        try:
            plan = propose_plan(stats, topic, len(self.doc.template.lines), seed=seed)
        except PlanError as e:
            return Done(False, Note(str(e)))

        def fn(d):
            d.plan_topic, d.plan = topic, plan
        done = self.edit(note("Plan"), fn)
        return Done(done.changed, note("Planned {n} lines for {topic}: edit any keyword, or ↻ for another",
                                       n=sum(1 for k in plan if k), topic=topic))

    def another_keyword(self, stats, line: int, seed: int = 0) -> Done:
        """Line ``line``'s keyword replaced by the planner's next proposal for it (with the plan's
        topic, else the other lines' keywords, as the subject)."""
        from songwriter.plan import PlanError, propose_line

        doc = self.doc
        plan = list(doc.plan) or [""] * len(doc.template.lines)
        topic = doc.plan_topic.strip() or " ".join(k for i, k in enumerate(plan) if k and i != line)
        unknown = _unknown_topic(stats, topic)
        if unknown:
            return Done(False, unknown)
        try:
            words = propose_line(stats, topic, plan, line, k=8, seed=seed)
        except PlanError as e:
            return Done(False, Note(str(e)))
        if not words:
            return Done(False, note("The planner has no other keyword for line {n}", n=line + 1))
        return self.set_plan_keyword(line, words[0])

    def set_plan_topic(self, topic: str) -> Done:
        return self.edit(note("Plan topic"), lambda d: setattr(d, "plan_topic", topic.strip()))

    def set_plan_keyword(self, line: int, word: str) -> Done:
        if not 0 <= line < len(self.doc.template.lines):
            return Done(False)
        word = " ".join(word.split())[:steering.MAX_KEYWORD_CHARS]

        def fn(d):
            if not d.plan:
                d.plan = [""] * len(d.template.lines)
            d.plan[line] = word
        return self.edit(note("Keyword of line {n}", n=line + 1), fn)

    def clear_plan(self) -> Done:
        def fn(d):
            d.plan_topic, d.plan = "", []
        return self.edit(note("Clear plan"), fn)

    def steering_fields(self) -> dict:
        """The request's steering: the entries (each at its strength), the song's theme (when kept)
        and the plan (one keyword per line, at ``strength``)."""
        doc = self.doc
        content, strengths = list(doc.content), list(doc.content_strengths)
        if self.keeps_theme():
            pieces = steering.theme_pieces(self.song_lines())
            content += pieces
            strengths += [doc.theme_strength] * len(pieces)
        fields = {"content": content, "strengths": strengths if content else None, "strength": doc.strength}
        if steering.has_plan(doc):
            fields["line_content"] = list(doc.plan)
        return fields

    def steering_parts(self) -> list[Note]:
        """What the piece asks to be steered by, one note per kind (none: nothing asked)."""
        doc = self.doc
        parts = []
        if doc.content:
            shown = ", ".join(short(e) for e in doc.content[:4]) + ("…" if len(doc.content) > 4 else "")
            parts.append(note("content: {list}", list=shown))
        if self.keeps_theme():
            parts.append(note("the song's theme"))
        if steering.has_plan(doc):
            parts.append(note("the plan's keywords on {n} lines", n=sum(1 for k in doc.plan if k.strip())))
        return parts

    # --- generation -------------------------------------------------------------------------
    def generation(self, lines: list[int] | None, sampling: Sampling, steering: bool) -> Generation:
        """The request for generating the whole piece (lines None) or the given lines again. The
        text goes as it stands; the facade decides what of it is context."""
        from songwriter.engine.api import GenerationRequest

        doc = self.doc
        request = GenerationRequest(
            template=doc.template.copy(), text=doc.check_text() if lines is not None else "",
            lines=sorted(doc.template.tied_lines(lines)) if lines is not None else None,
            n=max(1, min(64, int(sampling.n))), seed=sampling.seed, temperature=sampling.temperature,
            top_k=sampling.top_k, top_p=sampling.top_p, line_choices=sampling.line_choices,
            **(self.steering_fields() if steering else {}))
        return Generation(request, request.lines, form_signature(doc.template), doc.template.name,
                          Steered(self.steering_parts(), steering))

    def record(self, gen: Generation, candidates: list) -> Done:
        """Keep the candidates of a finished generation with the piece; when the form is still
        the one they were written for, the best goes into the text (one undo step)."""
        if not candidates:
            return Done(False, note("The engine returned no candidates"))
        self.last_steered = gen.steered
        now = D.now_iso()
        records = [CandidateRecord(text=c.text, lines=list(c.lines), score=float(c.score), ok=c.check.ok,
                                   created=now, regenerated=gen.apply_only,
                                   problems=len(c.check.problems) + sum(len(x.problems) for x in c.check.lines),
                                   form=gen.form, form_name=gen.form_name)
                   for c in candidates]
        same_form = form_signature(self.doc.template) == gen.form
        label = (note("Generate") if gen.apply_only is None else
                 note("Regenerate line {n}", n=", ".join(str(i + 1) for i in gen.apply_only)))

        def fn(d):
            d.add_candidates(records)
            if same_form:
                d.apply_lines(records[0].lines, only=gen.apply_only)
        self.edit(label, fn)
        if not same_form:
            return Done(True, note("The form changed while generating: the candidates are listed, none was applied"))
        if self.doc.remember("generate"):
            self._emit("changed")
        return Done(True, note("{n} candidates; the best is in the editor (Alt+Up/Down to preview others)",
                               n=len(records)))

    def candidate_fits(self, index: int) -> bool:
        return self.doc.candidates[index].fits_form(self.doc.template)

    def candidate_form(self, index: int) -> Note | None:
        """Which form candidate ``index`` was written for, when not the piece's form as it stands
        (None when it is): another form by its name, or, where the piece's form has the same
        name (changed since, or the candidate's was), how the candidate's differs when that can
        be told, never just the piece's own form's name."""
        c = self.doc.candidates[index]
        t = self.doc.template
        if c.fits_form(t):
            return None
        if not c.form_name or c.form_name != t.name:
            return note("for another form: {name}", name=candidate_form_name(c))
        named = _named_form(c.form_name)
        if named is not None and form_signature(named) == c.form:       # written for the form as named
            how = form_differences(named, t)
            if how:
                return note("for this form before it was changed: {how}", how=how)
        if len(c.lines) != len(t.lines):
            return note("for another version of this form: {how}", how=note("{n} lines", n=len(c.lines)))
        return note("for another version of this form")

    def candidate_preview(self, index: int) -> tuple[dict[int, str] | None, Note | None]:
        """The lines a preview of candidate ``index`` shows, or None and why not."""
        if not 0 <= index < len(self.doc.candidates):
            return None, None
        c = self.doc.candidates[index]
        if not c.fits_form(self.doc.template):
            if c.form_name and c.form_name == self.doc.template.name:
                return None, note("Candidate {n} was written {what}. Change the form back to see it in the editor",
                                  n=index + 1, what=self.candidate_form(index))
            return None, note("Candidate {n} was written for another form ({form}): use that form to see it "
                              "in the editor", n=index + 1, form=candidate_form_name(c))
        only = c.regenerated if c.regenerated is not None else range(len(self.doc.lines))
        return ({i: c.lines[i] for i in only if i < len(c.lines)},
                note("Previewing candidate {n}: Enter or Apply uses it, Esc stops the preview", n=index + 1))

    def apply_candidate(self, index: int) -> Done:
        if not 0 <= index < len(self.doc.candidates):
            return Done(False)
        c = self.doc.candidates[index]
        if not c.fits_form(self.doc.template):
            if c.form_name and c.form_name == self.doc.template.name:
                return Done(False, note("Candidate {n} was written {what}. Change the form back to apply it",
                                        n=index + 1, what=self.candidate_form(index)))
            return Done(False, note("Candidate {n} was written for another form ({form}): use that form to apply it",
                                    n=index + 1, form=candidate_form_name(c)))
        done = self.edit(note("Apply candidate {n}", n=index + 1), lambda d: d.apply_lines(c.lines, only=c.regenerated))
        self.doc.remember("candidate")
        return Done(done.changed, note("Candidate {n} is in the editor", n=index + 1))

    def restore_version(self, k: int) -> Done:
        if not 0 <= k < len(self.doc.history):
            return Done(False)
        text = self.doc.history[k].text
        return self.edit(note("Restore version"), lambda d: d.set_text(text))

    # --- suggestions ------------------------------------------------------------------------
    def suggestion_context(self, line: int, slot: int):
        """(template, text) for the facade's ``suggest``: the piece as it stands."""
        return self.doc.template.copy(), self.doc.check_text()

    def rhyme_group_of(self, line: int, checks: Checks) -> str | None:
        label = self.doc.template.lines[line].rhyme
        return checks.report.rhyme_groups.get(label) if label and checks.report else None

    def fallback_words(self, line: int, slot: int, checks: Checks) -> list[str]:
        """Without the engine: characters of the line's rhyme group that have the slot's tone."""
        t = self.doc.template
        tline = t.lines[line]
        if t.lang != "zh" or not tline.rhyme or slot != len(tline.slots) - 1:
            return []
        group = self.rhyme_group_of(line, checks)
        if not group:
            return []
        try:
            from songwriter.prosody import chinese

            chars = chinese.chars_in_group(t.effective_rhyme_system(), group)
            tone = tline.slots[slot].tone
            if tone:
                chars = [c for c in chars if tone in chinese.tone_classes(c, 0, t.tone_system)]
            return chars[:80]
        except Exception:   # a missing rhyme table: no fallback list, the editor goes on
            return []

    # --- files ------------------------------------------------------------------------------
    def open(self, path: str | os.PathLike) -> Done:
        try:
            doc = D.load(path)
        except DocumentError as e:
            return Done(False, Note(str(e)))
        self.replace(doc, Path(path).resolve())
        return Done(True, note("Opened {name}", name=self.path.name))

    def save(self, path: str | os.PathLike | None = None) -> Done:
        """Write the project (to ``path``, else where it was opened from). The recovery file goes."""
        target = Path(path) if path else self.path
        if target is None:
            return Done(False, note("Choose where to save the project"))
        self.doc.remember("save")
        try:
            D.save(self.doc, target)
        except OSError as e:
            self._emit("changed")
            return Done(False, note("{path} could not be written: {e}", path=str(target), e=e.strerror or str(e)))
        self.path = target.resolve()
        self.recovered = False
        self.history.set_clean()
        self._emit("saved")
        return Done(True, note("Saved {name}", name=self.path.name))

    def new_piece(self, form_name: str | None = None) -> None:
        from songwriter.forms import named_form

        try:
            template = named_form(form_name or DEFAULT_FORM)
        except TemplateError:
            template = named_form(DEFAULT_FORM)
        self.replace(new_document(template), None)


# ----------------------------------------------------------------------------------------------

DEFAULT_FORM = "七绝"    # a form the shipped model writes (the English engine is still to come)


_AS_IS = "{name}"      # a form's own name, shown as it is (no translation)


@lru_cache(maxsize=256)
def _named_form(name: str):
    """The library's form of this name (a 词牌 or a built-in form), None when there is none (a
    song's tune, a custom form). Cached: the window asks at every change."""
    from songwriter.forms import named_form

    try:
        return named_form(name) if name else None
    except TemplateError:
        return None


def form_changed(template) -> bool:
    """Has the piece's form been changed away from the named form it carries the name of (a
    line added, a rhyme scheme or a notation of its own)? The locks, kind and rhyme book are no
    change of form; a form not in the library has nothing to differ from."""
    named = _named_form(template.name)
    return named is not None and _form_key(named) != _form_key(_unlocked(template))


def _unlocked(template):
    """The form with its locks taken off: a locked English word is one slot of its syllables,
    with the writer's mark after it, until it is unlocked into the form's own."""
    if all(s.lock is None for line in template.lines for s in line.slots):
        return template
    doc = new_document(template)          # a copy, its held stresses and marks too (unlocking takes them)
    doc.template.meta = copy.deepcopy(template.meta)
    for i in range(len(doc.template.lines)):
        doc.unlock_line(i)
    return doc.template


def _form_key(template) -> tuple:
    """What makes a form this form: what a text must match (form_signature) and, in English,
    the stresses (which a text is not checked against)."""
    return form_signature(template), tuple(tuple(s.tone for s in line.slots) for line in template.lines)


def shown_form_name(template) -> Note:
    """The form's name as the writer sees it: "七绝·平起·首句入韵", "七绝·平起·首句入韵 (changed)"
    once it is no longer that form, "Custom form" without a name."""
    if not template.name:
        return note("Custom form")
    if form_changed(template):
        return note("{name} (changed)", name=template.name)
    return Note(_AS_IS, {"name": template.name})


def candidate_form_name(c: CandidateRecord) -> Note:
    """The name of the form a candidate was written for, "(changed)" where that was not the named
    form itself."""
    if not c.form_name:
        return note("Custom form")
    named = _named_form(c.form_name)
    if named is not None and c.form and form_signature(named) != c.form:
        return note("{name} (changed)", name=c.form_name)
    return Note(_AS_IS, {"name": c.form_name})


def rhyme_scheme(template) -> str:
    """The rhyme labels line by line, "-" for none, a space between stanzas: "ABAB CDCD EFEF GG"."""
    out, prev = [], None
    for line in template.lines:
        if prev is not None and line.stanza != prev:
            out.append(" ")
        prev = line.stanza
        out.append(line.rhyme or "-")
    return "".join(out)


def form_differences(old, new) -> list[Note]:
    """How form ``old`` differs from ``new``, in ``old``'s terms: its lines, line lengths, rhyme
    scheme, tones (or stresses) and punctuation."""
    if len(old.lines) != len(new.lines):
        return [note("{n} lines", n=len(old.lines))]      # its rhymes and the rest are then another's too
    out: list[Note] = []
    if [line.syllables for line in old.lines] != [line.syllables for line in new.lines]:
        out.append(note("other line lengths"))
    if rhyme_scheme(old) != rhyme_scheme(new):
        out.append(note("rhyme scheme {scheme}", scheme=rhyme_scheme(old)))
    if all(a.syllables == b.syllables for a, b in zip(old.lines, new.lines)):
        if any(x.tone != y.tone for a, b in zip(old.lines, new.lines) for x, y in zip(a.slots, b.slots)):
            out.append(note("other tones") if old.lang == "zh" else note("other stresses"))
        if any(x.punct != y.punct for a, b in zip(old.lines, new.lines) for x, y in zip(a.slots, b.slots)):
            out.append(note("other punctuation"))
    return out


def short(text: str, n: int = 12) -> str:
    """A content entry on one line, cut to ``n`` characters."""
    one = " ".join(text.split())
    return one if len(one) <= n else one[:n - 1] + "…"


def _unknown_topic(stats, topic: str) -> Note | None:
    """Why the planner cannot plan for ``topic`` (None when it can)."""
    from songwriter.plan import topic_words

    english = getattr(stats, "lang", "zh") == "en"
    if not topic.strip():
        return note("Give a topic first: a title or a few words ({example})",
                    example="the sea at night" if english else "明月 故乡")
    if not topic_words(stats, topic):
        if english:
            return note("The planner knows none of the words of {topic}: give English words, e.g. sea night",
                        topic=topic)
        return note("The planner knows none of the words of {topic}: give Chinese words, e.g. 明月 故乡", topic=topic)
    return None


def load_plan_stats(folder: str | os.PathLike):
    """The planner's statistics of a model folder (``plan.json``), read once per file (PlanError
    when missing or unreadable). Call it off the UI thread: the first read takes a moment."""
    from songwriter.plan import PLAN_FILE

    return _plan_stats(str(Path(folder) / PLAN_FILE))


@lru_cache(maxsize=2)
def _plan_stats(path: str):
    from songwriter.plan import load_stats

    return load_stats(path)




def line_list(lines: list[int]) -> str:
    """Line numbers for a message, runs as ranges: [0, 1, 2, 3, 5] -> "1–4, 6"."""
    runs: list[list[int]] = []
    for i in sorted(set(lines)):
        if runs and i == runs[-1][1] + 1:
            runs[-1][1] = i
        else:
            runs.append([i, i])
    return ", ".join(str(a + 1) if a == b else f"{a + 1}–{b + 1}" for a, b in runs)


def _grouped(counts: dict[int, int]) -> list[tuple[list[int], int]]:
    """{line: count} -> [(the lines with that count, count)], in line order."""
    by_count: dict[int, list[int]] = {}
    for i, n in sorted(counts.items()):
        by_count.setdefault(n, []).append(i)
    return sorted(((lines, n) for n, lines in by_count.items()), key=lambda x: x[0][0])


def _cut_chars(lines: list[int], n: int) -> Note:
    """Chinese: characters past the new line ends, taken off."""
    where = line_list(lines)
    if len(lines) == 1:
        return (note("line {lines} lost its last character", lines=where) if n == 1 else
                note("line {lines} lost its last {n} characters", lines=where, n=n))
    return (note("lines {lines} each lost their last character", lines=where) if n == 1 else
            note("lines {lines} each lost their last {n} characters", lines=where, n=n))


def _overflowing_words(doc: Document, i: int) -> int:
    """English: how many words of line i run past the end of its form line."""
    tline = doc.template.lines[i]
    return sum(1 for w in D.en_word_layout(doc.lines[i], tline) if w.start + w.syllables > tline.syllables)


def describe_form_change(name: str, change: FormChange, before: Document | None = None,
                         after: Document | None = None) -> Note:
    """What taking form ``name`` did to the text, in plain words: which lines lost what (a Chinese
    line its last characters, a line the form has no place for all of it), which English lines
    now run past their end (their words are kept, in red), and the locks that went. ``before``
    and ``after``: the piece either side of the change (without them, only the counts)."""
    if change.language_changed:
        return note("Form: {name}. It is in another language, so the text starts afresh (Undo brings it back)",
                    name=name)
    parts: list[Note] = []
    if before is not None and after is not None and after.lang == "zh":
        cut = {}
        for i, tline in enumerate(after.template.lines[:len(before.lines)]):
            past = [c for c in before.zh_cells(i)[len(tline.slots):] if c and c != D.HOLE]
            if past:
                cut[i] = len(past)
        parts += [_cut_chars(lines, n) for lines, n in _grouped(cut)]
    elif change.dropped_chars:
        parts.append(note("{n} characters past the line ends were cut", n=change.dropped_chars))
    if change.dropped_lines:
        where = line_list(change.dropped_lines)
        parts.append(note("line {lines} has no place in it and was left out", lines=where)
                     if len(change.dropped_lines) == 1 else
                     note("lines {lines} have no place in it and were left out", lines=where))
    if before is not None and after is not None and after.lang == "en":
        over = {}
        for i in range(min(len(before.lines), len(after.lines))):
            now = _overflowing_words(after, i)
            if now > _overflowing_words(before, i):       # past the end because of the new form
                over[i] = now
        if over:
            n, where = sum(over.values()), line_list(list(over))
            parts.append(note("a word runs past the end of line {lines} (in red)", lines=where) if n == 1 else
                         note("{n} words run past the end of line {lines} (in red)", n=n, lines=where)
                         if len(over) == 1 else
                         note("{n} words run past the ends of lines {lines} (in red)", n=n, lines=where))
    if change.dropped_locks:
        parts.append(note("a lock was dropped") if change.dropped_locks == 1 else
                     note("{n} locks were dropped", n=change.dropped_locks))
    if parts:
        return note("Form: {name}. Not everything fits: {what}. Undo brings it all back", name=name, what=parts)
    if change.kept_locks == 1:
        return note("Form: {name}. Your text and its lock are kept", name=name)
    if change.kept_locks:
        return note("Form: {name}. Your text and its {n} locks are kept", name=name, n=change.kept_locks)
    return note("Form: {name}. Your text is kept", name=name)


def piece_from_song(text: str, kind: str, name: str, tune_name: str, imported_name: str) -> Document:
    """A new piece whose form is made from a song's lyrics (``kind`` "lyrics") or LRC file, with the
    song kept as its original. ``tune_name`` is a format with {name} for the form's name."""
    from songwriter import lyrics

    if kind == "lrc":
        template = lyrics.template_from_lrc(text)
        src = lyrics.parse_lrc(text)
    else:
        template = lyrics.template_from_lyrics(text)
        src = lyrics._plain_lines(text)
    fits = len(src) == len(template.lines)
    lines = [ll.text for ll in src] if fits else [""] * len(template.lines)
    times = [ll.time for ll in src] if fits else [ln.time for ln in template.lines]
    title = Path(name).stem if name else ""
    template.name = template.name or (tune_name.format(name=title) if title else imported_name)
    doc = new_document(template, title=title)
    doc.original = Original(kind, text, lines, times, name)
    return doc

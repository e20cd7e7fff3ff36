"""The form's edits that keep a melody in step (songwriter.melody.build): end a line after the
syllable at the cursor, sing a syllable and the next as one (a melisma), or a melisma as one
syllable per note. Each is one undoable change of the form, as choosing a form is."""

from __future__ import annotations

from songwriter.project.form_edits import one_slot_per_syllable
from songwriter.project.locks import syllable_offset
from songwriter.session import Done, Note, note
from songwriter.template import TemplateError

from .i18n import tr


class MelodyCommands:
    def __init__(self, window):
        self.w = window

    def _at(self, last: bool) -> tuple[int, int] | None:
        """(line, syllable) at the cursor: a locked English word's first syllable, or with
        ``last`` its last (the edits count syllables, as the melody's syllable map does)."""
        at = self.w.view.current_slot()
        if at is None or at[1] is None:
            return None
        line, k = at
        slots = self.w.doc.template.lines[line].slots
        if k >= len(slots):
            return None
        return line, syllable_offset(self.w.doc.template.lines[line], k) + (slots[k].span - 1 if last else 0)

    def _apply(self, edit, label: str, last: bool = False) -> bool:
        at = self._at(last)
        if at is None:
            return False
        try:
            template = edit(one_slot_per_syllable(self.w.doc.template), *at)
        except TemplateError as e:
            self.w.say(Done(False, Note(str(e))))
            return False
        # the written syllables follow their notes (Document.follow_notes), not their positions
        changes = []
        done = self.w.session.edit(Note(label), lambda d: changes.append(d.follow_notes(template)))
        if not done:
            return self.w.say(done)
        unsung = changes[0].unsung
        if unsung:
            sep = "" if self.w.doc.lang == "zh" else " "
            return self.w.say(Done(True, note("{what}: {words} now has no note of its own and was left out "
                                              "(Undo brings it back)", what=Note(label), words=sep.join(unsung))))
        return self.w.say(Done(True, note("{what}: every word stays on its notes", what=Note(label))))

    def action_join(self) -> bool:
        from songwriter.melody.build import join_syllables

        return self._apply(join_syllables, tr("Join syllables"), last=True)

    def action_split(self) -> bool:
        from songwriter.melody.build import split_syllable

        return self._apply(split_syllable, tr("Split into notes"))

    def action_break(self) -> bool:
        """End the line after the syllable at the cursor: the rest of its notes start the next line."""
        from songwriter.melody.build import move_line_break

        return self._apply(lambda t, line, syl: move_line_break(t, line, syl + 1), tr("Move line break"), last=True)

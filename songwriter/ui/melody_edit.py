"""The form's edits that keep a melody in step (songwriter.melody.build): end a line after the
syllable at the cursor, sing a syllable and the next as one (a melisma), or a melisma as one
syllable per note. Each is one undoable change of the form, as choosing a form is."""

from __future__ import annotations

from songwriter.session import Done, Note
from songwriter.template import TemplateError

from .i18n import tr


class MelodyCommands:
    def __init__(self, window):
        self.w = window

    def _at(self) -> tuple[int, int] | None:
        """(line, syllable) at the cursor."""
        at = self.w.view.current_slot()
        return at if at is not None and at[1] is not None else None

    def _apply(self, edit, label: str) -> bool:
        at = self._at()
        if at is None:
            return False
        try:
            template = edit(self.w.doc.template, *at)
        except TemplateError as e:
            self.w.say(Done(False, Note(str(e))))
            return False
        return self.w.say(self.w.session.use_template(template, Note(label)))

    def action_join(self) -> bool:
        from songwriter.melody.build import join_syllables

        return self._apply(join_syllables, tr("Join syllables"))

    def action_split(self) -> bool:
        from songwriter.melody.build import split_syllable

        return self._apply(split_syllable, tr("Split into notes"))

    def action_break(self) -> bool:
        """End the line after the syllable at the cursor: the rest of its notes start the next line."""
        from songwriter.melody.build import move_line_break

        return self._apply(lambda t, line, syl: move_line_break(t, line, syl + 1), tr("Move line break"))

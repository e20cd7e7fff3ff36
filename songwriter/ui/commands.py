"""Undo/redo: every change to the document is one QUndoCommand holding the state before and
after (the project minus its history log, which only ever grows). Typing into one line merges
into one step; a generation is one step."""

from __future__ import annotations

from PySide6.QtGui import QUndoCommand

_MERGE_ID = 4242


def snapshot(doc) -> dict:
    d = doc.to_dict()
    d.pop("history", None)
    return d


class SnapshotCommand(QUndoCommand):
    def __init__(self, window, label: str, before: dict, after: dict, merge_key=None):
        super().__init__(label)
        self.window = window
        self.before = before
        self.after = after
        self.merge_key = merge_key
        self._first = True

    def id(self) -> int:
        return _MERGE_ID if self.merge_key is not None else -1

    def mergeWith(self, other) -> bool:
        if not isinstance(other, SnapshotCommand) or other.merge_key != self.merge_key or self.merge_key is None:
            return False
        self.after = other.after
        return True

    def redo(self) -> None:
        if self._first:          # the change is already made when the command is pushed
            self._first = False
            return
        self.window.restore_snapshot(self.after)

    def undo(self) -> None:
        self.window.restore_snapshot(self.before)

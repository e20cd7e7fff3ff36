"""What the editor shows per line, from a check report: an unwritten cell is not an error (the
line is just unfinished), everything else the checks find is a problem."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from songwriter.project.layout import zh_units
from songwriter.project.schema import HOLE

if TYPE_CHECKING:
    from songwriter.project.document import Document


@dataclass
class LineStatus:
    state: str                                  # "empty" | "incomplete" | "ok" | "problem"
    problems: list = field(default_factory=list)   # checks.Problem, holes left out
    empty_slots: list[int] = field(default_factory=list)

    @property
    def bad_slots(self) -> set[int]:
        return {p.slot for p in self.problems if p.slot is not None}


def line_statuses(doc: Document, report) -> list[LineStatus]:
    """Turn a CheckReport on ``doc.check_text()`` into what the editor shows per line: empty cells
    are not errors (the line is just unfinished), everything else is a problem."""
    out = []
    for i in range(len(doc.template.lines)):
        c = report.lines[i] if i < len(report.lines) else None
        if doc.is_blank_line(i):
            out.append(LineStatus("empty"))
            continue
        holes, problems = [], []
        for p in (c.problems if c else []):
            if p.kind == "unknown" and HOLE in p.message and p.slot is not None:
                holes.append(p.slot)
            elif p.kind == "rhyme" and "is unknown" in p.message and doc.lang == "zh" and _ends_in_hole(doc.lines[i]):
                continue     # a rhyme cell not written yet has no rhyme to check
            else:
                problems.append(p)
        if problems:
            state = "problem"
        elif holes:
            state = "incomplete"
        else:
            state = "ok"
        out.append(LineStatus(state, problems, holes))
    return out


def _ends_in_hole(line: str) -> bool:
    units = zh_units(line)
    return bool(units) and units[-1][0] == HOLE

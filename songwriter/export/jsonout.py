"""JSON: the piece, its lines with times and checks, and the template, for other programs."""

from __future__ import annotations

import json

from songwriter.template import to_dict

from .common import shown_line, title_of
from .lrc import line_times


def to_json(doc) -> str:
    try:
        from songwriter.document import line_statuses

        statuses = line_statuses(doc, doc.check())
    except Exception:   # a check that cannot run must not stop an export
        statuses = None
    times = line_times(doc)
    lines = []
    for i in range(len(doc.template.lines)):
        item = {"text": shown_line(doc, i), "time": times[i],
                "syllables": doc.template.lines[i].syllables, "rhyme": doc.template.lines[i].rhyme}
        if statuses is not None:
            st = statuses[i]
            item["status"] = st.state
            item["problems"] = [{"kind": p.kind, "message": p.message, "slot": p.slot} for p in st.problems]
        lines.append(item)
    data = {
        "title": title_of(doc),
        "form": doc.template.name,
        "lang": doc.lang,
        "rhyme_system": doc.template.effective_rhyme_system(),
        "text": "\n".join(x["text"] for x in lines),
        "lines": lines,
        "template": to_dict(doc.template),
    }
    return json.dumps(data, ensure_ascii=False, indent=1) + "\n"

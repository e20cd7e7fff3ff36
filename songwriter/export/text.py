"""Plain text: the title, a blank line, the piece with blank lines between stanzas."""

from __future__ import annotations

from .common import stanzas, subtitle_of, title_of


def to_text(doc) -> str:
    out = [title_of(doc)]
    sub = subtitle_of(doc)
    if sub:
        out.append(sub)
    for stanza in stanzas(doc):
        out.append("")
        out.extend(text for _, text in stanza)
    return "\n".join(out).rstrip() + "\n"

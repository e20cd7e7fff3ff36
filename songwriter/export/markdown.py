"""Markdown: a heading, the form in italics, lines with hard breaks, stanzas as paragraphs."""

from __future__ import annotations

import re

from .common import stanzas, subtitle_of, title_of

_SPECIAL = re.compile(r"([\\`*_{}\[\]<>#|~])")


def escape(text: str) -> str:
    text = _SPECIAL.sub(r"\\\1", text)
    return re.sub(r"^(\s*)([-+]|\d+\.)(\s)", r"\1\\\2\3", text)


def to_markdown(doc) -> str:
    out = [f"# {escape(title_of(doc))}", ""]
    sub = subtitle_of(doc)
    if sub:
        out += [f"*{escape(sub)}*", ""]
    for stanza in stanzas(doc):
        lines = [escape(text) for _, text in stanza if text]
        if not lines:
            continue
        out.append("  \n".join(lines))
        out.append("")
    return "\n".join(out).rstrip() + "\n"

"""What every exporter shares: the title, the subtitle, the lines grouped in stanzas."""

from __future__ import annotations

from songwriter.document import HOLE


def title_of(doc) -> str:
    return (doc.title or doc.template.name or ("无题" if doc.lang == "zh" else "Untitled")).strip()


def subtitle_of(doc) -> str:
    t = doc.template
    parts = []
    if t.name and t.name != title_of(doc):
        parts.append(t.name)
    if t.rhyme_groups():
        parts.append(rhyme_system_label(t.effective_rhyme_system()))
    return " · ".join(parts)


def rhyme_system_label(system: str) -> str:
    try:
        from songwriter.prosody.chinese import RHYME_SYSTEMS

        if system in RHYME_SYSTEMS:
            return RHYME_SYSTEMS[system].name_zh
    except Exception:
        pass
    return {"perfect": "perfect rhyme", "slant": "slant rhyme"}.get(system, system)


def shown_line(doc, i: int) -> str:
    line = doc.lines[i] if i < len(doc.lines) else ""
    if doc.lang == "zh":
        return line.replace(HOLE, "□")
    return line


def stanza_groups(template) -> list[list[int]]:
    """The template's line indices, one list per stanza (a new one where ``Line.stanza`` changes:
    a 词牌's 上阕 and 下阕, a song's verses, a sonnet's octave and sestet)."""
    out: list[list[int]] = []
    previous = None
    for i, tline in enumerate(template.lines):
        if previous is None or tline.stanza != previous:
            out.append([])
            previous = tline.stanza
        out[-1].append(i)
    return out


def stanzas(doc) -> list[list[tuple[int, str]]]:
    """[[(line index, text), ...] per stanza]."""
    return [[(i, shown_line(doc, i)) for i in group] for group in stanza_groups(doc.template)]


def stanza_text(template, lines: list[str]) -> str:
    """Lines written for ``template`` as text, a blank line between its stanzas."""
    return "\n\n".join("\n".join(lines[i] if i < len(lines) else "" for i in group)
                       for group in stanza_groups(template))

"""A template from a melody: a slot per sung syllable, a line per phrase, the melody kept with it.

With the file's words, the template keeps their punctuation and reads the rhyme scheme from them
(as the text re-lyric does, ``lyrics.label_rhymes``), and a phrase that sings an earlier one's
words again repeats it (``lyrics.mark_refrains``; edited apart, it is a line of its own). Without
words, each line ends with a comma (the last with a full stop) and the even lines rhyme, the usual
scheme of a Chinese lyric.
Each line's ``time`` is the onset of its first note in seconds, so LRC export times the new words.
The writer's edits to the melody's lines (``move_line_break``, ``join_syllables``,
``split_syllable``) keep the template and the syllable map in step.
"""

from __future__ import annotations

from songwriter.melody.model import Melody, MelodyError, attach, melody_of
from songwriter.template import LANGS, Line, Slot, Template, detect_lang, is_punct, marks_for_lang

END_MARKS = "，。！？；、,.!?;:："


def template_from_melody(melody: Melody, lang: str | None = None, rhyme_system: str | None = None,
                         name: str = "") -> Template:
    """The template of a melody (MelodyError when it has nothing to sing). ``lang``: the
    language to write in; default the words' language when the file has words, else Chinese."""
    from songwriter.lyrics import label_rhymes, mark_refrains

    if not melody.lines or not any(melody.lines):
        raise MelodyError(f"{melody.source or 'the melody'}: no sung notes to write words for")
    words = melody.original_lines() if melody.words else []
    if lang is None:
        lang = detect_lang("".join(words)) if words and any(words) else "zh"
    if lang not in LANGS:
        raise MelodyError(f"unknown language {lang!r}; use one of {', '.join(LANGS)}")
    lines: list[Line] = []
    stanza = 0
    for i, syllables in enumerate(melody.lines):
        slots = [Slot() for _ in syllables]
        if melody.words:
            for slot, notes in zip(slots, syllables):
                # the marks of the new words' language, whatever the old words were written in
                slot.punct = marks_for_lang(_punct_of(melody.notes[notes[0]].lyric or ""), lang)
        if not slots[-1].punct:
            last = i == len(melody.lines) - 1
            slots[-1].punct = ("。" if last else "，") if lang == "zh" else ("." if last else ",")
        first = melody.notes[syllables[0][0]]
        lines.append(Line(slots=slots, stanza=stanza, time=round(first.seconds, 3)))
        if melody.notes[syllables[-1][-1]].lyric_end == "\\":
            stanza += 1
    title = name or melody.title or melody.source
    template = Template(lines=lines, lang=lang, rhyme_system=rhyme_system, kind="lyric", name=title)
    if melody.words and any(words):
        mark_refrains(template, words)
        label_rhymes(template, words)
    else:
        for k, line in enumerate(template.lines):
            if k % 2 == 1 or (k == len(template.lines) - 1 and k > 0):
                line.rhyme = "A"
    attach(template, melody)
    return template.validate()


def _punct_of(lyric: str) -> str:
    core = lyric.rstrip("-")
    tail = ""
    while core and (core[-1] in END_MARKS or (is_punct(core[-1]) and core[-1] not in "'-")):
        tail = core[-1] + tail
        core = core[:-1]
    return tail[:4]


# ----------------------------------------------------------------------------------------------
# The writer's edits: the template and its melody stay in step

def _checked(template: Template, *lines: int) -> Melody:
    melody = melody_of(template)
    if melody is None:
        raise MelodyError("the template has no melody")
    if not melody.matches(template):
        raise MelodyError("the template's lines no longer match its melody's phrases (a line was added, "
                          "removed or resized); make the template from the melody again")
    return melody


def move_line_break(template: Template, line: int, at: int) -> Template:
    """Move the break between lines ``line`` and ``line + 1`` so that line ``line`` has ``at``
    syllables (fewer: its last syllables start the next line; more: the next line's first ones
    join it). Returns a new template; punctuation follows the line ends; rhymes stay per line."""
    melody = _checked(template, line, line + 1)
    if not 0 <= line < len(melody.lines) - 1:
        raise MelodyError(f"no line break after line {line + 1}")
    both = melody.lines[line] + melody.lines[line + 1]
    if not 1 <= at < len(both):
        raise MelodyError(f"line {line + 1} can have 1 to {len(both) - 1} syllables here, not {at}")
    melody.lines[line], melody.lines[line + 1] = both[:at], both[at:]
    t = template.copy()
    a, b = t.lines[line], t.lines[line + 1]
    slots = a.slots + b.slots
    end_a, end_b = a.punct, b.punct
    for s in slots:
        s.punct = ""
    a.slots, b.slots = [_fresh(s) for s in slots[:at]], [_fresh(s) for s in slots[at:]]
    a.slots[-1].punct, b.slots[-1].punct = end_a, end_b
    a.time = round(melody.notes[melody.lines[line][0][0]].seconds, 3)
    b.time = round(melody.notes[melody.lines[line + 1][0][0]].seconds, 3)
    t.untie_refrains_that_differ()
    attach(t, melody)
    return t.validate()


def join_syllables(template: Template, line: int, syllable: int) -> Template:
    """Sing syllable ``syllable`` and the next one of line ``line`` as one (a melisma over
    their notes): the line loses a slot."""
    melody = _checked(template, line)
    if not 0 <= line < len(melody.lines) or not 0 <= syllable < len(melody.lines[line]) - 1:
        raise MelodyError(f"line {line + 1} has no syllables {syllable + 1} and {syllable + 2} to join")
    sy = melody.lines[line]
    sy[syllable:syllable + 2] = [sy[syllable] + sy[syllable + 1]]
    t = template.copy()
    slots = t.lines[line].slots
    keep = _fresh(slots[syllable])
    keep.punct = slots[syllable + 1].punct or slots[syllable].punct
    slots[syllable:syllable + 2] = [keep]
    t.untie_refrains_that_differ()
    attach(t, melody)
    return t.validate()


def split_syllable(template: Template, line: int, syllable: int) -> Template:
    """Undo a melisma: the notes of syllable ``syllable`` of line ``line`` become one syllable
    each (the line gains slots)."""
    melody = _checked(template, line)
    if not 0 <= line < len(melody.lines) or not 0 <= syllable < len(melody.lines[line]):
        raise MelodyError(f"line {line + 1} has no syllable {syllable + 1}")
    sy = melody.lines[line]
    notes = sy[syllable]
    if len(notes) < 2:
        raise MelodyError(f"line {line + 1}, syllable {syllable + 1} is sung on one note; nothing to split")
    sy[syllable:syllable + 1] = [[k] for k in notes]
    t = template.copy()
    slots = t.lines[line].slots
    old = slots[syllable]
    new = [_fresh(old)] + [Slot() for _ in notes[1:]]
    new[0].punct, new[-1].punct = "", old.punct
    slots[syllable:syllable + 1] = new
    t.untie_refrains_that_differ()
    attach(t, melody)
    return t.validate()


def _fresh(slot: Slot) -> Slot:
    return Slot(lock=slot.lock if slot.span == 1 else None, tone=slot.tone if slot.span == 1 else None,
                punct=slot.punct)

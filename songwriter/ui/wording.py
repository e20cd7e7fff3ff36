"""The checks' problem messages in the UI's language, with names a writer knows.

The checks (songwriter.metrics) word their problems in English for the CLI, naming rhyme systems
by their ids ("(rhyme A, shisanzhe)"). The window shows them through ``problem_text``: the id
becomes the system's name (十三辙) and, in the Chinese UI, the known sentence shapes are
translated; anything else is shown as it is."""

from __future__ import annotations

import re

from .i18n import language, tr

SYSTEM_NAMES_EN = {"perfect": "perfect rhyme", "slant": "slant rhyme"}

# (pattern, English text, key of the translation) for the sentence shapes of metrics.py
PATTERNS = [
    (r"does not rhyme with lines? (?P<lines>[\d, ]+) \(rhyme (?P<label>[A-Z]), (?P<system>\w+)\)",
     "does not rhyme with line(s) {lines} (rhyme {label}, {system})"),
    (r"the rhyme of '(?P<ch>.+)' is unknown", "the rhyme of {ch} is unknown"),
    (r"(?P<n>\d+) characters, the template wants (?P<want>\d+)", "{n} characters, the form wants {want}"),
    (r"(?P<n>\d+) syllables, the template wants (?P<want>\d+)", "{n} syllables, the form wants {want}"),
    (r"punctuation (?P<got>.*), the template wants (?P<want>.*)", "punctuation {got}, the form wants {want}"),
    (r"(?P<ch>\S+) is (?P<has>\S+), the template wants (?P<want>\S+)", "{ch} is {has}, the form wants {want}"),
    (r"(?P<ch>\S+) where (?P<lock>\S+) is locked", "{ch} where {lock} is locked"),
    (r"'(?P<ch>.+)' is not a Chinese character", "{ch} is not a Chinese character"),
    (r"the line is missing", "the line is missing"),
    (r"the template has no such line", "the form has no such line"),
]


def system_name(sid: str) -> str:
    try:
        from songwriter.prosody.chinese import RHYME_SYSTEMS

        info = RHYME_SYSTEMS.get(sid)
        if info is not None:
            return info.name_zh
    except Exception:   # no rhyme tables: the id is all there is
        pass
    return tr(SYSTEM_NAMES_EN.get(sid, sid))


def problem_text(message: str) -> str:
    for pattern, text in PATTERNS:
        m = re.fullmatch(pattern, message)
        if m:
            fields = m.groupdict()
            if "system" in fields:
                fields["system"] = system_name(fields["system"])
            return tr(text).format(**fields)
    return message if language() == "en" else tr(message)


KINDS = {"length": "length", "punct": "punctuation", "rhyme": "rhyme", "tone": "tone", "lock": "lock",
         "missing": "missing line", "extra": "extra line", "unknown": "unknown character"}


def kind_text(kind: str) -> str:
    return tr(KINDS.get(kind, kind))

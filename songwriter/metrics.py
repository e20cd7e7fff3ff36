"""Does a text fit its template? And the SongNet paper's measures, to compare with its tables.

`check(text, template)` reports per line whether length, punctuation, locked text, rhyme group and
tones hold, with what is wrong and where. The corpus measures (Format, Rhyme, Distinct, tone
agreement) are defined in docs/metrics.md. No Qt, no torch.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from functools import lru_cache

from songwriter.template import (
    Template, is_hanzi, is_punct, split_sentences, syllable_units, text_lines,
)


@dataclass
class Problem:
    kind: str            # length | punct | lock | rhyme | tone | missing | extra | unknown
    message: str
    slot: int | None = None   # 0-based syllable position in the line, when there is one


@dataclass
class LineCheck:
    index: int
    text: str
    length: bool = True
    punct: bool = True
    locks: bool = True
    rhyme: bool = True
    tones: bool = True
    problems: list[Problem] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def add(self, kind: str, message: str, slot: int | None = None) -> None:
        self.problems.append(Problem(kind, message, slot))
        if kind in ("length", "missing", "extra"):
            self.length = False
        elif kind in ("punct", "locks", "rhyme", "tones"):
            setattr(self, kind, False)
        elif kind == "lock":
            self.locks = False
        elif kind == "tone":
            self.tones = False


@dataclass
class CheckReport:
    lines: list[LineCheck]
    problems: list[Problem] = field(default_factory=list)   # piece-level (line count)
    rhyme_groups: dict[str, str | None] = field(default_factory=dict)  # label -> group found
    form: str = ""       # the variant of a named form the text was checked against

    @property
    def problem_count(self) -> int:
        return len(self.problems) + sum(len(line.problems) for line in self.lines)

    @property
    def ok(self) -> bool:
        return not self.problems and all(line.ok for line in self.lines)

    def to_dict(self) -> dict:
        return {
            "ok": self.ok,
            "form": self.form,
            "problems": [asdict(p) for p in self.problems],
            "rhyme_groups": self.rhyme_groups,
            "lines": [
                {"index": c.index, "text": c.text, "ok": c.ok, "length": c.length, "punct": c.punct,
                 "locks": c.locks, "rhyme": c.rhyme, "tones": c.tones,
                 "problems": [asdict(p) for p in c.problems]}
                for c in self.lines
            ],
        }

    def summary(self) -> str:
        out = []
        for p in self.problems:
            out.append(f"piece: {p.message}")
        for c in self.lines:
            mark = "ok " if c.ok else "BAD"
            out.append(f"{mark} {c.index + 1:>3}  {c.text}")
            for p in c.problems:
                where = f" (syllable {p.slot + 1})" if p.slot is not None else ""
                out.append(f"          {p.kind}{where}: {p.message}")
        verdict = "fits the template" if self.ok else "does not fit the template"
        out.append(f"{verdict} ({self.form})" if self.form else verdict)
        return "\n".join(out)


def check(text: str, template: Template, rhyme_system: str | None = None) -> CheckReport:
    """Check a text against a template; nothing raises for a text that merely does not fit.

    A template that is a named form as built (a 七绝, a 词牌) stands for all its variants: the text
    fits when it fits one of them (平起 or 仄起, first line rhyming or not; any format of the tune),
    and the report says which (``form``). When none fits, the report is the variant's with the
    fewest problems, the template's own on a tie."""
    report = _check_against(text, template, rhyme_system)
    if report.ok:
        return report
    from songwriter.forms import alternatives

    for alt in alternatives(template):
        other = _check_against(text, alt, rhyme_system)
        if other.ok:
            return other
        if other.problem_count < report.problem_count:
            report = other
    return report


def _check_against(text: str, template: Template, rhyme_system: str | None) -> CheckReport:
    lines = text_lines(text, template)
    report = CheckReport(lines=[], form=template.name)
    if len(lines) != len(template.lines):
        report.problems.append(Problem(
            "length", f"{len(lines)} lines, the template has {len(template.lines)}"))
    for i, tline in enumerate(template.lines):
        line_text = lines[i] if i < len(lines) else ""
        c = LineCheck(index=i, text=line_text)
        report.lines.append(c)
        if not line_text:
            c.add("missing", "the line is missing")
            continue
        if template.lang == "zh":
            following = (lines[i + 1], template.lines[i + 1]) \
                if i + 1 < len(lines) and i + 1 < len(template.lines) else None
            _check_zh_line(c, line_text, tline, template, following)
        else:
            _check_en_line(c, line_text, tline, template)
    for i in range(len(template.lines), len(lines)):
        c = LineCheck(index=i, text=lines[i])
        c.add("extra", "the template has no such line")
        report.lines.append(c)
    _check_rhymes(report, lines, template, rhyme_system or template.effective_rhyme_system())
    return report


# Marks that end or pause a Chinese sentence: which of them an edition prints is the editor's
# choice (a rhyme closed by ， in one edition and 。 in another), so a form's mark is met by any.
TONE_CONTEXT = 16     # characters past a line's end that can still change how its last word reads
ZH_PAUSES = frozenset("，。、；：？！,.;:?!…")


def _zh_marks_fit(units: list[tuple[str, str]], tline) -> bool:
    """Marks stand where the form has them (any pause mark for any), the line ends with one when
    the form's line does, and an inner mark the form has may be left out (a 领字's 、)."""
    want = {k: s.punct for k, s in enumerate(tline.slots) if s.punct}
    got = {k: p for k, (_, p) in enumerate(units) if p}
    last = len(tline.slots) - 1
    for k, mark in got.items():
        if k not in want:
            return False
        if not (set(mark) <= ZH_PAUSES and set(want[k]) <= ZH_PAUSES) and mark != want[k]:
            return False
    return last not in want or last in got


def _check_zh_line(c: LineCheck, text: str, tline, template: Template, following=None) -> None:
    """``following``: (text, template line) of the next line, which may rescue this one's 拗."""
    units = syllable_units(text, "zh")
    if len(units) != tline.syllables:
        c.add("length", f"{len(units)} characters, the template wants {tline.syllables}")
    if not _zh_marks_fit(units, tline):
        want = tline.puncts
        got = [p for _, p in units if p]
        c.add("punct", f"punctuation {''.join(got) or 'none'}, the template wants {''.join(want) or 'none'}")
    from songwriter.prosody import chinese, regulated

    # Tones are read in the context of the words around a slot; characters far past the line's
    # end change nothing but cost time (the segmenter is slower than linear on a long run).
    line_chars = "".join(u for u, _ in units[: tline.syllables + TONE_CONTEXT])
    base = None
    if template.kind == "shi" and template.tone_system == "classical" and len(units) == tline.syllables:
        base = regulated.base_of(tline.tones())
    for k, (slot, (ch, _)) in enumerate(zip(tline.slots, units)):
        if not is_hanzi(ch):
            c.add("unknown", f"{ch!r} is not a Chinese character", k)
            continue
        if slot.lock is not None and slot.lock != ch:
            c.add("lock", f"{ch} where {slot.lock} is locked", k)
        if slot.tone is not None and base is None:
            classes = chinese.tone_classes(line_chars, k, template.tone_system)
            if classes and slot.tone not in classes:
                c.add("tone", f"{ch} is {'/'.join(sorted(classes))}, the template wants {slot.tone}", k)
    if base is not None:
        # a line of regulated verse: the 律句 and the variants the tradition accepts (拗救)
        classes = [chinese.tone_classes(line_chars, k, template.tone_system) for k in range(len(units))]
        rescued = False
        if base == "A" and following is not None \
                and regulated.base_of(following[1].tones()) == "B":
            nxt = "".join(u for u, _ in syllable_units(following[0], "zh"))
            if len(nxt) == len(line_chars):
                rescued = regulated.rescues(
                    [chinese.tone_classes(nxt, k, template.tone_system) for k in range(len(nxt))])
        for k, message in regulated.line_problems(classes, base, rescued):
            c.add("tone", f"{units[k][0]} {message}", k)


def _check_en_line(c: LineCheck, text: str, tline, template: Template | None = None) -> None:
    """Length in syllables (verse readings count: heav'n, fi-re, ow'st), locked words, stress; a
    metrical form (``meta["verse"]``) accepts an inverted foot and a feminine ending. Punctuation
    is checked only on a line that locks words: elsewhere it is the writer's."""
    from songwriter.prosody import english

    verse = bool(template is not None and template.meta.get("verse"))
    units = syllable_units(text, "en")
    spoken = " ".join(u for u, _ in units)
    counts = english.line_syllables(spoken, verse=True) if units else [0]
    tones = tline.tones()
    pattern = "".join(t or "_" for t in tones)
    patterns = english.metre_variants(pattern, feminine=verse) if verse and any(tones) else [pattern]
    fitting = [p for p in patterns if len(p) in counts]
    if not fitting:
        shown = "/".join(str(n) for n in counts[:4])
        c.add("length", f"{shown} syllables, the template wants {tline.syllables}")
    locked = [s.lock.lower() for s in tline.slots if s.lock]
    if locked and tline.puncts != [p for _, p in units if p]:
        want, got = tline.puncts, [p for _, p in units if p]
        c.add("punct", f"punctuation {' '.join(got) or 'none'}, the template wants {' '.join(want) or 'none'}")
    if locked and not _en_locks_fit([u.lower() for u, _ in units], tline):
        c.add("lock", f"the locked words ({' '.join(locked)}) are not where the template has them")
    if any(t is not None for t in tones) and fitting:
        if not any(english.fits_meter(spoken, p, verse=True) for p in fitting):
            c.add("tone", f"the stresses do not fit {pattern}")


def _en_locks_fit(words: list[str], tline) -> bool:
    """Can the words be laid over the slots so each locked word sits on its own slot?"""
    from songwriter.prosody import english

    slots = tline.slots

    @lru_cache(maxsize=None)
    def fit(w: int, s: int) -> bool:
        if w == len(words) or s == len(slots):
            return w == len(words) and s == len(slots)
        if slots[s].lock is not None:
            return words[w] == slots[s].lock.lower() and fit(w + 1, s + 1)
        for n in english.syllable_counts(words[w]):
            end = s + n
            if end <= len(slots) and all(sl.lock is None for sl in slots[s:end]) and fit(w + 1, end):
                return True
        return False

    return fit(0, 0)


def rhyme_token(line_text: str, lang: str) -> tuple[str, int] | None:
    """(line text without punctuation, index of its rhyme syllable) or None."""
    if lang == "zh":
        chars = "".join(ch for ch in line_text if is_hanzi(ch))[-TONE_CONTEXT:]   # the last word's context
        return (chars, len(chars) - 1) if chars else None
    units = syllable_units(line_text, "en")
    return (units[-1][0], 0) if units else None


def rhyme_groups_of(line_text: str, lang: str, system: str) -> frozenset[str]:
    tok = rhyme_token(line_text, lang)
    if tok is None:
        return frozenset()
    if lang == "zh":
        from songwriter.prosody import chinese

        return chinese.rhyme_groups(tok[0], tok[1], system)
    from songwriter.prosody import english

    return english.rhyme_keys(tok[0], system)


def _check_rhymes(report: CheckReport, lines: list[str], template: Template, system: str) -> None:
    for label, indices in template.rhyme_groups().items():
        present = [i for i in indices if i < len(lines)]
        groups = {i: rhyme_groups_of(lines[i], template.lang, system) for i in present}
        tally = Counter(g for i in present for g in groups[i])
        best = max(tally, key=lambda g: (tally[g], g)) if tally else None
        report.rhyme_groups[label] = best
        if len(present) < 2 and all(groups.values()):
            continue
        borrowed = _borrowed_first_rhyme(lines, present, groups, best, template, system)
        for i in present:
            if i == borrowed:
                continue
            if not groups[i]:
                tok = rhyme_token(lines[i], template.lang)
                report.lines[i].add("rhyme", f"the rhyme of {tok[0][tok[1]] if tok and template.lang == 'zh' else (tok[0] if tok else '')!r} is unknown")
            elif best not in groups[i]:
                others = [j + 1 for j in present if j != i]
                report.lines[i].add(
                    "rhyme", f"does not rhyme with line{'s' if len(others) > 1 else ''} "
                             f"{', '.join(map(str, others))} (rhyme {label}, {system})")


def _borrowed_first_rhyme(lines, present, groups, best, template: Template, system: str) -> int | None:
    """The first line of a regulated poem may rhyme in a neighbouring group (首句借邻韵: 东 with
    冬, 支 with 微, the groups one 词林正韵 部 unites): its index when it does, else None."""
    if template.kind != "shi" or template.lang != "zh" or not present or present[0] != 0 \
            or best is None or best in groups[0] or len(present) < 3:
        return None
    from songwriter.prosody import chinese

    try:
        if chinese.resolve_rhyme_system(system) != "pingshui":
            return None
    except ValueError:
        return None
    tok = rhyme_token(lines[0], "zh")
    first = chinese.rhyme_groups(tok[0], tok[1], "cilin") if tok else frozenset()
    others = set()
    for i in present[1:]:
        if best in groups[i]:
            t = rhyme_token(lines[i], "zh")
            others |= chinese.rhyme_groups(t[0], t[1], "cilin")
    return 0 if first & others else None


# ----------------------------------------------------------------------------------------------
# SongNet's corpus measures (see docs/metrics.md for the exact definitions)

def sentences(piece: str) -> list[str]:
    """A Chinese piece -> sentences cut after punctuation, as the SongNet measures count them."""
    return split_sentences(piece.replace("\n", ""))


def _f1(p: float, r: float) -> float:
    return 2 * p * r / (p + r) if p + r else 0.0


def _sentence_format(s: str) -> tuple[int, tuple[str, ...]]:
    return len(s), tuple(ch for ch in s if is_punct(ch))


def format_scores(generated: list[str], gold: list[str]) -> dict[str, float]:
    """Format P/R/F1: a gold sentence is hit when the generated sentence at its index has the same
    length (punctuation included) and the same ordered punctuation. Macro-F1 = F1 of mean P and
    mean R over pieces; micro from summed counts. Percentages."""
    ps, rs, hits_total, gen_total, gold_total = [], [], 0, 0, 0
    for g, ref in zip(generated, gold):
        gs, rs_ = sentences(g), sentences(ref)
        hits = sum(1 for k, r in enumerate(rs_) if k < len(gs) and _sentence_format(gs[k]) == _sentence_format(r))
        ps.append(hits / len(gs) if gs else 0.0)
        rs.append(hits / len(rs_) if rs_ else 0.0)
        hits_total, gen_total, gold_total = hits_total + hits, gen_total + len(gs), gold_total + len(rs_)
    mp, mr = _mean(ps), _mean(rs)
    micro_p = hits_total / gen_total if gen_total else 0.0
    micro_r = hits_total / gold_total if gold_total else 0.0
    return {"macro_p": 100 * mp, "macro_r": 100 * mr, "macro_f1": 100 * _f1(mp, mr),
            "micro_p": 100 * micro_p, "micro_r": 100 * micro_r, "micro_f1": 100 * _f1(micro_p, micro_r)}


# SongNet's 13 final groups (with the `uen` final of 春/魂 present, unlike the reference code).
_SONGNET_GROUPS = [
    ("a", "ia", "ua"), ("e", "o", "uo", "ie", "ue", "üe", "ve"), ("u",), ("i", "ü", "v"),
    ("ai", "uai"), ("ao", "iao"), ("ou", "iu", "iou"), ("an", "ian", "uan", "üan", "van"),
    ("en", "in", "un", "ün", "uen", "vn"), ("ang", "iang", "uang"), ("eng", "ing", "ong", "iong", "ueng"),
    ("er",), ("ei", "ui", "uei"),
]
_FINAL_TO_GROUP = {f: k for k, group in enumerate(_SONGNET_GROUPS) for f in group}
_INITIALS = ("zh", "ch", "sh", "b", "p", "m", "f", "d", "t", "n", "l", "g", "k", "h", "j", "q", "x",
             "r", "z", "c", "s", "y", "w")


def pinyin_final(syllable: str) -> str:
    """'chun1' -> 'un', 'yu2' -> 'ü', 'ju4' -> 'ü', 'wei4' -> 'ui' (tone digits dropped)."""
    s = syllable.rstrip("012345").replace("v", "ü")
    special = {"yu": "ü", "yue": "üe", "yuan": "üan", "yun": "ün", "yi": "i", "yin": "in", "ying": "ing",
               "wu": "u", "wei": "ui", "wen": "un", "weng": "ong", "you": "iu", "er": "er"}
    if s in special:
        return special[s]
    for ini in _INITIALS:
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
    if not is_hanzi(ch):
        return None
    from songwriter.prosody import chinese

    text, idx = (context, index) if context and index is not None else (ch, 0)
    readings = chinese.readings(text)[idx]
    if not readings:
        return None
    return _FINAL_TO_GROUP.get(pinyin_final(readings[0]))


def _rhyme_positions(piece: str) -> set[int]:
    groups = []
    for s in sentences(piece):
        chars = "".join(c for c in s if is_hanzi(c))
        groups.append(songnet_rhyme_group(chars[-1], chars, len(chars) - 1) if chars else None)
    major = majority_rhyme_group(groups)
    return set() if major is None else {k for k, g in enumerate(groups) if g == major}


def majority_rhyme_group(groups: list[int | None]) -> int | None:
    """The group most line ends share (ties go to the lower group index, as SongNet's measure
    breaks them); None when no line end has a group."""
    tally = Counter(g for g in groups if g is not None)
    if not tally:
        return None
    return max(tally, key=lambda g: (tally[g], -g))


def rhyme_scores(generated: list[str], gold: list[str]) -> dict[str, float]:
    """Rhyme P/R/F1 of which sentence positions rhyme (majority group), against the gold's."""
    ps, rs, hit_t, gen_t, gold_t = [], [], 0, 0, 0
    for g, ref in zip(generated, gold):
        gp, rp = _rhyme_positions(g), _rhyme_positions(ref)
        hits = len(gp & rp)
        ps.append(hits / len(gp) if gp else 0.0)
        rs.append(hits / len(rp) if rp else 0.0)
        hit_t, gen_t, gold_t = hit_t + hits, gen_t + len(gp), gold_t + len(rp)
    mp, mr = _mean(ps), _mean(rs)
    mip, mir = (hit_t / gen_t if gen_t else 0.0), (hit_t / gold_t if gold_t else 0.0)
    return {"macro_p": 100 * mp, "macro_r": 100 * mr, "macro_f1": 100 * _f1(mp, mr),
            "micro_p": 100 * mip, "micro_r": 100 * mir, "micro_f1": 100 * _f1(mip, mir)}


def kind_tables(texts_by_kind: dict[str, Iterable[str]]) -> dict[str, dict[str, float]]:
    """Per kind of text (modern, shi, ci, qu, ...): the log-probability of each character, add-one
    smoothed over all kinds' characters (key "" holds an unseen character's)."""
    counts = {k: Counter(c for t in texts for c in t if is_hanzi(c)) for k, texts in texts_by_kind.items()}
    chars = set().union(*counts.values()) if counts else set()
    out = {}
    for k, cnt in counts.items():
        total = sum(cnt.values()) + len(chars) + 1
        table = {c: math.log((cnt[c] + 1) / total) for c in chars}
        table[""] = math.log(1 / total)
        out[k] = table
    return out


def closest_kind(text: str, tables: dict[str, dict[str, float]]) -> str | None:
    """The kind whose characters the text's are most like (highest unigram likelihood): the
    register a reader hears, 俺 and 兀 a 曲's, 的 and 我们 modern speech's."""
    chars = [c for c in text if is_hanzi(c)]
    if not chars or not tables:
        return None
    return max(tables, key=lambda k: sum(tables[k].get(c, tables[k][""]) for c in chars))


def kind_shares(texts: list[str], tables: dict[str, dict[str, float]]) -> dict[str, float]:
    """Percent of texts closest to each kind (``closest_kind``)."""
    got = Counter(closest_kind(t, tables) for t in texts)
    n = sum(v for k, v in got.items() if k is not None)
    return {k: 100 * got[k] / n if n else 0.0 for k in tables}


def distinct_scores(pieces: list[str]) -> dict[str, float]:
    """Distinct-1/2 over characters including punctuation, n-grams crossing sentence boundaries."""
    out = {}
    for n in (1, 2):
        per_piece, pooled_unique, pooled_total = [], set(), 0
        for piece in pieces:
            chars = [c for c in piece if not c.isspace()]
            grams = [tuple(chars[i:i + n]) for i in range(len(chars) - n + 1)]
            if grams:
                per_piece.append(len(set(grams)) / len(grams))
            pooled_unique.update(grams)
            pooled_total += len(grams)
        out[f"macro_d{n}"] = 100 * _mean(per_piece)
        out[f"micro_d{n}"] = 100 * (len(pooled_unique) / pooled_total if pooled_total else 0.0)
    return out


def tone_agreement(texts: list[str], templates: list[Template]) -> float:
    """Share (percent) of tone-constrained slots whose character has the required tone class."""
    from songwriter.prosody import chinese

    hit = total = 0
    for text, template in zip(texts, templates):
        for tline, line_text in zip(template.lines, text_lines(text, template)):
            chars = "".join(u for u, _ in syllable_units(line_text, "zh"))
            for k, slot in enumerate(tline.slots):
                if slot.tone is None or k >= len(chars):
                    continue
                total += 1
                hit += slot.tone in chinese.tone_classes(chars, k, template.tone_system)
    return 100 * hit / total if total else 100.0


def _mean(xs: list[float]) -> float:
    return sum(xs) / len(xs) if xs else 0.0

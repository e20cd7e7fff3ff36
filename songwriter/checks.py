"""Does a text fit its form? ``check(text, template)`` reports per line whether length,
punctuation, locked text, rhyme group and tones hold, with what is wrong and where: the live
checks of the editor, the CLI's ``check`` and every candidate the engine returns. No Qt, no
torch. (The SongNet paper's corpus measures are in songwriter.metrics.)
"""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass, field
from functools import lru_cache

from songwriter.template import FREE, Template, is_hanzi, syllable_units, text_lines
from songwriter.wording import plural


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
            "length", f"{plural(len(lines), 'line')}, the template has {len(template.lines)}"))
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
    _check_repeats(report, lines, template)
    _check_rhymes(report, lines, template, rhyme_system or template.effective_rhyme_system())
    return report


def _words_of(line_text: str, lang: str) -> list[str]:
    """A line's words (zh: characters) as a repeat compares them: letters only, any case."""
    return [w.lower() for w, _ in syllable_units(line_text, lang)]


def _check_repeats(report: CheckReport, lines: list[str], template: Template) -> None:
    """A refrain line (``Line.repeats``) reads the words of the line it repeats; its marks are its
    own."""
    for i, tline in enumerate(template.lines):
        j = tline.repeats
        if j is None or i >= len(lines) or j >= len(lines) or not lines[i] or not lines[j]:
            continue
        if _words_of(lines[i], template.lang) != _words_of(lines[j], template.lang):
            report.lines[i].add("repeat", f"the line repeats line {j + 1}, which reads {lines[j]!r}")


# Marks that end or pause a Chinese sentence: which of them an edition prints is the editor's
# choice (a rhyme closed by ， in one edition and 。 in another), so a form's mark is met by any.
TONE_CONTEXT = 16     # characters past a line's end that can still change how its last word reads
ZH_PAUSES = frozenset("，。、；：？！,.;:?!…")


def _zh_marks_fit(units: list[tuple[str, str]], tline, ci: bool = False) -> bool:
    """Marks stand where the form has them (any pause mark for any), the line ends with one when
    the form's line does, and an inner mark the form has may be left out (a 领字's 、). In a ci
    (``ci``) the pauses are an edition's (template.text_lines reads a ci punctuated otherwise at
    the form's lines): a pause inside a line, and none at the end of a line that does not rhyme,
    are accepted; a rhyme still closes its sentence."""
    want = {k: s.punct for k, s in enumerate(tline.slots) if s.punct}
    got = {k: p for k, (_, p) in enumerate(units) if p}
    last = len(tline.slots) - 1
    for k, mark in got.items():
        if k not in want:
            if ci and set(mark) <= ZH_PAUSES:
                continue
            return False
        if not (set(mark) <= ZH_PAUSES and set(want[k]) <= ZH_PAUSES) and mark != want[k]:
            return False
    return last not in want or last in got or (ci and tline.rhyme is None)


def _zh_marks_at(marks) -> str:
    """'， after character 3, 。 after character 7': each mark with the character it follows."""
    return ", ".join(f"{m} after character {k + 1}" for k, m in enumerate(marks) if m)


def _check_zh_line(c: LineCheck, text: str, tline, template: Template, following=None) -> None:
    """``following``: (text, template line) of the next line, which may rescue this one's 拗."""
    units = syllable_units(text, "zh")
    if len(units) != tline.syllables:
        c.add("length", f"{plural(len(units), 'character')}, the template wants {tline.syllables}")
    if not _zh_marks_fit(units, tline, template.kind == "ci"):
        want = tline.puncts
        got = [p for _, p in units if p]
        if got == want and len(units) != tline.syllables:
            pass                # the same marks, moved by a line too short or long: its length says so
        elif got == want:       # the same marks in other places: say where
            c.add("punct", f"punctuation {_zh_marks_at(p for _, p in units)}, "
                           f"the template wants {_zh_marks_at(s.punct for s in tline.slots)}")
        else:
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
            classes = chinese.verse_tone_classes(line_chars, k, template.tone_system)
            if classes and slot.tone not in classes:
                c.add("tone", f"{ch} is {'/'.join(sorted(classes))}, the template wants {slot.tone}", k)
    if base is not None:
        # a line of regulated verse: the 律句 and the variants the tradition accepts (拗救)
        classes = [chinese.verse_tone_classes(line_chars, k, template.tone_system) for k in range(len(units))]
        rescued = False
        if base == "A" and following is not None \
                and regulated.base_of(following[1].tones()) == "B":
            nxt = "".join(u for u, _ in syllable_units(following[0], "zh"))
            if len(nxt) == len(line_chars):
                rescued = regulated.rescues(
                    [chinese.verse_tone_classes(nxt, k, template.tone_system) for k in range(len(nxt))])
        for k, message in regulated.line_problems(classes, base, rescued):
            c.add("tone", f"{units[k][0]} {message}", k)


def _check_en_line(c: LineCheck, text: str, tline, template: Template | None = None) -> None:
    """Length in syllables (verse readings count: heav'n, fi-re, ow'st), locked words, stress; a
    metrical form (``meta["verse"]``) accepts an inverted foot and a feminine ending. Punctuation
    is checked only after a locked word (it keeps the mark it was locked with): elsewhere it is
    the writer's."""
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
        c.add("length", f"{shown} {'syllable' if shown == '1' else 'syllables'}, the template wants {tline.syllables}")
    locked = [s.lock.lower() for s in tline.slots if s.lock]
    if locked:
        _check_en_locked_marks(c, text, tline)
    if locked and not _en_locks_fit([u.lower() for u, _ in units], tline):
        c.add("lock", f"the locked words ({' '.join(locked)}) are not where the template has them")
    if any(t is not None for t in tones) and fitting:
        if not any(english.fits_meter(spoken, p, verse=True) for p in fitting):
            c.add("tone", f"the stresses do not fit {pattern}")


def _check_en_locked_marks(c: LineCheck, text: str, tline) -> None:
    """A locked word followed by another mark than its slot's (a mark the writer typed; a word
    written without one is unfinished, not wrong)."""
    from songwriter.project.layout import en_word_layout

    for place in en_word_layout(text, tline):
        if not place.locked or place.slot is None or not place.punct:
            continue
        want = tline.slots[place.slot].punct
        if place.punct != want:
            c.add("punct", f"punctuation {place.punct} after the locked word {place.word!r}, "
                           f"the template wants {want or 'none'}")


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
                if tok is None or tok[0] == FREE:
                    continue    # no rhyme word written yet: the line's length says it is unfinished
                report.lines[i].add("rhyme", f"the rhyme of {tok[0][tok[1]] if tok and template.lang == 'zh' else (tok[0] if tok else '')!r} is unknown")
            elif best not in groups[i] and not _ci_rhyme_across_split(lines, i, present, groups, best, template, system):
                others = [j + 1 for j in present if j != i]
                report.lines[i].add(
                    "rhyme", f"does not rhyme with line{'s' if len(others) > 1 else ''} "
                             f"{', '.join(map(str, others))} (rhyme {label}, {system})")


def _ci_rhyme_across_split(lines, i, present, groups, best, template: Template, system: str) -> bool:
    """A ci line end in the other half of a 平水韵 group that 词林正韵 splits (杯 with 来, 灰):
    see chinese.rhymes_across_cilin_split."""
    if template.kind != "ci" or template.lang != "zh":
        return False
    from songwriter.prosody import chinese

    try:
        if chinese.resolve_rhyme_system(system) != "cilin":
            return False
    except ValueError:
        return False

    others = [rhyme_token(lines[j], "zh") for j in present if j != i and best in groups[j]]
    return chinese.rhymes_across_cilin_split(rhyme_token(lines[i], "zh"), [t for t in others if t])


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

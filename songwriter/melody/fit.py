"""Do the words fit the notes? Chinese tone against melody (倒字), English stress against the
beat, and rhythm.

**Tones.** In Mandarin a syllable sung against its tone's direction is heard as another word
(倒字). For each pair of adjacent syllables of a line, the interval from the first syllable's
last note to the second's first note (in semitones) is graded against the pair of tones by
``pair_grade``: good, acceptable, poor, or bad (a clear 倒字). The table follows the tones' pitch
shapes on Chao's five-level scale: the melody should move the way the voice moves from the end
of the first tone to the start of the second (docs/melody.md gives the derivation and the
measurement on real songs).

**Rhythm.** Function characters (的, 了, 着, 吗, 呢 …) are not sung on strong beats inside a line;
a word is not cut by a rest; a line ends on its phrase's last note.

**English.** A stressed syllable is not sung on a weaker beat than an unstressed one next to it
or in its word (``stress_clashes``, CMUdict stress read by ``prosody.english.sung_stress_patterns``);
an unstressed function word is not on a downbeat inside a line; a rest does not cut a word; a long
note falls on an open syllable where it can (``prosody.english.open_syllables``).

``check_fit(template, text)`` reports every problem with its line, slot, grade and reason;
``fit_penalty`` turns a report into the number the engine ranks candidates by. No Qt, no torch.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from songwriter.melody.model import Melody, melody_of
from songwriter.template import FREE, Template, is_hanzi, syllable_units, text_lines

GOOD, ACCEPTABLE, POOR, BAD = "good", "acceptable", "poor", "bad"
GRADES = (GOOD, ACCEPTABLE, POOR, BAD)

# The height a sung note gives each tone, on Chao's five-level scale (1 low, 5 high). A note
# carries one pitch, so a contour tone is heard at its telling point: the high level tone (55) at
# 5; the rising tone (35) near the top it rises to, 4; the third tone inside a phrase is the low
# "half third" (21), 1; the falling tone (51) at its high start, 5, the fall sung on or after it.
TONE_HEIGHT = {1: 5, 2: 4, 3: 1, 4: 5}
UP, DOWN, LEVEL = "up", "down", "level"
# Semitone thresholds of the grades (see pair_grade).
BAD_LEAP = 5         # a fourth or more against the tones' direction is a clear 倒字
STEP = 2             # a tone or less counts as staying level
LEAP = 7             # a level pair may leap up to a fifth and still be acceptable

# Characters that carry grammar, not meaning (ReLyMe's auxiliary words): not on a strong beat
# inside a line. They count only where they are read in the neutral tone (地 in 天之涯，地之角 is
# "earth", dì, and carries meaning); at a line end a sentence particle is where it belongs.
FUNCTION_CHARS = frozenset("的了着地得吗呢吧啊呀嘛哦么啦")

# How much each problem costs a candidate when the engine chooses among candidates (per problem,
# times the melody's tone_strength; see melody_ranking): a clear 倒字 costs 1, more than the
# random part of the choice, so it acts as a mask among the candidates (the decoder avoids them
# first: engine.decode.ToneFit); the rest as a score.
WEIGHTS = {("tone", BAD): 1.0, ("tone", POOR): 0.15, ("rhythm", POOR): 0.15, ("rest", POOR): 0.2,
           ("phrase", POOR): 0.1, ("stress", BAD): 1.0, ("stress", POOR): 0.3, ("open", POOR): 0.1}


def direction(a: int, b: int) -> tuple[str, int]:
    """The way the melody should go from a syllable of tone ``a`` to one of tone ``b`` (1-4),
    and the step in tone height it comes from: up or down for a step of two levels or more, else
    level. Two third tones: the first is sung as a rising tone (tone sandhi)."""
    first = 2 if a == 3 and b == 3 else a
    step = TONE_HEIGHT[b] - TONE_HEIGHT[first]
    if step >= 2:
        return UP, step
    if step <= -2:
        return DOWN, step
    return LEVEL, step


def pair_grade(a: int | None, b: int | None, interval: int) -> str:
    """Grade the interval (semitones, + up) between a syllable of tone ``a`` and the next of
    tone ``b`` (1-4; 5 or 0 the neutral tone; None unknown).

    up:    good when it rises; acceptable when it stays; poor when it falls less than a fourth;
           bad (倒字) when it falls a fourth or more.
    down:  the mirror image.
    level: good within a whole tone either way, acceptable up to a fifth, poor beyond; never
           bad (neither tone is heard against the other's direction).
    A neutral tone takes its pitch from what is around it, and an unknown one is not judged:
    never worse than acceptable."""
    if a not in TONE_HEIGHT or b not in TONE_HEIGHT:
        return GOOD if a is None or b is None or abs(interval) <= STEP else ACCEPTABLE
    way, _ = direction(a, b)
    if way == UP:
        return GOOD if interval > 0 else ACCEPTABLE if interval == 0 else POOR if interval > -BAD_LEAP else BAD
    if way == DOWN:
        return GOOD if interval < 0 else ACCEPTABLE if interval == 0 else POOR if interval < BAD_LEAP else BAD
    if abs(interval) <= STEP:
        return GOOD
    return ACCEPTABLE if abs(interval) <= LEAP else POOR


TONE_NAMES = {1: "high level", 2: "rising", 3: "low (third)", 4: "falling"}


def _why(a: int, b: int, interval: int) -> str:
    way, _ = direction(a, b)
    moved = f"rises {interval}" if interval > 0 else f"falls {-interval}" if interval < 0 else "stays"
    semis = "" if interval == 0 else (" semitone" if abs(interval) == 1 else " semitones")
    if way == LEVEL:
        want = "wants the tune to stay near level"
    else:
        want = f"wants the tune to go {way}"
    if a == 3 and b == 3:
        want += " (the first third tone is sung rising)"
    return f"the melody {moved}{semis}; a {TONE_NAMES[a]} tone then a {TONE_NAMES[b]} tone {want}"


@dataclass
class FitProblem:
    line: int                   # 0-based
    slot: int                   # 0-based: the second syllable of a tone pair
    kind: str                   # tone | rhythm | rest | phrase; English also stress, open
    grade: str                  # poor | bad
    message: str

    def to_dict(self) -> dict:
        return {"line": self.line, "slot": self.slot, "kind": self.kind, "grade": self.grade,
                "message": self.message}


@dataclass
class FitReport:
    problems: list[FitProblem] = field(default_factory=list)
    pairs: int = 0                              # tone pairs graded
    grades: dict = field(default_factory=lambda: {g: 0 for g in GRADES})
    matched: bool = True                        # False: the template no longer matches its melody
    tone_strength: float = 1.0
    # English: pairs of syllables whose stresses were compared with their beats, those the beats
    # contradict within a word (bad) and between words (poor); long notes judged, and on closed
    # syllables
    stress_pairs: int = 0
    stress_bad: int = 0
    stress_poor: int = 0
    long_notes: int = 0
    long_closed: int = 0

    @property
    def stress_clash_rate(self) -> float:
        """English: the share of compared syllable pairs whose stresses the beats contradict."""
        return (self.stress_bad + self.stress_poor) / self.stress_pairs if self.stress_pairs else 0.0

    @property
    def dao_zi(self) -> int:
        """Clear 倒字: pairs graded bad."""
        return self.grades[BAD]

    @property
    def dao_zi_rate(self) -> float:
        return self.grades[BAD] / self.pairs if self.pairs else 0.0

    def for_slot(self, line: int, slot: int) -> list[FitProblem]:
        return [p for p in self.problems if p.line == line and p.slot == slot]

    def penalty(self) -> float:
        return fit_penalty(self)

    def to_dict(self) -> dict:
        out = {"matched": self.matched, "pairs": self.pairs, "grades": dict(self.grades),
               "dao_zi": self.dao_zi, "dao_zi_rate": round(self.dao_zi_rate, 4),
               "problems": [p.to_dict() for p in self.problems]}
        if self.stress_pairs or self.long_notes:
            out["stress"] = {"pairs": self.stress_pairs, "bad": self.stress_bad, "poor": self.stress_poor,
                             "clash_rate": round(self.stress_clash_rate, 4), "long_notes": self.long_notes,
                             "long_closed": self.long_closed}
        return out


def fit_penalty(report: FitReport, strength: float | None = None) -> float:
    """What the problems cost a candidate: the sum of their WEIGHTS times the strength (the
    melody's ``tone_strength`` unless given; 0 turns it off)."""
    strength = report.tone_strength if strength is None else strength
    return strength * sum(WEIGHTS.get((p.kind, p.grade), 0.0) for p in report.problems)


def tones_of(line_text: str) -> list[int | None]:
    """Mandarin tone (1-4, 5 neutral) of each character of a line, read in context (pypinyin's
    phrase-aware reading, as the rest of Songwriter reads them); None for what is not a hanzi."""
    from songwriter.prosody import chinese

    out = []
    for ch, readings in zip(line_text, chinese.readings(line_text)):
        tone = None
        if is_hanzi(ch) and readings and readings[0][-1:].isdigit():
            tone = int(readings[0][-1])
        out.append(tone)
    # 一 and 不 change tone before others (一 as a number in 第一, 十一 … and at a line end keeps
    # its first tone): before a falling tone both are sung rising; 一 before any other, falling.
    for i, ch in enumerate(line_text[:-1]):
        nxt = out[i + 1]
        if ch == "不" and nxt == 4:
            out[i] = 2
        elif ch == "一" and nxt in (1, 2, 3, 4) and not (i and line_text[i - 1] in "第十初"):
            out[i] = 2 if nxt == 4 else 4
    return out


def _words(line_text: str) -> list[tuple[int, int]]:
    """(start, end) of each dictionary word of two or more characters in a run of hanzi."""
    from pypinyin.constants import PHRASES_DICT
    from pypinyin.seg.mmseg import seg

    out, at = [], 0
    for word in seg.cut(line_text):
        if len(word) > 1 and word in PHRASES_DICT:
            out.append((at, at + len(word)))
        at += len(word)
    return out


def check_fit(template: Template, text: str, melody: Melody | None = None) -> FitReport:
    """Check words against the template's melody (or ``melody``). Chinese: tone pairs, function
    characters on strong beats, words cut by rests, lines ending mid-phrase. English: stresses
    against the beats (within a word and between neighbours), unstressed function words on
    downbeats, words cut by rests, long notes on closed syllables, lines ending mid-phrase.
    Unwritten cells (``_``) are skipped. A template without a melody gives an empty report."""
    melody = melody if melody is not None else melody_of(template)
    report = FitReport()
    if melody is None:
        return report
    report.tone_strength = melody.tone_strength
    if not melody.matches(template):
        report.matched = False
        return report
    if template.lang == "en":
        return _check_english(template, text, melody, report)
    for li, tline, line, syllables in _written_lines(template, text, melody, report):
        units = [u for u, _ in syllable_units(line, "zh")][: len(syllables)]
        chars = "".join(u if len(u) == 1 else FREE for u in units)
        if not chars:
            continue
        tones = tones_of(chars.replace(FREE, "，"))
        for k in range(1, len(chars)):
            a, b = chars[k - 1], chars[k]
            if not (is_hanzi(a) and is_hanzi(b)):
                continue
            interval = melody.notes[syllables[k][0]].pitch - melody.notes[syllables[k - 1][-1]].pitch
            ta, tb = tones[k - 1], tones[k]
            grade = pair_grade(ta, tb, interval)
            report.pairs += 1
            report.grades[grade] += 1
            if grade in (POOR, BAD) and ta in TONE_HEIGHT and tb in TONE_HEIGHT:
                label = "倒字" if grade == BAD else "weak tone fit"
                report.problems.append(FitProblem(li, k, "tone", grade, f"{label}: {a}{b}: {_why(ta, tb, interval)}"))
        for k, ch in enumerate(chars):
            note = melody.notes[syllables[k][0]]
            if ch in FUNCTION_CHARS and tones[k] == 5 and k < len(syllables) - 1 and melody.strong(note):
                report.problems.append(FitProblem(
                    li, k, "rhythm", POOR, f"{ch} is a function word on a strong beat (bar {note.measure}); "
                    "a strong beat wants a word that carries meaning"))
        for start, end in _words(chars):
            for k in range(start + 1, end):
                rest = melody.notes[syllables[k][0]].rest_before
                if rest > 0:
                    report.problems.append(FitProblem(
                        li, k, "rest", POOR, f"a rest cuts the word {chars[start:end]} between "
                        f"{chars[k - 1]} and {chars[k]}"))
    return report


def stress_clashes(pattern: str, beats, before: tuple[str, float] | None = None,
                   after: tuple[str, float] | None = None) -> list[tuple[int, int]]:
    """Where a tune's beats contradict a word's stresses: the pairs (stressed, unstressed) of
    syllable indices whose stressed syllable falls on a weaker beat than the unstressed one.

    ``pattern`` is the word's reading (``prosody.english.sung_stress_patterns``: "1" stressed,
    "0" unstressed, "_" either), ``beats`` the beat strengths (0-1, music21's) of the notes its
    syllables start on. Within the word any two syllables are compared ("amazing" sung
    a-ma-ZING wrenches it); ``before`` and ``after`` are the stress and beat of the syllables
    next to the word in its line (index -1 and ``len(pattern)``), compared with the word's first
    and last syllable ("of LOVE" sung OF love). Beats of equal strength never clash. The one
    judgement of English stress against a tune: the check below and the English decoder's
    preference (``engine.decode_en.StressFit``) both ask it."""
    marks = list(pattern)
    weights = [float(b) for b in beats]
    if before is not None:
        marks.insert(0, before[0])
        weights.insert(0, float(before[1]))
    if after is not None:
        marks.append(after[0])
        weights.append(float(after[1]))
    shift = 1 if before is not None else 0
    n = len(pattern)
    out = []
    for i, a in enumerate(marks):
        for j, b in enumerate(marks):
            if a != "1" or b != "0" or weights[i] >= weights[j]:
                continue
            wi, wj = i - shift, j - shift
            inside = 0 <= wi < n and 0 <= wj < n
            if inside or abs(wi - wj) == 1:     # a neighbour outside the word: next to it only
                out.append((wi, wj))
    return out


def beat_marks(beats) -> str:
    """A line's beats as the stress a metre asks of its syllables, in the template's notation:
    "/" on a beat stronger than its neighbours in the line (at least as strong as each, stronger
    than one), "x" on one weaker than them, "_" elsewhere (between a stronger and a weaker beat,
    or among equal ones). Quavers in 4/4 give "/x/x/x/x", crotchets in 3/4 "/xx/xx", a pickup
    "x/x/..."."""
    out = []
    for k, b in enumerate(beats):
        near = [beats[j] for j in (k - 1, k + 1) if 0 <= j < len(beats)]
        if near and all(b >= x for x in near) and any(b > x for x in near):
            out.append("/")
        elif near and all(b <= x for x in near) and any(b < x for x in near):
            out.append("x")
        else:
            out.append("_")
    return "".join(out)


def slot_lengths(melody: Melody, li: int) -> list[float]:
    """How long each syllable of line ``li`` is sung: its notes' durations in quarter notes
    (a melisma's notes together)."""
    return [sum(melody.notes[j].duration for j in syl) for syl in melody.lines[li]]


def long_slots(melody: Melody) -> list[list[bool]]:
    """Per line, per syllable: is it sung on a long note, at least twice the tune's median note
    and at least a quarter note (a melisma counts its notes together)?"""
    least = max(1.0, 2 * _median_duration(melody))
    return [[length >= least - 1e-9 for length in slot_lengths(melody, li)] for li in range(len(melody.lines))]


def _beats_in_words(length: float) -> str:
    return f"{length:g} beat" + ("" if abs(length - 1) < 1e-9 else "s")


def _reading(word: str, n: int, beats, before) -> str | None:
    """The word's reading of ``n`` syllables that the beats contradict least (a singer takes
    the reading that fits); None when it has none of that length."""
    from songwriter.prosody import english

    pats = [p for p in english.sung_stress_patterns(word) if len(p) == n]
    if not pats:
        return None
    return min(pats, key=lambda p: len(stress_clashes(p, beats, before)))


def _sung_layout(places: list, total: int, beats) -> list:
    """The words of a line laid over its syllables as a singer would take them: where a word has
    several syllable counts ("every" in two or three, "our" in one or two), the counts that fill
    the line and that the beats contradict least (clashes within a word first, then between
    words; ties: the layout's own counts). Lines with a locked word keep the layout as it is."""
    from dataclasses import replace

    from songwriter.prosody import english

    if any(pl.locked for pl in places) or len(places) > 64:
        return places
    options = []
    for pl in places:
        word = pl.word.lower()
        counts = list(dict.fromkeys([pl.syllables] + [c for c in english.syllable_counts(word) if c >= 1]))
        pats = english.sung_stress_patterns(word) if word.strip("_") else []
        options.append([(c, [q for q in pats if len(q) == c] or ["_" * c]) for c in counts])
    if all(len(o) == 1 for o in options):
        return places
    memo: dict = {}

    def best(i: int, pos: int, last: str):
        if i == len(places):
            return (0, 0, 0, ()) if pos == total else None
        key = (i, pos, last)
        if key not in memo:
            memo[key] = None
            for j, (c, readings) in enumerate(options[i]):
                if pos + c > total:
                    continue
                before = (last, beats[pos - 1]) if pos > 0 and last else None
                for q in readings:
                    pairs = stress_clashes(q, beats[pos:pos + c], before)
                    inside = sum(1 for a, b in pairs if a >= 0 and b >= 0)
                    rest = best(i + 1, pos + c, q[-1])
                    if rest is None:
                        continue
                    got = (rest[0] + inside, rest[1] + len(pairs) - inside, rest[2] + (j > 0), ((c,) + rest[3]))
                    if memo[key] is None or got[:3] < memo[key][:3]:
                        memo[key] = got
        return memo[key]

    chosen = best(0, 0, "")
    if chosen is None:
        return places
    out, pos = [], 0
    for pl, c in zip(places, chosen[3]):
        out.append(replace(pl, start=pos, syllables=c))
        pos += c
    return out


def _written_lines(template: Template, text: str, melody: Melody, report: FitReport):
    """(line index, template line, written text, the line's syllables) of each line written so far,
    the phrase problems of every line of the melody added to ``report`` on the way."""
    lines = text_lines(text, template) if text.strip() else []
    for li, tline in enumerate(template.lines):
        report.problems.extend(_phrase_problems(melody, li))
        if li < len(lines):
            yield li, tline, lines[li], melody.lines[li]


def _check_english(template: Template, text: str, melody: Melody, report: FitReport) -> FitReport:
    """English, per word as the syllable layout places it: stresses against the beats
    (``stress_clashes``: within a word bad, the word's stress wrenched; between neighbouring
    words poor), an unstressed function word (``prosody.english.UNSTRESSED_WORDS``) on a
    downbeat inside a line, a rest inside a word, a long note on a closed syllable."""
    from songwriter.document import en_word_layout
    from songwriter.prosody import english

    longs = long_slots(melody)
    for li, tline, line, syllables in _written_lines(template, text, melody, report):
        beats = [melody.notes[syl[0]].beat for syl in syllables]
        lengths = slot_lengths(melody, li)
        prev: tuple | None = None      # the word before: its last stress, beat, the word, slot, syllables
        for place in _sung_layout(en_word_layout(line, tline), len(syllables), beats):
            k0, n = place.start, place.syllables
            if k0 + n > len(syllables) or not place.word.strip("_"):
                prev = None
                continue
            notes = [melody.notes[syllables[k][0]] for k in range(k0, k0 + n)]
            word = place.word.lower()
            if n == 1 and word in english.UNSTRESSED_WORDS and 0 < k0 < len(syllables) - 1 and notes[0].beat >= 1.0:
                report.problems.append(FitProblem(
                    li, k0, "rhythm", POOR, f"{place.word!r} is a function word on a downbeat (bar "
                    f"{notes[0].measure}); a downbeat wants a word that carries meaning"))
            for k in range(1, n):
                if notes[k].rest_before > 0:
                    report.problems.append(FitProblem(li, k0 + k, "rest", POOR,
                                                      f"a rest cuts the word {place.word!r}"))
            before = prev[:2] if prev is not None and prev[3] == k0 - 1 else None
            stress = _reading(word, n, beats[k0:k0 + n], before)
            if stress is not None:
                report.stress_pairs += _judged(stress, before)
                wrenched = False
                for i, j in stress_clashes(stress, beats[k0:k0 + n], before):
                    if 0 <= i < n and 0 <= j < n:          # within the word: one problem a word
                        report.stress_bad += 1
                        if not wrenched:
                            wrenched = True
                            shown = "-".join("X" if c == "1" else "x" if c == "0" else "." for c in stress)
                            report.problems.append(FitProblem(
                                li, k0 + stress.index("1"), "stress", BAD, f"{place.word!r} ({shown}) is sung "
                                "against its stress: its stressed syllable falls on a weaker beat than an "
                                "unstressed one"))
                        continue
                    report.stress_poor += 1
                    if i < 0:
                        at, msg = k0 - 1, (f"{_syllable_of(prev[2], prev[4], -1)} is stressed but falls on a "
                                           f"weaker beat than {_syllable_of(place.word, n, 0, True)} after it")
                    else:
                        at, msg = k0, (f"{_syllable_of(place.word, n, 0)} is stressed but falls on a weaker "
                                       f"beat than {_syllable_of(prev[2], prev[4], -1, True)} before it")
                    report.problems.append(FitProblem(li, at, "stress", POOR, msg))
            opens = english.open_syllables(word)
            opens = [o for o in opens if len(o) == n]
            for i in range(n):
                if not longs[li][k0 + i] or not opens:
                    continue
                report.long_notes += 1
                if all(o[i] == "c" for o in opens):
                    report.long_closed += 1
                    report.problems.append(FitProblem(
                        li, k0 + i, "open", POOR, f"a long note ({_beats_in_words(lengths[k0 + i])}) on "
                        f"{place.word!r}, a closed syllable: a long note sings more easily on an open "
                        "one (go, see, day)"))
            prev = (stress[-1], beats[k0 + n - 1], place.word, k0 + n - 1, n) if stress else None
    return report


def _syllable_of(word: str, n: int, which: int, unstressed: bool = False) -> str:
    """A word named as one of its syllables, as the subject of a sentence ('love', "The first
    syllable of 'people'") or, ``unstressed``, as its object ("the unstressed 'the'", "the
    unstressed last syllable of 'every'"); ``which`` 0 the first syllable, -1 the last."""
    part = "first" if which == 0 else "last"
    if unstressed:
        return f"the unstressed {word!r}" if n <= 1 else f"the unstressed {part} syllable of {word!r}"
    return repr(word) if n <= 1 else f"The {part} syllable of {word!r}"


def _judged(pattern: str, before) -> int:
    """Pairs of syllables ``stress_clashes`` compares for a word: within it, each stressed
    syllable with each unstressed one; and its first with the syllable before, where one of the
    two is stressed and the other not."""
    inside = pattern.count("1") * pattern.count("0")
    edge = before is not None and pattern and {before[0], pattern[0]} == {"0", "1"}
    return inside + int(bool(edge))


def _phrase_problems(melody: Melody, li: int) -> list[FitProblem]:
    """A line that ends where the tune runs straight on (no rest, no phrase mark, no long note,
    not where the file's words end a line) ends mid-phrase: a line should end on its phrase's
    last note."""
    last = melody.lines[li][-1][-1]
    if li + 1 >= len(melody.lines) or last + 1 >= len(melody.notes):
        return []
    nxt = melody.notes[melody.lines[li + 1][0][0]]
    note = melody.notes[last]
    sung = melody.notes[melody.lines[li][-1][0]]       # the file's own words end a line here
    if (note.phrase_end or nxt.rest_before > 0 or note.duration >= 2 * _median_duration(melody)
            or sung.lyric_end or (bool(sung.lyric) and sung.lyric.rstrip("-")[-1:] in LINE_MARKS)):
        return []
    return [FitProblem(li, len(melody.lines[li]) - 1, "phrase", POOR,
                       "the line ends where the tune runs on: no rest or phrase mark follows its last note")]


LINE_MARKS = frozenset("，。！？；、,.!?;:：")


def _median_duration(melody: Melody) -> float:
    durations = sorted(n.duration for n in melody.notes)
    return durations[len(durations) // 2] if durations else 1.0


def bad_tone_pairs(interval: int) -> frozenset[tuple[int, int]]:
    """The pairs of tones (a, b), 1-4 or 5 (neutral), that an ``interval`` in semitones from a
    syllable of tone ``a`` to one of tone ``b`` makes a clear 倒字 (``pair_grade`` bad): what the
    decoder avoids at a melody's slots."""
    return frozenset((a, b) for a in range(1, 6) for b in range(1, 6) if pair_grade(a, b, interval) == BAD)


def char_tone(ch: str) -> int:
    """The tone (1-4, 5 neutral) a character is read in alone, as ``tones_of`` reads it; 0 when it
    has none (not a hanzi, no reading). The decoder's per-character table."""
    return (tones_of(ch)[0] or 0) if len(ch) == 1 else 0


def _fitted_melody(template: Template, langs: tuple[str, ...] = ("zh", "en")) -> Melody | None:
    """The template's melody when generation should fit words to it: a melody that still matches
    the template, words in one of ``langs`` (Chinese tones, English stress), a fit strength
    (``tone_strength``) above 0; else None."""
    from songwriter.melody.model import MelodyError

    try:
        melody = melody_of(template)
    except MelodyError:
        return None
    if melody is None or template.lang not in langs or melody.tone_strength <= 0 or not melody.matches(template):
        return None
    return melody


def tone_steps(template: Template) -> list[list[int | None]] | None:
    """For the decoder's 倒字 mask: per line, per slot, the interval in semitones from the previous
    syllable's last note to the slot's first note (None at a line's first slot, where no pair is
    graded); None when the template has no melody to fit (see ``_fitted_melody``)."""
    melody = _fitted_melody(template, ("zh",))
    if melody is None:
        return None
    return [[None if k == 0 else melody.notes[line[k][0]].pitch - melody.notes[line[k - 1][-1]].pitch
             for k in range(len(line))] for line in melody.lines]


@dataclass
class BeatPlan:
    """What a tune asks of English words, per line, per syllable (for the English decoder's
    ``StressFit``): the beat strength of the syllable's first note, whether a rest comes before it
    (a word must not run over it), whether it is sung on a long note (``long_slots``)."""
    beats: list[list[float]]
    rests: list[list[bool]]
    long: list[list[bool]]
    strength: float

    @property
    def marks(self) -> list[str]:
        """Per line, the stress its beats ask for (``beat_marks``)."""
        return [beat_marks(line) for line in self.beats]


def beat_plan(template: Template) -> BeatPlan | None:
    """The tune's beats for fitting English words to it; None when there is no melody to fit
    (none, not English, the fit at 0, or a template edited away from its melody)."""
    melody = _fitted_melody(template, ("en",))
    if melody is None:
        return None
    return BeatPlan(beats=[[melody.notes[syl[0]].beat for syl in line] for line in melody.lines],
                    rests=[[k > 0 and melody.notes[syl[0]].rest_before > 0 for k, syl in enumerate(line)]
                           for line in melody.lines],
                    long=long_slots(melody), strength=melody.tone_strength)


def fit_penalty_of(template: Template, text: str) -> float:
    """The ranking cost of a text's misfits to the template's melody (0 without a melody)."""
    melody = melody_of(template)
    if melody is None or template.lang not in ("zh", "en") or melody.tone_strength <= 0:
        return 0.0
    return fit_penalty(check_fit(template, text, melody))


MAX_POOL = 64
# Rows drawn per candidate kept when a melody's fit is weighed. Up to strength 1 (the default)
# none are drawn beyond those kept: the decoder's mask (engine.decode.ToneFit) already keeps clear
# 倒字 out, and drawing four times as many cut weak pairs only from 12.6 % to 8.5 % at more than
# twice the time (docs/results.md, "Writing to a melody"). Above 1 the weak pairs, function words
# on strong beats and words cut by rests count: four times as many are drawn and ranked.
POOL = 1
STRONG_POOL = 4


def melody_ranking(template: Template, n: int):
    """How the engine chooses candidates for a template with a melody: (keep, rows). The engine
    draws ``rows`` distinct candidates and ``keep(rows)`` returns the ``n`` whose words fit the
    melody best, in the order given. ``rows`` is ``n`` up to strength 1 (POOL; the decoder keeps
    clear 倒字 out by itself), STRONG_POOL times ``n`` above it. "Best" is the fit's cost
    (``fit_penalty`` times the melody's ``tone_strength``) plus a number in [0, 1) drawn from each
    text's hash: a clear 倒字 (cost 1, where the decoder had to let one through) loses to a text
    without one; at 3 a weak pair (0.15 each, times 3) weighs about as much as the random part. The
    model's own score plays no part in the choice (choosing by it makes words more generic;
    DESIGN.md). English words are chosen the same way, by their stress, rhythm, rest and
    long-note misfits (the English decoder's ``StressFit`` keeps stress clashes out first).
    Without a melody to fit (none, strength 0, or a template edited away from its melody):
    ``rows`` is ``n`` and ``keep`` returns what it is given."""
    import hashlib

    melody = _fitted_melody(template)
    if melody is None:
        return (lambda rows: list(rows)), n

    def draw(text: str) -> float:
        return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:6], "big") / 2.0 ** 48

    def keep(rows):
        rows = list(rows)
        if len(rows) <= n:              # nothing to choose among (up to strength 1): keep them all
            return rows
        key = {row[0]: melody.tone_strength * fit_penalty(check_fit(template, row[0], melody), 1.0) + draw(row[0])
               for row in rows}
        chosen = set(sorted(key, key=key.get)[:n])
        return [row for row in rows if row[0] in chosen]

    pool = STRONG_POOL if melody.tone_strength > 1 else POOL
    return keep, n if pool <= 1 else min(MAX_POOL, max(round(pool * n), n + 4))

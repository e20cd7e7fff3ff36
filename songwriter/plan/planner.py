"""Propose one keyword per line for a topic, from the statistics of :mod:`songwriter.plan.stats`.

A topic (a title, or a few keywords: "明月 故乡", "秋思") is cut into the statistics' words; each
line gets one word, related to the topic (PMI within poems), coherent with the words already
chosen, never a repeat and never sharing a character with another line's word; the words are
then ordered by where they stand in the corpus's poems (scenery opens a poem, feeling closes it).
Deterministic: with no seed the best words are taken; a seed samples among the best few, the same
seed giving the same plan. Pure Python (no numpy): a plan takes milliseconds.
"""

from __future__ import annotations

import math
import random

from songwriter.plan.stats import PlanError, PlanStats
from songwriter.template import is_hanzi

MAX_LINES = 400
COHERENCE = 0.5      # weight of a word's PMI with the words already chosen, beside the topic's
SINGLE = 0.6         # a single character says less than a word of two: its score is scaled by this
POSITION = 1.0       # propose_line: penalty per unit of distance between a word's place and the line's
MIN_PMI = 0.5        # a keyword's PMI with some topic word: at least e^0.5 = 1.6 times chance
CHOICES = 6          # a seeded plan samples among this many best words
TEMPERATURE = 0.5    # ... with weights exp(score / TEMPERATURE)


def topic_words(stats: PlanStats, topic: str) -> list[str]:
    """The topic's words in the statistics' vocabulary, in order, without repeats: the topic is
    cut at anything that is not a Chinese character, and each run is read left to right taking a
    known word of two characters where there is one, else a known character. English statistics:
    the topic's content words (lowercased) that they know."""
    out: list[str] = []
    if stats.lang == "en":
        from songwriter.engine.vocab_en import content_words

        for word in content_words(topic or ""):
            if word in stats.index and word not in out:
                out.append(word)
        return out
    run = ""
    for ch in (topic or "") + " ":
        if is_hanzi(ch):
            run += ch
            continue
        i = 0
        while i < len(run):
            pair = run[i:i + 2]
            if len(pair) == 2 and pair in stats.index:
                word, i = pair, i + 2
            else:
                word, i = run[i], i + 1
                if word not in stats.index:
                    continue
            if word not in out:
                out.append(word)
        run = ""
    return out


def _related(stats: PlanStats, a: int, b: int) -> float:
    """PMI of two words, from either word's neighbour list (each keeps only its best)."""
    return max(stats.pmi(a, b), stats.pmi(b, a))


def _shares_char(word: str, others) -> bool:
    """Chinese: the word shares a character with one of ``others``; English (words of letters):
    one of them is of its family (sing / singing: vocab_en.same_family)."""
    if word.isascii():
        from songwriter.engine.vocab_en import same_family

        return any(o and same_family(word, o) for o in others)
    return any(set(word) & set(o) for o in others if o)


class _Scorer:
    """Scores words for a topic: mean PMI with the topic's words + COHERENCE x mean PMI with the
    words already chosen; single characters scaled by SINGLE."""

    def __init__(self, stats: PlanStats, topic: list[str]):
        self.stats = stats
        self.topic = [stats.index[w] for w in topic]

    def candidates(self) -> set[int]:
        """The topic words' neighbours at a PMI of at least MIN_PMI: a keyword is always related to
        the topic itself, clearly more than by chance."""
        pool: set[int] = set()
        for i in self.topic:
            pool.update(j for j, s in self.stats.neighbors[i] if s >= MIN_PMI)
        return pool

    def score(self, j: int, chosen: list[int]) -> float:
        rel = sum(_related(self.stats, t, j) for t in self.topic) / max(1, len(self.topic))
        others = [c for c in chosen if c not in self.topic]
        coh = sum(_related(self.stats, c, j) for c in others) / len(others) if others else 0.0
        s = rel + COHERENCE * coh
        return s * SINGLE if len(self.stats.words[j]) == 1 else s


def _pick(ranked: list[tuple[float, str, int]], rng: random.Random | None) -> int:
    """The best candidate, or with a generator one of the best CHOICES by exp(score / T)."""
    if rng is None or len(ranked) == 1:
        return ranked[0][2]
    top = ranked[:CHOICES]
    best = top[0][0]
    weights = [math.exp((s - best) / TEMPERATURE) for s, _, _ in top]
    return rng.choices([j for _, _, j in top], weights=weights)[0]


def _rank(scorer: _Scorer, pool, chosen: list[int], exclude: list[str]) -> list[tuple[float, str, int]]:
    words = scorer.stats.words
    ranked = []
    for j in pool:
        if j in chosen or _shares_char(words[j], exclude):
            continue
        s = scorer.score(j, chosen)
        if s > 0:
            ranked.append((s, words[j], j))
    ranked.sort(key=lambda x: (-x[0], x[1]))
    return ranked


def _known_topic(stats: PlanStats, topic: str) -> list[str]:
    words = topic_words(stats, topic)
    if not words:
        example = "sea night, winter" if stats.lang == "en" else "Chinese words, e.g. 明月 故乡"
        raise PlanError(f"no word of the topic {topic!r} is in the planner's statistics (give {example})")
    return words


def propose_plan(stats: PlanStats, topic: str, n_lines: int, seed: int | None = None,
                 include_topic: bool = True) -> list[str]:
    """One keyword per line (``n_lines`` of them) for ``topic``. Every keyword is one of the topic
    words' neighbours: when they run out (a long piece on a narrow topic), the keywords are spread
    over the piece and the other lines get "" (no keyword). With ``include_topic`` the topic's own
    words are among the keywords (as many as there are lines)."""
    if isinstance(n_lines, bool) or not isinstance(n_lines, int) or not 0 <= n_lines <= MAX_LINES:
        raise PlanError(f"the number of lines must be a whole number from 0 to {MAX_LINES}, not {n_lines!r}")
    topic_list = _known_topic(stats, topic)
    scorer = _Scorer(stats, topic_list)
    rng = random.Random(seed) if seed is not None else None
    chosen: list[int] = []
    if include_topic:
        for w in topic_list:
            if len(chosen) < n_lines and not _shares_char(w, [stats.words[c] for c in chosen]):
                chosen.append(stats.index[w])
    exclude = [stats.words[c] for c in chosen] + topic_list
    while len(chosen) < n_lines:
        ranked = _rank(scorer, scorer.candidates(), chosen, exclude)
        if not ranked:
            break
        j = _pick(ranked, rng)
        chosen.append(j)
        exclude.append(stats.words[j])
    # scenery first, feeling last: by the words' mean place in the corpus's poems; when there are
    # fewer words than lines, the words are spread over the piece (the first line has one)
    ordered = sorted(chosen, key=lambda j: (stats.position[j], stats.words[j]))
    plan = [""] * n_lines
    for k, j in enumerate(ordered):
        plan[k * n_lines // len(ordered)] = stats.words[j]
    return plan


def propose_line(stats: PlanStats, topic: str, keywords: list[str], line: int, k: int = 8,
                 seed: int | None = None) -> list[str]:
    """Up to ``k`` keywords for line ``line`` of a plan (``keywords``: the plan as it stands, one
    entry per line, "" for none; the writer may have edited it), best first: related to the topic
    and to the other lines' words, sharing no character with them nor repeating the line's
    current word, and fitting the line's place (an opening line gets a word that opens poems).
    A seed shuffles the best ones (the same seed, the same order): "another one" in the app."""
    if not isinstance(keywords, list) or not 0 <= line < len(keywords):
        raise PlanError(f"line {line} is not a line of the plan ({len(keywords) if isinstance(keywords, list) else 0} lines)")
    topic_list = _known_topic(stats, topic)
    scorer = _Scorer(stats, topic_list)
    others = [w for i, w in enumerate(keywords) if i != line and w]
    chosen = [stats.index[w] for w in topic_words(stats, " ".join(others))]
    place = line / (len(keywords) - 1) if len(keywords) > 1 else 0.5
    current = keywords[line]
    ranked = []
    for s, w, j in _rank(scorer, scorer.candidates(), chosen, others):
        if w == current:
            continue
        ranked.append((s - POSITION * abs(stats.position[j] / 100 - place), w, j))
    ranked.sort(key=lambda x: (-x[0], x[1]))
    words = [w for _, w, _ in ranked]
    if seed is not None:
        rng = random.Random(seed)
        top, rest = words[:max(k, CHOICES)], words[max(k, CHOICES):]
        picked = []
        scores = {w: s for s, w, _ in ranked}
        while top:
            best = max(scores[w] for w in top)
            w = rng.choices(top, weights=[math.exp((scores[x] - best) / TEMPERATURE) for x in top])[0]
            picked.append(w)
            top.remove(w)
        words = picked + rest
    return words[:k]

"""The SongNet paper's corpus measures, to compare with its tables: Format, Rhyme, Distinct, tone
agreement (defined in docs/metrics.md), and the register of a text (which kind of piece its
characters are most like). No Qt, no torch. Whether one text fits its form is
songwriter.checks; the sound classes are songwriter.prosody.finals.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable

from songwriter.prosody.finals import songnet_rhyme_group
from songwriter.template import Template, is_hanzi, is_punct, split_sentences, syllable_units, text_lines


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

"""Which words (Chinese characters) a decoder writes far more often than the corpus does, and
the costs (engine/word_costs) that bring it back: the language-neutral part of
``word-costs-en`` and ``word-costs-zh``.

A word written at r times its expected rate (both shrunk towards 1 by ``PRIOR`` pseudo-counts,
so that a word seen twice is not a finding) costs ``strength * ln r`` nats more each round.
"""

from __future__ import annotations

import math
from collections import Counter

PRIOR = 3.0              # pseudo-counts on both sides of a rate's ratio


def excess(generated: Counter, corpus: Counter, countable) -> dict[str, float]:
    """ln of each countable word's rate in ``generated`` over its expected count from ``corpus``
    (both shrunk by PRIOR); words written less often than expected get a negative figure."""
    g_total = sum(generated.values())
    c_total = sum(corpus.values())
    out = {}
    for word in set(generated) | {w for w in corpus if w in countable}:
        if word not in countable:
            continue
        expected = g_total * (corpus.get(word, 0) + 0.5) / c_total
        out[word] = math.log((generated.get(word, 0) + PRIOR) / (expected + PRIOR))
    return out


def updated_costs(costs: dict[str, float], over: dict[str, float], strength: float,
                  limit: float) -> dict[str, float]:
    """``costs`` moved by ``strength`` times each word's excess, kept within [0, limit]; a word
    whose cost falls to zero leaves the table."""
    out = dict(costs)
    for word, x in over.items():
        nats = min(limit, max(0.0, out.get(word, 0.0) + strength * x))
        if nats >= 0.05:
            out[word] = round(nats, 3)
        else:
            out.pop(word, None)
    return out


def overuse_report(generated: Counter, corpus: Counter, countable, top: int = 12) -> dict:
    """How far the generated text's words are from the corpus's: the share of its content words
    written at over three times their corpus rate, and the words furthest over."""
    g_total = sum(generated.values())
    c_total = sum(corpus.values())
    rows = []
    for word, g in generated.items():
        if word in countable:
            ratio = (g / g_total) / ((corpus.get(word, 0) + 0.5) / c_total)
            rows.append((ratio, word, g))
    content = sum(g for _, _, g in rows)
    over = sum(g for ratio, _, g in rows if ratio > 3 and g >= 3)
    rows.sort(reverse=True)
    return {"words": g_total, "distinct": len(generated),
            "over_3x_share": round(over / content, 4) if content else 0.0,
            "furthest_over": [f"{w} {g} x{ratio:.0f}" for ratio, w, g in rows if g >= 4][:top]}


def written_pieces(engine, jobs, seed: int, log) -> list[dict]:
    """The top candidate (of 8, as the blind reading takes) of every (kind, template) job, as
    {"kind", "lines"}; a job the decoder refuses is logged and left out."""
    from songwriter.engine.errors import GenerationError
    from songwriter.engine.service import GenerationRequest

    pieces = []
    for i, (kind, template) in enumerate(jobs):
        try:
            best = engine.generate(GenerationRequest(template=template, n=8, seed=seed + 31 * i))[0]
        except GenerationError as e:
            log(f"  {kind} {i}: not written ({e})")
            continue
        pieces.append({"kind": kind, "lines": best.text.split("\n")})
    return pieces

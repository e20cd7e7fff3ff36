"""How far an English content leans the words (engine/topic_en): for a few topics, the share of a
piece's content words that are the topic's words or their associates, without content and at
several strengths, with one piece of each printed to read.

    python bench/content_en.py --model models/en                       # 6 topics x 3 sonnets, strengths -2 0 2 5
    python bench/content_en.py --model models/en --strengths 0 --pieces 4 --show 2

A word is "on the topic" when it is one of the topic's own content words or among their
neighbours in the model's plan.json (the lean's own vocabulary, so the figure says how much the
lean moved the words, not whether a reader finds the piece on its subject: read the samples).
Every piece is checked against its form (the lean never breaks one); the exit status is 1 if one
fails. Timings are printed, never gated.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

TOPICS = ("the sea at night", "winter snow and frost", "war and soldiers", "a garden of roses",
          "the city streets", "a mother and her child")


def on_topic_words(engine, topic: str) -> set[str]:
    """The words the topic leans: its own content words and their neighbours."""
    lean = engine.tables.associations.lean(topic, engine.vocab)
    return set() if lean is None else {engine.vocab.tokens[i] for i in np.flatnonzero(lean)}


def main(argv=None) -> int:
    from songwriter.engine.service import Engine, GenerationRequest
    from songwriter.engine.vocab_en import content_words
    from songwriter.forms import named_form

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default=str(ROOT / "models" / "en"))
    ap.add_argument("--form", default="Shakespearean sonnet")
    ap.add_argument("--strengths", type=float, nargs="+", default=[-2.0, 0.0, 2.0, 5.0])
    ap.add_argument("--pieces", type=int, default=3, help="pieces per topic and setting (the top of 8 each)")
    ap.add_argument("--seed", type=int, default=100)
    ap.add_argument("--show", type=int, default=1, help="topics whose pieces are printed")
    args = ap.parse_args(argv)
    engine = Engine.load(args.model)
    if engine.tables.associations is None:
        print(f"error: {args.model} has no word associations (plan.json): build-plan --lang en", file=sys.stderr)
        return 2
    form = named_form(args.form)
    settings = [None] + list(args.strengths)
    failed = 0
    print(f"{args.form}, {args.pieces} a topic and setting; on topic: the share of content words that are "
          f"the topic's or their associates")
    for setting in settings:
        hits = total = 0
        t0 = time.perf_counter()
        for k, topic in enumerate(TOPICS):
            near = on_topic_words(engine, topic)
            for j in range(args.pieces):
                extra = {} if setting is None else {"content": [topic], "strength": setting}
                best = engine.generate(GenerationRequest(template=form, n=8, seed=args.seed + 31 * j + k, **extra))[0]
                if not best.check.ok:
                    failed += 1
                    print(f"DOES NOT FIT ({topic}, {setting}): {best.check.summary()}", file=sys.stderr)
                words = [w for line in best.lines for w in content_words(line)]
                hits += sum(w in near for w in words)
                total += len(words)
                if k < args.show and j == 0:
                    print(f"\n[{topic}; {'no content' if setting is None else f'strength {setting:g}'}]")
                    print(best.text)
        label = "no content" if setting is None else f"strength {setting:g}"
        print(f"\n{label}: on topic {100 * hits / max(1, total):.1f} % of {total} content words "
              f"({time.perf_counter() - t0:.0f} s)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

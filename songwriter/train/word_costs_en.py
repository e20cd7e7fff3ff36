"""`python -m songwriter.train word-costs-en`: measure which words the English decoder overuses
and write the model's word costs (engine/word_costs, ``word_costs.json`` in the model folder).

The decoder writes pieces of the kinds the app writes (Shakespearean sonnets, and hymn and song
stanzas re-lyricked to dev-split shapes: no test material), counts its content words, and sets
against each the rate the training split has. A word written at r times the expected rate
(shrunk towards 1 by ``PRIOR`` pseudo-counts, so that a word seen twice is not a finding) costs
``strength * ln r`` nats. A second round writes again with those costs and corrects them: a cost
moves the decoder's preference to the next safe word, which the second round then finds.
"""

from __future__ import annotations

import functools
import json
import random
import time
from collections import Counter
from pathlib import Path

from songwriter.train.overuse import PRIOR, excess, overuse_report, updated_costs, written_pieces  # noqa: F401

DEFAULT_PER_KIND = 24    # pieces of each kind per round
DEFAULT_ROUNDS = 2
DEFAULT_STRENGTH = 1.0
STANZA_LINES = (4, 8)    # a re-lyricked stanza's lines, as the blind reading's hymns
KINDS = ("sonnet", "hymn", "song")


def words_of(line: str) -> list[str]:
    """A line's words as the vocabulary spells them (lowercased), marks left out."""
    from songwriter.engine.vocab_en import tokenize

    return [w for w in tokenize(line) if any(ch.isalpha() for ch in w)]


def corpus_counts(corpus: Path) -> Counter:
    """Word counts of the training split (held-out pieces left out)."""
    from songwriter.train import corpus as C

    split = C.load_split(corpus)
    held = set(split["dev"]) | set(split["test"])
    counts: Counter = Counter()
    for piece in C.load_pieces(corpus):
        if piece["id"] not in held:
            for line in piece["lines"]:
                counts.update(words_of(line))
    return counts


def stanza_shapes(corpus: Path, kind: str) -> list[list[str]]:
    """First stanzas (at most eight lines) of the dev split's pieces of ``kind``."""
    from songwriter.train import corpus as C

    dev = set(C.load_split(corpus)["dev"])
    out = []
    for piece in C.load_pieces(corpus):
        if piece["id"] in dev and piece["kind"] == kind:
            end = (list(piece.get("breaks", [])) + [len(piece["lines"])])[0]
            lines = piece["lines"][:min(end, STANZA_LINES[1])]
            if len(lines) >= STANZA_LINES[0]:
                out.append(lines)
    return out


def calibration_templates(corpus: Path, per_kind: int, seed: int) -> list[tuple[str, object]]:
    """(kind, template): ``per_kind`` sonnets, hymn stanzas and song stanzas."""
    from songwriter.forms import named_form
    from songwriter.lyrics import template_from_lyrics

    rng = random.Random(seed)
    jobs: list[tuple[str, object]] = [("sonnet", named_form("Shakespearean sonnet")) for _ in range(per_kind)]
    for kind in ("hymn", "song"):
        shapes = stanza_shapes(corpus, kind)
        if not shapes:
            raise SystemExit(f"the corpus at {corpus} has no {kind} stanzas in its dev split")
        picked = [shapes[rng.randrange(len(shapes))] for _ in range(per_kind)]
        jobs += [(kind, template_from_lyrics("\n".join(s), "en")) for s in picked]
    return jobs


def generated_counts(engine, jobs, seed: int, log) -> tuple[Counter, list[dict]]:
    """Word counts of the top candidate (of 8, as the blind reading takes) of every job."""
    pieces = written_pieces(engine, jobs, seed, log)
    counts: Counter = Counter()
    for piece in pieces:
        for line in piece["lines"]:
            counts.update(words_of(line))
    return counts, pieces


def run(args) -> int:
    import numpy as np

    from songwriter.engine import word_costs as W
    from songwriter.engine.decode_en import content_mask
    from songwriter.engine.model_folder import WEIGHTS, file_sha256
    from songwriter.engine.service import Engine
    from songwriter.project.atomic import write_atomic

    if not 0 < args.limit <= W.MAX_COST or args.rounds < 1 or args.per_kind < 1:
        raise SystemExit(f"--limit must be above 0 and at most {W.MAX_COST} nats; --rounds and --per-kind at least 1")
    model = Path(args.model)
    corpus = Path(args.corpus)
    out = Path(args.out) if args.out else model / W.WORD_COSTS
    log = functools.partial(print, flush=True)     # a long run, watched in its log
    t0 = time.time()
    engine = Engine.load(model)
    if getattr(engine.vocab, "language", "zh") != "en":
        raise SystemExit(f"{model} is not an English model")
    mask = content_mask(engine.vocab)
    countable = {t for i, t in enumerate(engine.vocab.tokens) if mask[i] > 0}
    log("counting the training split's words ...")
    corpus_words = corpus_counts(corpus)
    jobs = calibration_templates(corpus, args.per_kind, args.seed)
    costs: dict[str, float] = {}
    rounds = []
    for k in range(args.rounds + 1):        # the last pass only measures the final costs
        engine.tables.word_costs = W.cost_vector(costs, engine.vocab) if costs else None
        counts, pieces = generated_counts(engine, jobs, args.seed, log)
        report = overuse_report(counts, corpus_words, countable)
        rounds.append({"costs": len(costs), **report})
        log(f"round {k}: {len(costs)} costed words; {report['words']} words written, {report['distinct']} "
            f"distinct, {100 * report['over_3x_share']:.1f} % of content words at over 3x the corpus rate "
            f"({time.time() - t0:.0f} s)\n  {', '.join(report['furthest_over'])}")
        if k < args.rounds:
            costs = updated_costs(costs, excess(counts, corpus_words, countable), args.strength, args.limit)
    data = {"format": W.FORMAT,
            "model": file_sha256(model / WEIGHTS) if (model / WEIGHTS).is_file() else None,
            "made_by": "python -m songwriter.train word-costs-en",
            "settings": {"per_kind": args.per_kind, "rounds": args.rounds, "strength": args.strength,
                         "limit": args.limit, "seed": args.seed, "prior": PRIOR, "kinds": list(KINDS)},
            "rounds": rounds,
            "costs": dict(sorted(costs.items(), key=lambda kv: (-kv[1], kv[0])))}
    write_atomic(out, json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    top = ", ".join(f"{w} {c:.2f}" for w, c in list(data["costs"].items())[:15])
    log(f"wrote {out}: {len(costs)} words, {float(np.mean(list(costs.values())) if costs else 0):.2f} nats "
        f"on average; {top}")
    return 0


def add_arguments(p) -> None:
    p.add_argument("--model", default=str(Path(__file__).resolve().parents[2] / "models" / "en"))
    p.add_argument("--corpus", default=str(Path(__file__).resolve().parents[2] / "runs" / "corpus" / "en"),
                   help="build-corpus-en's folder (its training split's word rates, its dev split's stanzas)")
    p.add_argument("--out", default=None, help="where to write the table (default: word_costs.json in the model)")
    p.add_argument("--per-kind", type=int, default=DEFAULT_PER_KIND, help="pieces of each kind per round")
    p.add_argument("--rounds", type=int, default=DEFAULT_ROUNDS)
    p.add_argument("--strength", type=float, default=DEFAULT_STRENGTH, help="nats per unit of ln(excess rate)")
    p.add_argument("--limit", type=float, default=3.0, help="the largest cost a word gets, in nats")
    p.add_argument("--seed", type=int, default=4242)

"""`python -m songwriter.train word-costs-zh`: measure which characters the Chinese decoder
overuses, anywhere, as a line's first character and as its first two, and write the model's
word costs (engine/word_costs, ``word_costs.json`` in the model folder).

The decoder writes shi (七绝, 五绝, 五律, 七律) and ci (the tunes of ``CI_TUNES``: none of them a
held-out tune of the blind reading) as the app writes them, the top candidate of 8 each, and its
characters are set against the training split's rates for the same kinds, weighted as the
written pieces are (a ci's 回首 is set against the ci's rate). One blind-reading file of 16 pieces
held 回首 24 times (61 times the corpus's rate), 如今 12 times, and opened 10 % of its lines with 不
(the poets: 2 %): the words readers call stock. A second and third round write again with the
costs and correct them, as ``word-costs-en`` does (train/overuse.py). The costs apply to the
kinds measured (``"kinds": ["shi", "ci"]``): a modern lyric's 只是 is not a classical tic.

Each round also measures the pairs lines open with (``opening_pairs``: a line's second character
after its first): 18 of 128 first lines of four blind files opened on 东风 (12 on 东风吹), 100 times
the poets' rate, a habit no cost on one character reaches. ``--opening-pairs-only`` measures that
table alone, beside the file's other tables (applied in every round, kept as they are).

``--doubled-only`` writes the third table alone, from the corpus, into the model's file (the other
tables kept): what a character costs right after itself (``doubled_costs``). Readers named 屏屏,
鸟鸟 and 雨雨 in the decoder's shi and ci; the poets double 悠 four times in ten, 鸟 once in 4,500.
"""

from __future__ import annotations

import functools
import json
import time
from collections import Counter
from pathlib import Path

from songwriter.train.overuse import PRIOR, excess, overuse_report, updated_costs, written_pieces

DEFAULT_PER_KIND = 48    # pieces of each kind per round (shi, ci)
DEFAULT_ROUNDS = 2
DEFAULT_STRENGTH = 1.0
KINDS = ("shi", "ci")
SHI_FORMS = ("七绝", "五绝", "五律", "七律")
CI_TUNES = ("浣溪沙", "鹧鸪天", "菩萨蛮", "西江月", "临江仙", "蝶恋花", "清平乐", "减字木兰花")
PUNCT = "，。、；：？！"
# a corpus's counts are scaled to this many characters before the shares of kinds are mixed
SCALE = 10_000_000
# a character the poets double at least once in this many uses is never costed for it; one
# doubled less often costs DOUBLED_NATS per e-fold below that rate (at most MAX_COST)
DOUBLED_EVERY = 200
DOUBLED_NATS = 1.5
DOUBLED_PRIOR = 50      # pseudo-uses at the corpus's overall doubling rate: a rare character is no finding


def chars_of(line: str) -> str:
    """A line's characters, marks left out."""
    return "".join(c for c in line if c not in PUNCT and not c.isspace())


def count_lines(lines, anywhere: Counter, starts: Counter, pairs: Counter | None = None) -> None:
    """Characters anywhere, lines' first characters and (``pairs``) their first two."""
    for line in lines:
        body = chars_of(line)
        anywhere.update(body)
        if body:
            starts[body[0]] += 1
        if pairs is not None and len(body) >= 2:
            pairs[body[:2]] += 1


class PairsOf:
    """The pairs of two countable characters (a container for overuse.excess)."""

    def __init__(self, chars):
        self.chars = chars

    def __contains__(self, pair) -> bool:
        return len(pair) == 2 and pair[0] in self.chars and pair[1] in self.chars


def training_pieces(corpus: Path):
    """The training split's pieces of ``KINDS`` (dev and test held out), one by one."""
    from songwriter.train import corpus as C

    split = C.load_split(corpus)
    held = set(split["dev"]) | set(split["test"])
    with open(corpus / "pieces.jsonl", encoding="utf-8") as f:
        for line in f:
            piece = json.loads(line)
            if piece["kind"] in KINDS and piece["id"] not in held:
                yield piece


def corpus_counts(corpus: Path) -> dict[str, tuple[Counter, Counter, Counter]]:
    """Per kind of ``KINDS``: the training split's character counts, line-opening counts and
    opening-pair counts."""
    out = {kind: (Counter(), Counter(), Counter()) for kind in KINDS}
    for piece in training_pieces(corpus):
        count_lines(piece["lines"], *out[piece["kind"]])
    return out


def doubling_counts(corpus: Path) -> tuple[Counter, Counter]:
    """The training split's uses of each character in shi and ci, and the uses right after itself."""
    uses, doubled = Counter(), Counter()
    for piece in training_pieces(corpus):
        for text in piece["lines"]:
            body = chars_of(text)
            uses.update(body)
            doubled.update(a for a, b in zip(body, body[1:]) if a == b)
    return uses, doubled


def doubled_costs(uses: Counter, doubled: Counter, countable: set[str], limit: float) -> dict[str, float]:
    """Nats for writing each character of ``countable`` right after itself: 0 (left out) for one
    the corpus doubles at least once in DOUBLED_EVERY uses, else DOUBLED_NATS per e-fold below."""
    import math

    overall = sum(doubled.values()) / max(1, sum(uses.values()))
    out = {}
    for char in countable:
        rate = (doubled[char] + DOUBLED_PRIOR * overall) / (uses[char] + DOUBLED_PRIOR)
        cost = min(limit, DOUBLED_NATS * math.log(1 / (DOUBLED_EVERY * rate)))
        if cost >= 0.01:
            out[char] = round(cost, 2)
    return dict(sorted(out.items(), key=lambda kv: (-kv[1], kv[0])))


def write_doubled_only(model: Path, corpus: Path, out: Path, log) -> int:
    """The ``doubled`` table, from the corpus alone, into the model's costs file (kept otherwise)."""
    from songwriter.engine import model_folder as MF
    from songwriter.engine import word_costs as W
    from songwriter.engine.vocab import Vocab
    from songwriter.project.atomic import write_atomic

    vocab = Vocab.load(model / MF.VOCAB)
    if out.is_file():
        W.read_costs(out)           # an unreadable file is refused, not overwritten
        data = json.loads(out.read_text(encoding="utf-8"))
    else:
        data = {"format": W.FORMAT, "made_by": "python -m songwriter.train word-costs-zh --doubled-only",
                "kinds": list(KINDS), "costs": {}}
    log("counting the training split's doubled characters ...")
    uses, doubled = doubling_counts(corpus)
    table = doubled_costs(uses, doubled, set(vocab.tokens[vocab.first_char:]), W.MAX_COST)
    data["doubled"] = table
    data["doubled_settings"] = {"every": DOUBLED_EVERY, "nats": DOUBLED_NATS, "prior": DOUBLED_PRIOR,
                                "kinds": list(KINDS), "limit": W.MAX_COST}
    write_atomic(out, json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    top = ", ".join(f"{w} {c:.2f}" for w, c in list(table.items())[:15])
    log(f"doubled: {len(table)} characters costed, {sum(doubled.values())} doubles in "
        f"{sum(uses.values())} uses; {top}\nwrote {out}")
    return 0


def mixed(per_kind: dict[str, Counter], shares: dict[str, float]) -> Counter:
    """One corpus of the kinds in ``shares`` (their parts of the written text), each kind's counts
    scaled to ``SCALE`` characters first: the rates the written pieces should have."""
    out: Counter = Counter()
    for kind, share in shares.items():
        counts = per_kind[kind]
        total = sum(counts.values()) or 1
        for unit, n in counts.items():
            out[unit] += share * SCALE * n / total
    return out


def calibration_templates(per_kind: int) -> list[tuple[str, object]]:
    """(kind, template): ``per_kind`` shi of SHI_FORMS and ci of CI_TUNES, in turn."""
    from songwriter.forms import named_form

    jobs = [("shi", named_form(SHI_FORMS[i % len(SHI_FORMS)])) for i in range(per_kind)]
    jobs += [("ci", named_form(CI_TUNES[i % len(CI_TUNES)])) for i in range(per_kind)]
    return jobs


def generated_counts(engine, jobs, seed: int, log
                     ) -> tuple[dict[str, Counter], dict[str, Counter], dict[str, Counter], list[dict]]:
    """Character, line-opening and opening-pair counts, per kind, of the top candidate (of 8) of
    every job."""
    pieces = written_pieces(engine, jobs, seed, log)
    anywhere = {kind: Counter() for kind in KINDS}
    starts = {kind: Counter() for kind in KINDS}
    pairs = {kind: Counter() for kind in KINDS}
    for piece in pieces:
        kind = piece["kind"]
        count_lines(piece["lines"], anywhere[kind], starts[kind], pairs[kind])
    return anywhere, starts, pairs, pieces


def shares_of(per_kind: dict[str, Counter]) -> dict[str, float]:
    total = sum(sum(c.values()) for c in per_kind.values()) or 1
    return {kind: sum(c.values()) / total for kind, c in per_kind.items()}


def run(args) -> int:
    import numpy as np

    from songwriter.engine import word_costs as W
    from songwriter.engine.model_folder import WEIGHTS, file_sha256
    from songwriter.engine.service import Engine
    from songwriter.project.atomic import write_atomic

    if not 0 < args.limit <= W.MAX_COST or args.rounds < 1 or args.per_kind < 1:
        raise SystemExit(f"--limit must be above 0 and at most {W.MAX_COST} nats; --rounds and --per-kind at least 1")
    model = Path(args.model)
    corpus = Path(args.corpus)
    if not (corpus / "split.json").is_file():
        raise SystemExit(f"no corpus split at {corpus}; run build-corpus first")
    out = Path(args.out) if args.out else model / W.WORD_COSTS
    log = functools.partial(print, flush=True)     # a long run, watched in its log
    if args.doubled_only:
        return write_doubled_only(model, corpus, out, log)
    pairs_only = args.opening_pairs_only
    if pairs_only and not out.is_file():
        raise SystemExit(f"--opening-pairs-only measures beside the tables of {out}, which does not exist")
    if out.is_file():
        W.read_costs(out)           # an unreadable file is refused before the work, not overwritten
    kept = json.loads(out.read_text(encoding="utf-8")) if out.is_file() else {}
    t0 = time.time()
    engine = Engine.load(model)
    if getattr(engine.vocab, "language", "zh") != "zh":
        raise SystemExit(f"{model} is not a Chinese model")
    vocab = engine.vocab
    countable = set(vocab.tokens[vocab.first_char:])
    log("counting the training split's characters ...")
    reference = corpus_counts(corpus)
    jobs = calibration_templates(args.per_kind)
    engine.tables.cost_kinds = frozenset(KINDS)
    # --opening-pairs-only: the file's other tables apply in every round and stay as they are
    costs: dict[str, float] = W.read_costs(out) if pairs_only else {}
    line_start: dict[str, float] = W.read_costs(out, "line_start") if pairs_only else {}
    opening_pairs: dict[str, float] = {}
    pair_countable = PairsOf(countable)
    rounds = []
    for k in range(args.rounds + 1):        # the last pass only measures the final costs
        engine.tables.word_costs = W.cost_vector(costs, vocab) if costs else None
        engine.tables.line_start_costs = W.cost_vector(line_start, vocab) if line_start else None
        engine.tables.opening_pair_costs = W.pair_lookup(opening_pairs, vocab) if opening_pairs else None
        anywhere, starts, pairs, _ = generated_counts(engine, jobs, args.seed, log)
        shares = shares_of(anywhere)
        expect = mixed({kind: reference[kind][0] for kind in KINDS}, shares)
        expect_starts = mixed({kind: reference[kind][1] for kind in KINDS}, shares_of(starts))
        expect_pairs = mixed({kind: reference[kind][2] for kind in KINDS}, shares_of(pairs))
        written, opened = sum(anywhere.values(), Counter()), sum(starts.values(), Counter())
        paired = sum(pairs.values(), Counter())
        report = overuse_report(written, expect, countable)
        report_starts = overuse_report(opened, expect_starts, countable)
        report_pairs = overuse_report(paired, expect_pairs, pair_countable)
        rounds.append({"costs": len(costs), "line_start": len(line_start), "opening_pairs": len(opening_pairs),
                       **report,
                       "line_start_over_3x_share": report_starts["over_3x_share"],
                       "line_start_furthest_over": report_starts["furthest_over"],
                       "opening_pairs_over_3x_share": report_pairs["over_3x_share"],
                       "opening_pairs_furthest_over": report_pairs["furthest_over"]})
        log(f"round {k}: {len(costs)} costed characters, {len(line_start)} at line starts, "
            f"{len(opening_pairs)} opening pairs; {report['words']} written, {report['distinct']} distinct, "
            f"{100 * report['over_3x_share']:.1f} % at over 3x the corpus rate, line openings "
            f"{100 * report_starts['over_3x_share']:.1f} %, opening pairs {100 * report_pairs['over_3x_share']:.1f} % "
            f"({time.time() - t0:.0f} s)\n  {', '.join(report['furthest_over'])}\n"
            f"  openings: {', '.join(report_starts['furthest_over'])}\n"
            f"  opening pairs: {', '.join(report_pairs['furthest_over'])}")
        if k < args.rounds:
            if not args.line_start_only and not pairs_only:
                costs = updated_costs(costs, excess(written, expect, countable), args.strength, args.limit)
            # a line's first character pays its costs anywhere too: the opening table adds what
            # is still over the openings' own rate; a pair, what is still over the pairs' rate
            if not pairs_only:
                line_start = updated_costs(line_start, excess(opened, expect_starts, countable), args.strength,
                                           args.limit)
            opening_pairs = updated_costs(opening_pairs, excess(paired, expect_pairs, pair_countable),
                                          args.strength, args.limit)
    settings = {"per_kind": args.per_kind, "rounds": args.rounds, "strength": args.strength,
                "line_start_only": args.line_start_only,
                "limit": args.limit, "seed": args.seed, "prior": PRIOR,
                "shi": list(SHI_FORMS), "ci": list(CI_TUNES)}
    by_cost = lambda table: dict(sorted(table.items(), key=lambda kv: (-kv[1], kv[0])))  # noqa: E731
    if pairs_only:
        data = {**kept, "opening_pairs": by_cost(opening_pairs),
                "opening_pairs_settings": {**settings, "opening_pairs_only": True},
                "opening_pairs_rounds": rounds}
    else:
        data = {"format": W.FORMAT,
                "model": file_sha256(model / WEIGHTS) if (model / WEIGHTS).is_file() else None,
                "made_by": "python -m songwriter.train word-costs-zh",
                "kinds": list(KINDS), "settings": settings, "rounds": rounds,
                "costs": by_cost(costs), "line_start": by_cost(line_start),
                "opening_pairs": by_cost(opening_pairs)}
        for key in ("doubled", "doubled_settings"):     # the corpus's, not this measurement's: kept
            if key in kept:
                data[key] = kept[key]
    write_atomic(out, json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    for name, table in (("costs", costs), ("line_start", line_start), ("opening_pairs", opening_pairs)):
        top = ", ".join(f"{w} {c:.2f}" for w, c in list(data[name].items())[:15])
        log(f"{name}: {len(table)} entries, {float(np.mean(list(table.values())) if table else 0):.2f} "
            f"nats on average; {top}")
    log(f"wrote {out}")
    return 0


def add_arguments(p) -> None:
    root = Path(__file__).resolve().parents[2]
    p.add_argument("--model", default=str(root / "models" / "zh"))
    p.add_argument("--corpus", default=str(root / "runs" / "corpus" / "zh"),
                   help="build-corpus's folder (its training split's character rates)")
    p.add_argument("--out", default=None, help="where to write the table (default: word_costs.json in the model)")
    p.add_argument("--per-kind", type=int, default=DEFAULT_PER_KIND, help="pieces of each kind per round")
    p.add_argument("--rounds", type=int, default=DEFAULT_ROUNDS)
    p.add_argument("--strength", type=float, default=DEFAULT_STRENGTH, help="nats per unit of ln(excess rate)")
    p.add_argument("--limit", type=float, default=3.0, help="the largest cost a character gets, in nats")
    p.add_argument("--seed", type=int, default=4343)
    p.add_argument("--line-start-only", action="store_true",
                   help="cost only the characters lines open with (no table for the rest)")
    p.add_argument("--opening-pairs-only", action="store_true",
                   help="measure only the table of lines' second characters after their first, beside "
                        "the file's other tables (applied, kept)")
    p.add_argument("--doubled-only", action="store_true",
                   help="write only the table of characters costed right after themselves, from the corpus")

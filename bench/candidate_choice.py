"""Which of one prompt's candidates readers would rate higher: English measures of a piece against
the blind readers' ratings, and a blind file of two ways of choosing among the same candidates.

    python bench/candidate_choice.py features --model models/en runs/blind/en-9 runs/blind/en-10 ...
    # per piece of ours in those folders (key.json, one answers-*.json per reader): the decoder's
    # score, the mean log-probability of its words, the mean of its three least likely words
    # (``low3``) and the share of its word pairs written twice; Spearman against the readers' mean
    # fluency and coherence, within each folder and each form
    python bench/candidate_choice.py make --model models/en --seed 83 --out runs/blind/rr-83
    # the blind set's English prompts (blind_reading.py --set english), 8 candidates each, every
    # candidate kept; the top by the decoder's score and the top by ``low3 - 10 x repeats`` in one
    # shuffled file with the real pieces of that seed; read and scored as blind_reading.py's are

The word measures come from the torch model, teacher-forced over each piece laid out as the corpus
is (no word given), so they are what the model thinks of the whole text, not of its own draws.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
for p in (ROOT, ROOT / "bench"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

import blind_reading as BR  # noqa: E402

REPEAT_WEIGHT = 10.0      # nats of low3 per unit share of repeated word pairs (their spreads' ratio)


def word_logps(model: str, pieces: list[dict]) -> list[list[float]]:
    """Per piece, the log-probability of each word, teacher-forced with no word given."""
    from songwriter.engine import encoding as E
    from songwriter.engine.model import FIELDS
    from songwriter.engine.torch_backend import TorchBackend
    from songwriter.train.dataset import collate, make_example
    from songwriter.train.dataset_en import EnglishPieceStore

    backend, vocab, _ = TorchBackend.from_dir(Path(model), "cpu")
    store = EnglishPieceStore(pieces, vocab, max_len=backend.max_len, workers=1)
    rng = np.random.default_rng(0)
    out = []
    for i in range(len(store)):
        b = collate([make_example(store.piece(i), vocab, rng, train=False)], vocab.pad)
        lp = backend.score({k: b[k] for k in (*FIELDS, "given")}, b["targets"], vocab.bos)[0]
        words = ((b["fmt"][0] == E.F_CHAR) | (b["fmt"][0] == E.F_RHYME)) & (b["targets"][0] != vocab.fill)
        out.append(lp[words].astype(float).tolist())
    return out


def repeated_pairs(lines: list[str]) -> float:
    """The share of a piece's word pairs (across line breaks) that it writes more than once."""
    w = re.findall(r"[a-z']+", " ".join(lines).lower())
    pairs = list(zip(w, w[1:]))
    return 1 - len(set(pairs)) / len(pairs) if pairs else 0.0


def measures(model: str, items: list[dict]) -> None:
    """Add mean, low3, repeats and key to each item (``lines``, ``form``)."""
    pieces = [{"id": f"x:{i}", "kind": "hymn" if it.get("form") == "hymn" else "poem", "lines": it["lines"]}
              for i, it in enumerate(items)]
    for it, lp in zip(items, word_logps(model, pieces)):
        a = np.asarray(lp)
        it["mean"] = float(a.mean())
        it["low3"] = float(np.sort(a)[:3].mean())
        it["repeats"] = repeated_pairs(it["lines"])
        it["key"] = it["low3"] - REPEAT_WEIGHT * it["repeats"]


def spearman(x, y) -> float:
    def ranks(a):
        a = np.asarray(a, dtype=float)
        r = np.empty(len(a))
        r[a.argsort(kind="stable")] = np.arange(len(a))
        for v in np.unique(a):
            r[a == v] = r[a == v].mean()
        return r
    rx, ry = ranks(x), ranks(y)
    return float(np.corrcoef(rx, ry)[0, 1]) if rx.std() and ry.std() else float("nan")


def features(args) -> int:
    items = []
    for folder in map(Path, args.folders):
        key = json.loads((folder / "key.json").read_text(encoding="utf-8"))
        files = sorted(folder.glob("answers-*.json")) or sorted(folder.glob("answers.json"))
        answers = [{a["n"]: a for a in json.loads(f.read_text(encoding="utf-8"))} for f in files]
        if not answers:
            print(f"error: {folder} has no answers-*.json (one per reader) nor answers.json", file=sys.stderr)
            return 2
        for k in key:
            if k["source"] == "machine":
                ratings = {m: float(np.mean([a[k["n"]][m] for a in answers])) for m in ("fluency", "coherence")}
                items.append({"folder": folder.name, "form": k.get("form"), "lines": k["lines"],
                              "score": k.get("score"), **ratings})
    measures(args.model, items)
    print(f"{len(items)} pieces of ours; Spearman against the readers' mean rating")
    for target in ("fluency", "coherence"):
        print(target)
        for name in ("score", "mean", "low3", "repeats", "key"):
            have = [it for it in items if it[name] is not None]     # older keys lack the score
            within = [spearman([it[name] for it in g], [it[target] for it in g])
                      for f in sorted({it["folder"] for it in have})
                      for g in [[it for it in have if it["folder"] == f]] if len(g) > 2]
            forms = {form: spearman([it[name] for it in g], [it[target] for it in g])
                     for form in sorted({str(it["form"]) for it in have})
                     for g in [[it for it in have if str(it["form"]) == form]] if len(g) > 2}
            print(f"  {name:8s} within a folder {np.nanmean(within):+.2f} ("
                  + " ".join(f"{x:+.2f}" for x in within) + ")  by form "
                  + " ".join(f"{f} {x:+.2f}" for f, x in forms.items()))
    return 0


def make(args) -> int:
    from songwriter.engine.service import Engine, GenerationRequest
    from songwriter.forms import named_form

    rng = random.Random(args.seed)
    sonnets, shapes, hymns = BR.english_real(Path(args.corpus), rng)
    engine = Engine.load(args.model)
    jobs = [("sonnet", named_form("Shakespearean sonnet")) for _ in range(BR.ENGLISH_PIECES)]
    jobs += [("hymn", BR.hymn_relyric(h["lines"])) for h in shapes]
    prompts = []
    for i, (form, template) in enumerate(jobs):
        got = engine.generate(GenerationRequest(template=template, n=8, seed=args.seed + 101 * i))
        prompts.append([{"form": form, "seed": args.seed + 101 * i, "lines": c.text.split("\n"), "score": c.score}
                        for c in got])
        print(f"prompt {i + 1} of {len(jobs)}", flush=True)
    measures(args.model, [c for p in prompts for c in p])
    items, same = [], 0
    for cands in prompts:
        by_score, by_key = max(cands, key=lambda c: c["score"]), max(cands, key=lambda c: c["key"])
        same += by_score is by_key
        items += [{"source": "machine", "model": arm, "lang": "en", **c}
                  for arm, c in (("score", by_score), ("key", by_key))]
    items += [{"source": "human", "form": "sonnet", "lang": "en", "id": p["id"], "lines": p["lines"]} for p in sonnets]
    items += [{"source": "human", "form": "hymn", "lang": "en", "id": p["id"], "lines": p["lines"]} for p in hymns]
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "candidates.json").write_text(json.dumps(prompts, indent=1), encoding="utf-8")
    print(f"the same top by both in {same} of {len(prompts)} prompts")
    BR.write_file(items, "English poems: sonnets and hymn stanzas (a stanza may open a longer hymn), numbered.", out,
                  random.Random(args.seed + 1))
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    f = sub.add_parser("features", help="the measures of our pieces against the readers' ratings")
    f.add_argument("--model", default="models/en")
    f.add_argument("folders", nargs="+")
    m = sub.add_parser("make", help="a blind file: the top candidate by the score and by the key")
    m.add_argument("--model", default="models/en")
    m.add_argument("--corpus", default=str(ROOT / "runs" / "corpus" / "en"))
    m.add_argument("--seed", type=int, default=83)
    m.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    return features(args) if args.cmd == "features" else make(args)


if __name__ == "__main__":
    sys.exit(main())

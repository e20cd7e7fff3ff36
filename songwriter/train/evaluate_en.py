"""Evaluate an English model on held-out pieces: the figures issue 15 asks for.

    python -m songwriter.train.evaluate_en --model models/en --corpus runs/corpus/en \
        --gen-pieces 40 --out runs/en/eval.json --samples runs/en/samples.jsonl

- perplexity of the gold test pieces under their gold layouts (no given words), per kind
  (sonnet, hymn, poem, song): token-weighted NLL over every position, over the syllable
  positions the decoder chooses (``hidden_ppl``: words and the ``<fill>`` after them, no marks or
  line ends; the figure to compare a model trained with ``--loss-on hidden`` on) and over word
  starts only (``word_ppl``: the perplexity of the words, not of the ``<fill>`` after them);
- generation: a Shakespearean sonnet for each of ``--gen-pieces`` held-out sonnets and each
  held-out hymn stanza re-lyricked (its own syllables and rhymes, ``lyrics.template_from_lyrics``);
  per kind: the share of candidates ``songwriter check`` passes, of lines with the template's
  syllables (CMUdict readings), of rhymed lines that rhyme, of metrical lines that fit the metre,
  and Distinct-1/2 over words (macro: per piece; micro: pooled).

Needs torch only for the model's backend; any backend ``Engine.load`` takes works.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import numpy as np


def word_distinct(pieces: list[str]) -> dict[str, float]:
    """Distinct-1/2 over lower-cased words (marks dropped), n-grams across lines; macro = mean of
    the pieces' unique/total, micro = pooled."""
    from songwriter.prosody import english

    out = {}
    for n in (1, 2):
        uniq_all, tot_all, per = set(), 0, []
        for p in pieces:
            w = [x.lower() for x in english.words(p.replace("\n", " "))]
            grams = [tuple(w[i:i + n]) for i in range(len(w) - n + 1)]
            if grams:
                per.append(len(set(grams)) / len(grams))
            uniq_all.update(grams)
            tot_all += len(grams)
        out[f"ma_d{n}"] = float(np.mean(per)) if per else 0.0
        out[f"mi_d{n}"] = len(uniq_all) / tot_all if tot_all else 0.0
    return out


def heldout_perplexity(backend, vocab, pieces: list[dict], max_len: int, batch: int = 16) -> dict:
    """NLL (nats) of gold pieces, teacher-forced through a backend's ``score``."""
    from songwriter.engine import encoding as E
    from songwriter.engine.model import FIELDS
    from songwriter.train.dataset import collate, make_example
    from songwriter.train.dataset_en import EnglishPieceStore

    store = EnglishPieceStore(pieces, vocab, max_len=max_len)
    rng = np.random.default_rng(0)
    tot = n_tot = wd = n_wd = hd = n_hd = 0.0
    order = sorted(range(len(store)), key=store.length)
    for a in range(0, len(order), batch):
        ex = [make_example(store.piece(i), vocab, rng, train=False) for i in order[a:a + batch]]
        b = collate(ex, vocab.pad)
        lp = backend.score({k: b[k] for k in (*FIELDS, "given")}, b["targets"], vocab.bos)
        valid = b["fmt"] != E.F_PAD
        words = ((b["fmt"] == E.F_CHAR) | (b["fmt"] == E.F_RHYME)) & (b["targets"] != vocab.fill)
        hidden = valid & (b["given"] == vocab.fill)
        tot -= float(lp[valid].sum())
        n_tot += int(valid.sum())
        hd -= float(lp[hidden].sum())
        n_hd += int(hidden.sum())
        wd -= float(lp[words].sum())
        n_wd += int(words.sum())
    return {"pieces": len(store), "positions": int(n_tot), "nll": tot / max(1, n_tot),
            "ppl": math.exp(tot / max(1, n_tot)), "hidden_nll": hd / max(1, n_hd),
            "hidden_ppl": math.exp(hd / max(1, n_hd)), "word_nll": wd / max(1, n_wd), "word_ppl": math.exp(wd / max(1, n_wd))}


def line_figures(text: str, template) -> dict[str, int]:
    """Counts for one candidate: lines, lines with the template's syllables, rhymed lines and
    those that rhyme, metrical lines and those that fit."""
    from songwriter import checks
    from songwriter.prosody import english
    from songwriter.template import syllable_units

    report = checks.check(text, template)
    lines = text.split("\n")
    out = {"lines": len(template.lines), "syllables_ok": 0, "rhymed": 0, "rhyme_ok": 0, "metrical": 0,
           "metre_ok": 0, "ok": int(report.ok)}
    for i, tl in enumerate(template.lines):
        line = lines[i] if i < len(lines) else ""
        spoken = " ".join(u for u, _ in syllable_units(line, "en"))
        if tl.syllables in english.line_syllables(spoken, verse=True):
            out["syllables_ok"] += 1
        probs = report.lines[i].problems if i < len(report.lines) else []
        if tl.rhyme:
            out["rhymed"] += 1
            out["rhyme_ok"] += int(not any(p.kind == "rhyme" for p in probs))
        if any(t is not None for t in tl.tones()):
            out["metrical"] += 1
            out["metre_ok"] += int(not any(p.kind in ("tone", "length") for p in probs))
    return out


def _stanza_templates(pieces: list[dict], limit: int):
    """(template, gold text) of the first stanza of each held-out hymn (its syllables, marks and
    rhymes, as a re-lyric would take them)."""
    from songwriter.lyrics import template_from_lyrics

    out = []
    for p in pieces:
        breaks = [0] + list(p.get("breaks", [])) + [len(p["lines"])]
        stanza = p["lines"][breaks[0]:breaks[1]]
        if len(stanza) < 2:
            continue
        try:
            out.append((template_from_lyrics("\n".join(stanza), "en"), "\n".join(stanza)))
        except Exception:
            continue
        if len(out) >= limit:
            break
    return out


def evaluate(model_dir: Path, corpus: Path, gen_pieces: int = 40, seed: int = 0, backend: str = "auto",
             samples: Path | None = None, perplexity: bool = True, log=print) -> dict:
    from songwriter.engine.service import Engine, GenerationError, GenerationRequest
    from songwriter.forms import named_form
    from songwriter.train import corpus as C

    engine = Engine.load(model_dir, backend=backend)
    test_ids = set(C.load_split(corpus)["test"])
    test = [p for p in C.load_pieces(corpus) if p["id"] in test_ids]
    by_kind: dict[str, list[dict]] = {}
    for p in test:
        by_kind.setdefault(p["kind"], []).append(p)
    out: dict = {"model": str(model_dir), "version": engine.manifest.get("version"), "backend": engine.backend_name}
    if perplexity:
        from songwriter.engine.torch_backend import TorchBackend

        be, vocab, _ = TorchBackend.from_dir(model_dir, "cpu")
        out["perplexity"] = {}
        for kind, ps in sorted(by_kind.items()):
            t0 = time.time()
            out["perplexity"][kind] = heldout_perplexity(be, vocab, ps, be.max_len)
            log(f"{kind}: {json.dumps(out['perplexity'][kind])} ({time.time() - t0:.0f}s)")
    jobs = [("sonnet", named_form("Shakespearean sonnet"), p["lines"]) for p in by_kind.get("sonnet", [])[:gen_pieces]]
    jobs += [("hymn", t, gold.split("\n")) for t, gold in _stanza_templates(by_kind.get("hymn", []), gen_pieces)]
    gen: dict[str, dict] = {}
    texts: dict[str, list[str]] = {}
    fails: dict[str, int] = {}
    f = open(samples, "w", encoding="utf-8") if samples else None
    for k, (kind, template, gold) in enumerate(jobs):
        try:
            cand = engine.generate(GenerationRequest(template=template, n=1, seed=seed + k))[0]
        except GenerationError as e:
            fails[kind] = fails.get(kind, 0) + 1
            log(f"{kind} {k}: {e}")
            continue
        fig = line_figures(cand.text, template)
        acc = gen.setdefault(kind, {})
        for key, v in fig.items():
            acc[key] = acc.get(key, 0) + v
        acc["pieces"] = acc.get("pieces", 0) + 1
        texts.setdefault(kind, []).append(cand.text)
        if f:
            f.write(json.dumps({"kind": kind, "text": cand.text, "gold": gold, "check_ok": bool(fig["ok"])},
                               ensure_ascii=False) + "\n")
    if f:
        f.close()
    out["generation"] = {}
    for kind, acc in gen.items():
        out["generation"][kind] = {
            "pieces": acc["pieces"], "refused": fails.get(kind, 0), "check_ok": acc["ok"] / acc["pieces"],
            "syllable_exact_lines": acc["syllables_ok"] / max(1, acc["lines"]),
            "rhyme_rate": acc["rhyme_ok"] / max(1, acc["rhymed"]),
            "metre_agreement": acc["metre_ok"] / max(1, acc["metrical"]) if acc["metrical"] else None,
            **word_distinct(texts[kind]),
        }
    out["gold_distinct"] = {kind: word_distinct(["\n".join(p["lines"]) for p in ps[:gen_pieces]])
                            for kind, ps in by_kind.items() if kind in ("sonnet", "hymn")}
    return out


def main(argv=None) -> int:
    from songwriter.train import corpus_en

    ap = argparse.ArgumentParser(prog="python -m songwriter.train.evaluate_en", description=__doc__.split("\n")[0])
    ap.add_argument("--model", default="models/en")
    ap.add_argument("--corpus", default=str(corpus_en.DEFAULT_OUT))
    ap.add_argument("--gen-pieces", type=int, default=40, help="sonnets and hymn stanzas to write (each)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--backend", default="auto")
    ap.add_argument("--no-perplexity", action="store_true")
    ap.add_argument("--out", default=None, help="write the figures as JSON here")
    ap.add_argument("--samples", default=None, help="write the generated pieces here (jsonl)")
    args = ap.parse_args(argv)
    if not (Path(args.corpus) / "split.json").exists():
        print(f"error: no corpus at {args.corpus}; run build-corpus-en first", file=sys.stderr)
        return 2
    res = evaluate(Path(args.model), Path(args.corpus), args.gen_pieces, args.seed, args.backend,
                   Path(args.samples) if args.samples else None, not args.no_perplexity)
    text = json.dumps(res, indent=1, ensure_ascii=False)
    print(text)
    if args.out:
        Path(args.out).write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

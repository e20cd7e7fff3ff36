"""Held-out evaluation: perplexity on the test ci and SongNet's measures on generations.

    python -m songwriter.train eval --model models/zh [--gen-pieces 100] [--out runs/zh/eval.json]

- PPL: the model's perplexity on the gold test ci given the gold template (format, rhyme labels
  found in the gold text, the gold's tone classes; no given characters): exp of the token-weighted
  NLL over all positions (as SongNet counts, punctuation and line ends included), over character
  positions only, and SongNet's own per-sequence 2^(mean NLL in nats) averaged over pieces.
- Generations: for gold test pieces, a template with the gold's line lengths, punctuation and
  rhyme labels at the gold's rhyme positions (no tones, as in SongNet's setup); then Format and
  Rhyme P/R/F1 and Distinct-1/2 (songwriter.metrics), the share that passes check(), and tone
  agreement: how often a generated character has the gold character's 平/仄 class (unconstrained).
"""

from __future__ import annotations

import json
import math
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from songwriter import metrics
from songwriter.engine import encoding as E
from songwriter.template import Line, Slot, Template
from songwriter.train import corpus as C
from songwriter.train.dataset import PieceStore, collate, make_example


def test_pieces(corpus_dir: Path, split: str = "test", kind: str = "ci") -> list[dict]:
    ids = set(C.load_split(corpus_dir)[split])
    return [p for p in C.load_pieces(corpus_dir) if p["id"] in ids and C.report_group(p) == kind]


def kind_tables_of_corpus(corpus_dir: Path) -> dict[str, dict[str, float]]:
    """metrics.kind_tables of the training pieces (held-out pieces left out), per kind."""
    held = set(C.load_split(corpus_dir)["dev"]) | set(C.load_split(corpus_dir)["test"])
    texts: dict[str, list[str]] = {}
    for p in C.load_pieces(corpus_dir):
        if p["id"] not in held:
            texts.setdefault(p["kind"], []).append("".join(p["lines"]))
    return metrics.kind_tables(texts)


@torch.no_grad()
def perplexity(model, vocab, pieces: list[dict], batch: int = 16) -> dict:
    store = PieceStore(pieces, vocab, max_len=model.cfg.max_len)
    rng = np.random.default_rng(0)
    tot = n_tot = ch = n_ch = 0.0
    per_seq = []
    model.eval()
    for a in range(0, len(store), batch):
        ex = [make_example(store.piece(i), vocab, rng, train=False) for i in range(a, min(a + batch, len(store)))]
        b = collate(ex, vocab.pad)
        t = {k: torch.as_tensor(b[k]) for k in (*E.CHANNELS, "given")}
        logits = model(torch.as_tensor(b["inputs"]), t)
        nll = F.cross_entropy(logits.float().transpose(1, 2), torch.as_tensor(b["targets"]), reduction="none")
        valid = t["fmt"] != E.F_PAD
        chars = (t["fmt"] == E.F_CHAR) | (t["fmt"] == E.F_RHYME)
        tot += float(nll[valid].sum())
        n_tot += int(valid.sum())
        ch += float(nll[chars].sum())
        n_ch += int(chars.sum())
        for r in range(nll.shape[0]):
            per_seq.append(float(nll[r][valid[r]].mean()))
    return {"pieces": len(store), "tokens": int(n_tot), "nll": tot / n_tot, "ppl": math.exp(tot / n_tot),
            "char_nll": ch / n_ch, "char_ppl": math.exp(ch / n_ch),
            "songnet_ppl": float(np.mean([2 ** x for x in per_seq]))}


def gold_template(piece: dict, with_tones: bool = False, kind: str = "ci") -> Template:
    """The gold piece's form: lengths, punctuation, rhyme labels where its lines rhyme. A modern
    piece's form is made a song's: a lyric (modern tones) in couplets, every second line ending
    in 。 and rhyming (A), as modern prose does not rhyme but a song to its line lengths would."""
    from songwriter.train.dataset import label_lines

    from songwriter.metrics import majority_rhyme_group
    from songwriter.prosody.finals import songnet_rhyme_group

    lines_txt = piece["lines"]
    bodies = [ln.rstrip("，。、；：？！") for ln in lines_txt]
    if kind == "lyric":
        labels = [1 if i % 2 else 0 for i in range(len(bodies))]
    else:
        # the sound of each line end as the Rhyme measure hears it (the reading in context,
        # SongNet's groups, which are the model's sound classes 1..13), so labels sit where the
        # measure's rhymes are
        groups = [songnet_rhyme_group(b[-1], b, len(b) - 1) if b else None for b in bodies]
        major = majority_rhyme_group(groups)
        if major is not None:
            # a group as large as the measure's majority (which wins ties by group index) is left
            # unlabelled: otherwise the generated piece's tie could be broken the other way
            tally = Counter(g for g in groups if g is not None)
            groups = [g if g == major or (g is not None and tally[g] < tally[major]) else None for g in groups]
        sounds = [frozenset() if g is None else frozenset({g + 1}) for g in groups]
        labels, _ = label_lines(sounds)
    out = []
    for ln, body, lab in zip(lines_txt, bodies, labels):
        slots = [Slot() for _ in body]
        if with_tones:
            from songwriter.prosody import chinese

            for k in range(len(body)):
                cl = chinese.tone_classes(body, k, "classical")
                slots[k].tone = next(iter(cl)) if len(cl) == 1 else None
        slots[-1].punct = ln[len(body):] if kind != "lyric" else "。" if lab else "，"
        out.append(Line(slots=slots, rhyme=chr(ord("A") + lab - 1) if lab else None))
    return Template(lines=out, lang="zh", tone_system="modern" if kind == "lyric" else "classical", kind=kind,
                    name=piece.get("tune", ""))


def generate_all(engine, pieces: list[dict], repeats: int, seed: int, rhyme_system: str | None,
                 log=print, kind: str = "ci") -> tuple[list[str], list[str], list[Template], list[bool]]:
    from songwriter.engine.service import GenerationRequest

    gen, gold, tmpls, ok = [], [], [], []
    t0 = time.time()
    for i, p in enumerate(pieces):
        t = gold_template(p, kind=kind)
        for r in range(repeats):
            c = engine.generate(GenerationRequest(template=t, n=1, seed=seed + 1000 * r + i,
                                                  rhyme_system=rhyme_system))[0]
            gen.append("".join(c.lines))
            gold.append("".join(p["lines"]))
            tmpls.append(gold_template(p, with_tones=True, kind=kind))
            ok.append(c.check.ok)
        if (i + 1) % 20 == 0:
            log(f"  generated {i + 1}/{len(pieces)} ({time.time() - t0:.0f}s)")
    return gen, gold, tmpls, ok


def run(args) -> int:
    from songwriter.engine.errors import ModelLoadError
    from songwriter.engine.service import Engine, default_model_dir

    corpus_dir = Path(args.corpus)
    problem = C.split_problem(corpus_dir)
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    try:
        engine = Engine.load(args.model or default_model_dir(), backend=args.backend)
    except ModelLoadError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    pieces = test_pieces(corpus_dir, args.split)
    rng = np.random.default_rng(args.seed)
    if args.pieces:
        pieces = [pieces[i] for i in sorted(rng.permutation(len(pieces))[:args.pieces])]
    t0 = time.time()
    ppl = None
    if not args.no_perplexity:
        model = getattr(engine.backend, "model", None)
        if model is None:  # an onnxruntime engine: perplexity comes from the torch model
            from songwriter.engine.torch_backend import TorchBackend

            model = TorchBackend.from_dir(engine.model_dir, "cpu")[0].model
        ppl = perplexity(model, engine.vocab, pieces)
        print(f"{args.split} ci: {ppl['pieces']} pieces, PPL {ppl['ppl']:.2f} (all tokens), char PPL "
              f"{ppl['char_ppl']:.2f}, SongNet-style 2^NLL {ppl['songnet_ppl']:.2f}  ({time.time() - t0:.0f}s)")
    gp = [pieces[i] for i in sorted(np.random.default_rng(args.seed + 1).permutation(len(pieces))[:args.gen_pieces])]
    gen, gold, tmpls, ok = generate_all(engine, gp, args.repeats, args.seed, args.rhyme_system)
    fmt = metrics.format_scores(gen, gold)
    rhy = metrics.rhyme_scores(gen, gold)
    dis = metrics.distinct_scores(gen)
    gold_rhy = metrics.rhyme_scores(gold, gold)
    tone = tone_match(gen, gold)
    res = {"model": str(engine.model_dir), "split": args.split, "rhyme_system": args.rhyme_system,
           "perplexity": ppl,
           "generation": {"pieces": len(gp), "repeats": args.repeats, "format": fmt, "rhyme": rhy,
                          "distinct": dis, "check_pass": 100 * float(np.mean(ok)) if ok else 0.0,
                          "tone_agreement_with_gold": tone, "gold_self_rhyme": gold_rhy},
           "seconds": round(time.time() - t0)}
    if args.modern_pieces:
        res["modern"] = modern_lyrics(engine, corpus_dir, args, gen, gold)
    print(f"Format micro-F1 {fmt['micro_f1']:.2f} macro-F1 {fmt['macro_f1']:.2f} | Rhyme micro-F1 "
          f"{rhy['micro_f1']:.2f} macro-F1 {rhy['macro_f1']:.2f} | Distinct micro-1 {dis['micro_d1']:.2f} "
          f"micro-2 {dis['micro_d2']:.2f} macro-2 {dis['macro_d2']:.2f} | check() pass "
          f"{res['generation']['check_pass']:.1f}% | tone agreement with gold {tone:.1f}%")
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps(res, ensure_ascii=False, indent=1))
    if args.samples:
        with open(args.samples, "w", encoding="utf-8") as f:
            for g, r in zip(gen, gold):
                f.write(json.dumps({"generated": g, "gold": r}, ensure_ascii=False) + "\n")
    return 0


def modern_lyrics(engine, corpus_dir: Path, args, ci_gen: list[str], ci_gold: list[str]) -> dict | None:
    """Held-out modern sentences as song templates (``gold_template(kind="lyric")``): does the
    model write a song in modern Chinese, or in a 曲's register, whose long rhymed lines it looks
    like? The kind each generated piece's characters are closest to (metrics.closest_kind, from
    the training pieces' per-kind character counts), beside the gold's and the ci's."""
    pieces = test_pieces(corpus_dir, args.split, kind="modern")
    if not pieces:
        return None
    pick = np.random.default_rng(args.seed + 2).permutation(len(pieces))[:args.modern_pieces]
    pieces = [pieces[i] for i in sorted(pick)]
    gen, gold, _, ok = generate_all(engine, pieces, 1, args.seed, None, kind="lyric")
    tables = kind_tables_of_corpus(corpus_dir)
    res = {"pieces": len(pieces), "check_pass": 100 * float(np.mean(ok)),
           "distinct": metrics.distinct_scores(gen),
           "closest_kind": {"generated_lyric": metrics.kind_shares(gen, tables),
                            "gold_modern": metrics.kind_shares(gold, tables),
                            "generated_ci": metrics.kind_shares(ci_gen, tables),
                            "gold_ci": metrics.kind_shares(ci_gold, tables)},
           "samples": [{"generated": g, "gold": r} for g, r in list(zip(gen, gold))[:5]]}

    def shares(d: dict) -> str:
        return ", ".join(f"{k} {v:.0f}%" for k, v in sorted(d.items(), key=lambda kv: -kv[1]) if v)

    ck = res["closest_kind"]
    print(f"modern sentences as song templates: {len(pieces)} pieces, check() pass {res['check_pass']:.1f}% | "
          f"closest kind of the generated: {shares(ck['generated_lyric'])} (gold: {shares(ck['gold_modern'])}); "
          f"of generated ci: {shares(ck['generated_ci'])} (gold: {shares(ck['gold_ci'])})")
    return res


def tone_match(gen: list[str], gold: list[str]) -> float:
    """Percent of character positions where generated and gold characters share a 平/仄 class."""
    from songwriter.prosody import chinese

    hit = total = 0
    for g, r in zip(gen, gold):
        gs = "".join(ch for ch in g if ch not in "，。、；：？！")
        rs = "".join(ch for ch in r if ch not in "，。、；：？！")
        if len(gs) != len(rs):
            continue
        for k in range(len(rs)):
            a = chinese.tone_classes(gs[k], 0, "classical")
            b = chinese.tone_classes(rs[k], 0, "classical")
            if len(b) != 1:
                continue
            total += 1
            hit += bool(a & b)
    return 100 * hit / total if total else 0.0

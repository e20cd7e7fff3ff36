"""Content steering measured (issue 11, docs/cocon.md): relevance over tau against two baselines.

    python -m songwriter.train eval-cocon --model models/zh [--backend auto] [--out runs/eval-cocon.json]

Templates: held-out test pieces (``split.json`` "test") of three shapes, their gold forms as
``evaluate.gold_template`` makes them (lengths, punctuation, rhyme labels where the gold rhymes; no
tones, no given characters): 七绝 (4 lines of 7), 五律 (8 lines of 5) and short ci (at most
``--ci-chars`` characters). Each template gets three contents:

- ``line``: one line of another held-out piece (its marks included), one content;
- ``poem-keywords``: two words of another held-out piece, the first two characters of two of its
  lines (a regulated line opens with a two-character word), two contents;
- ``keywords``: a short keyword list written here (``KEYWORD_LISTS``), one content per word.

Rows (every row writes ``--n`` candidates per template and content, with the same seeds):

- ``none``: no content (the base model);
- ``locked``: the content as locked words: each content cut into words (runs of characters; a
  run of more than three into words of two, the last of three when the run is odd, as regulated
  lines read 2|2|3), each word placed, one after another, where the base model scores it best:
  every place in a line that leaves its last slot (the rhyme) free and overlaps no earlier word
  is tried by writing the word over the ``none`` row's best candidate there and taking the
  highest mean log-prob of the whole text (teacher-forced, the plain template); then the engine
  writes the template with those words locked (its own locking mechanism). Every content
  character is in every candidate by construction (relevance 1.0) unless a word found no place;
- ``tau=T``: the content steering the block at strength T (``GenerationRequest.strengths``), one
  row per ``--strengths``; they need a model folder with the block (``cocon.safetensors``).

Columns: relevance as the share of the content's distinct characters (those in the vocabulary)
that the candidate uses anywhere; relevance as the model's own embedding similarity (for each
content character the highest cosine of its token embedding, tied with the output layer, with
any character of the candidate; averaged: 1.0 when every character is used, credit for related
ones); fluency as the base model's perplexity of the candidate (no content, the plain template,
character positions only: exp of the token-weighted NLL); Distinct-2 (``metrics.distinct_scores``,
pooled and per piece); Format and Rhyme micro-F1 against the gold piece (``metrics``) and the share
of candidates that pass ``checks.check`` (the engine checks each one).

The acceptance probe of issue 11: ``--content 明月 --content 故乡`` on the 七绝 form
(``forms.named_form``), 16 candidates, no content and each strength: a candidate *uses the
content* when one of the words 明月, 故乡 stands whole (both characters, in order, adjacent, within
one line) in it; also reported: candidates with both words, and with any of the four characters.
"""

from __future__ import annotations

import json
import math
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

from songwriter import metrics
from songwriter.template import Template, is_hanzi
from songwriter.train import corpus as C

DEFAULT_STRENGTHS = (-2.0, 0.0, 1.0, 2.0, 5.0)
SHAPES = ("七绝", "五律", "ci")
SOURCES = ("line", "poem-keywords", "keywords")
# Short keyword lists, one content per word (the probe's 明月 / 故乡 are left to the probe).
KEYWORD_LISTS = (
    ("春风", "杨柳"), ("秋雨", "孤灯"), ("大漠", "孤烟"), ("梅花", "雪"), ("江南", "烟雨"),
    ("落日", "长河"), ("寒山", "古寺", "钟声"), ("桃花", "流水"), ("白发", "镜"), ("渔舟", "晚"),
    ("边关", "征人"), ("酒", "知己"), ("青山", "白云"), ("离别", "长亭"), ("黄昏", "归鸟"), ("竹", "清风"),
)
PROBE_CONTENT = ("明月", "故乡")
PROBE_FORM = "七绝"
PROBE_N = 16


# ---- held-out pieces and their contents ---------------------------------------------------------
def read_test_pieces(corpus_dir: Path, split: str = "test") -> list[dict]:
    """The pieces of ``split`` in corpus order, read without parsing the others' JSON."""
    with open(corpus_dir / "split.json", encoding="utf-8") as f:
        ids = set(json.load(f)[split])
    out = []
    with open(corpus_dir / "pieces.jsonl", encoding="utf-8") as f:
        for row in f:
            head = row[:200]
            at = head.find('"id": "')
            pid = head[at + 7:head.find('"', at + 7)] if at >= 0 else None
            if pid is None or pid in ids:
                p = json.loads(row)
                if p["id"] in ids:
                    out.append(p)
    return out


def shape_of(piece: dict, ci_chars: int = 60) -> str | None:
    """七绝, 五律, ci (short: at most ``ci_chars`` characters) or None."""
    lines = piece["lines"]
    bodies = [sum(is_hanzi(c) for c in ln) for ln in lines]
    if piece["kind"] == "shi" and len(lines) == 4 and all(n == 7 and len(ln) == 8 for n, ln in zip(bodies, lines)):
        return "七绝"
    if piece["kind"] == "shi" and len(lines) == 8 and all(n == 5 and len(ln) == 6 for n, ln in zip(bodies, lines)):
        return "五律"
    if piece["kind"] == "ci" and sum(bodies) <= ci_chars and all(n >= 1 for n in bodies):
        return "ci"
    return None


def make_items(pieces: list[dict], per_shape: int, seed: int, ci_chars: int = 60) -> list[dict]:
    """``per_shape`` pieces of each shape, each with its three contents (``SOURCES``), the contents
    taken from other pieces of the same held-out list."""
    rng = np.random.default_rng(seed)
    by_shape: dict[str, list[int]] = {s: [] for s in SHAPES}
    for i, p in enumerate(pieces):
        s = shape_of(p, ci_chars)
        if s:
            by_shape[s].append(i)
    donors = [i for idx in by_shape.values() for i in idx]
    items = []
    for shape in SHAPES:
        idx = by_shape[shape]
        chosen = [idx[j] for j in sorted(rng.permutation(len(idx))[:per_shape])]
        for i in chosen:
            others = [d for d in donors if d != i]
            if not others:
                raise ValueError("the held-out list has one piece only: no other piece to take content from")
            line_from = pieces[others[int(rng.integers(len(others)))]]
            line = line_from["lines"][int(rng.integers(len(line_from["lines"])))]
            kw_from = pieces[others[int(rng.integers(len(others)))]]
            openings = list(dict.fromkeys(w for w in ("".join(c for c in ln if is_hanzi(c))[:2]
                                                      for ln in kw_from["lines"]) if len(w) == 2))
            words = [openings[j] for j in sorted(rng.permutation(len(openings))[:2])] or [line[:2]]
            kw = list(KEYWORD_LISTS[len(items) // len(SOURCES) % len(KEYWORD_LISTS)])
            for source, content, donor in (("line", [line], line_from["id"]),
                                           ("poem-keywords", words, kw_from["id"]),
                                           ("keywords", kw, "")):
                items.append({"piece": pieces[i], "shape": shape, "source": source, "content": content,
                              "donor": donor})
    return items


def template_of(item: dict) -> Template:
    from songwriter.train.evaluate import gold_template

    p = item["piece"]
    return gold_template(p, kind="ci" if p["kind"] == "ci" else "shi")


# ---- measures -----------------------------------------------------------------------------------
def content_chars(content: list[str], vocab) -> set[str]:
    """The content's distinct characters that the model knows (what relevance is the share of)."""
    return {c for text in content for c in text if is_hanzi(c) and c in vocab.stoi}


def relevance_share(content: set[str], text: str) -> float:
    return len(content & set(text)) / len(content) if content else 0.0


def embedding_relevance(content: set[str], text: str, vocab, unit_emb: np.ndarray) -> float:
    """Mean over content characters of the highest embedding cosine with a character of the text."""
    out = [vocab.stoi[c] for c in set(text) if is_hanzi(c) and c in vocab.stoi]
    if not content or not out:
        return 0.0
    cin = [vocab.stoi[c] for c in sorted(content)]
    return float((unit_emb[cin] @ unit_emb[out].T).max(axis=1).mean())


def uses_word(text: str, words) -> bool:
    """A word stands whole (its characters adjacent, in order, within one line) in the text."""
    return any(w in line for line in text.splitlines() for w in words)


def char_rows(lines: list[str]) -> list[list[str]]:
    return [[c for c in ln if is_hanzi(c)] for ln in lines]


def targets_of(enc, rows: list[list[str]], vocab) -> np.ndarray:
    """Token ids of a text laid on an encoded template (marks, line ends from the template)."""
    tg = enc.given.copy()
    for p in np.nonzero(enc.slot_line >= 0)[0]:
        tg[p] = vocab.id(rows[enc.slot_line[p]][enc.slot_index[p]])
    return tg


class Scorer:
    """The base model (torch, no content) scoring texts on a template, teacher-forced."""

    def __init__(self, model_dir: Path):
        import torch

        from songwriter.engine.torch_backend import TorchBackend, build_model, read_model_dir

        cfg, self.vocab, _, state = read_model_dir(model_dir)
        self.backend = TorchBackend(build_model(cfg, state, str(model_dir)), torch.device("cpu"))
        w = self.backend.model.tok.weight.detach().float().numpy()
        self.unit_emb = w / np.maximum(np.linalg.norm(w, axis=1, keepdims=True), 1e-8)

    def char_logprobs(self, template: Template, texts: list[list[list[str]]], batch: int = 64):
        """(per text: the log-probs of its character positions) under the plain template."""
        from songwriter.engine import encoding as E

        enc = E.encode_template(template, self.vocab)
        chars = (enc.fmt == E.F_CHAR) | (enc.fmt == E.F_RHYME)
        out = []
        for a in range(0, len(texts), batch):
            part = texts[a:a + batch]
            tg = np.stack([targets_of(enc, rows, self.vocab) for rows in part])
            arrays = {k: np.repeat(v[None], len(part), 0) for k, v in enc.arrays().items()}
            lp = self.backend.score(arrays, tg, self.vocab.bos)
            out.extend(lp[r][chars] for r in range(len(part)))
        return out


def content_words(content: list[str]) -> list[str]:
    """Each content cut into words: runs of characters; a run longer than three into words of two,
    the last of three when the run is odd (2|3, 2|2|3, as regulated lines read)."""
    words = []
    for text in content:
        for run in "".join(c if is_hanzi(c) else " " for c in text).split():
            while len(run) > 3:
                words.append(run[:2])
                run = run[2:]
            words.append(run)
    return words


def place_locked(template: Template, ref_lines: list[str], words: list[str], scorer: Scorer) -> tuple[Template, int]:
    """The template with the words locked where the base model scores them best (module doc), and
    how many words found a place."""
    rows = char_rows(ref_lines)
    taken: set[tuple[int, int]] = set()
    t = template.copy()
    placed = 0
    for w in words:
        spots = [(i, k) for i, line in enumerate(t.lines) for k in range(len(line.slots) - len(w))
                 if not any((i, k + j) in taken for j in range(len(w)))]
        if not spots:
            continue
        texts = []
        for i, k in spots:
            r = [list(x) for x in rows]
            r[i][k:k + len(w)] = list(w)
            texts.append(r)
        lps = scorer.char_logprobs(template, texts)
        i, k = spots[int(np.argmax([float(lp.mean()) for lp in lps]))]
        rows[i][k:k + len(w)] = list(w)
        for j, c in enumerate(w):
            taken.add((i, k + j))
            t.lines[i].slots[k + j] = replace(t.lines[i].slots[k + j], lock=c)
        placed += 1
    return t, placed


# ---- the rows -----------------------------------------------------------------------------------
def run_row(name: str, engine, items: list[dict], scorer: Scorer, n: int, seed: int, log,
            strength: float | None = None, reference: list | None = None) -> tuple[dict, list]:
    """Generate and measure one row; ``reference`` (the ``none`` row's best candidates) is where
    the locked row places its words."""
    from songwriter.engine.api import GenerationError, GenerationRequest

    vocab = scorer.vocab
    t0, c0 = time.time(), time.process_time()
    gen, gold, ok, share, emb, nll, count, samples, failed, unplaced = [], [], [], [], [], 0.0, 0, [], 0, 0
    per_source = {s: {"share": [], "emb": []} for s in SOURCES}
    best = []
    for j, it in enumerate(items):
        tmpl = template_of(it)
        cset = content_chars(it["content"], vocab)
        req = dict(template=tmpl, n=n, seed=seed + j)
        if name == "locked":
            words = content_words(["".join(c if c in vocab.stoi else " " for c in text) for text in it["content"]])
            locked, placed = place_locked(tmpl, reference[j], words, scorer)
            unplaced += len(words) - placed
            req["template"] = locked
        elif strength is not None:
            req.update(content=list(it["content"]), strengths=[float(strength)] * len(it["content"]))
        try:
            cands = engine.generate(GenerationRequest(**req))
        except GenerationError as e:
            failed += 1
            log(f"  {name}: item {j} failed: {e}")
            best.append(None)
            continue
        best.append(cands[0].lines)
        lps = scorer.char_logprobs(tmpl, [char_rows(c.lines) for c in cands])
        for c, lp in zip(cands, lps):
            text = "\n".join(c.lines)
            gen.append("".join(c.lines))
            gold.append("".join(it["piece"]["lines"]))
            ok.append(c.check.ok)
            s, e = relevance_share(cset, text), embedding_relevance(cset, text, vocab, scorer.unit_emb)
            share.append(s)
            emb.append(e)
            per_source[it["source"]]["share"].append(s)
            per_source[it["source"]]["emb"].append(e)
            nll -= float(lp.sum())
            count += len(lp)
        if j % len(SOURCES) == 0 and len(samples) < 6:
            samples.append({"shape": it["shape"], "source": it["source"], "content": it["content"],
                            "text": cands[0].text})
        if (j + 1) % 24 == 0:
            log(f"  {name}: {j + 1}/{len(items)} ({time.time() - t0:.0f}s)")
    fmt, rhy, dis = metrics.format_scores(gen, gold), metrics.rhyme_scores(gen, gold), metrics.distinct_scores(gen)
    row = {"row": name, "strength": strength, "candidates": len(gen), "failed_requests": failed,
           "relevance_share": float(np.mean(share)) if share else 0.0,
           "relevance_embedding": float(np.mean(emb)) if emb else 0.0,
           "relevance_by_source": {s: {"share": float(np.mean(v["share"])) if v["share"] else None,
                                       "embedding": float(np.mean(v["emb"])) if v["emb"] else None}
                                   for s, v in per_source.items()},
           "ppl": math.exp(nll / count) if count else None,
           "distinct2_micro": dis["micro_d2"], "distinct2_macro": dis["macro_d2"],
           "format_micro_f1": fmt["micro_f1"], "rhyme_micro_f1": rhy["micro_f1"],
           "check_pass": 100 * float(np.mean(ok)) if ok else 0.0,
           "seconds": round(time.time() - t0, 1), "cpu_seconds": round(time.process_time() - c0, 1),
           "samples": samples}
    if name == "locked":
        row["unplaced_words"] = unplaced
    return row, best


def probe(engine, strengths, seed: int) -> list[dict]:
    """Issue 11's check: 明月 / 故乡 on a 七绝, 16 candidates, without content and at each strength."""
    from songwriter.engine.api import GenerationRequest
    from songwriter.forms import named_form

    out = []
    chars = set("".join(PROBE_CONTENT))
    for tau in [None, *strengths]:
        req = GenerationRequest(template=named_form(PROBE_FORM), n=PROBE_N, seed=seed)
        if tau is not None:
            req.content, req.strengths = list(PROBE_CONTENT), [float(tau)] * len(PROBE_CONTENT)
        cands = engine.generate(req)
        texts = [c.text for c in cands]
        out.append({"strength": tau, "candidates": len(texts),
                    "uses_a_word": sum(uses_word(t, PROBE_CONTENT) for t in texts),
                    "uses_both_words": sum(all(uses_word(t, [w]) for w in PROBE_CONTENT) for t in texts),
                    "uses_a_character": sum(bool(chars & set(t)) for t in texts),
                    "check_pass": sum(c.check.ok for c in cands), "samples": texts[:4]})
    return out


# ---- the command --------------------------------------------------------------------------------
def table(rows: list[dict]) -> str:
    head = ("| row | relevance: characters used | relevance: embedding | PPL (base, characters) | "
            "Distinct-2 micro / macro | Format micro-F1 | Rhyme micro-F1 | check() pass | candidates |")
    out = [head, "|" + "---|" * 9]
    for r in rows:
        out.append(f"| {r['row']} | {100 * r['relevance_share']:.1f} % | {r['relevance_embedding']:.3f} | "
                   f"{r['ppl']:.1f} | {r['distinct2_micro']:.1f} / {r['distinct2_macro']:.1f} | "
                   f"{r['format_micro_f1']:.2f} | {r['rhyme_micro_f1']:.2f} | {r['check_pass']:.1f} % | "
                   f"{r['candidates']} |")
    return "\n".join(out)


def probe_table(rows: list[dict]) -> str:
    out = ["| strength | uses 明月 or 故乡 whole | both words | any of 明月故乡's characters | check() pass |",
           "|---|---|---|---|---|"]
    for r in rows:
        name = "no content" if r["strength"] is None else f"tau {r['strength']:g}"
        n = r["candidates"]
        out.append(f"| {name} | {r['uses_a_word']}/{n} | {r['uses_both_words']}/{n} | "
                   f"{r['uses_a_character']}/{n} | {r['check_pass']}/{n} |")
    return "\n".join(out)


def evaluate(model_dir: Path, corpus_dir: Path, backend: str = "auto", strengths=DEFAULT_STRENGTHS,
             per_shape: int = 8, n: int = 4, seed: int = 0, ci_chars: int = 60, split: str = "test",
             log=print) -> dict:
    from songwriter.engine.service import Engine

    t0, c0 = time.time(), time.process_time()
    engine = Engine.load(model_dir, backend=backend)
    scorer = Scorer(model_dir)
    items = make_items(read_test_pieces(corpus_dir, split), per_shape, seed, ci_chars)
    log(f"{len(items)} template/content pairs ({per_shape} templates of each of {', '.join(SHAPES)} x "
        f"{len(SOURCES)} contents), {n} candidates each, backend {engine.backend_name}")
    note = ""
    if not engine.supports_content:
        note = (f"{model_dir} has no content-steering block (cocon.safetensors), or the backend cannot run "
                "it: only the baselines are measured; the steered rows need a block (python -m "
                f"songwriter.train train-cocon --base {model_dir} --install {model_dir}, docs/cocon.md)")
        log(f"note: {note}")
    rows = []
    row, best = run_row("none", engine, items, scorer, n, seed, log)
    rows.append(row)
    # where the none row wrote nothing (a failed request), the words are placed over the gold text
    reference = [b if b is not None else it["piece"]["lines"] for b, it in zip(best, items)]
    rows.append(run_row("locked", engine, items, scorer, n, seed, log, reference=reference)[0])
    if engine.supports_content:
        for tau in strengths:
            rows.append(run_row(f"tau={tau:g}", engine, items, scorer, n, seed, log, strength=tau)[0])
    pr = probe(engine, list(strengths) if engine.supports_content else [], seed)
    return {"model": str(model_dir), "backend": engine.backend_name, "supports_content": engine.supports_content,
            "note": note, "split": split, "per_shape": per_shape, "n": n, "seed": seed, "ci_chars": ci_chars,
            "strengths": list(strengths), "items": [{"piece": it["piece"]["id"], "shape": it["shape"],
                                                     "source": it["source"], "content": it["content"],
                                                     "donor": it["donor"]} for it in items],
            "rows": rows, "probe": pr, "seconds": round(time.time() - t0),
            "cpu_seconds": round(time.process_time() - c0)}


def add_arguments(ap) -> None:
    from songwriter.train.args import DEFAULT_CORPUS

    ap.add_argument("--model", default=None, help="model folder (default models/zh)")
    ap.add_argument("--corpus", default=str(DEFAULT_CORPUS), help="folder made by build-corpus")
    ap.add_argument("--split", default="test", choices=("dev", "test"))
    ap.add_argument("--backend", default="auto", help="auto, onnx, onnx-int8, onnx-fp32, torch, ...")
    ap.add_argument("--strengths", default=",".join(f"{x:g}" for x in DEFAULT_STRENGTHS),
                    help="the tau of each steered row, comma-separated (--strengths=-2,0,1 when the first is negative)")
    ap.add_argument("--per-shape", type=int, default=8, help="held-out templates of each of 七绝, 五律, short ci")
    ap.add_argument("--n", type=int, default=4, help="candidates per template and content")
    ap.add_argument("--ci-chars", type=int, default=60, help="a short ci has at most this many characters")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default="runs/eval-cocon.json", help="write the figures as JSON here")
    ap.add_argument("--probe-only", action="store_true",
                    help="only the probe (明月 / 故乡 on a 七绝): a minute's check of a block during training")


def register(subparsers) -> None:
    p = subparsers.add_parser("eval-cocon", help="content steering against no content and locked words "
                                                  "(issue 11; docs/results.md)")
    add_arguments(p)
    p.set_defaults(func=run)


def run_probe_only(model_dir: Path, backend: str, strengths, seed: int) -> int:
    from songwriter.engine.errors import ModelLoadError
    from songwriter.engine.service import Engine

    try:
        engine = Engine.load(model_dir, backend=backend)
    except ModelLoadError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if not engine.supports_content:
        print(f"error: {model_dir} has no content-steering block the {engine.backend_name} backend can run",
              file=sys.stderr)
        return 2
    rows = probe(engine, strengths, seed)
    print(probe_table(rows))
    for r in rows:
        print(f"strength {r['strength']}:", " / ".join(t.replace(chr(10), "") for t in r["samples"][:2]))
    return 0


def run(args) -> int:
    from songwriter.engine.errors import ModelLoadError
    from songwriter.engine.service import default_model_dir

    try:
        strengths = [float(x) for x in args.strengths.split(",") if x.strip()]
    except ValueError:
        print(f"error: --strengths: {args.strengths!r} is not a comma-separated list of numbers", file=sys.stderr)
        return 2
    model_dir = Path(args.model) if args.model else default_model_dir()
    if args.probe_only:          # the probe needs no corpus
        return run_probe_only(model_dir, args.backend, strengths, args.seed)
    corpus_dir = Path(args.corpus)
    problem = C.split_problem(corpus_dir)
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    try:
        res = evaluate(model_dir, corpus_dir, args.backend, strengths, args.per_shape, args.n, args.seed,
                       args.ci_chars, args.split)
    except ModelLoadError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(table(res["rows"]))
    print()
    print(f"probe: {', '.join(PROBE_CONTENT)} on {PROBE_FORM}, {PROBE_N} candidates; a candidate uses the content "
          "when one of the words stands whole in one line")
    print(probe_table(res["probe"]))
    if res["note"]:
        print(f"\nnote: {res['note']}")
    print(f"({res['seconds']} s wall, {res['cpu_seconds']} s of this process's CPU time)")
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps(res, ensure_ascii=False, indent=1), encoding="utf-8")
    return 0

"""Build the Chinese training corpus: classical shi, ci and qu plus modern prose cut into lines.

Input: the chinese-poetry npm package (unpacked ``dist/`` folder) and ../shared/data/zh_modern/.
Output (never committed): ``<out>/pieces.jsonl`` (one piece a line: id, kind, tune, lines),
``<out>/split.json`` (held-out ids and tunes) and ``<out>/stats.json``.

A piece's lines are sentences cut after punctuation, each ending in one of ``PUNCT``; that is the
shape the engine's templates have. Run: ``python -m songwriter.train build-corpus``.
"""

from __future__ import annotations

import glob
import hashlib
import json
import os
import random
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path

from songwriter.template import is_hanzi

PUNCT = "，。、；：？！"
_HALF_TO_FULL = {",": "，", ".": "。", "?": "？", "!": "！", ":": "：", ";": "；",
                 "﹐": "，", "﹒": "。", "．": "。", "､": "、", "…": "。", "—": "，"}
_DROP = set("「」『』“”‘’\"'《》〈〉·・ 　\t")
_BRACKETS = re.compile(r"\([^()]*\)|（[^（）]*）|\[[^\[\]]*\]|【[^【】]*】|〔[^〔〕]*〕|\{[^{}]*\}")
DEFAULT_SEED = 20201
MODERN_DIR = Path(__file__).resolve().parents[3] / "shared" / "data" / "zh_modern"
CACHE = Path(os.environ.get("SONGWRITER_CACHE", Path.home() / ".cache" / "songwriter"))
DEFAULT_SOURCE = CACHE / "chinese-poetry-2.0.1" / "dist"
DEFAULT_OUT = Path(__file__).resolve().parents[2] / "runs" / "corpus" / "zh"


def _converter():
    import opencc

    return opencc.OpenCC("t2s")


def clean_lines(paragraphs: list[str], convert=None) -> list[str] | None:
    """Paragraphs of a piece -> lines each ending in punctuation; None when the piece is unusable
    (damaged by □, non-Chinese characters, empty)."""
    text = "".join(paragraphs)
    if "□" in text or "■" in text or "\ufffd" in text:
        return None
    if convert is not None:
        text = convert(text)
    prev = None
    while prev != text:  # nested brackets: peel from the inside
        prev, text = text, _BRACKETS.sub("", text)
    out_chars = []
    for ch in text:
        if ch in _DROP or ch.isspace():
            continue
        ch = _HALF_TO_FULL.get(ch, ch)
        if ch in PUNCT or is_hanzi(ch):
            out_chars.append(ch)
        else:
            return None
    lines, cur = [], ""
    for ch in out_chars:
        if ch in PUNCT:
            if cur:
                lines.append(cur + ch)
                cur = ""
            # punctuation right after punctuation (or at the start) is dropped
        else:
            cur += ch
    if cur:
        lines.append(cur + "。")
    if not lines:
        return None
    return lines


def _shi(source: Path, convert) -> list[dict]:
    out = []
    files = sorted(glob.glob(str(source / "quantangshi" / "poet.*.json")))
    for f in files:
        era = "tang" if ".tang." in f else "song"
        for k, p in enumerate(json.load(open(f, encoding="utf-8"))):
            lines = clean_lines(p.get("paragraphs") or [], convert)
            if lines:
                pid = p.get("id") or f"{Path(f).stem}:{k}"
                out.append({"id": f"shi:{era}:{pid}", "kind": "shi", "lines": lines})
    return out


def _ci(source: Path, convert) -> list[dict]:
    out = []
    for f in sorted(glob.glob(str(source / "songci" / "ci.song.*.json"))):
        for k, p in enumerate(json.load(open(f, encoding="utf-8"))):
            lines = clean_lines(p.get("paragraphs") or [], convert)
            tune = (p.get("rhythmic") or "").strip()
            if lines and tune:
                tune = convert(tune)
                out.append({"id": f"ci:{Path(f).stem}:{k}", "kind": "ci", "tune": tune, "lines": lines})
    return out


def _qu(source: Path, convert) -> list[dict]:
    out = []
    for f in sorted(glob.glob(str(source / "yuanqu" / "*.json"))):
        for k, p in enumerate(json.load(open(f, encoding="utf-8"))):
            lines = clean_lines(p.get("paragraphs") or [], convert)
            if lines:
                out.append({"id": f"qu:{k}", "kind": "qu", "lines": lines})
    return out


def _modern_sentences(folder: Path, convert):
    """Yield (source, text block) pairs from the modern corpora."""
    f = folder / "commonvoice_zh_cn_sentences.txt"
    if f.exists():
        for line in open(f, encoding="utf-8", errors="replace"):
            yield "commonvoice", line.strip()
    f = folder / "tatoeba_cmn_sentences.tsv"
    if f.exists():
        for line in open(f, encoding="utf-8", errors="replace"):
            parts = line.rstrip("\n").split("\t")
            if len(parts) >= 3:
                yield "tatoeba", convert(parts[2])
    for name, key in (("pd_modern_lit.jsonl", "text"), ("luxun_works.jsonl", "text"),
                      ("cuv1919_simplified_verses.jsonl", "text")):
        f = folder / name
        if not f.exists():
            continue
        for line in open(f, encoding="utf-8", errors="replace"):
            obj = json.loads(line)
            for para in str(obj.get(key, "")).split("\n"):
                yield name.split("_")[0], convert(para)
    f = folder / "kdconv_dev_test_dialogues.jsonl"
    if f.exists():
        for line in open(f, encoding="utf-8", errors="replace"):
            for turn in json.loads(line).get("turns", []):
                yield "kdconv", turn


def _modern(folder: Path, convert, rng: random.Random) -> list[dict]:
    """Modern sentences cut at punctuation, grouped into pseudo-pieces of 4-8 lines."""
    out, buf, src_of = [], [], None
    n = 0

    def flush():
        nonlocal buf, n
        if len(buf) >= 2:
            piece = {"id": f"modern:{src_of}:{n}", "kind": "modern", "lines": buf}
            if src_of in OWN_MIX_GROUP:
                piece["mix"] = OWN_MIX_GROUP[src_of]
            out.append(piece)
            n += 1
        buf = []

    target = rng.randint(4, 8)
    for src, block in _modern_sentences(folder, convert):
        if not block:
            continue
        if src != src_of:
            flush()
            src_of = src
        # keep only the clean clauses; a clause with digits/latin breaks the current piece
        lines = clean_lines_modern(block)
        if lines is None:
            flush()
            continue
        for ln in lines:
            if 2 <= len(ln) - 1 <= 16:
                buf.append(ln)
                if len(buf) >= target:
                    flush()
                    target = rng.randint(4, 8)
            else:
                flush()
    flush()
    return out


POEMS_FILE = "zh_modern_poems_pd.jsonl"
POEMS_HELD_OUT = 0.06   # of the modern poems, each for dev and for test


# modern sources drawn at a share of their own (``--mix bible=…``): the 1919 Bible's verses are a
# fifth of the modern text and its register (你们要…, 耶和华) took over the modern lyrics written
OWN_MIX_GROUP = {"cuv1919": "bible"}


def mix_group(piece: dict) -> str:
    """The share of the training mix a piece is drawn in (``--mix``): its kind, or a narrower
    group inside it (the modern poems, the Bible: modern Chinese drawn at shares of their own)."""
    return piece.get("mix", piece["kind"])


# modern sources of everyday speech (short sentences of conversation): a register of their own in
# the kind channel, a fifth of the modern pieces whose 汤姆, 玛丽 and 看电影 readers found in our lyrics
SPEECH_SOURCES = frozenset({"tatoeba", "commonvoice", "kdconv"})


def channel_kind(kind: str, mix: str, piece_id: str) -> str:
    """The kind a piece is shown to the model as (``encoding.KIND_IDS``): its kind, except that
    modern Chinese is split into the modern poems (``poem``), everyday speech (``speech``) and
    the rest (``modern``). Read from the piece's mix group and the source in its id
    (``modern:tatoeba:17``), so a corpus built before the split needs no rebuild."""
    if kind != "modern":
        return kind
    if mix == "poem":
        return "poem"
    parts = piece_id.split(":")
    return "speech" if len(parts) > 1 and parts[1] in SPEECH_SOURCES else "modern"


def report_group(piece: dict) -> str:
    """The group a held-out piece is measured in: its kind, except the modern poems (``poem``),
    measured apart as the register nearest to lyrics."""
    return "poem" if mix_group(piece) == "poem" else piece["kind"]


def _modern_poems(folder: Path, convert) -> list[dict]:
    """The public-domain modern poems (新诗), one piece each: the register nearest to lyrics.
    A line of the poem gives one line per clause (a clause ends at punctuation); a line holding
    latin letters or digits is left out, and so is a clause longer than 20 characters."""
    f = folder / POEMS_FILE
    if not f.exists():
        return []
    out = []
    for n, row in enumerate(open(f, encoding="utf-8")):
        lines = []
        for raw in json.loads(row).get("text", "").split("\n"):
            clauses = clean_lines_modern(convert(raw.strip())) if raw.strip() else None
            lines.extend(c for c in clauses or [] if len(c) - 1 <= 20)
        if len(lines) >= 2:
            out.append({"id": f"modern:poem:{n}", "kind": "modern", "mix": "poem", "lines": lines})
    return out


def clean_lines_modern(block: str) -> list[str] | None:
    block = _BRACKETS.sub("", block)
    chars = []
    for ch in block:
        if ch in _DROP or ch.isspace():
            continue
        ch = _HALF_TO_FULL.get(ch, ch)
        if ch in PUNCT or is_hanzi(ch):
            chars.append(ch)
        else:
            return None
    return clean_lines(["".join(chars)]) if chars else None


def _canonical():
    try:
        from songwriter.prosody.cipai import canonical_tune

        return canonical_tune, "songwriter.prosody.cipai.canonical_tune + alias components"
    except Exception:  # the cipai module is not there yet: alias components only
        return None, "alias components (names split at ・/·)"


_ALIAS_SPLIT = re.compile(r"[・·•/／]")


def tune_groups(tunes) -> dict[str, str]:
    """Tune name -> group key. Names sharing any alias component ("南柯子・南歌子" and "南歌子")
    or the same canonical tune fall in one group, so no alias of a held-out tune is trained on."""
    canon, _ = _canonical()
    parent: dict[str, str] = {}

    def find(x):
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    def union(a, b):
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)

    for t in tunes:
        keys = ["n:" + t] + ["c:" + c.strip() for c in _ALIAS_SPLIT.split(t) if c.strip() and "□" not in c]
        if canon is not None:
            try:
                keys.append("k:" + (canon(t) or t))
            except Exception:
                pass
        for k in keys[1:]:
            union(keys[0], k)
    return {t: find("n:" + t) for t in tunes}


def make_split(pieces: list[dict], seed: int = DEFAULT_SEED, n_tunes: int = 25,
               shi_share: float = 0.01) -> dict:
    """Held-out ids: whole ci tunes (alias groups) for dev/test, 1% of shi and of modern each."""
    _, method = _canonical()
    ci = [p for p in pieces if p["kind"] == "ci"]
    group_of = tune_groups(sorted({p["tune"] for p in ci}))
    by_group: dict[str, list[str]] = defaultdict(list)
    names: dict[str, Counter] = defaultdict(Counter)
    for p in ci:
        g = group_of[p["tune"]]
        by_group[g].append(p["id"])
        names[g][p["tune"]] += 1
    eligible = sorted(g for g, ids in by_group.items() if 10 <= len(ids) <= 200)
    rng = random.Random(seed)
    chosen = rng.sample(eligible, 2 * n_tunes)

    def label(g):  # the group's most used name, with its aliases
        return " / ".join(n for n, _ in names[g].most_common())

    dev_g, test_g = sorted(chosen[:n_tunes]), sorted(chosen[n_tunes:])
    shi_ids = sorted(p["id"] for p in pieces if p["kind"] == "shi")
    rng.shuffle(shi_ids)
    k = max(1, int(len(shi_ids) * shi_share))
    # modern sentences too, drawn after the shi so adding them left the classical split unchanged;
    # the modern dev share is what the classical/modern mix is chosen on
    modern_ids = sorted(p["id"] for p in pieces if p["kind"] == "modern" and mix_group(p) != "poem")
    rng.shuffle(modern_ids)
    km = int(len(modern_ids) * shi_share)
    # the modern poems last, so adding them left every earlier split unchanged; they are few, so
    # a larger share of them is held out (a dev figure of the register nearest to lyrics)
    poem_ids = sorted(p["id"] for p in pieces if mix_group(p) == "poem")
    rng.shuffle(poem_ids)
    kp = max(1, int(len(poem_ids) * POEMS_HELD_OUT)) if poem_ids else 0
    return {
        "seed": seed, "tune_grouping": method,
        "dev_tunes": {label(g): len(by_group[g]) for g in dev_g},
        "test_tunes": {label(g): len(by_group[g]) for g in test_g},
        "dev": sorted([i for g in dev_g for i in by_group[g]] + shi_ids[:k] + modern_ids[:km]
                      + poem_ids[:kp]),
        "test": sorted([i for g in test_g for i in by_group[g]] + shi_ids[k:2 * k] + modern_ids[km:2 * km]
                       + poem_ids[kp:2 * kp]),
    }


def write_pieces(out: Path, pieces: list[dict]) -> str:
    """``<out>/pieces.jsonl``, one piece a line; returns the sha256 of what was written (the
    corpus hash that splits, stats and model manifests record)."""
    out.mkdir(parents=True, exist_ok=True)
    h = hashlib.sha256()
    with open(out / "pieces.jsonl", "w", encoding="utf-8") as f:
        for p in pieces:
            line = json.dumps(p, ensure_ascii=False) + "\n"
            h.update(line.encode("utf-8"))
            f.write(line)
    return h.hexdigest()


def build(source: Path = DEFAULT_SOURCE, out: Path = DEFAULT_OUT, modern: Path | None = MODERN_DIR,
          seed: int = DEFAULT_SEED, log=print) -> dict:
    source, out = Path(source), Path(out)
    if not (source / "songci").is_dir():
        raise FileNotFoundError(
            f"{source} does not look like chinese-poetry's dist/ folder (no songci/); run "
            f"`npm pack chinese-poetry@2.0.1` in {CACHE}, unpack it, or pass --source")
    convert = _converter().convert
    rng = random.Random(seed)
    pieces: list[dict] = []
    for name, fn in (("shi", _shi), ("ci", _ci), ("qu", _qu)):
        got = fn(source, convert)
        log(f"{name}: {len(got)} pieces read")
        pieces.extend(got)
    if modern is not None and Path(modern).is_dir():
        got = _modern(Path(modern), convert, rng)
        log(f"modern: {len(got)} pseudo-pieces")
        pieces.extend(got)
        poems = _modern_poems(Path(modern), convert)
        log(f"modern poems: {len(poems)} pieces")
        pieces.extend(poems)
    seen, unique = set(), []
    for p in pieces:
        key = "".join(p["lines"])
        if key in seen:
            continue
        seen.add(key)
        unique.append(p)
    log(f"dropped {len(pieces) - len(unique)} exact duplicates")
    pieces = unique
    split = make_split(pieces, seed)
    corpus_hash = write_pieces(out, pieces)
    split["corpus_sha256"] = corpus_hash
    with open(out / "split.json", "w", encoding="utf-8") as f:
        json.dump(split, f, ensure_ascii=False, indent=1)
    stats = corpus_stats(pieces, split)
    stats["corpus_sha256"] = corpus_hash
    with open(out / "stats.json", "w", encoding="utf-8") as f:
        json.dump(stats, f, ensure_ascii=False, indent=1)
    log(json.dumps(stats, ensure_ascii=False, indent=1))
    return stats


def corpus_stats(pieces: list[dict], split: dict) -> dict:
    held = {"dev": set(split["dev"]), "test": set(split["test"])}
    counts = Counter()
    chars = Counter()
    vocab = Counter()
    for p in pieces:
        part = "dev" if p["id"] in held["dev"] else "test" if p["id"] in held["test"] else "train"
        counts[f"{mix_group(p)}:{part}"] += 1
        n = sum(len(ln) for ln in p["lines"])
        chars[f"{mix_group(p)}:{part}"] += n
        if part == "train":
            vocab.update(ch for ln in p["lines"] for ch in ln)
    return {"pieces": dict(sorted(counts.items())), "chars": dict(sorted(chars.items())),
            "distinct_chars_train": len(vocab),
            "chars_with_count_ge_3": sum(1 for c in vocab.values() if c >= 3),
            "dev_tunes": split["dev_tunes"], "test_tunes": split["test_tunes"]}


def load_pieces(folder: Path = DEFAULT_OUT):
    with open(Path(folder) / "pieces.jsonl", encoding="utf-8") as f:
        for line in f:
            yield json.loads(line)


def split_problem(folder: Path) -> str | None:
    """Why an evaluation cannot read the corpus's held-out split from ``folder``, or None."""
    if not (Path(folder) / "split.json").exists():
        return f"no corpus split at {folder}; run build-corpus first"
    return None


def load_split(folder: Path = DEFAULT_OUT) -> dict:
    with open(Path(folder) / "split.json", encoding="utf-8") as f:
        return json.load(f)


def main(argv=None) -> int:
    import argparse

    ap = argparse.ArgumentParser(prog="build-corpus", description=__doc__.split("\n")[0])
    add_arguments(ap)
    args = ap.parse_args(argv)
    return run(args)


def add_arguments(ap) -> None:
    ap.add_argument("--source", default=str(DEFAULT_SOURCE), help="chinese-poetry dist/ folder")
    ap.add_argument("--modern", default=str(MODERN_DIR), help="zh_modern folder ('' to skip)")
    ap.add_argument("--out", default=str(DEFAULT_OUT))
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED)


def run(args) -> int:
    try:
        build(Path(args.source), Path(args.out), Path(args.modern) if args.modern else None, args.seed)
    except FileNotFoundError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())

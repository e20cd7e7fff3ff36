"""Build the planner's statistics from the corpus: ``python -m songwriter.train build-plan``.

Reads the training split of a corpus folder made by ``build-corpus`` (``pieces.jsonl`` and
``split.json``: dev and test pieces are left out) and writes the compact JSON that
:mod:`songwriter.plan.stats` loads. numpy only (no torch). docs/plan.md explains the method:

1. words: every character, and every adjacent pair of characters within a line that the corpus
   uses as a word: frequent (``--min-bigram`` occurrences), cohesive (the pair's own PMI at least
   ``--min-cohesion``) and, in regulated five- and seven-character lines, found more often on the
   line's word boundaries (the 2|3 and 2|2|3 rhythm) than across them;
2. counts: in how many poems each word occurs, and where in its poem (first line 0, last line 1);
3. PMI of two words within poems, with a floor on the pair's count, a discount on the pair's count
   and the context distribution smoothed (count^0.75); each word keeps its best neighbours.
"""

from __future__ import annotations

import json
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from songwriter.plan.stats import FORMAT_ID, SCORE_SCALE, VERSION, PlanStats

DEFAULT_KINDS = ("shi", "ci", "qu", "poem")   # "poem": the modern poems; modern prose and the bible are left out


def piece_group(piece: dict) -> str:
    """A piece's kind for --kinds: shi, ci, qu, poem (modern poems), modern (prose), bible."""
    mix = piece.get("mix")
    return mix if mix in ("poem", "bible") else piece.get("kind", "")


_HANZI_RUN = re.compile("[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002fa1f]+")


def hanzi_runs(line: str) -> list[str]:
    """A line's runs of Chinese characters (punctuation and anything else split them; the
    ranges of ``template.is_hanzi``)."""
    return _HANZI_RUN.findall(line)


# In a regulated line of five characters (2|3) a word of two starts at 0 and no word crosses 1|2;
# in one of seven (2|2|3) words of two start at 0 and 2 and none crosses 1|2 or 3|4. The last three
# characters read 2|1 or 1|2, so pairs there say nothing either way.
ALIGNED = {5: (0,), 7: (0, 2)}
CROSSING = {5: (1,), 7: (1, 3)}


def training_pieces(corpus: Path, kinds: tuple[str, ...]):
    """The training pieces of ``corpus`` of the given kinds (dev and test ids of split.json left out)."""
    with open(corpus / "split.json", encoding="utf-8") as f:
        split = json.load(f)
    held = set(split.get("dev", ())) | set(split.get("test", ()))
    with open(corpus / "pieces.jsonl", encoding="utf-8") as f:
        for row in f:
            p = json.loads(row)
            if p["id"] in held or piece_group(p) not in kinds:
                continue
            yield p


class Corpus:
    """The pieces as flat numpy arrays: every character's code, and per run of characters (a line
    or a part of one between marks) its piece and its line in the piece."""

    def __init__(self, pieces):
        import numpy as np

        texts: list[str] = []
        run_doc: list[int] = []
        run_line: list[int] = []
        n_lines: list[int] = []
        for p in pieces:
            li = 0
            for line in p["lines"]:
                runs = hanzi_runs(line)
                if not runs:
                    continue
                texts += runs
                run_doc += [len(n_lines)] * len(runs)
                run_line += [li] * len(runs)
                li += 1
            if li:
                n_lines.append(li)
        self.n_docs = len(n_lines)
        self.n_lines = np.array(n_lines, dtype=np.int64)
        run_len = np.fromiter((len(t) for t in texts), dtype=np.int64, count=len(texts))
        cps = np.frombuffer("".join(texts).encode("utf-32-le"), dtype=np.uint32).astype(np.int64)
        self.chars, self.cid = np.unique(cps, return_inverse=True)         # code points, per-char id
        self.cid = self.cid.astype(np.int64)
        self.doc = np.repeat(np.array(run_doc, dtype=np.int64), run_len)
        self.line = np.repeat(np.array(run_line, dtype=np.int64), run_len)
        starts = np.cumsum(run_len) - run_len
        self.pos = np.arange(cps.size, dtype=np.int64) - np.repeat(starts, run_len)   # place in its run
        self.run_len = np.repeat(run_len, run_len)
        # pairs: a character and the next one of its run
        self.pair_at = np.flatnonzero(self.pos < self.run_len - 1)
        self.pair_code = self.cid[self.pair_at] * len(self.chars) + self.cid[self.pair_at + 1]

    def char(self, i: int) -> str:
        return chr(int(self.chars[i]))

    def pair(self, code: int) -> str:
        c = len(self.chars)
        return self.char(code // c) + self.char(code % c)


def choose_pairs(c: Corpus, min_count: int, min_cohesion: float, min_regulated: int = 10):
    """The pair codes kept as words (sorted): frequent, cohesive, and, where regulated lines hold
    it at least ``min_regulated`` times at places that tell, found on their word boundaries at least
    as often as across them."""
    import numpy as np

    codes, counts = np.unique(c.pair_code, return_counts=True)
    char_n = np.bincount(c.cid, minlength=len(c.chars)).astype(np.float64)
    n_chars, n_pairs = char_n.sum(), max(1, counts.sum())
    first, second = codes // len(c.chars), codes % len(c.chars)
    cohesion = np.log((counts / n_pairs) / ((char_n[first] / n_chars) * (char_n[second] / n_chars)))

    def counted(mask):
        got, n = np.unique(c.pair_code[mask], return_counts=True)
        out = np.zeros(codes.size, dtype=np.int64)
        out[np.searchsorted(codes, got)] = n
        return out

    pos, length = c.pos[c.pair_at], c.run_len[c.pair_at]

    def at_places(places: dict[int, tuple[int, ...]]):
        mask = np.zeros(pos.size, dtype=bool)
        for n, starts in places.items():
            for p in starts:
                mask |= (length == n) & (pos == p)
        return mask

    aligned, crossing = counted(at_places(ALIGNED)), counted(at_places(CROSSING))
    regulated = aligned + crossing
    keep = (counts >= min_count) & (cohesion >= min_cohesion) & ~((regulated >= min_regulated) & (aligned < crossing))
    return codes[keep]


def first_occurrences(doc, word, line, n_words: int):
    """(doc, word, first line) of each word of each document, sorted by document then word."""
    import numpy as np

    key = doc * n_words + word
    order = np.argsort(key, kind="stable")
    key_sorted = key[order]
    starts = np.flatnonzero(np.r_[True, key_sorted[1:] != key_sorted[:-1]])
    first_line = np.minimum.reduceat(line[order], starts)
    k = key_sorted[starts]
    return k // n_words, k % n_words, first_line


def cooccurrence(doc, word, n_docs: int, n_words: int, batch_pairs: int = 20_000_000):
    """The words x words matrix of documents holding both (int64; the diagonal: documents holding
    the word), from (doc, word) sorted by doc with no repeats. Counted with bincount over the
    pairs of a batch of documents at a time."""
    import numpy as np

    counts = np.zeros(n_words * n_words, dtype=np.int64)
    lens = np.bincount(doc, minlength=n_docs)
    starts = np.cumsum(lens) - lens
    cost = np.cumsum(lens * lens)
    lo = 0
    while lo < n_docs:
        hi = int(np.searchsorted(cost, (cost[lo - 1] if lo else 0) + batch_pairs, side="right"))
        hi = max(hi, lo + 1)
        L = lens[lo:hi]
        ids = word[starts[lo]:starts[lo] + L.sum()]
        first = np.repeat(np.cumsum(L) - L, L)         # per element: its document's first element
        rep = np.repeat(L, L)                           # per element: its document's length
        left = np.repeat(ids, rep)
        offset = np.arange(left.size, dtype=np.int64) - np.repeat(np.cumsum(rep) - rep, rep)
        right = ids[np.repeat(first, rep) + offset]
        counts += np.bincount(left * n_words + right, minlength=n_words * n_words)
        lo = hi
    return counts.reshape(n_words, n_words)


@dataclass
class Counts:
    """What the corpus says, before PMI: the vocabulary, co-occurrence and places."""
    words: list[str]
    co: object              # numpy (V, V): poems holding both words; the diagonal, poems holding one
    pos_sum: object         # numpy (V,): sum of the words' relative first lines (0 first, 1 last)
    pos_n: object           # numpy (V,): poems of two or more lines holding the word
    pieces: int


def count_corpus(corpus: Path, kinds: tuple[str, ...] = DEFAULT_KINDS, max_words: int = 8000, min_df: int = 30,
                 min_bigram: int = 20, min_cohesion: float = 1.0, min_regulated: int = 10, max_chars: int = 2500,
                 log=print) -> Counts:
    """Read the training pieces, choose the words, count where they occur and with what."""
    import numpy as np

    t0 = time.perf_counter()
    c = Corpus(training_pieces(Path(corpus), kinds))
    if not c.n_docs:
        raise ValueError(f"no training pieces of kinds {', '.join(kinds)} in {corpus}")
    log(f"{c.n_docs:,} training pieces ({', '.join(kinds)}), {c.cid.size:,} characters, "
        f"read in {time.perf_counter() - t0:.0f} s")
    kept = choose_pairs(c, min_bigram, min_cohesion, min_regulated)
    log(f"{len(c.chars):,} characters, {kept.size:,} pairs kept as words")

    # every occurrence of a candidate word: characters as ids 0..C-1, kept pairs as C + their rank
    C = len(c.chars)
    at = np.minimum(np.searchsorted(kept, c.pair_code), max(0, kept.size - 1))
    is_word = kept[at] == c.pair_code if kept.size else np.zeros(c.pair_code.size, bool)
    occ_word = np.concatenate([c.cid, C + at[is_word]])
    occ_doc = np.concatenate([c.doc, c.doc[c.pair_at[is_word]]])
    occ_line = np.concatenate([c.line, c.line[c.pair_at[is_word]]])
    d, w, first_line = first_occurrences(occ_doc, occ_word, occ_line, C + kept.size)
    df = np.bincount(w, minlength=C + kept.size)

    # the vocabulary: the words in at least min_df poems, the max_chars most frequent characters
    # and as many of the most frequent pairs as fit in max_words (a rare character makes a poor
    # keyword; 边塞 or 茱萸 a good one)
    names = [c.char(i) for i in range(C)] + [c.pair(int(x)) for x in kept]
    frequent = [int(i) for i in np.flatnonzero(df >= min_df)]
    frequent.sort(key=lambda i: (-df[i], names[i]))
    singles = [i for i in frequent if i < C][:max_chars]
    cand = singles + [i for i in frequent if i >= C][:max(0, max_words - len(singles))]
    cand.sort(key=lambda i: (len(names[i]), -df[i], names[i]))   # characters first, frequent first
    V = len(cand)
    vocab_of = np.full(C + kept.size, -1, dtype=np.int64)
    vocab_of[np.array(cand, dtype=np.int64)] = np.arange(V)
    words = [names[i] for i in cand]
    log(f"{V:,} words in the vocabulary ({sum(1 for x in words if len(x) == 2):,} of two characters)")

    v = vocab_of[w]
    keep = v >= 0
    d, v, first_line = d[keep], v[keep], first_line[keep]          # still sorted by doc
    lines_of = c.n_lines[d]
    multi = lines_of > 1
    rel = np.where(multi, first_line / np.maximum(1, lines_of - 1), 0.0)
    pos_sum = np.bincount(v[multi], weights=rel[multi], minlength=V)
    pos_n = np.bincount(v[multi], minlength=V)
    pieces = int(np.unique(d).size)
    co = cooccurrence(d, v, c.n_docs, V)
    log(f"co-occurrence in {pieces:,} poems counted in {time.perf_counter() - t0:.0f} s")
    return Counts(words, co, pos_sum, pos_n, pieces)


def related_spelling_zh(words: list[str]):
    """Per word index, the indices it may not take as neighbours: the words that share a character
    with it (明月 / 月 / 月明: that association is the spelling, not the subject), and for a single
    character the other half of a word it spells (思 / 量: 思量)."""
    index = {x: j for j, x in enumerate(words)}
    by_char: dict[str, list[int]] = {}
    for j, x in enumerate(words):
        for ch in set(x):
            by_char.setdefault(ch, []).append(j)

    def related(i: int) -> list[int]:
        out = [j for ch in set(words[i]) for j in by_char[ch]]
        if len(words[i]) == 1:
            for j in by_char[words[i]]:
                if len(words[j]) == 2:
                    other = index.get(words[j].replace(words[i], "", 1))
                    if other is not None:
                        out.append(other)
        return out

    return related


def neighbor_lists(counts: Counts, min_pair: int = 5, discount: float = 2.0, alpha: float = 0.75,
                   neighbors: int = 32, related=None) -> list[list[int]]:
    """Per word, its best neighbours by PMI within poems as flat (index, round(PMI x 10)) pairs:

        PMI(x, y) = log( (c(x,y) - discount) * N / (c(x) * c_a(y)) ),  c_a = c^alpha scaled to sum as c

    over pairs in at least ``min_pair`` poems. A word is never its own neighbour nor one of
    ``related(i)`` (by default ``related_spelling_zh``: an association of spelling, not of
    subject); a character is left out where a word of two holding it is among the best (黄沙 over
    沙), so the list holds different things."""
    import numpy as np

    words, co = counts.words, counts.co
    V = len(words)
    N = counts.pieces
    n_w = np.diag(co).astype(np.float64)
    c_alpha = n_w ** alpha
    c_alpha *= n_w.sum() / max(c_alpha.sum(), 1e-9)
    related = related or related_spelling_zh(words)
    out: list[list[int]] = []
    for i in range(V):
        row = co[i].astype(np.float64)
        ok = (row >= min_pair) & (row > discount)
        ok[i] = False
        ok[np.asarray(related(i), dtype=np.int64)] = False
        pmi = np.full(V, -np.inf)
        pmi[ok] = np.log((row[ok] - discount) * N / (n_w[i] * c_alpha[ok]))
        best = [int(j) for j in np.argsort(-pmi, kind="stable")[:3 * neighbors] if pmi[j] > 0]
        covered = {ch for j in best if len(words[j]) == 2 for ch in words[j]}
        flat: list[int] = []
        for j in best:
            if len(words[j]) == 1 and words[j] in covered:
                continue
            score = int(round(min(25.5, pmi[j]) * SCORE_SCALE))
            if score >= 1 and len(flat) < 2 * neighbors:
                flat += [j, score]
        out.append(flat)
    return out


def build(corpus: Path, kinds: tuple[str, ...] = DEFAULT_KINDS, max_words: int = 8000, min_df: int = 30,
          min_bigram: int = 20, min_cohesion: float = 1.0, min_pair: int = 5, discount: float = 2.0,
          alpha: float = 0.75, neighbors: int = 32, min_regulated: int = 10, max_chars: int = 2500,
          log=print) -> dict:
    """The statistics as a JSON-ready dict (see docs/plan.md for every parameter)."""
    t0 = time.perf_counter()
    counts = count_corpus(corpus, kinds, max_words, min_df, min_bigram, min_cohesion, min_regulated, max_chars,
                          log)
    stats = statistics(counts, min_pair, discount, alpha, neighbors)
    stats["corpus_sha256"] = _corpus_hash(Path(corpus))
    stats["kinds"] = list(kinds)
    stats["method"].update({"max_words": max_words, "max_chars": max_chars, "min_df": min_df, "min_bigram": min_bigram,
                            "min_cohesion": min_cohesion, "min_regulated": min_regulated})
    PlanStats.from_dict(stats, "the built statistics")    # what we write must load
    log(f"built in {time.perf_counter() - t0:.0f} s")
    return stats


def statistics(counts: Counts, min_pair: int = 5, discount: float = 2.0, alpha: float = 0.75,
               neighbors: int = 32, related=None, lang: str = "zh") -> dict:
    """The file's content from the counts (the corpus fields filled by :func:`build`)."""
    V = len(counts.words)
    position = [int(round(100 * counts.pos_sum[j] / counts.pos_n[j])) if counts.pos_n[j] else 50 for j in range(V)]
    return {
        "format": FORMAT_ID, "version": VERSION, **({"lang": lang} if lang != "zh" else {}),
        "corpus_sha256": "", "kinds": [], "pieces": counts.pieces,
        "method": {"min_pair": min_pair, "discount": discount, "alpha": alpha, "neighbors": neighbors,
                   "score_scale": SCORE_SCALE},
        "words": counts.words, "df": [int(counts.co[j, j]) for j in range(V)], "position": position,
        "neighbors": neighbor_lists(counts, min_pair, discount, alpha, neighbors, related),
    }


def _corpus_hash(corpus: Path) -> str:
    try:
        with open(corpus / "split.json", encoding="utf-8") as f:
            return str(json.load(f).get("corpus_sha256", ""))
    except (OSError, ValueError):
        return ""


def write(stats: dict, out: Path) -> int:
    """Write the statistics compactly (one word's data a line, so diffs stay readable); returns bytes."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    head = {k: v for k, v in stats.items() if k not in ("words", "df", "position", "neighbors")}
    parts = ["{"]
    for k, v in head.items():
        parts.append(f"{json.dumps(k)}:{json.dumps(v, ensure_ascii=False, separators=(',', ':'))},")
    for k in ("words", "df", "position"):
        parts.append(f"{json.dumps(k)}:{json.dumps(stats[k], ensure_ascii=False, separators=(',', ':'))},")
    rows = ",\n".join(json.dumps(r, separators=(",", ":")) for r in stats["neighbors"])
    parts.append(f'"neighbors":[\n{rows}]' + "}\n")
    text = "\n".join(parts)
    tmp = out.with_suffix(out.suffix + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(out)
    return len(text.encode("utf-8"))


def add_arguments(ap) -> None:
    from songwriter.train.args import DEFAULT_CORPUS

    ap.add_argument("--lang", choices=("zh", "en"), default="zh",
                    help="zh: the planner's keywords; en: an English model's word associations "
                         "(stanzas of a build-corpus-en folder, plan/build_en.py)")
    ap.add_argument("--corpus", default=None,
                    help=f"folder made by build-corpus (default {DEFAULT_CORPUS}) or build-corpus-en (runs/corpus/en)")
    ap.add_argument("--out", required=True, help="the statistics file to write (e.g. models/zh/plan.json)")
    ap.add_argument("--kinds", default=None,
                    help=f"kinds of piece to count: shi, ci, qu, poem (modern poems), modern, bible "
                         f"(default {','.join(DEFAULT_KINDS)}); English: poem, song, hymn (all three)")
    ap.add_argument("--max-words", type=int, default=8000, help="vocabulary size (most frequent words)")
    ap.add_argument("--max-chars", type=int, default=2500, help="of which single characters, at most")
    ap.add_argument("--min-df", type=int, default=30, help="a word must occur in this many poems")
    ap.add_argument("--min-bigram", type=int, default=20, help="occurrences for a pair to be a word")
    ap.add_argument("--min-cohesion", type=float, default=1.0, help="the pair's own PMI (natural log)")
    ap.add_argument("--min-regulated", type=int, default=10,
                    help="regulated lines that must hold a pair before they can rule it out as a word")
    ap.add_argument("--min-pair", type=int, default=5, help="poems holding both words, for a PMI")
    ap.add_argument("--neighbors", type=int, default=32, help="neighbours kept per word")


def run(args) -> int:
    from songwriter.train.args import DEFAULT_CORPUS

    english = getattr(args, "lang", "zh") == "en"
    corpus = Path(args.corpus or (Path(__file__).resolve().parents[2] / "runs" / "corpus" / "en" if english
                                  else DEFAULT_CORPUS))
    if not (corpus / "pieces.jsonl").is_file() or not (corpus / "split.json").is_file():
        print(f"error: {corpus} has no pieces.jsonl and split.json; run `python -m songwriter.train "
              f"build-corpus` first", file=sys.stderr)
        return 2
    if args.kinds:
        kinds = tuple(k.strip() for k in args.kinds.split(",") if k.strip())
    else:
        from songwriter.plan.build_en import DEFAULT_KINDS_EN

        kinds = DEFAULT_KINDS_EN if english else DEFAULT_KINDS
    t0 = time.perf_counter()
    try:
        if english:
            from songwriter.plan.build_en import build_en

            stats = build_en(corpus, kinds, max_words=args.max_words, min_df=args.min_df, min_pair=args.min_pair,
                             neighbors=args.neighbors)
        else:
                stats = build(corpus, kinds, max_words=args.max_words, max_chars=args.max_chars, min_df=args.min_df,
                          min_bigram=args.min_bigram, min_cohesion=args.min_cohesion, min_regulated=args.min_regulated,
                          min_pair=args.min_pair, neighbors=args.neighbors)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    size = write(stats, Path(args.out))
    print(f"wrote {args.out}: {len(stats['words']):,} words, {size / 1e6:.2f} MB, "
          f"{time.perf_counter() - t0:.0f} s")
    return 0

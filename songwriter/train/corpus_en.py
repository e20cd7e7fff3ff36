"""Build the English training corpus: Gutenberg poetry cleaned, Shakespeare's sonnets, 1908 hymns.

Input: ../shared/data/en/ (read in place, never copied). Output (never committed):
``<out>/pieces.jsonl`` (one piece a line: id, kind, title, author, lines, breaks),
``<out>/split.json`` (held-out ids), ``<out>/stats.json`` and ``<out>/vocab.json`` (the word
vocabulary of the training split, songwriter.engine.vocab_en). ``breaks`` lists the indices of the
lines that open a new stanza (the first stanza's 0 left out); a hymn also has ``sections``, the kind
(verse or refrain) of each stanza.

Kinds: ``poem`` (Gutenberg), ``song`` (Gutenberg books the songs/ballads/hymns subset names),
``hymn`` (Christ in Song, 1908), ``sonnet`` (Shakespeare, all 154 held out as test material).
Run: ``songwriter build-corpus-en`` or ``python -m songwriter.train build-corpus-en``.
"""

from __future__ import annotations

import gzip
import json
import random
import re
import sys
import unicodedata
from collections import Counter
from pathlib import Path

from songwriter.engine import model_folder as MF

DEFAULT_SEED = 20201
EN_DIR = Path(__file__).resolve().parents[3] / "shared" / "data" / "en"
DEFAULT_OUT = Path(__file__).resolve().parents[2] / "runs" / "corpus" / "en"
POEMS_FILE = "epg_poems.jsonl.gz"
SONGS_FILE = "epg_songs_ballads_hymns_subset.jsonl.gz"
SONNETS_FILE = "shakespeare_sonnets.txt"
HYMNS_FILE = "christ_in_song_1908.json"

HELD_OUT_SHARE = 0.01          # of Gutenberg poems, each for dev and for test
HYMN_HELD_OUT_SHARE = 0.1      # of the 300 hymns, each for dev and for test (few, and the nearest to songs)
MAX_LINE_WORDS = 20            # longer "lines" are prose: notes, prefaces, stage business
MIN_KNOWN_SHARE = 0.5          # a piece whose words CMUdict mostly does not know is not English verse
LEAK_LINE_WORDS = 4            # lines this long or longer count when looking for held-out text in training

# ---------------------------------------------------------------------------------------------
# Line cleaning
# ---------------------------------------------------------------------------------------------

_CURLY = "\u2019"
# The GutenTag conversion split words at a curly apostrophe: "displeas’ d", "That’ s", "’ twas".
# Endings that never stand alone as words are always joined back.
_CLITIC_TAILS = frozenset("s d t ll re ve st m n nt th rt".split())
# Elisions that begin with the apostrophe ("’ twas" -> "’twas").
_LEADING_ELISIONS = frozenset(
    "tis twas twere twill twould twixt tween neath gainst mid midst mongst em".split())
_SPLIT_INSIDE = re.compile(rf"(\w)\s?{_CURLY} ([a-z]+)\b")
_SPLIT_LEADING = re.compile(rf"(^|[^\w{_CURLY}])\s?{_CURLY} ({'|'.join(sorted(_LEADING_ELISIONS))})\b",
                            re.IGNORECASE)
_BRACKETED = re.compile(r"\[[^\[\]]*\]")
_LINE_NUMBER_END = re.compile(r"\s+\d{1,4}\.?$")
_LINE_NUMBER_START = re.compile(r"^\d{1,4}\.?\s+(?=\D)")
_HYPHEN_ARTIFACT = re.compile("hyppphen", re.IGNORECASE)   # the conversion wrote some hyphens as "hYpppHeN"
_ROMAN = re.compile(r"^[ivxlcdm]+\.?$", re.IGNORECASE)
_TITLE_SMALL_WORDS = frozenset("a an and as at but by for from in into of on or the to with".split())
_QUOTES = str.maketrans({"\u2018": "'", _CURLY: "'", "\u02bc": "'", "\u201c": '"', "\u201d": '"',
                         "\u2013": "\u2014", "\u00a0": " "})


def _joins_as_one_word(head_word: str, tail: str) -> bool:
    """Whether "head’ tail" is one word split by the artifact rather than two words (a plural
    possessive before a noun, "hands’ access"; a dialect form, "o’ the", "tho’ he")."""
    if tail in _CLITIC_TAILS:
        return True
    from songwriter.prosody import english

    return english.in_dictionary(f"{head_word}'{tail}")


def join_split_apostrophes(line: str) -> str:
    """Undo the space after a curly apostrophe that splits one word: "displeas’ d" -> "displeas’d",
    "That’ s" -> "That’s", "utt’ ring" -> "utt’ring", ",’ twas" -> ", ’twas"."""
    if _CURLY + " " not in line:
        return line

    text = _SPLIT_LEADING.sub(
        lambda m: (m.group(1) + " " if m.group(1).strip() else m.group(1)) + _CURLY + m.group(2), line)

    def inside(m: re.Match) -> str:
        head_word = re.findall(r"\w+$", text[:m.start(1) + 1])[0]
        if _joins_as_one_word(head_word.lower(), m.group(2)):
            return f"{m.group(1)}{_CURLY}{m.group(2)}"
        return m.group(0)

    return _SPLIT_INSIDE.sub(inside, text)


def normalise_line(line: str) -> str:
    """Apostrophes joined, quotes straight, editorial brackets and line numbers gone, spaces single."""
    line = unicodedata.normalize("NFC", line)
    line = join_split_apostrophes(line)
    line = _HYPHEN_ARTIFACT.sub("-", line)
    line = line.translate(_QUOTES).replace("--", "\u2014")
    prev = None
    while prev != line:                   # "[Illustration: ...]", footnote marks "[12]", stage directions
        prev, line = line, _BRACKETED.sub(" ", line)
    line = re.sub(r"\s+", " ", line).strip()
    # a line number at one end ("quire, 10", "80 For I must"); numbers at both ends are a catalogue
    # entry ("128. C. M. Cowper. 1660"), left for clean_line to refuse
    unnumbered = _LINE_NUMBER_END.sub("", line)
    return unnumbered if unnumbered != line else _LINE_NUMBER_START.sub("", line)


def _letters(s: str) -> str:
    return "".join(c for c in s if c.isalpha())


def is_latin(text: str) -> bool:
    """Every letter in the Latin script (accents and ligatures too: é, æ); Greek quotations and
    the like are not English verse."""
    return all(unicodedata.name(c, "").startswith("LATIN") for c in text if c.isalpha())


def is_heading(line: str) -> bool:
    """A line that names rather than says: all capitals ("SONNET XII.", "SABALLIDIN:"), a roman or
    arabic number, or Title Case words without a clause's punctuation ("The Moondial",
    "Edith M. Thomas", "From the Danish.")."""
    bare = line.strip(" \u2014-'\"().")
    letters = _letters(bare)
    if not letters or _ROMAN.match(bare):
        return True
    if len(letters) > 3 and sum(c.isupper() for c in letters) > 0.8 * len(letters):
        return True
    if re.search(r"[,;!?]$", bare):
        return False
    words = re.findall(r"[^\W\d_][\w'\u2019-]*", bare)
    if not words or len(words) > 8:
        return False
    content = [w for w in words if w.lower() not in _TITLE_SMALL_WORDS]
    title_case = bool(content) and all(w[0].isupper() for w in content)
    # short lines need a small word left in lower case ("The Moondial" yes, "Break Away" no) unless
    # they are names of four words or fewer ("Edith M. Thomas")
    return title_case and (len(words) <= 4 or any(w[0].islower() for w in words))


def clean_line(line: str) -> str | None:
    """One line of verse, normalised; None when it is not verse (no letters, numbers, a prose note)."""
    line = normalise_line(line)
    if not _letters(line) or re.search(r"\d", line) or not is_latin(line):
        return None
    if len(line.split()) > MAX_LINE_WORDS:
        return None
    return line


def clean_stanzas(stanzas: list[list[str]], counts: Counter | None = None) -> list[list[str]]:
    """Stanzas of cleaned lines: editorial lines dropped, and a heading dropped where a title
    stands (a stanza of one line, or a stanza's first line)."""
    counts = counts if counts is not None else Counter()
    out = []
    in_note = False       # inside a bracketed note that runs over several lines
    for stanza in stanzas:
        lines = []
        for raw in stanza:
            unbracketed = _BRACKETED.sub(" ", raw)
            if in_note or "[" in unbracketed:
                in_note = "]" not in unbracketed if in_note else "]" not in unbracketed.split("[")[-1]
                counts["lines_dropped_not_verse"] += 1
                continue
            line = clean_line(raw)
            if line is None:
                counts["lines_dropped_not_verse"] += 1
                continue
            if (not lines or len(stanza) == 1) and is_heading(line):
                counts["title_lines_dropped"] += 1
                continue
            lines.append(line)
        if lines:
            out.append(lines)
    return out


def flatten(stanzas: list[list[str]]) -> tuple[list[str], list[int]]:
    """Stanzas -> (lines, indices of the lines that open stanzas 2, 3, ...)."""
    lines, breaks = [], []
    for s in stanzas:
        if lines:
            breaks.append(len(lines))
        lines.extend(s)
    return lines, breaks


def line_key(line: str) -> str:
    """A line as compared for duplicates: lower-case letters only (spelling, case and punctuation
    differences between editions ignored)."""
    return _letters(line.lower())


def first_lines_key(lines: list[str]) -> str:
    return "|".join(line_key(x) for x in lines[:2])


# ---------------------------------------------------------------------------------------------
# Sources
# ---------------------------------------------------------------------------------------------

def _piece(pid: str, kind: str, stanzas: list[list[str]], title: str = "", author: str = "", **extra) -> dict:
    lines, breaks = flatten(stanzas)
    return {"id": pid, "kind": kind, "title": title, "author": author, "lines": lines, "breaks": breaks, **extra}


def _read_jsonl_gz(path: Path):
    with gzip.open(path, "rt", encoding="utf-8") as f:
        for line in f:
            yield json.loads(line)


def read_gutenberg(path: Path, song_keys: set[tuple[str, int]], counts: Counter,
                   known_words=None) -> list[dict]:
    """Gutenberg poems cleaned; fragments (fewer than two lines left, or a piece of three lines or
    fewer without a title, the tail of a poem split by a footnote) and foreign-language pieces
    dropped. ``known_words``: a set of words for the foreign-language test (CMUdict's)."""
    out = []
    for p in _read_jsonl_gz(path):
        counts["gutenberg_read"] += 1
        stanzas = clean_stanzas(p.get("stanzas") or [], counts)
        lines, _ = flatten(stanzas)
        title = normalise_line(p.get("poem_title") or "")
        if len(lines) < 2 or (len(lines) <= 3 and not title):
            counts["gutenberg_fragments_dropped"] += 1
            continue
        if known_words is not None and known_share(lines, known_words) < MIN_KNOWN_SHARE:
            counts["gutenberg_not_english_dropped"] += 1
            continue
        key = (str(p.get("gid")), int(p.get("idx", 0)))
        kind = "song" if key in song_keys else "poem"
        out.append(_piece(f"{kind}:{key[0]}:{key[1]}", kind, stanzas, title, p.get("author") or "",
                          period=p.get("period") or ""))
    return out


def song_keys_of(path: Path) -> set[tuple[str, int]]:
    if not path.is_file():
        return set()
    return {(str(p.get("gid")), int(p.get("idx", 0))) for p in _read_jsonl_gz(path)}


def read_sonnets(path: Path) -> list[dict]:
    """Shakespeare's sonnets, numbered 1-154 in file order (blank-line separated blocks)."""
    blocks = [b.strip().splitlines() for b in re.split(r"\n\s*\n", path.read_text(encoding="utf-8"))]
    out = []
    for n, block in enumerate((b for b in blocks if b), 1):
        lines = [x for x in (normalise_line(ln) for ln in block) if x]
        out.append(_piece(f"sonnet:{n}", "sonnet", [lines], f"Sonnet {n}", "William Shakespeare"))
    return out


def clean_hymn_line(line: str) -> str:
    """A hymn line as sung once: sung echoes in brackets gone ("(loud o’er land and sea)"),
    the dots of a held note gone, the book's typo "Evry" mended."""
    line = re.sub(r"\([^)]*\)", " ", line)
    line = line.replace("\u2026", " ").replace("Evry", "Ev'ry")
    line = normalise_line(line)
    line = re.sub(r"\.{2,}", ".", line)
    return re.sub(r"\s+([,.;:!?])", r"\1", line)


def read_hymns(path: Path) -> list[dict]:
    """The 1908 hymns: each verse a stanza, the refrain where it first comes (the book prints it
    after every verse; sung again, it adds no new text)."""
    out = []
    for h in json.loads(path.read_text(encoding="utf-8")):
        stanzas, sections, seen = [], [], set()
        for part in h.get("lyrics") or []:
            lines = [x for x in (clean_hymn_line(ln) for ln in part.get("lines") or []) if _letters(x)]
            if not lines:
                continue
            kind = "refrain" if part.get("type") == "refrain" else "verse"
            key = tuple(line_key(x) for x in lines)
            if kind == "refrain" and key in seen:
                continue
            seen.add(key)
            stanzas.append(lines)
            sections.append(kind)
        if sum(map(len, stanzas)) >= 2:
            title = normalise_line(h.get("title") or "").rstrip(".")
            out.append(_piece(f"hymn:{int(h.get('number', len(out) + 1))}", "hymn", stanzas, title,
                              sections=sections))
    return out


# ---------------------------------------------------------------------------------------------
# Duplicates, split, leaks
# ---------------------------------------------------------------------------------------------

def drop_duplicates(pieces: list[dict]) -> tuple[list[dict], int]:
    """Keep the first piece of each first-two-lines key (sources are read held-out material first,
    so a held-out sonnet or hymn wins over its copy in an anthology)."""
    seen, out = set(), []
    for p in pieces:
        key = first_lines_key(p["lines"])
        if key in seen:
            continue
        seen.add(key)
        out.append(p)
    return out, len(pieces) - len(out)


def make_split(pieces: list[dict], seed: int = DEFAULT_SEED, share: float = HELD_OUT_SHARE,
               hymn_share: float = HYMN_HELD_OUT_SHARE) -> dict:
    """Held-out ids, whole pieces: every sonnet in test; of the hymns and of the Gutenberg poems
    (poem and song alike) a seeded share each for dev and for test."""
    rng = random.Random(seed)
    dev, test = [], [p["id"] for p in pieces if p["kind"] == "sonnet"]
    for kinds, frac in ((("hymn",), hymn_share), (("poem", "song"), share)):
        ids = sorted(p["id"] for p in pieces if p["kind"] in kinds)
        rng.shuffle(ids)
        k = max(1, round(len(ids) * frac)) if ids else 0
        dev += ids[:k]
        test += ids[k:2 * k]
    return {"seed": seed, "held_out_share": share, "hymn_held_out_share": hymn_share,
            "dev": sorted(dev), "test": sorted(test)}


def drop_leaks(pieces: list[dict], split: dict, min_shared: int = 2) -> tuple[list[dict], list[str]]:
    """Training pieces that share ``min_shared`` or more lines (of LEAK_LINE_WORDS words or more)
    with held-out pieces are dropped: the Gutenberg books "Shakespeare's Sonnets" and "The
    Shakespearian Sonnets" hold the test sonnets as one long poem each, which the first-two-lines
    rule does not see."""
    held = set(split["dev"]) | set(split["test"])
    held_lines = {line_key(x) for p in pieces if p["id"] in held for x in p["lines"]
                  if len(x.split()) >= LEAK_LINE_WORDS}
    kept, dropped = [], []
    for p in pieces:
        if p["id"] not in held:
            shared = {line_key(x) for x in p["lines"] if len(x.split()) >= LEAK_LINE_WORDS} & held_lines
            if len(shared) >= min_shared:
                dropped.append(p["id"])
                continue
        kept.append(p)
    return kept, dropped


# ---------------------------------------------------------------------------------------------
# Statistics
# ---------------------------------------------------------------------------------------------

def cmu_words() -> set[str]:
    import pronouncing

    pronouncing.init_cmu()
    return set(pronouncing.lookup)


def _line_words(line: str) -> list[str]:
    from songwriter.prosody import english

    return [w.lower() for w in english.words(line)]


def known_share(lines: list[str], known_words) -> float:
    ws = [w for ln in lines for w in _line_words(ln)]
    return sum(w in known_words for w in ws) / len(ws) if ws else 0.0


def part_of(split: dict):
    dev, test = set(split["dev"]), set(split["test"])
    return lambda pid: "dev" if pid in dev else "test" if pid in test else "train"


def corpus_stats(pieces: list[dict], split: dict, known_words=None) -> dict:
    """Pieces, lines and words by kind and part; the share of training words (tokens, and distinct
    words) CMUdict knows as spelled, and with the prosody module's derived forms."""
    from songwriter.prosody import english

    part = part_of(split)
    pieces_n, lines_n, words_n = Counter(), Counter(), Counter()
    train_words: Counter = Counter()
    for p in pieces:
        key = f"{p['kind']}:{part(p['id'])}"
        pieces_n[key] += 1
        lines_n[key] += len(p["lines"])
        ws = [w for ln in p["lines"] for w in _line_words(ln)]
        words_n[key] += len(ws)
        if part(p["id"]) == "train":
            train_words.update(ws)

    def total(c: Counter, which: str) -> int:
        return sum(v for k, v in c.items() if k.endswith(":" + which))

    stats = {
        "pieces": dict(sorted(pieces_n.items())), "lines": dict(sorted(lines_n.items())),
        "words": dict(sorted(words_n.items())),
        "totals": {w: {"pieces": total(pieces_n, w), "lines": total(lines_n, w), "words": total(words_n, w)}
                   for w in ("train", "dev", "test")},
        "sonnets_in_test": sum(1 for p in pieces if p["kind"] == "sonnet" and part(p["id"]) == "test"),
        "sonnets_in_train": sum(1 for p in pieces if p["kind"] == "sonnet" and part(p["id"]) == "train"),
        "distinct_words_train": len(train_words),
    }
    if known_words is not None and train_words:
        n = sum(train_words.values())
        cmu = sum(c for w, c in train_words.items() if w in known_words)
        derived = sum(c for w, c in train_words.items() if w in known_words or english.in_dictionary(w))
        stats["cmudict_share_train_words"] = round(cmu / n, 4)
        stats["cmudict_or_derived_share_train_words"] = round(derived / n, 4)
        ranked = sorted(train_words.values(), reverse=True)
        stats["train_words_covered_by_top"] = {str(k): round(sum(ranked[:k]) / n, 4)
                                              for k in (8000, 16000, 32000, 64000)}
        stats["cmudict_share_distinct_words"] = round(
            sum(1 for w in train_words if w in known_words) / len(train_words), 4)
    return stats


# ---------------------------------------------------------------------------------------------
# Build
# ---------------------------------------------------------------------------------------------

def build(source: Path = EN_DIR, out: Path = DEFAULT_OUT, seed: int = DEFAULT_SEED,
          min_count: int = 3, log=print, prose: Path | None = None, prose_vocab: Path | None = None) -> dict:
    source, out = Path(source), Path(out)
    missing = [f for f in (POEMS_FILE, SONNETS_FILE, HYMNS_FILE) if not (source / f).is_file()]
    if missing:
        raise FileNotFoundError(f"{source} lacks {', '.join(missing)} (see ../shared/data/SOURCES.md) "
                                "or pass --source")
    counts: Counter = Counter()
    known = cmu_words()
    sonnets = read_sonnets(source / SONNETS_FILE)
    hymns = read_hymns(source / HYMNS_FILE)
    log(f"sonnets: {len(sonnets)}; hymns: {len(hymns)}")
    poems = read_gutenberg(source / POEMS_FILE, song_keys_of(source / SONGS_FILE), counts, known)
    log(f"gutenberg: {counts['gutenberg_read']} read, {len(poems)} kept")
    pieces, n_dup = drop_duplicates(sonnets + hymns + poems)
    counts["duplicates_dropped"] = n_dup
    split = make_split(pieces, seed)
    pieces, leaks = drop_leaks(pieces, split)
    counts["held_out_text_in_training_dropped"] = len(leaks)
    from songwriter.train.corpus import write_pieces

    split["corpus_sha256"] = write_pieces(out, pieces)
    (out / "split.json").write_text(json.dumps(split, ensure_ascii=False, indent=1), encoding="utf-8")

    from songwriter.engine.vocab_en import EnglishVocab

    part = part_of(split)
    vocab = EnglishVocab.build((ln for p in pieces if part(p["id"]) == "train" for ln in p["lines"]),
                               min_count=min_count)
    vocab.save(out / MF.VOCAB)      # the name a run and a model folder give it
    if prose is not None:
        from songwriter.train import corpus_en_prose as P

        from songwriter.train.dataset_en import DEFAULT_VOCAB_SIZE

        # after the vocabulary: prose keeps to the words a model trains with (the one it will
        # train on from, or the verse's most frequent as a new model takes them) and adds none
        words = (EnglishVocab.load(prose_vocab).tokens if prose_vocab is not None
                 else vocab.tokens[:DEFAULT_VOCAB_SIZE])
        known = frozenset(words)
        extra = P.read_prose(Path(prose), known.__contains__, seed, log)
        dev, test = P.split_prose(extra, seed)
        split["dev"], split["test"] = sorted(split["dev"] + dev), sorted(split["test"] + test)
        pieces += extra
        split["corpus_sha256"] = write_pieces(out, pieces)
        (out / "split.json").write_text(json.dumps(split, ensure_ascii=False, indent=1), encoding="utf-8")
    stats = corpus_stats(pieces, split, known)
    stats["cleaning"] = dict(sorted(counts.items()))
    stats["leaked_ids_dropped"] = leaks
    stats["vocab"] = vocab.summary()
    stats["corpus_sha256"] = split["corpus_sha256"]
    (out / "stats.json").write_text(json.dumps(stats, ensure_ascii=False, indent=1), encoding="utf-8")
    log(json.dumps(stats, ensure_ascii=False, indent=1))
    return stats


def load_pieces(folder: Path = DEFAULT_OUT):
    with open(Path(folder) / "pieces.jsonl", encoding="utf-8") as f:
        for line in f:
            yield json.loads(line)


def add_arguments(ap) -> None:
    ap.add_argument("--source", default=str(EN_DIR), help="folder with the English data (../shared/data/en)")
    ap.add_argument("--out", default=str(DEFAULT_OUT))
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED)
    ap.add_argument("--min-count", type=int, default=3, help="a word enters the vocabulary seen this often in training")
    ap.add_argument("--prose", default="", metavar="DIR",
                    help="add modern prose cut into lines, kind 'prose', from DIR (../shared/data/en_modern); "
                         "the vocabulary stays the verse's")
    ap.add_argument("--prose-vocab", default="", metavar="FILE",
                    help="keep prose sentences to the words of this vocab.json (the model to be trained on from; "
                         "default: the verse's most frequent words, as a new model takes them)")


def run(args) -> int:
    try:
        build(Path(args.source), Path(args.out), args.seed, args.min_count,
              prose=Path(args.prose) if args.prose else None,
              prose_vocab=Path(args.prose_vocab) if args.prose_vocab else None)
    except FileNotFoundError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0


def main(argv=None) -> int:
    import argparse

    ap = argparse.ArgumentParser(prog="build-corpus-en", description=__doc__.split("\n")[0])
    add_arguments(ap)
    return run(ap.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())

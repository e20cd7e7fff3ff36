"""Modern English prose cut into lines: a ``prose`` kind for the English corpus.

The verse corpus is nearly spent for the model's size (docs/english.md, "What is not done yet"):
six more passes moved the dev poems by 0.004 nats. ../shared/data/en_modern/ holds modern
English that no pass has seen (SOURCES.md): simple stories (TinyStories), everyday sentences
(Common Voice) and addresses (State of the Union). They are laid out as verse is: each clause a
line, cut at the marks a singer would breathe at (, ; : . ! ?), a few sentences of one text a
piece, in a kind of their own so that the kind channel keeps their register apart from songs.

Only sentences whose every word is in the verse vocabulary are kept (no ``<unk>`` to learn, and
the vocabulary, built from verse, stays as it is), and only those whose clauses are line-sized.
"""

from __future__ import annotations

import gzip
import json
import random
import re
from pathlib import Path

PROSE_DIR = Path(__file__).resolve().parents[3] / "shared" / "data" / "en_modern"
STORIES_FILE = "tinystories_first4MB_lowercased.txt"
SENTENCES_DIR = "commonvoice_en"
ADDRESSES_FILE = "sotu_1790_2018.jsonl.gz"
KIND = "prose"

MIN_LINE_WORDS = 2
MAX_LINE_WORDS = 12            # a verse line's length; a longer clause is not cut mid-phrase: its sentence goes
PIECE_LINES = (4, 14)          # a piece closes after a sentence once it has at least 4 lines (a quatrain's), at most 14
HELD_OUT_SHARE = 0.01          # of the prose pieces, each for dev and for test

_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+")
_CLAUSE_END = re.compile(r"(?<=[,;:.!?])[\"')\]]*\s+")
_STRAY = re.compile(r"[^\w\s,;:.!?'\-\"]")


def sentences(text: str) -> list[str]:
    """A paragraph -> its sentences (cut after . ! ? and a space)."""
    return [s.strip() for s in _SENTENCE_END.split(" ".join(text.split())) if s.strip()]


def clauses(sentence: str) -> list[str]:
    """A sentence -> its clauses, each ending at its mark."""
    return [c.strip() for c in _CLAUSE_END.split(sentence) if c.strip()]


def sentence_lines(sentence: str, known) -> list[str] | None:
    """A sentence -> its lines (clauses), or None when it cannot be verse-shaped: a clause too
    short or too long, digits or stray symbols, or a word the vocabulary lacks (``known(word)``)."""
    from songwriter.engine.vocab_en import tokenize
    from songwriter.prosody import english

    if re.search(r"\d", sentence) or _STRAY.search(sentence):
        return None
    lines = clauses(sentence.replace('"', ""))
    for line in lines:
        words = english.words(line)
        if not MIN_LINE_WORDS <= len(words) <= MAX_LINE_WORDS:
            return None
        if not all(known(t) for t in tokenize(line) if any(c.isalpha() for c in t)):
            return None
    return lines or None


def pieces_of(source: str, texts, known, start: int = 0, skip_unusable: bool = False) -> list[dict]:
    """Texts (each a list of paragraphs, in order) -> pieces of ``PIECE_LINES`` lines, each a run
    of consecutive usable sentences of one text, a paragraph break a stanza break. An unusable
    sentence ends the run, so that a piece reads on as its text did; with ``skip_unusable`` (texts
    of unrelated sentences) it is only left out."""
    out: list[dict] = []
    lo, hi = PIECE_LINES

    def close(lines, breaks):
        if len(lines) >= lo:
            n = start + len(out)
            out.append({"id": f"{KIND}:{source}:{n}", "kind": KIND, "title": "", "author": "",
                        "lines": lines, "breaks": [b for b in breaks if 0 < b < len(lines)]})

    for paragraphs in texts:
        lines: list[str] = []
        breaks: list[int] = []
        for para in paragraphs:
            if lines and (not breaks or breaks[-1] != len(lines)):
                breaks.append(len(lines))
            for s in sentences(para):
                got = sentence_lines(s, known)
                if got is None and skip_unusable:
                    continue
                if got is None or len(lines) + len(got) > hi:
                    close(lines, breaks)
                    lines, breaks = [], []
                    if got is None or len(got) > hi:
                        continue
                lines.extend(got)
                if len(lines) >= lo:
                    close(lines, breaks)
                    lines, breaks = [], []
        close(lines, breaks)
    return out


_STORY_OPENING = re.compile(r"^(once upon a time|one day|there (was|were) once)\b")


def _stories(folder: Path):
    """TinyStories has no separators between stories: a paragraph that opens as a story does
    ("once upon a time", "one day") starts a text."""
    text = (folder / STORIES_FILE).read_text(encoding="utf-8")
    texts: list[list[str]] = []
    for para in (p.strip() for p in re.split(r"\n\s*\n", text)):
        if para:
            if not texts or _STORY_OPENING.match(para.lower()):
                texts.append([])
            texts[-1].append(para)
    return texts


def _sentences(folder: Path, rng: random.Random):
    """Common Voice: unrelated sentences, shuffled, one text."""
    lines = []
    for f in sorted((folder / SENTENCES_DIR).glob("*.txt")):
        lines += [x.strip() for x in f.read_text(encoding="utf-8").splitlines() if x.strip()]
    rng.shuffle(lines)
    return [[" ".join(lines)]]


def _addresses(folder: Path):
    with gzip.open(folder / ADDRESSES_FILE, "rt", encoding="utf-8") as f:
        for row in f:
            text = json.loads(row)["text"]
            yield [p for p in re.split(r"\n\s*\n|\n", text) if p.strip()]


def read_prose(folder: Path, known, seed: int, log=print) -> list[dict]:
    """The prose pieces of every source in ``folder`` (those present), ids numbered per source."""
    folder = Path(folder)
    rng = random.Random(seed)
    readers = (("stories", STORIES_FILE, lambda: _stories(folder), False),
               ("speech", SENTENCES_DIR, lambda: _sentences(folder, rng), True),
               ("addresses", ADDRESSES_FILE, lambda: _addresses(folder), False))
    out: list[dict] = []
    for source, name, read, unrelated in readers:
        if not (folder / name).exists():
            log(f"prose: {folder / name} missing, skipped")
            continue
        got = pieces_of(source, read(), known, skip_unusable=unrelated)
        log(f"prose: {source}: {len(got)} pieces, {sum(len(p['lines']) for p in got)} lines")
        out += got
    return out


def split_prose(pieces: list[dict], seed: int, share: float = HELD_OUT_SHARE) -> tuple[list[str], list[str]]:
    """Held-out prose ids (dev, test), drawn with a generator of their own so that the verse
    split stays what it was."""
    ids = sorted(p["id"] for p in pieces)
    random.Random(seed + 1).shuffle(ids)
    k = max(1, round(len(ids) * share)) if ids else 0
    return ids[:k], ids[k:2 * k]

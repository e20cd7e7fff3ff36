"""The English word associations (``plan.json`` of an English model, the planner's format with
``"lang": "en"``): which content words the corpus's stanzas hold together, by PMI. Built by
``python -m songwriter.train build-plan --lang en``; the English decoder leans towards the
associates of the words a piece has written so far (engine/topic_en.py).

1. documents: every stanza of the training split's pieces, cut into runs of at most
   ``chunk_lines`` lines (a long poem changes subject; its stanza keeps one);
2. words: the content words (engine/vocab_en.content_words: not prosody's grammar words; ASCII
   letters and apostrophes, three letters or more) in at least ``min_df`` documents, the ``max_words`` most frequent;
3. PMI within documents as the Chinese planner's (build.neighbor_lists), except that two words
   meet only where one stands inside a line (two line ends together are not counted), and words of
   one family (vocab_en.same_family: sing / singing) or that rhyme are never neighbours: a rhymed
   stanza holds its rhyme words together because they rhyme, not because of its subject (love /
   dove / prove, heart / part / art, war / afar / scar were each other's best neighbours).
"""

from __future__ import annotations

import time
from pathlib import Path

from songwriter.engine.vocab_en import FAMILY_PREFIX, content_words, same_family
from songwriter.plan.build import Counts, cooccurrence, training_pieces

DEFAULT_KINDS_EN = ("poem", "song", "hymn")
CHUNK_LINES = 8


def documents(pieces, chunk_lines: int = CHUNK_LINES):
    """(words of the document, those of them only ever at a line's end in it, its first line's
    place in the piece 0..1) for each run of at most ``chunk_lines`` lines of a stanza."""
    for p in pieces:
        lines = p["lines"]
        bounds = [0] + [b for b in p.get("breaks", []) if 0 < b < len(lines)] + [len(lines)]
        last = max(1, len(lines) - 1)
        for a, b in zip(bounds, bounds[1:]):
            for s in range(a, b, chunk_lines):
                words: list[str] = []
                inner: set[str] = set()
                ends: set[str] = set()
                for ln in lines[s:min(b, s + chunk_lines)]:
                    got = content_words(ln)
                    words += got
                    inner.update(got[:-1])
                    if got and _ends_line(ln, got[-1]):
                        ends.add(got[-1])
                    elif got:
                        inner.add(got[-1])
                if words:
                    yield words, ends - inner, s / last


def _ends_line(line: str, word: str) -> bool:
    """The line's last word is ``word`` (only marks after it): where a rhyme word stands."""
    from songwriter.engine.vocab_en import tokenize

    tail = [t for t in tokenize(line) if any(ch.isalpha() for ch in t)]
    return bool(tail) and tail[-1] == word


def count_corpus_en(corpus: Path, kinds: tuple[str, ...] = DEFAULT_KINDS_EN, max_words: int = 8000,
                    min_df: int = 30, chunk_lines: int = CHUNK_LINES, log=print) -> Counts:
    """The documents' vocabulary, co-occurrence and places (Counts, as the Chinese builder's). Two
    words that meet only at line ends are not counted together: rhymed lines pair their end words
    because they rhyme, in every kind of rhyme (love / prove, war / afar), not because of the
    subject."""
    import numpy as np

    t0 = time.perf_counter()
    df: dict[str, int] = {}
    docs: list[tuple[list[str], set[str], float]] = []
    for words, ends, place in documents(training_pieces(Path(corpus), kinds), chunk_lines):
        unique = sorted(set(words))
        docs.append((unique, ends, place))
        for w in unique:
            df[w] = df.get(w, 0) + 1
    if not docs:
        raise ValueError(f"no training pieces of kinds {', '.join(kinds)} in {corpus}")
    ranked = sorted((w for w, n in df.items() if n >= min_df), key=lambda w: (-df[w], w))[:max_words]
    index = {w: i for i, w in enumerate(ranked)}
    log(f"{len(docs):,} stanzas (runs of at most {chunk_lines} lines), {len(df):,} content words, "
        f"{len(ranked):,} kept (in {min_df}+ stanzas), read in {time.perf_counter() - t0:.0f} s")
    doc_ids, word_ids, end_docs, end_ids, places = [], [], [], [], []
    for d, (unique, ends, place) in enumerate(docs):
        ids = sorted(index[w] for w in unique if w in index)
        doc_ids += [d] * len(ids)
        word_ids += ids
        at_ends = sorted(index[w] for w in ends if w in index)
        end_docs += [d] * len(at_ends)
        end_ids += at_ends
        places.append(place)
    d = np.asarray(doc_ids, dtype=np.int64)       # sorted by document, each word once: as cooccurrence wants
    w = np.asarray(word_ids, dtype=np.int64)
    place = np.asarray(places)[d]
    V = len(ranked)
    co = cooccurrence(d, w, len(docs), V)
    df_diag = np.diag(co).copy()
    co -= cooccurrence(np.asarray(end_docs, dtype=np.int64), np.asarray(end_ids, dtype=np.int64), len(docs), V)
    np.fill_diagonal(co, df_diag)                  # the documents holding a word, wherever it stands
    log(f"co-occurrence counted in {time.perf_counter() - t0:.0f} s")
    return Counts(ranked, co, np.bincount(w, weights=place, minlength=V), np.bincount(w, minlength=V),
                  int(np.unique(d).size))


def related_spelling_en(words: list[str]):
    """Per word index, the indices it may not take as neighbours: its family and its rhymes."""
    from songwriter.prosody import english

    keys = [english.rhyme_keys(w, "perfect") for w in words]
    by_key: dict[str, list[int]] = {}
    for j, ks in enumerate(keys):
        for k in ks:
            if not k.startswith("~"):      # a spelling guess is no rhyme
                by_key.setdefault(k, []).append(j)
    by_prefix: dict[str, list[int]] = {}
    for j, w in enumerate(words):
        by_prefix.setdefault(w[:FAMILY_PREFIX], []).append(j)

    def related(i: int) -> list[int]:
        w = words[i]
        out = [j for j in by_prefix.get(w[:FAMILY_PREFIX], ()) if same_family(w, words[j])]
        for k in keys[i]:
            out += by_key.get(k, ())
        return out

    return related


def build_en(corpus: Path, kinds: tuple[str, ...] = DEFAULT_KINDS_EN, max_words: int = 8000, min_df: int = 30,
             min_pair: int = 5, discount: float = 2.0, alpha: float = 0.75, neighbors: int = 32,
             chunk_lines: int = CHUNK_LINES, log=print) -> dict:
    """The English statistics as a JSON-ready dict (the planner's format, ``"lang": "en"``)."""
    from songwriter.plan.build import _corpus_hash, statistics
    from songwriter.plan.stats import PlanStats

    t0 = time.perf_counter()
    counts = count_corpus_en(corpus, kinds, max_words, min_df, chunk_lines, log)
    stats = statistics(counts, min_pair, discount, alpha, neighbors, related_spelling_en(counts.words), lang="en")
    stats["corpus_sha256"] = _corpus_hash(Path(corpus))
    stats["kinds"] = list(kinds)
    stats["method"].update({"max_words": max_words, "min_df": min_df, "chunk_lines": chunk_lines,
                            "documents": "stanzas"})
    PlanStats.from_dict(stats, "the built statistics")    # what we write must load
    log(f"built in {time.perf_counter() - t0:.0f} s")
    return stats

"""A model's word costs (``word_costs.json`` in its folder): nats the decoder subtracts from a
word's (a Chinese character's) log-prob wherever it could be written, for the words that decoder
writes far more often than the corpus does ("singing" 30 times, "birds" 24 times the corpus's
rate; 首 of 回首 19 times). Sampling that prefers the likelier words, and the drafts that keep the
likeliest line, make a few safe words every piece's; readers of a file of pieces then name the
stock imagery. A second, optional table costs the words a line opens with (``line_start``: the
Chinese decoder opened 10 % of its lines with 不, the poets 2 %). A third, optional one costs a
character written right after itself (``doubled``): the poets double 悠 in 悠悠 four times in ten,
鸟 and 屏 almost never, yet a slot that few characters fit let the decoder write 鸟鸟 and 屏屏. A
fourth, optional one costs a line's second character after its first (``opening_pairs``, keyed
by the two characters): 14 % of the decoder's first lines opened on 东风 (东风吹 most), the
poets' 0.13 %, and a cost on 东 alone would reach every 东. The costs are measured for one model
by ``songwriter.train word-costs-en`` / ``word-costs-zh`` and kept beside it (``doubled`` is the
corpus's alone: ``word-costs-zh --doubled-only``).

    {"format": 1, "model": "<sha256 of model.safetensors>", "costs": {"singing": 1.9, ...},
     "line_start": {"不": 1.2, ...}, "doubled": {"鸟": 3.1, ...}, "opening_pairs": {"东风": 2.1, ...},
     "kinds": ["shi", "ci"], ...}

``kinds``: the kinds of piece (template.KINDS) the costs were measured on and apply to; absent,
every kind.

Data, never code: read as JSON, checked word by word; a file that does not parse or names words
the vocabulary lacks is refused with the reason (ModelLoadError)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np

from songwriter.engine.errors import ModelLoadError

WORD_COSTS = "word_costs.json"
# anywhere; at a line's first word; right after itself; a line's second word after its first
TABLES = ("costs", "line_start", "doubled", "opening_pairs")
FORMAT = 1
MAX_COST = 5.0          # nats: beyond this a cost is a ban, which the constraints' masks already do
MAX_BYTES = 2_000_000


def read_costs(path: str | Path, table: str = "costs") -> dict[str, float]:
    """The word -> nats table ``table`` of a word-costs file ({} when the file has no optional
    table); ModelLoadError naming what is wrong."""
    path = Path(path)
    try:
        raw = path.read_bytes()[:MAX_BYTES + 1]
    except OSError as e:
        raise ModelLoadError(f"cannot read the word costs {path}: {e.strerror or e}") from None
    if len(raw) > MAX_BYTES:
        raise ModelLoadError(f"the word costs {path} are larger than {MAX_BYTES // 1_000_000} MB")
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        raise ModelLoadError(f"the word costs {path} are not JSON: {e}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(data.get("costs"), dict):
        raise ModelLoadError(f"the word costs {path} are not a format-{FORMAT} table "
                             f"(an object with \"format\": {FORMAT} and \"costs\")")
    if not isinstance(data.get(table, {}), dict):
        raise ModelLoadError(f"the word costs {path}: \"{table}\" is not an object of word: nats")
    kinds = data.get("kinds")
    if kinds is not None and (not isinstance(kinds, list) or not all(isinstance(k, str) for k in kinds)):
        raise ModelLoadError(f"the word costs {path}: \"kinds\" is not a list of kinds of piece")
    out: dict[str, float] = {}
    for word, nats in data.get(table, {}).items():
        if (not isinstance(nats, (int, float)) or isinstance(nats, bool) or not math.isfinite(nats)
                or not 0 <= nats <= MAX_COST):
            raise ModelLoadError(f"the word costs {path}: {word!r} costs {nats!r}; "
                                 f"a cost is a number of nats from 0 to {MAX_COST}")
        out[word] = float(nats)
    return out


def cost_vector(costs: dict[str, float], vocab, source: str = "the word costs") -> np.ndarray:
    """One cost per vocabulary id (0 where the table has none); ModelLoadError for a word the
    vocabulary does not have (a table measured for another model)."""
    vec = np.zeros(len(vocab), dtype=np.float64)
    index = {t: i for i, t in enumerate(vocab.tokens)}
    language = getattr(vocab, "language", "zh")
    for word, nats in costs.items():
        i = index.get(word)
        if i is None or i < vocab.first_char:     # no specials, no marks
            raise ModelLoadError(f"{source} name {word!r}, which this model's vocabulary does not have: "
                                 f"measure them again for this model (songwriter.train word-costs-{language})")
        vec[i] = nats
    return vec


def pair_lookup(costs: dict[str, float], vocab, source: str = "the word costs"
                ) -> dict[int, tuple[np.ndarray, np.ndarray]]:
    """A table keyed by two characters ("东风") as first id -> (second ids, nats); ModelLoadError
    for a key that is not two characters of the vocabulary."""
    index = {t: i for i, t in enumerate(vocab.tokens)}
    language = getattr(vocab, "language", "zh")
    pairs: dict[int, list[tuple[int, float]]] = {}
    for key, nats in costs.items():
        ids = [index.get(c, -1) for c in key] if len(key) == 2 else []
        if len(ids) != 2 or min(ids) < vocab.first_char:
            raise ModelLoadError(f"{source} name the pair {key!r}, which is not two characters of this "
                                 f"model's vocabulary: measure them again for this model "
                                 f"(songwriter.train word-costs-{language})")
        pairs.setdefault(ids[0], []).append((ids[1], nats))
    return {first: (np.array([b for b, _ in rows], dtype=np.int64), np.array([c for _, c in rows]))
            for first, rows in pairs.items()}


def load_pairs_for(model_dir: str | Path, vocab, table: str = "opening_pairs"
                   ) -> dict[int, tuple[np.ndarray, np.ndarray]] | None:
    """The pair table ``table`` of the model in ``model_dir`` (pair_lookup), or None when it has none."""
    path = Path(model_dir) / WORD_COSTS
    if not path.is_file():
        return None
    costs = read_costs(path, table)
    return pair_lookup(costs, vocab, str(path)) if costs else None


def load_for(model_dir: str | Path, vocab, table: str = "costs") -> np.ndarray | None:
    """The cost per vocabulary id of the model in ``model_dir`` (its table ``table``), or None
    when it has no such table or an empty one."""
    path = Path(model_dir) / WORD_COSTS
    if not path.is_file():
        return None
    costs = read_costs(path, table)
    return cost_vector(costs, vocab, str(path)) if costs else None


def kinds_for(model_dir: str | Path) -> frozenset[str] | None:
    """The kinds of piece the model's costs apply to (None: every kind, or no table)."""
    path = Path(model_dir) / WORD_COSTS
    if not path.is_file():
        return None
    read_costs(path)        # checked as the tables are
    kinds = json.loads(path.read_text(encoding="utf-8")).get("kinds")
    return frozenset(kinds) if kinds is not None else None

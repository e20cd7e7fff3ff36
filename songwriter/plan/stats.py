"""The planner's statistics file (``plan.json`` in a model folder): its format, and the one reader
that checks it. Standard library only.

The file (written by ``python -m songwriter.train build-plan``, see docs/plan.md)::

    {"format": "songwriter-plan", "version": 1, "corpus_sha256": "...", "kinds": ["shi", ...],
     "pieces": 330000, "method": {...the builder's parameters...},
     "words": ["月", "风", ..., "明月", ...],     # 1-2 Chinese characters each, no repeats
     "df": [41234, ...],                          # poems holding each word
     "position": [48, ...],                       # mean place in its poem: 0 first line, 100 last
     "neighbors": [[12, 57, 803, 41, ...], ...]}  # per word: (word index, PMI x 10) pairs, best first

An English model's file (``build-plan --lang en``, plan/build_en.py) has ``"lang": "en"`` and
lowercase English words (letters, apostrophes and hyphens, up to 30) in place of the characters.

Anything else is refused with :class:`PlanError`, one line naming the field.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from songwriter.template import is_hanzi
from songwriter.validate import Fields, parse_json

FORMAT_ID = "songwriter-plan"
VERSION = 1
SCORE_SCALE = 10             # neighbours' PMI is stored as round(PMI * SCORE_SCALE), 1..255
PLAN_FILE = "plan.json"      # its name in a model folder
MAX_BYTES = 20_000_000
MAX_WORDS = 50_000
MAX_NEIGHBORS = 256
LANGS = ("zh", "en")
MAX_WORD_LEN = {"zh": 2, "en": 30}
_ENGLISH_WORD = re.compile(r"^[a-z'][a-z'\-]*$")


class PlanError(ValueError):
    """Statistics that cannot be read, or a topic the planner cannot use; one line for the user."""


@dataclass
class PlanStats:
    words: list[str]
    df: list[int]
    position: list[int]                        # 0..100
    neighbors: list[list[tuple[int, float]]]   # per word: (word index, PMI), best first
    pieces: int = 0
    kinds: list[str] = field(default_factory=list)
    corpus_sha256: str = ""
    method: dict = field(default_factory=dict)
    lang: str = "zh"
    index: dict[str, int] = field(default_factory=dict, repr=False)

    def __post_init__(self):
        if not self.index:
            self.index = {w: i for i, w in enumerate(self.words)}

    def pmi(self, a: int, b: int) -> float:
        """The stored PMI of b among a's neighbours (0 when b is not one of them)."""
        for j, s in self.neighbors[a]:
            if j == b:
                return s
        return 0.0

    @classmethod
    def from_dict(cls, data, where: str = "plan statistics") -> "PlanStats":
        f = Fields(data, f"{where}:", PlanError)
        fmt = f.string("format", max_len=100)
        if fmt != FORMAT_ID:
            raise PlanError(f"{where}: not planner statistics (format {fmt!r}, expected {FORMAT_ID!r})")
        version = f.integer("version", lo=1)
        if version > VERSION:
            raise PlanError(f"{where}: version {version} is newer than this app reads ({VERSION}); "
                            f"update Songwriter or rebuild the file with build-plan")
        lang = f.string("lang", "zh", choices=LANGS)
        words = f.strings("words", max_items=MAX_WORDS, max_len=MAX_WORD_LEN[lang])
        n = len(words)
        for i, w in enumerate(words):
            if lang == "zh" and (not w or not all(is_hanzi(ch) for ch in w)):
                raise PlanError(f"{where}: words[{i}]: expected 1 or 2 Chinese characters, got {w!r}")
            if lang == "en" and not _ENGLISH_WORD.match(w):
                raise PlanError(f"{where}: words[{i}]: expected a lowercase English word, got {w!r}")
        if len(set(words)) != n:
            raise PlanError(f"{where}: words: a word is listed twice")
        df = f.integers("df", lo=0, max_items=MAX_WORDS)
        position = f.integers("position", lo=0, hi=100, max_items=MAX_WORDS)
        for key, got in (("df", df), ("position", position)):
            if len(got) != n:
                raise PlanError(f"{where}: {key}: expected one number per word ({n}), got {len(got)}")
        neighbors: list[list[tuple[int, float]]] = []
        rows = list(f.items("neighbors", max_items=MAX_WORDS))
        if len(rows) != n:
            raise PlanError(f"{where}: neighbors: expected one list per word ({n}), got {len(rows)}")
        for i, (at, row) in enumerate(rows):
            if not isinstance(row, list) or len(row) % 2 or len(row) > 2 * MAX_NEIGHBORS:
                raise PlanError(f"{at}: expected pairs of (word index, score), at most {MAX_NEIGHBORS}")
            pairs = []
            for k in range(0, len(row), 2):
                j, s = row[k], row[k + 1]
                if isinstance(j, bool) or not isinstance(j, int) or not 0 <= j < n or j == i:
                    raise PlanError(f"{at}[{k}]: expected the index of another word (0 to {n - 1}), got {j!r}")
                if isinstance(s, bool) or not isinstance(s, int) or not 1 <= s <= 255:
                    raise PlanError(f"{at}[{k + 1}]: expected a score from 1 to 255, got {s!r}")
                pairs.append((j, s / SCORE_SCALE))
            neighbors.append(pairs)
        method = f.object("method", None)
        return cls(words=words, df=df, position=position, neighbors=neighbors,
                   pieces=f.integer("pieces", 0, lo=0), kinds=f.strings("kinds", [], max_items=20, max_len=20),
                   corpus_sha256=f.string("corpus_sha256", "", max_len=100),
                   method=dict(method.data) if method else {}, lang=lang)


def load_stats(path: str | Path) -> PlanStats:
    """Read and check a statistics file (PlanError naming the file and the problem)."""
    path = Path(path)
    try:
        raw = path.read_bytes()[:MAX_BYTES + 1]
    except FileNotFoundError:
        raise PlanError(f"no planner statistics at {path}; build them with `python -m songwriter.train "
                        f"build-plan --out {path}` (docs/plan.md)") from None
    except OSError as e:
        raise PlanError(f"{path} could not be read: {e.strerror or e}") from None
    return PlanStats.from_dict(parse_json(raw, str(path), MAX_BYTES, PlanError), str(path))

"""The character vocabulary: special symbols, punctuation marks, then characters by frequency.

It is built from the training corpus, shipped beside the weights as ``vocab.json`` and checked by
hash when a model is loaded (a vocabulary that drifts from the weights' is the classic failure).
No torch.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from pathlib import Path

from songwriter.engine.model_folder import VOCAB

PAD, UNK, BOS, EOL, EOS, FILL = "<pad>", "<unk>", "<bos>", "</s>", "<eos>", "<fill>"
SPECIALS = (PAD, UNK, BOS, EOL, EOS, FILL)
PUNCT_TOKENS = tuple("，。、；：？！")
# Marks that appear in templates but not in the corpus are mapped onto the nearest one we know.
PUNCT_ALIASES = {",": "，", ".": "。", ";": "；", ":": "：", "?": "？", "!": "！", "…": "。",
                 "—": "，", "·": "、"}


class Vocab:
    # the marks a punctuation slot holds and their spellings; a language's vocabulary sets its own
    punct_tokens = PUNCT_TOKENS
    punct_aliases = PUNCT_ALIASES

    def __init__(self, tokens: list[str]):
        if tuple(tokens[:len(SPECIALS)]) != SPECIALS:
            raise ValueError("a vocabulary must start with the special symbols " + " ".join(SPECIALS))
        self.tokens = list(tokens)
        self.stoi = {t: i for i, t in enumerate(self.tokens)}
        if len(self.stoi) != len(self.tokens):
            raise ValueError("the vocabulary has duplicate tokens")
        self.pad, self.unk, self.bos, self.eol, self.eos, self.fill = (self.stoi[s] for s in SPECIALS)
        self.punct_ids = [self.stoi[p] for p in self.punct_tokens if p in self.stoi]
        self.first_char = len(SPECIALS) + len(self.punct_ids)

    def __len__(self) -> int:
        return len(self.tokens)

    def id(self, token: str) -> int:
        return self.stoi.get(token, self.unk)

    def punct_id(self, mark: str) -> int | None:
        mark = self.punct_aliases.get(mark, mark)
        return self.stoi.get(mark) if mark in self.punct_tokens else None

    def is_char(self, i: int) -> bool:
        return i >= self.first_char

    @property
    def sha256(self) -> str:
        return hashlib.sha256("\n".join(self.tokens).encode("utf-8")).hexdigest()

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps({"tokens": self.tokens, "sha256": self.sha256},
                                         ensure_ascii=False, indent=0), encoding="utf-8")

    @classmethod
    def load(cls, path: str | Path) -> "Vocab":
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        v = cls(data["tokens"])
        if data.get("sha256") and data["sha256"] != v.sha256:
            raise ValueError(f"{path}: the vocabulary's hash does not match its tokens")
        return v

    @classmethod
    def build(cls, texts, min_count: int = 3, max_size: int | None = None) -> "Vocab":
        """From an iterable of strings: every character seen ``min_count`` times or more."""
        counts: Counter = Counter()
        for t in texts:
            counts.update(t)
        chars = [c for c, n in counts.items()
                 if n >= min_count and c not in PUNCT_TOKENS and c not in SPECIALS and not c.isspace()]
        chars.sort(key=lambda c: (-counts[c], c))
        if max_size:
            chars = chars[:max_size - len(SPECIALS) - len(PUNCT_TOKENS)]
        return cls(list(SPECIALS) + list(PUNCT_TOKENS) + chars)


def load_checked(model_dir: Path, manifest: dict) -> "Vocab":
    """The model folder's vocabulary, refused (ModelLoadError) when corrupt or when its hash is not
    the one the model was trained with: both backends load through here."""
    from songwriter.engine.errors import ModelLoadError

    from songwriter.engine.vocab_en import load_vocab   # Chinese files load as Vocab, as before

    try:
        vocab = load_vocab(Path(model_dir) / VOCAB)
    except (ValueError, KeyError, TypeError) as e:
        raise ModelLoadError(f"{model_dir}: vocab.json is corrupt: {e}") from None
    if manifest.get("vocab_sha256") != vocab.sha256:
        raise ModelLoadError(f"{model_dir}: vocab.json does not match the vocabulary the model was trained "
                             "with (hash differs)")
    return vocab

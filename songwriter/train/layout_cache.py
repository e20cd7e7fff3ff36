"""Laid-out training pieces kept on disk (numpy .npz, never pickle), so that a training run that
starts again on the same pieces reads its store instead of laying the pieces out anew: the
English corpus takes 4-5 minutes of one core to lay out (syllables, stress, rhymes of 43,000
pieces), the Chinese one 1-3 minutes. Kept beside the corpus (``<corpus>/layouts/``); the key
covers the pieces' text, the vocabulary, the window length and the code that lays them out."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np

from songwriter.engine.table_cache import load_tables, store_tables

KEEP = 2    # layouts kept per corpus (the newest); older ones are removed


def _sources() -> list[Path]:
    """The files whose code decides a layout."""
    root = Path(__file__).resolve().parents[1]
    return sorted([root / "train" / "dataset.py", root / "train" / "dataset_en.py",
                   root / "engine" / "encoding.py", root / "engine" / "encoding_en.py",
                   *(root / "prosody").glob("*.py")])


def layout_key(pieces: list[dict], vocab, max_len: int) -> str:
    """A digest of what a store is made from: each piece's id, kind, mix group and lines, the
    vocabulary, ``max_len`` and the laying-out code as it stands."""
    h = hashlib.sha256()
    h.update(f"{getattr(vocab, 'language', 'zh')}:{vocab.sha256}:{max_len}\n".encode())
    for f in _sources():
        h.update(f.name.encode() + hashlib.sha256(f.read_bytes()).digest())
    for p in pieces:
        h.update(json.dumps([p["id"], p["kind"], p.get("mix"), p["lines"]], ensure_ascii=False).encode())
    return h.hexdigest()[:20]


def cached_store(cls, make, pieces: list[dict], vocab, max_len: int, cache_dir: Path, log=None):
    """The store ``make()`` builds (of class ``cls``: ``cols``, ``offsets``, ``kinds``, ``mix``,
    ``ids``), read from ``cache_dir`` when it holds this layout, else built and kept there."""
    path = Path(cache_dir) / f"layout-{layout_key(pieces, vocab, max_len)}.npz"
    got = load_tables(path)
    if got is not None and "offsets" in got:
        store = cls.__new__(cls)
        store.vocab, store.max_len = vocab, max_len
        store.cols = {k[4:]: v for k, v in got.items() if k.startswith("col_")}
        store.offsets, store.kinds, store.mix = got["offsets"], got["kinds"], got["mix"]
        store.ids = got["ids"].tolist()
        if log:
            log(f"read the laid-out pieces from {path}")
        return store
    store = make()
    store_tables(path, offsets=store.offsets, kinds=np.asarray(store.kinds), mix=np.asarray(store.mix),
                 ids=np.asarray(store.ids), **{f"col_{k}": v for k, v in store.cols.items()})
    for old in sorted(Path(cache_dir).glob("layout-*.npz"), key=lambda f: f.stat().st_mtime)[:-KEEP]:
        old.unlink(missing_ok=True)
    return store

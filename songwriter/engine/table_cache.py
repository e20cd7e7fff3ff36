"""The decoder's per-vocabulary tables on disk (numpy .npz, never pickle), so the next start
reads them instead of computing them: ~/.cache/songwriter/prosody-tables/<name>-<vocab>-<stamp>.npz
(or under $SONGWRITER_CACHE), the stamp covering the source files the tables are computed from."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import numpy as np


def table_path(name: str, vocab_sha256: str, sources) -> Path:
    """Where the tables ``name`` of a vocabulary are kept, as the files ``sources`` stand now."""
    stamp = hashlib.sha256()
    for f in map(Path, sources):
        st = f.stat()
        stamp.update(f"{f.name}:{st.st_size}:{st.st_mtime_ns}".encode())
    root = Path(os.environ.get("SONGWRITER_CACHE", Path.home() / ".cache" / "songwriter"))
    return root / "prosody-tables" / f"{name}-{vocab_sha256[:12]}-{stamp.hexdigest()[:12]}.npz"


def load_tables(path: Path) -> dict | None:
    """The arrays kept at ``path``, or None (none yet, or unreadable: they are computed again)."""
    try:
        if path.exists():
            with np.load(path, allow_pickle=False) as z:
                return {k: z[k] for k in z.files}
    except (OSError, ValueError):
        pass
    return None


def store_tables(path: Path, **arrays) -> None:
    """Keep ``arrays`` at ``path`` (written whole, then renamed; a read-only home keeps nothing)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp.npz")
        np.savez(tmp, **arrays)
        tmp.replace(path)
    except OSError:
        pass

"""Content steering's arrays (numpy only, no torch): a content text laid out as a little piece
of its own, a batch of contents for the base's lower layers, and where each content key goes in
a row's keys. Shared by the torch block (engine/cocon.py, train/cocon.py) and the onnxruntime
backend, which must run without torch. docs/cocon.md describes the layout."""

from __future__ import annotations

import numpy as np

from songwriter.engine import encoding as E

CONTENT_LEN = 128        # content positions per content (longer text is cut at a line end)
NEG_INF = float("-inf")
# the ONNX content graph's inputs (content_batch's arrays; a content's other channels are 0) and
# the steered step's inputs beside the plain step's (train/onnx_export_cocon.py)
CONTENT_INPUTS = ("inputs", "fmt", "bpos", "line", "given")
STEERING_INPUTS = ("content_k", "content_v", "content_bias", "cache_block_k")



def content_layout(text: str, vocab, max_len: int = CONTENT_LEN) -> dict[str, np.ndarray] | None:
    """A content text -> its token layout (``tok``, ``fmt``, ``bpos``, ``line``), or None when
    nothing of it is in the vocabulary. Whitespace and punctuation end a line (keywords "明月 故乡"
    are two lines); marks stay after their line's characters; characters outside the vocabulary
    are left out; the layout is cut at the last line end that fits ``max_len``."""
    lines: list[tuple[list[int], list[int]]] = []
    chars: list[int] = []
    marks: list[int] = []

    def flush():
        nonlocal chars, marks
        if chars:
            lines.append((chars, marks))
        chars, marks = [], []

    for ch in text:
        if ch.isspace():
            flush()
            continue
        m = vocab.punct_id(ch)
        if m is not None:
            if chars:
                marks.append(m)
            continue
        if marks:
            flush()
        i = vocab.id(ch)
        if i != vocab.unk and vocab.is_char(i):
            chars.append(i)
    flush()
    tok, fmt, bpos, line = [], [], [], []
    for li, (cs, ms) in enumerate(lines):
        n = len(cs) + len(ms) + 1
        if len(tok) + n > max_len:
            if not tok:   # one long line: keep what fits
                cs, ms = cs[:max_len - 1], []
                n = len(cs) + 1
            else:
                break
        tok += cs + ms + [vocab.eol]
        fmt += [E.F_CHAR] * (len(cs) - 1) + [E.F_RHYME] + [E.F_PUNCT] * len(ms) + [E.F_EOL]
        bpos += [min(n - 1 - j, E.MAX_BPOS - 1) for j in range(n)]
        line += [min(li, E.MAX_LINE - 1)] * n
    if not tok:
        return None
    return {k: np.asarray(v, dtype=np.int64) for k, v in
            (("tok", tok), ("fmt", fmt), ("bpos", bpos), ("line", line))}


def content_batch(layouts: list[dict[str, np.ndarray]], vocab, length: int | None = None) -> dict[str, np.ndarray]:
    """Layouts -> the lower layers' input (N, L+1): ``inputs`` ([<bos>, tokens]), the form of
    each position (fmt, bpos, line; tone, label, group, kind 0), ``given`` (marks, </s>, <eos>;
    <fill> at characters) and ``keep`` (N, L): which of the L keys (input token j at position
    j + 1) are real. The last position's form is <eos>. L is the longest layout's length, or
    ``length`` (the ONNX content graph's fixed width; padding changes no real key's state)."""
    N = len(layouts)
    L = max(len(x["tok"]) for x in layouts) if length is None else length
    out = {k: np.zeros((N, L + 1), dtype=np.int64) for k in ("inputs", *E.CHANNELS, "given")}
    out["inputs"][:] = vocab.pad
    out["given"][:] = vocab.pad
    keep = np.zeros((N, L), dtype=bool)
    for i, x in enumerate(layouts):
        n = len(x["tok"])
        out["inputs"][i, 0] = vocab.bos
        out["inputs"][i, 1:n + 1] = x["tok"]
        out["fmt"][i, :n] = x["fmt"]
        out["fmt"][i, n] = E.F_EOS
        out["bpos"][i, :n] = x["bpos"]
        out["line"][i, :n] = x["line"]
        out["line"][i, n] = min(int(x["line"][-1]) + 1, E.MAX_LINE - 1)
        is_char = (x["fmt"] == E.F_CHAR) | (x["fmt"] == E.F_RHYME)
        out["given"][i, :n] = np.where(is_char, vocab.fill, x["tok"])
        out["given"][i, n] = vocab.eos
        keep[i, :n] = True
    out["keep"] = keep
    return out


def key_slots(keep: np.ndarray, owner, tau, rows: int):
    """Where every real content key goes among its row's keys, side by side, content by
    content: ``keep`` (N, L) real keys, ``owner`` (N,) the row of each content, ``tau`` (N,) its
    strength -> ``ci``, ``ji`` (rows, C) the content and position each key slot holds, ``bias``
    (rows, C) float32 (the tau of the slot's content, -inf at padding) and ``filled`` (rows, C)."""
    owner_np = np.asarray(owner, dtype=np.int64)
    cs, js = np.nonzero(keep)                             # every real key, content by content
    rows_of = owner_np[cs]
    order = np.argsort(rows_of, kind="stable")            # grouped by row, contents in order
    cs, js, rows_of = cs[order], js[order], rows_of[order]
    counts = np.bincount(rows_of, minlength=rows)
    C = max(1, int(counts.max()) if len(counts) else 1)
    slot = np.arange(len(cs)) - np.repeat(np.cumsum(counts) - counts, counts)   # index within its row
    ci = np.zeros((rows, C), dtype=np.int64)
    ji = np.zeros((rows, C), dtype=np.int64)
    bias = np.full((rows, C), NEG_INF, dtype=np.float32)
    filled = np.zeros((rows, C), dtype=bool)
    ci[rows_of, slot], ji[rows_of, slot] = cs, js
    bias[rows_of, slot] = np.asarray(tau, dtype=np.float32)[cs]
    filled[rows_of, slot] = True
    return ci, ji, bias, filled


def line_positions(fmt: np.ndarray) -> np.ndarray:
    """The template line of every position of an encoded template (``Encoded.fmt``, either
    language): line i runs from the position after line i - 1's </s> to its own </s>, marks and
    </s> included; -1 at <eos> and padding."""
    fmt = np.asarray(fmt)
    line = np.cumsum(fmt == E.F_EOL) - (fmt == E.F_EOL)      # line ends before each position
    return np.where((fmt == E.F_EOS) | (fmt == E.F_PAD), -1, line).astype(np.int64)


def scope_mask(ci: np.ndarray, filled: np.ndarray, scopes: list[np.ndarray | None] | None) -> np.ndarray | None:
    """Which content keys each query position may see, as an additive mask (P + 1, C) float32:
    0 where it may, -inf where not. ``ci``, ``filled`` (C,): one row's key slots (``key_slots``);
    ``scopes[c]``: None for a content every position sees (the whole piece's), or a boolean array
    (P,) of the positions whose queries see content c (a line's content: that line's positions).
    Row P (and any position past the template) sees only the unscoped contents. None when no
    content is scoped (the steered step's bias then stays the same at every position)."""
    if not scopes or all(s is None for s in scopes):
        return None
    P = max(len(s) for s in scopes if s is not None)
    see = np.ones((P + 1, len(ci)), dtype=bool)
    for j, (c, real) in enumerate(zip(ci, filled)):
        sc = scopes[int(c)] if real else None
        if sc is not None:
            see[:, j] = False
            see[:len(sc), j] = np.asarray(sc, dtype=bool)
    return np.where(see, np.float32(0), np.float32(NEG_INF)).astype(np.float32)


__all__ = ["CONTENT_INPUTS", "CONTENT_LEN", "NEG_INF", "STEERING_INPUTS", "content_batch", "content_layout", "key_slots",
           "line_positions", "scope_mask"]

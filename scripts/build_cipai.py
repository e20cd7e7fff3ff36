#!/usr/bin/env python3
"""Rebuild ``assets/cipai.json``, the 词牌 (cipai) library, from the Song ci corpus.

The corpus is the npm package ``chinese-poetry@2.0.1`` (MIT).  By default it is looked up in
``~/.cache/songwriter`` (unpacked as ``chinese-poetry-2.0.1/``, or as the ``.tgz`` that
``npm pack`` writes) and fetched with ``npm pack`` when missing; ``--source PATH`` points at an
unpacked package, its ``dist/songci`` folder, or the tarball.

Only a derived table of forms goes into the repository, never corpus text.  How the table is
derived (sentence splitting, alias grouping, standard formats, rhyme positions, 平仄 per slot,
stanza breaks) and the thresholds used are described in ``docs/cipai.md``; the constants below
are the single source of those numbers.

Usage::

    python scripts/build_cipai.py                 # cache / npm pack, writes assets/cipai.json
    python scripts/build_cipai.py --source DIR    # an unpacked package or its dist/songci
    python scripts/build_cipai.py --report 鹧鸪天  # also print what was derived for some tunes
"""
from __future__ import annotations

import argparse
import collections
import glob
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

PACKAGE = "chinese-poetry"
VERSION = "2.0.1"
ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUT = ROOT / "assets" / "cipai.json"
DEFAULT_CACHE = Path(os.environ.get("SONGWRITER_CACHE", Path.home() / ".cache" / "songwriter"))

# ---- thresholds (documented in docs/cipai.md) -------------------------------------------------
MIN_MAIN_EXAMPLES = 3      # a tune is in the library when its standard format has >= this many pieces
MIN_VARIANT_EXAMPLES = 2   # another format of the tune is kept as a variant with >= this many
MAX_VARIANTS = 12          # at most this many variants per tune (the most common ones)
TONE_SHARE = 0.85          # a slot is 平 (仄) only when >= this share of the decided votes say so ...
TONE_NOISE = 0.02          # share of a fixed slot's votes that misread tones explain (see derive_tones)
TONE_FREE_P = 0.01         # a slot is 中 when its minority is this unlikely under TONE_NOISE alone
TONE_MIN_VOTES = 2         # ... and at least this many examples decide the slot
RHYME_SHARE = 0.5          # two line ends co-rhyme when they share a rhyme group in > this share
RHYME_MIN_PAIRS = 2        # ... of at least this many examples
RHYME_SHARE_PAUSE = 0.75   # a line closed by ， or ； (not 。) needs >= this share ...
RHYME_MIN_PAIRS_PAUSE = 3  # ... of at least this many examples (lines closed by 、 never rhyme)
BREAK_SCORE = 0.15         # a stanza break needs this much repeat evidence (see find_stanza_break)
BREAK_SCORE_SHORT = 0.45   # ... or this much in tunes under BREAK_MIN_CHARS characters
BREAK_NONE_UNDER = 30      # no break in tunes shorter than this (十六字令, 三台 ...)
BREAK_MIN_CHARS = 40       # tunes this long are taken as 双调 even without a repeat ...
BREAK_BALANCE = 0.20       # ... when a full stop splits them within this share of the middle
POOL_BREAKS = 4            # tones pool the pieces whose sentence ends differ in at most this many places
VARIANT_SPAN = (0.45, 2.05) # a variant's character count relative to the standard format's
GENERIC_NAMES = {"失调名", "自度曲", "无调名", "调名佚"}  # labels that are not a tune's name

MARKS = "，。、？！；："
PUNCT_MAP = {
    ",": "，", "﹐": "，", "､": "、", "﹑": "、", ".": "。", "．": "。", "｡": "。", "?": "？",
    "﹖": "？", "!": "！", "﹗": "！", ";": "；", "﹔": "；", ":": "：", "﹕": "：",
}
# characters that carry no syllable and are simply dropped (quotes, spaces)
DROP = set(" \t\r\n\u3000“”‘’「」『』\"'")
SEPARATORS = "·•‧･・∙⋅"


# ---- corpus location ----------------------------------------------------------------------------

def _safe_extract(tgz: Path, dest: Path) -> None:
    """Extract dist/songci/* (and the licence) of an npm tarball into dest/dist/songci/..."""
    tmp = dest.with_name(dest.name + ".part")
    shutil.rmtree(tmp, ignore_errors=True)
    with tarfile.open(tgz, "r:gz") as tar:
        for m in tar.getmembers():
            name = m.name
            if name.startswith("package/"):
                name = name[len("package/"):]
            if not m.isfile() or ".." in Path(name).parts or name.startswith("/"):
                continue
            if not (name.startswith("dist/songci/") or name in ("LICENSE", "package.json")):
                continue
            target = tmp / name
            target.parent.mkdir(parents=True, exist_ok=True)
            with tar.extractfile(m) as src, open(target, "wb") as out:
                shutil.copyfileobj(src, out)
    shutil.rmtree(dest, ignore_errors=True)
    tmp.rename(dest)


def _songci_dir(path: Path) -> Path | None:
    for cand in (path / "dist" / "songci", path / "package" / "dist" / "songci", path / "songci", path):
        if cand.is_dir() and glob.glob(str(cand / "ci.song.*.json")):
            return cand
    return None


def locate_corpus(source: str | None, cache: Path, scratch: Path) -> Path:
    """Return the folder holding ci.song.*.json, fetching the package when needed.

    Looks in the cache for the unpacked package (``chinese-poetry-2.0.1/``, left as it is), then
    for this script's own extraction (``chinese-poetry-2.0.1-songci/``), then for the tarball;
    runs ``npm pack`` into the cache when there is none.  A tarball given as ``--source`` is
    extracted into ``scratch`` (a temporary folder)."""
    if source:
        path = Path(source).expanduser()
        if path.is_file():
            _safe_extract(path, scratch / "package")
            path = scratch / "package"
        found = _songci_dir(path)
        if not found:
            sys.exit(f"no dist/songci/ci.song.*.json under {path}")
        return found
    for folder in (cache / f"{PACKAGE}-{VERSION}", cache / f"{PACKAGE}-{VERSION}-songci"):
        found = _songci_dir(folder)
        if found:
            return found
    cache.mkdir(parents=True, exist_ok=True)
    tgz = cache / f"{PACKAGE}-{VERSION}.tgz"
    if not tgz.exists():
        npm = shutil.which("npm")
        if not npm:
            sys.exit("corpus not cached and npm not found: install npm or pass --source PATH")
        print(f"fetching {PACKAGE}@{VERSION} with npm pack into {cache} ...", file=sys.stderr)
        subprocess.run([npm, "pack", f"{PACKAGE}@{VERSION}", "--pack-destination", str(cache)],
                       check=True, cwd=cache, stdout=subprocess.DEVNULL)
    own = cache / f"{PACKAGE}-{VERSION}-songci"
    _safe_extract(tgz, own)
    found = _songci_dir(own)
    if not found:
        sys.exit(f"{tgz} holds no dist/songci")
    return found


# ---- text normalisation and sentence splitting ---------------------------------------------------

def is_hanzi(ch: str) -> bool:
    o = ord(ch)
    return (0x4E00 <= o <= 0x9FFF or 0x3400 <= o <= 0x4DBF or 0xF900 <= o <= 0xFAFF
            or 0x20000 <= o <= 0x323AF or ch == "〇")


def normalize_name(name: str) -> str:
    name = "".join(ch for ch in name.strip() if not ch.isspace())
    name = re.sub(r"“[^”]*”|\"[^\"]*\"", "", name)   # '“僮至”念奴娇' -> '念奴娇'
    for sep in SEPARATORS:
        name = name.replace(sep, "・")
    return name.strip("・")


def name_parts(name: str) -> list[str]:
    """The parts of a compound name that could be a tune name ('酹江月・念奴娇' -> both)."""
    parts = [p for p in name.split("・") if p]
    return [p for p in parts if "□" not in p and p not in GENERIC_NAMES] if len(parts) > 1 else parts


@dataclass
class Piece:
    name: str                                  # normalised corpus name
    lines: list[tuple[str, str]]               # (text, closing mark)
    para_starts: frozenset[int]                # indices of lines that open a corpus paragraph

    @property
    def fmt(self) -> tuple[tuple[int, str], ...]:
        return tuple((len(t), p) for t, p in self.lines)


def split_piece(paragraphs: list[str]) -> tuple[list[tuple[str, str]], frozenset[int]] | None:
    """Split a ci into sentences at punctuation; None when the piece is unusable."""
    lines: list[tuple[str, str]] = []
    starts: set[int] = set()
    for para in paragraphs:
        buf: list[str] = []
        first = len(lines)
        for ch in para:
            ch = PUNCT_MAP.get(ch, ch)
            if ch in DROP:
                continue
            if ch in MARKS:
                if not buf:
                    return None                # two marks in a row / a mark opening a paragraph
                lines.append(("".join(buf), ch))
                buf = []
            elif is_hanzi(ch):
                buf.append(ch)
            else:
                return None                    # □, brackets and notes, ellipses, stray symbols
        if buf:
            lines.append(("".join(buf), "。"))
        if len(lines) > first and first:
            starts.add(first)
    return (lines, frozenset(starts)) if lines else None


def load_corpus(songci: Path) -> tuple[list[Piece], collections.Counter, collections.Counter]:
    """All usable ci (deduplicated), the count of every corpus name, and skip reasons."""
    files = sorted(glob.glob(str(songci / "ci.song.*.json")))
    extra = songci / "宋词三百首.json"
    if extra.exists():
        files.append(str(extra))
    pieces: list[Piece] = []
    names: collections.Counter = collections.Counter()
    skipped: collections.Counter = collections.Counter()
    seen: set[str] = set()
    for f in files:
        with open(f, encoding="utf-8") as fh:
            for item in json.load(fh):
                raw = item.get("rhythmic") or ""
                names[raw] += 1
                split = split_piece(item.get("paragraphs") or [])
                if split is None:
                    skipped["unusable text (□, notes, stray marks)"] += 1
                    continue
                lines, starts = split
                key = "".join(t + p for t, p in lines)
                if key in seen:
                    skipped["duplicate text"] += 1
                    continue
                seen.add(key)
                pieces.append(Piece(normalize_name(raw), lines, starts))
    return pieces, names, skipped


# ---- prosody: the project's module, or a pypinyin placeholder -----------------------------------

class Prosody:
    """rhyme_groups / tone_classes over one line of text, from songwriter.prosody.chinese."""

    def __init__(self, placeholder: bool = False):
        self.name = "placeholder"
        if not placeholder:
            try:
                sys.path.insert(0, str(ROOT))
                from songwriter.prosody import chinese  # type: ignore
                self._rg = lambda t, i: chinese.rhyme_groups(t, i, "cilin")
                self._tc = lambda t, i: chinese.verse_tone_classes(t, i, "classical")
                self.name = "songwriter.prosody.chinese (rhyme: cilin, tones: classical, verse lines read foot by foot)"
                return
            except ImportError:
                print("songwriter.prosody.chinese not available: using the pypinyin placeholder",
                      file=sys.stderr)
        self._init_placeholder()
        self.name = "placeholder (pypinyin finals and modern tones)"

    def _init_placeholder(self) -> None:
        from pypinyin import Style, pinyin
        groups = {
            "a": "a", "ia": "a", "ua": "a", "o": "o", "uo": "o", "e": "o", "ie": "e", "ve": "e",
            "ue": "e", "ai": "ai", "uai": "ai", "ei": "ei", "ui": "ei", "uei": "ei", "ao": "ao",
            "iao": "ao", "ou": "ou", "iu": "ou", "iou": "ou", "an": "an", "ian": "an", "uan": "an",
            "van": "an", "en": "en", "in": "en", "un": "en", "uen": "en", "vn": "en", "ang": "ang",
            "iang": "ang", "uang": "ang", "eng": "eng", "ing": "eng", "ong": "eng", "iong": "eng",
            "ueng": "eng", "i": "i", "v": "i", "er": "i", "u": "u",
        }

        def rg(text: str, i: int) -> frozenset:
            fins = pinyin(text[i], style=Style.FINALS, heteronym=True, strict=False)[0]
            return frozenset(groups[f] for f in fins if f in groups)

        def tc(text: str, i: int) -> frozenset:
            out = set()
            for s in pinyin(text[i], style=Style.TONE3, heteronym=True, neutral_tone_with_five=True)[0]:
                if s[-1:] in "12":
                    out.add("平")
                elif s[-1:] in "34":
                    out.add("仄")
            return frozenset(out)

        self._rg, self._tc = rg, tc

    def rhyme_groups(self, text: str, i: int) -> frozenset:
        try:
            return frozenset(self._rg(text, i))
        except (KeyError, ValueError, IndexError):
            return frozenset()

    def tone_classes(self, text: str, i: int) -> frozenset:
        try:
            return frozenset(self._tc(text, i)) & {"平", "仄"}
        except (KeyError, ValueError, IndexError):
            return frozenset()


# ---- grouping names into tunes -------------------------------------------------------------------

class UnionFind:
    def __init__(self):
        self.parent: dict[str, str] = {}

    def find(self, x: str) -> str:
        self.parent.setdefault(x, x)
        while self.parent[x] != x:
            self.parent[x] = self.parent[self.parent[x]]
            x = self.parent[x]
        return x

    def union(self, a: str, b: str) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[ra] = rb


def lengths_dist(fmts: collections.Counter) -> collections.Counter:
    out: collections.Counter = collections.Counter()
    for f, n in fmts.items():
        out[tuple(length for length, _ in f)] += n
    return out


def stop_positions(fmt) -> frozenset[int]:
    """Character offsets of the full stops of a format (robust to comma splits: 4，4，7 = 7，8)."""
    out, pos = set(), 0
    for length, mark in fmt:
        pos += length
        if mark in "。？！":
            out.add(pos)
    return frozenset(out)


def stop_match(fa, fb) -> float:
    """Share of the two formats' full stops that the other format has at the same offset
    counted from the start or from the end (so a stanza one character longer still matches)."""
    sa, sb = stop_positions(fa), stop_positions(fb)
    ta, tb = sum(length for length, _ in fa), sum(length for length, _ in fb)
    ea, eb = {ta - x for x in sa}, {tb - x for x in sb}
    hits = sum(x in sb or ta - x in eb for x in sa) + sum(x in sa or tb - x in ea for x in sb)
    return hits / max(1, len(sa) + len(sb))


def compatible(a: collections.Counter, b: collections.Counter, loose: bool = False) -> bool:
    """Do two names' format distributions (Counters of full formats) describe the same tune?

    Yes when their most common line-length sequences agree; when the smaller sample's most
    common sequence is a format the other has too (under 5 pieces: small samples are noisy); or
    when their length distributions overlap by half (histogram intersection).  ``loose`` (used
    for a compound name and one of its own parts) also accepts main formats of nearly the same
    size (within 10 %) whose full stops mostly fall at the same characters (stop_match >= 0.7)."""
    if not a or not b:
        return False
    la, lb = lengths_dist(a), lengths_dist(b)
    ma, mb = la.most_common(1)[0][0], lb.most_common(1)[0][0]
    if ma == mb:
        return True
    small, big, msmall = (la, lb, ma) if sum(la.values()) <= sum(lb.values()) else (lb, la, mb)
    if msmall in big and sum(small.values()) < 5:
        return True
    ta, tb = sum(la.values()), sum(lb.values())
    if sum(min(la[k] / ta, lb[k] / tb) for k in la.keys() & lb.keys()) >= 0.5:
        return True
    if loose:
        fa, fb = a.most_common(1)[0][0], b.most_common(1)[0][0]
        ca, cb = sum(ma), sum(mb)
        if abs(ca - cb) <= 0.1 * max(ca, cb) and stop_match(fa, fb) >= 0.7:
            return True
    return False


def group_names(pieces: list[Piece], corpus_names: collections.Counter):
    """Union corpus names into tunes; returns (name -> canonical, canonical -> member names)."""
    fmts: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for p in pieces:
        fmts[p.name][p.fmt] += 1
    all_names = {normalize_name(n) for n in corpus_names} | set(fmts)
    all_names.discard("")
    standalone = {n for n in all_names if "・" not in n}
    uf = UnionFind()
    tune_votes: collections.Counter = collections.Counter()   # pieces naming a name as the tune
    pooled: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for n in sorted(all_names):
        uf.find(n)
        if "・" not in n:
            continue
        parts = name_parts(n)
        if not parts:
            continue
        known = [p for p in parts if p in standalone and fmts.get(p)]
        own = fmts.get(n, collections.Counter())
        weight = sum(own.values()) or 1
        matching = [p for p in known if not own or compatible(own, fmts[p], loose=True)]
        if matching:
            # the compound belongs to every standalone part whose forms match it (the last one,
            # as the corpus writes 'alias・tune'); two such parts are aliases of each other when
            # their own forms match too
            anchor = matching[-1]
            uf.union(n, anchor)
            tune_votes[anchor] += weight
            for p in matching[:-1]:
                if compatible(fmts[p], fmts[anchor]):
                    uf.union(p, anchor)
            continue
        # no part is a corpus tune with matching forms: join a part that is no corpus name of
        # its own (the last first); compounds sharing that part pool when their forms agree
        for tune in reversed(parts):
            if tune in known:
                continue
            prior = pooled.get(tune)
            if not own or not prior or compatible(own, prior, loose=True):
                uf.union(n, tune)
                pooled[tune].update(own)
                tune_votes[tune] += weight
                break
    # one-character names are truncations ('大' for 大酺): join the one longer name that starts
    # with them and has matching forms
    for n in sorted(standalone):
        if len(n) == 1 and fmts.get(n):
            longer = [m for m in standalone if m != n and m.startswith(n) and fmts.get(m)
                      and compatible(fmts[n], fmts[m])]
            if len(longer) == 1:
                uf.union(n, longer[0])
                tune_votes[longer[0]] += sum(fmts[n].values()) + 1
    # names of the same length that differ in one character and whose forms match are variant
    # spellings or aliases (摸鱼儿/摸鱼子, 探芳信/探芳讯, 霜天晓角/霜天晓月)
    by_len: dict[int, list[str]] = collections.defaultdict(list)
    for n in sorted(standalone):
        if fmts.get(n) and len(n) > 1:
            by_len[len(n)].append(n)
    for same in by_len.values():
        for i, a in enumerate(same):
            for b in same[i + 1:]:
                if sum(x != y for x, y in zip(a, b)) == 1 and compatible(fmts[a], fmts[b]):
                    uf.union(a, b)
    members: dict[str, set[str]] = collections.defaultdict(set)
    for n in all_names | set(uf.parent):
        members[uf.find(n)].add(n)
    size = {n: sum(fmts[n].values()) if n in fmts else 0 for n in uf.parent}
    canon_of: dict[str, str] = {}
    groups: dict[str, list[str]] = {}
    for ms in members.values():
        simple = [m for m in ms if "・" not in m] or sorted(ms)
        # the true tune name: the one the corpus names as the tune part or alone in most pieces,
        # then the shorter name
        canon = max(simple, key=lambda m: (tune_votes[m] + size.get(m, 0), -len(m), m))
        groups[canon] = sorted(ms)
        for m in ms:
            canon_of[m] = canon
    return canon_of, groups


# ---- forms: standard format, variants, rhyme, tones, stanza break ------------------------------

@dataclass
class FormStats:
    fmt: tuple[tuple[int, str], ...]
    pieces: list[Piece]
    tones: list[str] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)

    def encode(self) -> str:
        return "".join(t + p + lab for t, (_, p), lab in zip(self.tones, self.fmt, self.labels))


def _tail(n: int, k: int, p: float) -> float:
    """P(X >= k) for X ~ Binomial(n, p), summed in log space (n runs to several hundred)."""
    if k <= 0:
        return 1.0
    lp, lq = math.log(p), math.log1p(-p)
    out = 0.0
    for i in range(k, n + 1):
        out += math.exp(math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1) + i * lp + (n - i) * lq)
    return min(1.0, out)


def slot_tone(ping: int, ze: int) -> str:
    """平, 仄 or 中 for a slot from its votes. A slot the tradition fixes still gets a few votes
    the other way from the corpus's misread tones (heteronyms read out of context, variant
    characters, errata: about 1 % of the votes at the slots the 词谱 fixes, TONE_NOISE is the
    upper end); a minority larger than those misreadings explain (less likely than TONE_FREE_P)
    is the sign that poets treated the slot as free, so it is 中; so is a slot where fewer than
    TONE_SHARE of the votes agree (few examples)."""
    total = ping + ze
    if total < TONE_MIN_VOTES:
        return "中"
    major, minor = ("平", ze) if ping >= ze else ("仄", ping)
    if total - minor >= TONE_SHARE * total and (minor == 0 or _tail(total, minor, TONE_NOISE) >= TONE_FREE_P):
        return major
    return "中"


def breaks(fmt) -> frozenset[int]:
    """Character offsets at which a format's sentences end."""
    out, pos = set(), 0
    for length, _ in fmt:
        pos += length
        out.add(pos)
    return frozenset(out)


def breaks_in_order(fmt) -> list[int]:
    """Character offsets at which a format's sentences end, in order."""
    out, pos = [], 0
    for length, _ in fmt:
        pos += length
        out.append(pos)
    return out


def same_text_shape(fa, fb) -> bool:
    """Do two formats read the same run of characters punctuated differently? Same number of
    characters, and their sentence ends differ in at most POOL_BREAKS places (a 领字 cut off by
    、 or not, 5，5 read as 3、7, a comma for a full stop)."""
    return sum(n for n, _ in fa) == sum(n for n, _ in fb) and len(breaks(fa) ^ breaks(fb)) <= POOL_BREAKS


def tone_pool(fmt, exact: list[Piece], pieces: list[Piece], prosody: Prosody) -> list[Piece]:
    """The pieces whose tones vote for a format's slots: those of the tune with the same text
    shape (``same_text_shape``) that end in the tone the format's own examples end in (a tune
    written with 平 rhymes and with 仄 rhymes, 柳梢青, keeps the two apart)."""
    ends = collections.Counter()
    for p in exact:
        ends.update(prosody.tone_classes(p.lines[-1][0], len(p.lines[-1][0]) - 1))
    end = max(("平", "仄"), key=lambda t: ends[t])
    return [p for p in pieces if same_text_shape(p.fmt, fmt)
            and end in prosody.tone_classes(p.lines[-1][0], len(p.lines[-1][0]) - 1)]


def piece_tones(p: Piece, prosody: Prosody) -> list[frozenset]:
    """Tone classes of a piece's characters in order (each read in its own sentence)."""
    return [prosody.tone_classes(text, ci) for text, _ in p.lines for ci in range(len(text))]


def derive_tones(fmt, pieces: list[Piece], prosody: Prosody) -> list[str]:
    """平/仄/中 per slot of a format from the votes of ``pieces`` (the tune's pieces with the same
    text shape: ``same_text_shape``), character by character; see ``slot_tone``."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from songwriter.prosody.regulated import cipu_free

    tones = [piece_tones(p, prosody) for p in pieces]
    out = []
    pos = 0
    for length, _ in fmt:
        slots = []
        for ci in range(length):
            votes = collections.Counter()
            for tc in tones:
                c = tc[pos + ci]
                if len(c) == 1:
                    votes[next(iter(c))] += 1
            slots.append(slot_tone(votes["平"], votes["仄"]))
        pos += length
        # a 律句 is free where regulated verse frees it (the 词谱's convention), whatever the
        # majority of the examples did there
        for k in cipu_free("".join(slots)):
            slots[k] = "中"
        out.append("".join(slots))
    return out


def derive_rhymes(fmt, pieces: list[Piece], prosody: Prosody) -> list[str]:
    """Rhyme label per line ('' = no rhyme): line ends that share a rhyme group in most examples.

    Pairs of line ends that co-rhyme (share a 词林正韵 group) in > RHYME_SHARE of the examples
    are linked (a pair with a line closed by ，/；/： needs >= RHYME_SHARE_PAUSE of at least
    RHYME_MIN_PAIRS_PAUSE examples; lines closed by 、 are never rhymes; an example with the same
    character at both ends does not count).  Each connected set of two or more line ends is one
    rhyme (A, B, ... in order of first appearance), so a change of rhyme (换韵, e.g. 菩萨蛮) gets
    its own label."""
    n = len(fmt)
    cand = [i for i, (_, p) in enumerate(fmt) if p != "、"]
    ends = [[prosody.rhyme_groups(p.lines[i][0], len(p.lines[i][0]) - 1) for i in range(n)]
            for p in pieces]
    last = [[p.lines[i][0][-1] for i in range(n)] for p in pieces]
    uf = UnionFind()
    for a_i, a in enumerate(cand):
        for b in cand[a_i + 1:]:
            hit = tot = 0
            for e, ch in zip(ends, last):
                # the same character twice (a repeated line, 叠句) says nothing about rhyme
                if e[a] and e[b] and ch[a] != ch[b]:
                    tot += 1
                    hit += bool(e[a] & e[b])
            pause = fmt[a][1] not in "。？！" or fmt[b][1] not in "。？！"
            if pause:      # the corpus closes rhymed sentences with 。: a comma needs more
                linked = tot >= RHYME_MIN_PAIRS_PAUSE and hit >= RHYME_SHARE_PAUSE * tot
            else:
                linked = tot >= RHYME_MIN_PAIRS and hit > RHYME_SHARE * tot
            if linked:
                uf.union(str(a), str(b))
    comps: dict[str, list[int]] = collections.defaultdict(list)
    for i in cand:
        comps[uf.find(str(i))].append(i)
    labels = [""] * n
    letters = iter("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
    for comp in sorted((c for c in comps.values() if len(c) > 1), key=min):
        lab = next(letters, "z")
        for i in comp:
            labels[i] = lab
    return labels


def find_stanza_break(fmt, pieces: list[Piece]) -> int | None:
    """Index of the first line of the second stanza, or None (one stanza, or no evidence).

    The corpus opens a paragraph at nearly every full stop, so its paragraphs only give the
    candidates: a break must open a paragraph in most examples of the format.  Among them the
    break is where the two halves repeat each other best: a 双调 ci repeats the first stanza's
    form in the second except for its opening (换头), so the halves share a run of lines (length
    and stop/pause) counted back from their ends.  Score = that run / the longer half's line
    count - the halves' imbalance in characters; the best candidate must score >= BREAK_SCORE
    (BREAK_SCORE_SHORT under BREAK_MIN_CHARS characters).  Without a repeat, tunes of BREAK_MIN_CHARS or more characters break at the full
    stop closest to the middle, if within BREAK_BALANCE of it; shorter ones are 单调 (None), and
    tunes under BREAK_NONE_UNDER characters never get a break."""
    n = len(fmt)
    if n < 4 or not pieces or sum(length for length, _ in fmt) < BREAK_NONE_UNDER:
        return None
    counts = collections.Counter(i for p in pieces for i in p.para_starts)
    shape = [(length, p in "。？！") for length, p in fmt]
    total = sum(length for length, _ in fmt)
    best, best_score = None, None
    for k in range(2, n - 1):
        if counts[k] <= 0.5 * len(pieces) or not shape[k - 1][1]:
            continue
        a, b = shape[:k], shape[k:]
        run = 0
        while run < min(len(a), len(b)) and a[-1 - run] == b[-1 - run]:
            run += 1
        first = sum(length for length, _ in a)
        score = run / max(len(a), len(b)) - abs(2 * first - total) / total
        if best_score is None or score > best_score:
            best, best_score = k, score
    needed = BREAK_SCORE if total >= BREAK_MIN_CHARS else BREAK_SCORE_SHORT
    if best is not None and best_score >= needed:
        return best
    if total < BREAK_MIN_CHARS:
        return None                        # short tunes without a repeat are 单调 (如梦令, 渔歌子)
    # no repeat: a long tune is still 双调 (or more); take the stop closest to the middle in
    # characters, when it splits the piece evenly enough
    best, best_gap = None, None
    for k in range(2, n - 1):
        if counts[k] <= 0.5 * len(pieces) or not shape[k - 1][1]:
            continue
        gap = abs(2 * sum(length for length, _ in shape[:k]) - total) / total
        if best_gap is None or gap < best_gap:
            best, best_gap = k, gap
    return best if best_gap is not None and best_gap <= BREAK_BALANCE else None


def build_library(pieces, canon_of, prosody, report=()):
    by_group: dict[str, list[Piece]] = collections.defaultdict(list)
    for p in pieces:
        by_group[canon_of.get(p.name, p.name)].append(p)
    forms = {}
    for canon, ps in by_group.items():
        if canon in GENERIC_NAMES or "□" in canon:
            continue
        fmts = collections.Counter(p.fmt for p in ps)
        ranked = fmts.most_common()
        main_fmt, main_n = ranked[0]
        if main_n < MIN_MAIN_EXAMPLES:
            continue
        entry = {"n": main_n, "total": len(ps)}
        encoded = []
        main_chars = sum(length for length, _ in main_fmt)
        # variants: the other formats, most pieces first. A check reads a ci punctuated otherwise
        # at the form's lines when its characters are as many and its rhymes close sentences
        # (template.text_lines), so a format with the same number of characters, rhymes at the
        # same characters and the same stanza break as one already kept adds nothing and is
        # skipped (its pieces fit that one)
        seen = set()
        for fmt, cnt in ranked:
            if len(encoded) > MAX_VARIANTS or (encoded and cnt < MIN_VARIANT_EXAMPLES):
                break
            chars = sum(length for length, _ in fmt)
            if not VARIANT_SPAN[0] * main_chars <= chars <= VARIANT_SPAN[1] * main_chars:
                continue                      # fragments and run-together pieces are left out
            fp = [p for p in ps if p.fmt == fmt]
            pool = tone_pool(fmt, fp, ps, prosody)
            st = FormStats(fmt, fp, derive_tones(fmt, pool, prosody), derive_rhymes(fmt, fp, prosody))
            brk = find_stanza_break(fmt, fp)
            ends = list(breaks_in_order(fmt))
            key = (chars, tuple((ends[i], lab) for i, lab in enumerate(st.labels) if lab),
                   ends[brk - 1] if brk else None)
            if key in seen:
                continue
            seen.add(key)
            encoded.append((cnt, st.encode(), brk))
        entry["lines"] = encoded[0][1]
        entry["break"] = encoded[0][2]
        if len(encoded) > 1:
            entry["variants"] = [[cnt, enc, brk] for cnt, enc, brk in encoded[1:]]
        forms[canon] = entry
        if canon in report:
            print(f"{canon}: {main_n}/{len(ps)} pieces; break {entry['break']}")
            print("   ", " ".join(f"{l}{p}" for l, p in main_fmt))
            print("   ", entry["lines"])
            for cnt, enc, brk in encoded[1:]:
                print(f"    variant x{cnt} (break {brk}):", enc)
    return forms


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--source", help="unpacked chinese-poetry package, its dist/songci, or the .tgz")
    ap.add_argument("--cache", default=str(DEFAULT_CACHE), help="cache dir (default %(default)s)")
    ap.add_argument("--out", default=str(DEFAULT_OUT), help="output (default %(default)s)")
    ap.add_argument("--placeholder-prosody", action="store_true",
                    help="use the pypinyin placeholder even if songwriter.prosody.chinese exists")
    ap.add_argument("--report", nargs="*", default=[], help="print the derived forms of these tunes")
    args = ap.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="cipai-") as scratch:
        songci = locate_corpus(args.source, Path(args.cache).expanduser(), Path(scratch))
        pieces, corpus_names, skipped = load_corpus(songci)
    prosody = Prosody(args.placeholder_prosody)
    canon_of, groups = group_names(pieces, corpus_names)
    # every raw corpus name, not only the normalised ones, must resolve
    aliases = {}
    for raw in corpus_names:
        norm = normalize_name(raw)
        canon = canon_of.get(norm, norm)
        if raw != canon:
            aliases[raw] = canon
    for norm, canon in canon_of.items():
        if norm != canon:
            aliases[norm] = canon
    # the parts of compound names ('酹江月' of '酹江月・念奴娇') that are no corpus name of their
    # own are aliases too; a part shared by compounds of several tunes goes to the most pieces
    votes: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    weight = collections.Counter(p.name for p in pieces)
    for norm, canon in canon_of.items():
        if "・" in norm:
            for part in name_parts(norm):
                if part not in canon_of:
                    votes[part][canon] += weight[norm] or 1
    for part, cands in votes.items():
        aliases[part] = max(cands.items(), key=lambda kv: (kv[1], kv[0]))[0]
    forms = build_library(pieces, canon_of, prosody, set(args.report))
    pieces_in_forms = sum(f["total"] for f in forms.values())
    stats = {
        "corpus_pieces": sum(corpus_names.values()),
        "usable_pieces": len(pieces),
        "skipped": dict(skipped),
        "corpus_names": len(corpus_names),
        "tune_groups": len(groups),
        "tunes": len(forms),
        "pieces_in_library_tunes": pieces_in_forms,
        "pieces_in_standard_formats": sum(f["n"] for f in forms.values()),
    }
    out = {
        "format": "songwriter-cipai",
        "version": 1,
        "source": f"{PACKAGE}@{VERSION} dist/songci (MIT)",
        "prosody": prosody.name,
        "encoding": "lines: per line its tones (平/仄/中, one per character), its closing mark, "
                    "then a rhyme label letter when the line end rhymes",
        "thresholds": {
            "min_main_examples": MIN_MAIN_EXAMPLES, "min_variant_examples": MIN_VARIANT_EXAMPLES,
            "max_variants": MAX_VARIANTS, "tone_share": TONE_SHARE, "tone_noise": TONE_NOISE, "tone_free_p": TONE_FREE_P,
            "tone_min_votes": TONE_MIN_VOTES, "rhyme_share": RHYME_SHARE,
            "rhyme_min_pairs": RHYME_MIN_PAIRS, "rhyme_share_pause": RHYME_SHARE_PAUSE,
            "rhyme_min_pairs_pause": RHYME_MIN_PAIRS_PAUSE, "break_score": BREAK_SCORE,
            "break_score_short": BREAK_SCORE_SHORT, "break_min_chars": BREAK_MIN_CHARS,
            "break_balance": BREAK_BALANCE, "break_none_under": BREAK_NONE_UNDER,
            "variant_span": list(VARIANT_SPAN), "pool_breaks": POOL_BREAKS,
        },
        "stats": stats,
        "groups": sorted(groups),
        "aliases": dict(sorted(aliases.items())),
        "forms": dict(sorted(forms.items(), key=lambda kv: (-kv[1]["total"], kv[0]))),
    }
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as fh:
        json.dump(out, fh, ensure_ascii=False, separators=(",", ":"))
        fh.write("\n")
    print(json.dumps(stats, ensure_ascii=False), file=sys.stderr)
    print(f"wrote {args.out} ({os.path.getsize(args.out) / 1024:.0f} KiB)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Template (+ text) -> the arrays the model reads. No torch: numpy only.

A piece is laid out as one token per position::

    line 0: c c c c c P </s>   line 1: c c c c c P </s>  ...  <eos>

(c = a character slot, P = each punctuation mark after a slot, </s> = line end). Per position we
know, from the template alone:

- ``fmt``    format symbol of the position: CHAR, RHYME (last character of a line), PUNCT, EOL, EOS
- ``bpos``   position counted backwards in the line (</s> is 0, the mark before it 1, ...)
- ``line``   line index
- ``tone``   required tone class: 0 any, 1 平, 2 仄
- ``label``  rhyme label at a rhyme slot: 0 none, 1 for the first label (A), 2 for the next, ...
- ``group``  sound class required at a rhyme slot when it is known (a locked rhyme character
             fixes it): 0 unknown, else 1..N_GROUPS (SongNet's 13 final groups, + er)
- ``given``  the token that must be there (locked character, punctuation, </s>, <eos>) or <fill>
- ``kind``   the kind of piece, the same at every position (``KIND_IDS``; 0 unknown), so the
             model writes a lyric in modern Chinese and a 曲 in a 曲's register: the form alone
             does not tell them apart (a lyric's long rhymed lines look like a 曲's)

The decoder's input at step t is the previous token plus the *target* position's template
embedding; the memory is the template embedding plus ``given`` of every position.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from songwriter.engine.vocab import Vocab
from songwriter.prosody.finals import FINAL_TO_GROUP, SONGNET_GROUPS, pinyin_final, songnet_rhyme_group
from songwriter.template import Template, is_hanzi

F_PAD, F_CHAR, F_RHYME, F_PUNCT, F_EOL, F_EOS = range(6)
N_FMT = 6
MAX_BPOS = 96
MAX_LINE = 128
MAX_LABEL = 16
TONE_ANY, TONE_PING, TONE_ZE = 0, 1, 2
TONE_IDS = {"平": TONE_PING, "仄": TONE_ZE}

# The ``kind`` channel: the corpus's kinds of piece, 0 for a template of no known kind. Modern
# Chinese is three registers (``corpus.channel_kind``): the modern poems (``poem``, the nearest to
# lyrics), everyday speech (``speech``: Tatoeba, Common Voice, KdConv) and the rest (prose, the
# Bible), so that the speech it learns from does not set the tone of the lyrics it writes. A lyric
# is written in ``modern``: on the first model with the registers the held-out modern poems were
# 0.10 nats a token likelier under it than under ``poem``, whose row had learnt the 468 training
# poems rather than their register (docs/results.md, "A deeper base").
KIND_IDS = {"shi": 1, "ci": 2, "qu": 3, "modern": 4, "poem": 5, "speech": 6}
N_KINDS = len(KIND_IDS) + 1
# a model trained before a register was added (fewer kinds) reads it as the kind it was part of
PARENT_KIND = {"poem": "modern", "speech": "modern"}
KIND_FALLBACK = np.asarray([KIND_IDS.get(PARENT_KIND.get(k, ""), i) for i, k in
                            enumerate(["", *KIND_IDS])], dtype=np.int64)
# Template.kind -> corpus kind: a lyric or a poem in Chinese is written in modern Chinese.
_TEMPLATE_KINDS = {"shi": "shi", "ci": "ci", "qu": "qu", "lyric": "modern", "poem": "modern"}


def kind_id(template_kind: str) -> int:
    return KIND_IDS.get(_TEMPLATE_KINDS.get(template_kind, ""), 0)


def predates_registers(n_kind: int) -> bool:
    """Whether a model of ``n_kind`` kinds is a Chinese one trained before some of the modern
    registers (it has ``modern`` but not every row): it reads the newer ones as their parent kind.
    English models (their own, smaller kind space) and models without the channel are not."""
    return KIND_IDS["modern"] < n_kind < N_KINDS


def kinds_known_to(kind: np.ndarray, n_kind: int) -> np.ndarray:
    """The kind channel as a model of ``n_kind`` kinds reads it: a register added after it was
    trained becomes the kind it was part of (``PARENT_KIND``)."""
    if not predates_registers(n_kind):
        return kind
    return np.where(kind >= n_kind, KIND_FALLBACK[np.minimum(kind, N_KINDS - 1)], kind)


# Sound classes for the rhyme channel: SongNet's 13 final groups (songwriter.prosody.finals), 1..13.
_FINAL_TO_SOUND = {f: g + 1 for f, g in FINAL_TO_GROUP.items()}
N_GROUPS = len(SONGNET_GROUPS) + 1  # 0 = unknown


@lru_cache(maxsize=65536)
def sound_classes(ch: str) -> frozenset[int]:
    """Sound classes (1..13) of a character over all its readings; empty when unknown."""
    if not ch or not is_hanzi(ch):
        return frozenset()
    from pypinyin import Style, pinyin

    out = set()
    got = pinyin(ch, style=Style.NORMAL, heteronym=True, errors="ignore")
    for syl in got[0] if got else []:
        g = _FINAL_TO_SOUND.get(pinyin_final(syl))
        if g:
            out.add(g)
    return frozenset(out)


@lru_cache(maxsize=65536)
def heard_sound_class(line_text: str, index: int) -> int:
    """Sound class (1..13) of ``line_text[index]`` as it is read in that line (pypinyin's
    phrase-aware reading: the 称 of 相称 is chen, not cheng); 0 when unknown."""
    g = songnet_rhyme_group(line_text[index], line_text, index)
    return 0 if g is None else g + 1


def sound_class(ch: str) -> int:
    """The one class of a character with one; 0 when unknown or ambiguous."""
    s = sound_classes(ch)
    return next(iter(s)) if len(s) == 1 else 0


_HAVE_CHINESE: bool | None = None


def _chinese():
    global _HAVE_CHINESE
    if _HAVE_CHINESE is False:
        return None
    try:
        from songwriter.prosody import chinese

        _HAVE_CHINESE = True
        return chinese
    except Exception:
        _HAVE_CHINESE = False
        return None


@lru_cache(maxsize=131072)
def tone_class(ch: str, system: str = "modern") -> int:
    """0 unknown/either, 1 平, 2 仄 for a single character out of context."""
    if not is_hanzi(ch):
        return TONE_ANY
    zh = _chinese()
    if zh is not None:
        try:
            classes = zh.tone_classes(ch, 0, system)
        except Exception:
            classes = frozenset()
        if len(classes) == 1:
            return TONE_IDS.get(next(iter(classes)), TONE_ANY)
        return TONE_ANY
    from pypinyin import Style, pinyin

    got = pinyin(ch, style=Style.TONE3, heteronym=True, errors="ignore")
    tones = {s[-1] for s in (got[0] if got else []) if s and s[-1].isdigit()}
    classes = {TONE_PING if t in "12" else TONE_ZE for t in tones if t in "1234"}
    return next(iter(classes)) if len(classes) == 1 else TONE_ANY


@lru_cache(maxsize=131072)
def has_both_tones(ch: str, system: str = "modern") -> bool:
    """Whether a single character has a 平 and a 仄 reading (a heteronym: 看, 思, 乡)."""
    zh = _chinese() if is_hanzi(ch) else None
    if zh is None:
        return False
    try:
        return len(zh.tone_classes(ch, 0, system)) == 2
    except Exception:
        return False


@dataclass
class Encoded:
    """One template laid out as positions (see module docstring). All arrays have length T."""
    fmt: np.ndarray
    bpos: np.ndarray
    line: np.ndarray
    tone: np.ndarray
    label: np.ndarray
    group: np.ndarray
    given: np.ndarray
    # Where each position sits in the template: (line, slot) for character positions, else -1.
    slot_line: np.ndarray
    slot_index: np.ndarray
    # Output text of fixed positions (locks keep their own character even when out of vocabulary).
    text: list[str]
    labels: list[str]   # rhyme label letters in channel order (label id = index + 1)
    kind: np.ndarray
    # English only (None for Chinese): 1 at the first syllable of a locked word, and each
    # position's syllable index in its line (-1 off the syllables)
    word_start: np.ndarray | None = None
    syllable: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.fmt)

    def arrays(self) -> dict[str, np.ndarray]:
        return {k: getattr(self, k) for k in (*CHANNELS, "given")}


# The template channels every position has, in the order the model and its graphs take them.
CHANNELS = ("fmt", "bpos", "line", "tone", "label", "group", "kind")


class EncodingError(ValueError):
    pass


def repeat_sources(enc: Encoded, template: Template) -> np.ndarray:
    """Per position, the position a refrain line copies (``Line.repeats``: the same syllable of
    the line it repeats), or -1: every position of other lines, and those off the syllables."""
    out = np.full(len(enc), -1, dtype=np.int64)
    if not any(line.repeats is not None for line in template.lines):
        return out
    within = enc.syllable if enc.syllable is not None else enc.slot_index
    where = {(int(li), int(k)): p for p, (li, k) in enumerate(zip(enc.slot_line, within)) if li >= 0 and k >= 0}
    for (li, k), p in where.items():
        j = template.lines[li].repeats
        if j is not None:
            out[p] = where[(j, k)]
    return out


def refrain_copy_problem(copies: np.ndarray, free: np.ndarray, enc: Encoded) -> str | None:
    """Why a refrain cannot be copied from its source (``repeat_sources``), or None: a decoder
    copies what it writes at the source, so one of the two kept as written (locked) and the other
    written afresh cannot be copied. Regenerating either line regenerates both, so this comes
    only from a kept text that does not fit the form."""
    for p in np.nonzero(copies >= 0)[0]:
        q = int(copies[p])
        if bool(free[p]) != bool(free[q]):
            return (f"line {int(enc.slot_line[p]) + 1} repeats line {int(enc.slot_line[q]) + 1}, but one is kept "
                    "as written and the other is not: regenerate both, or write the refrain as its line")
    return None


def encode_template(template: Template, vocab: Vocab, locked_groups: bool = True) -> Encoded:
    """Lay a template out as model positions. Locked slots become given tokens. An English
    vocabulary lays an English template out in syllables (``encode_template_en``)."""
    if getattr(vocab, "language", "zh") == "en":
        if template.lang != "en":
            raise EncodingError("this model writes English; the template is " + template.lang)
        return encode_template_en(template, vocab)
    if template.lang != "zh":
        raise EncodingError("this model writes Chinese; the template is " + template.lang)
    fmt, bpos, line, tone, label, group, given, sl, si, text = ([] for _ in range(10))
    labels: list[str] = []
    for li, tl in enumerate(template.lines):
        start = len(fmt)
        for k, slot in enumerate(tl.slots):
            last = k == len(tl.slots) - 1
            fmt.append(F_RHYME if last else F_CHAR)
            line.append(min(li, MAX_LINE - 1))
            tone.append(TONE_IDS.get(slot.tone, TONE_ANY))
            lab = 0
            if last and tl.rhyme:
                if tl.rhyme not in labels:
                    labels.append(tl.rhyme)
                lab = min(labels.index(tl.rhyme) + 1, MAX_LABEL - 1)
            label.append(lab)
            group.append(0)
            if slot.lock is not None:
                if len(slot.lock) != 1 or not is_hanzi(slot.lock):
                    raise EncodingError(f"line {li + 1}, syllable {k + 1}: locked text {slot.lock!r} "
                                        "is not one Chinese character")
                given.append(vocab.id(slot.lock))
                text.append(slot.lock)
            else:
                given.append(vocab.fill)
                text.append("")
            sl.append(li)
            si.append(k)
            for mark in slot.punct:
                pid = vocab.punct_id(mark)
                if pid is None:
                    pid = vocab.punct_id("，")
                fmt.append(F_PUNCT)
                line.append(min(li, MAX_LINE - 1))
                tone.append(0), label.append(0), group.append(0)
                given.append(pid)
                text.append(mark)
                sl.append(-1), si.append(-1)
        fmt.append(F_EOL)
        line.append(min(li, MAX_LINE - 1))
        tone.append(0), label.append(0), group.append(0)
        given.append(vocab.eol)
        text.append("\n")
        sl.append(-1), si.append(-1)
        n = len(fmt) - start
        bpos.extend(min(n - 1 - j, MAX_BPOS - 1) for j in range(n))
    fmt.append(F_EOS)
    bpos.append(0)
    line.append(min(len(template.lines), MAX_LINE - 1))
    tone.append(0), label.append(0), group.append(0)
    given.append(vocab.eos)
    text.append("")
    sl.append(-1), si.append(-1)
    enc = Encoded(*(np.asarray(a, dtype=np.int64) for a in (fmt, bpos, line, tone, label, group, given)),
                  slot_line=np.asarray(sl, dtype=np.int64), slot_index=np.asarray(si, dtype=np.int64),
                  text=text, labels=labels, kind=np.full(len(fmt), kind_id(template.kind), dtype=np.int64))
    if locked_groups:
        fill_locked_groups(enc)
    return enc


def fill_locked_groups(enc: Encoded) -> None:
    """A locked character at a labelled rhyme slot fixes that label's sound class everywhere."""
    for lab in range(1, len(enc.labels) + 1):
        where = np.nonzero(enc.label == lab)[0]
        known = [sound_class(enc.text[p]) for p in where if enc.text[p]]
        known = [g for g in known if g]
        if known:
            enc.group[where] = known[0]


def line_positions(enc: Encoded, line_index: int) -> np.ndarray:
    return np.nonzero(enc.slot_line == line_index)[0]


def encode_template_en(template: Template, vocab) -> Encoded:
    """An English template laid out in syllables: ``songwriter.engine.encoding_en``."""
    from songwriter.engine.encoding_en import encode_template_en as encode

    return encode(template, vocab)

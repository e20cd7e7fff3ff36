"""English templates laid out for the model: one position per syllable. No torch: numpy only.

An English piece is laid out in syllables, not words::

    line 0: s s s s s s s s s s P </s>   line 1: ...  <eos>

Every syllable slot of the template is a position (``fmt`` CHAR, the line's last syllable RHYME,
as SongNet marks the last unit of a sentence); ``bpos`` counts the syllables left in the line,
the slot's own included (the last syllable is 1; a mark and </s> count the syllables after them,
so a line-end mark and </s> are 0); ``line`` is the line index. A word fills one or more syllable
positions: the token stream has the word at its first syllable and ``<fill>`` at each further one
(the decoder copies those), so the positions, and every template channel, come from the template
alone, as in Chinese, and both backends and the ONNX graphs serve English unchanged. In the
memory, ``given`` holds a locked word's id at every syllable it covers (``<fill>`` where the
model chooses). The other channels:

- ``tone``   the stress asked for at a free syllable: 0 any, 1 stressed "/", 2 unstressed "x";
- ``label``  the rhyme label at a line's last syllable (1 for the first label, ...);
- ``group``  the stressed vowel of a label's rhyme when a locked rhyme word fixes it
             (``EN_VOWELS``, 1..15; 0 unknown);
- ``kind``   the kind of piece (``EN_KIND_IDS``: poem, song, hymn, prose; 0 unknown).

An English model's config says ``n_group`` N_GROUPS_EN and ``n_kind`` N_KINDS_EN; the Chinese
channels' sizes (``encoding``) are unchanged.
"""

from __future__ import annotations

import numpy as np

from songwriter.engine.encoding import (
    F_CHAR, F_EOL, F_EOS, F_PUNCT, F_RHYME, MAX_BPOS, MAX_LABEL, MAX_LINE, Encoded, EncodingError,
)
from songwriter.template import Template

STRESS_IDS = {"/": 1, "x": 2}
EN_VOWELS = ("AA", "AE", "AH", "AO", "AW", "AY", "EH", "ER", "EY", "IH", "IY", "OW", "OY", "UH", "UW")
N_GROUPS_EN = len(EN_VOWELS) + 1
# ``prose`` (modern prose cut into lines, train.corpus_en_prose) is a register for training only:
# no template is written as prose. A model from before it has 4 rows and gains the prose row as a
# copy of the song row (EN_KIND_FALLBACK), the register nearest to modern prose.
EN_KIND_IDS = {"poem": 1, "song": 2, "hymn": 3, "prose": 4}
N_KINDS_EN = len(EN_KIND_IDS) + 1
EN_KIND_FALLBACK = np.asarray([0, 1, 2, 3, 2], dtype=np.int64)
# the corpus kind an English template's kind is written as (a sonnet is a poem: the corpus's
# sonnets are all held out)
_EN_TEMPLATE_KINDS = {"poem": "poem", "lyric": "song", "sonnet": "poem", "song": "song", "hymn": "hymn"}


def en_kind_id(template_or_kind) -> int:
    """The ``kind`` channel of an English template (its kind of piece: a hymn, a lyric a song,
    a poem) or of a corpus kind."""
    kind = template_or_kind if isinstance(template_or_kind, str) else template_or_kind.kind
    return EN_KIND_IDS.get(_EN_TEMPLATE_KINDS.get(kind, ""), 0)


def en_vowel_class(key: str | None) -> int:
    """The ``group`` of a perfect rhyme key: its stressed vowel (the key's first phone), 1..15;
    0 for a spelling key or none."""
    if not key:
        return 0
    head = key.split()[0]
    return EN_VOWELS.index(head) + 1 if head in EN_VOWELS else 0


def en_rhyme_group(word: str) -> int:
    """The ``group`` of a rhyme word: the stressed vowel of its perfect rhyme; 0 unknown."""
    from songwriter.prosody import english

    keys = sorted(english.rhyme_keys(word, "perfect"))
    return next((g for g in (en_vowel_class(k) for k in keys) if g), 0)


def bare_word(word: str) -> str:
    """A locked word as the vocabulary spells it: lower case, outer quotes and marks dropped."""
    return word.strip("\"\u201c\u201d\u2018\u2019()[],.;:?!").lower().replace("\u2019", "'")


def encode_template_en(template: Template, vocab) -> Encoded:
    """Lay an English template out in syllables (see the module docstring). A locked word fills
    its ``span`` syllables; one the vocabulary lacks is shown to the model as ``<unk>`` and
    written as itself."""
    if template.lang != "en":
        raise EncodingError("this model writes English; the template is " + template.lang)
    cols = {k: [] for k in ("fmt", "bpos", "line", "tone", "label", "group", "given", "sl", "si", "ws", "syl")}
    text: list[str] = []
    labels: list[str] = []

    def put(f, b, li, t=0, lab=0, g=None, s_line=-1, s_index=-1, tx="", start=0, sy=-1):
        for k, v in (("fmt", f), ("bpos", min(b, MAX_BPOS - 1)), ("line", min(li, MAX_LINE - 1)), ("tone", t),
                     ("label", lab), ("group", 0), ("given", vocab.fill if g is None else g), ("sl", s_line),
                     ("si", s_index), ("ws", start), ("syl", sy)):
            cols[k].append(v)
        text.append(tx)

    for li, tl in enumerate(template.lines):
        n = tl.syllables
        lab = 0
        if tl.rhyme:
            if tl.rhyme not in labels:
                labels.append(tl.rhyme)
            lab = min(labels.index(tl.rhyme) + 1, MAX_LABEL - 1)
        done = 0
        for k, slot in enumerate(tl.slots):
            wid = None
            if slot.lock is not None:
                if len(slot.lock.split()) != 1 or not any(c.isalpha() for c in slot.lock):
                    raise EncodingError(f"line {li + 1}, slot {k + 1}: locked text {slot.lock!r} is not one word")
                wid = vocab.id(bare_word(slot.lock))
            for j in range(slot.span):
                last = done == n - 1
                t = STRESS_IDS.get(slot.tone, 0) if slot.lock is None else 0
                put(F_RHYME if last else F_CHAR, n - done, li, t, lab if last else 0, wid, li, k,
                    slot.lock if (wid is not None and j == 0) else "", int(wid is not None and j == 0), done)
                done += 1
            for mark in slot.punct:
                pid = vocab.punct_id(mark)
                if pid is None:
                    pid = vocab.punct_id(",")
                put(F_PUNCT, n - done, li, g=pid, tx=mark)
        put(F_EOL, 0, li, g=vocab.eol, tx="\n")
    put(F_EOS, 0, len(template.lines), g=vocab.eos)
    a = {k: np.asarray(v, dtype=np.int64) for k, v in cols.items()}
    enc = Encoded(a["fmt"], a["bpos"], a["line"], a["tone"], a["label"], a["group"], a["given"],
                  slot_line=a["sl"], slot_index=a["si"], text=text, labels=labels,
                  kind=np.full(len(text), en_kind_id(template), dtype=np.int64), word_start=a["ws"],
                  syllable=a["syl"])
    # a locked word at a labelled line end fixes its label's stressed vowel everywhere
    for lab_id in range(1, len(labels) + 1):
        where = np.nonzero(enc.label == lab_id)[0]
        for p in where:
            if enc.given[p] == vocab.fill:
                continue
            q = p
            while q > 0 and not enc.word_start[q]:
                q -= 1
            g = en_rhyme_group(bare_word(enc.text[q])) if enc.text[q] else 0
            if g:
                enc.group[where] = g
                break
    return enc


def word_counts_for(words: list[str], total: int) -> list[int] | None:
    """Syllable counts, one per word (each one of the word's CMUdict readings, the usual one
    wherever it can be), that add up to ``total``; None when no reading of the words does."""
    from songwriter.prosody import english

    return counts_for([[c for c in english.syllable_counts(w) if c > 0] or [1] for w in words], total)


def counts_for(options: list, total: int) -> list[int] | None:
    """One count per word from its options (the first, usual one wherever it can be: the fewest
    words read otherwise) adding up to ``total``; None when none do."""
    best: dict[tuple[int, int], tuple[int, list[int]] | None] = {}

    def go(k: int, left: int):       # (changes from the usual counts, counts) for options[k:]
        if k == len(options):
            return (0, []) if left == 0 else None
        key = (k, left)
        if key not in best:
            found = None
            for j, c in enumerate(options[k]):
                if c > left:
                    continue
                rest = go(k + 1, left - c)
                if rest is not None and (found is None or rest[0] + (j > 0) < found[0]):
                    found = (rest[0] + (j > 0), [c] + rest[1])
            best[key] = found
        return best[key]

    got = go(0, total)
    return got[1] if got else None


def given_lines_en(template: Template, text: str, keep) -> Template:
    """A copy of an English template in which every line ``keep(line)`` says to keep is locked to
    its words as written in ``text`` (one line per template line), when the words can fill the
    line's syllables (each word one of its readings); other lines, and kept lines whose words do
    not fit, are left as the template has them. The line keeps its closing mark."""
    from songwriter.template import FREE, Slot, syllable_units, text_lines

    t = template.copy()
    if not text.strip():
        return t
    have = text_lines(text, t)
    for i, line in enumerate(t.lines[: len(have)]):
        if not keep(i):
            continue
        units = syllable_units(have[i], "en")
        words = [u for u, _ in units]
        if not words or any(w == FREE or not any(c.isalpha() for c in w) for w in words):
            continue
        counts = word_counts_for(words, line.syllables)
        if counts is None:
            continue
        slots = [Slot(lock=w, span=c, punct=p) for (w, p), c in zip(units, counts)]
        slots[-1].punct = line.slots[-1].punct or slots[-1].punct
        line.slots = slots
    return t

"""A content's words completed in the decoder (numpy only): once a row has written the start of
one of a content's words (明 of 明月) in a line, the word's next character there gets a bonus in
nats that grows with the content's strength.

Why: the CoCon block raises a content's characters, not its words. Measured on the probe
(docs/cocon.md): at strength 2 the characters of 明月 / 故乡 stood in 15 of 16 candidates but the
words whole in 4 (月明, 故人, 故国 instead). A writer who types a word wants the word. The bonus
only shifts the model's log-probabilities before the template's masks apply, so every hard
constraint stays; candidate scores remain the model's own.

A content's words are its pieces of 2 to ``WORD_MAX`` characters between spaces and punctuation
(keywords, a plan's keyword); a longer piece is a passage (a song's lyrics as its theme), whose
phrases are not pushed, so a re-lyric does not copy the old words.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from songwriter.engine import encoding as E

WORD_MAX = 4
# nats per unit of (1 + strength): strength -1 or below adds nothing, 0 (the default) 2, 2 6
NATS_PER_STRENGTH = 2.0
# a word's first character, where the whole word fits, gets this share of the bonus (less than a
# continuation: a writer's word should appear, not open every line)
START_SHARE = 0.5


def completion_bonus(strength: float) -> float:
    """The bonus (nats) a started content word's next character gets at ``strength`` (tau)."""
    return NATS_PER_STRENGTH * max(0.0, 1.0 + float(strength))


def words_of(text: str, vocab) -> list[tuple[int, ...]]:
    """A content's words as vocabulary ids: its runs of 2..WORD_MAX characters between spaces
    and punctuation (a run with a character outside the vocabulary is left out); none at all
    when some run is longer (a passage)."""
    words, run, writable = [], [], True
    for ch in text + " ":
        if ch.isspace() or vocab.punct_id(ch) is not None:
            if len(run) > WORD_MAX:
                return []
            if writable and len(run) >= 2:
                words.append(tuple(run))
            run, writable = [], True
            continue
        i = vocab.id(ch)
        writable = writable and i != vocab.unk and vocab.is_char(i)
        run.append(int(i))
    return list(dict.fromkeys(words))


@dataclass(frozen=True)
class ContentWord:
    ids: tuple[int, ...]
    bonus: float                      # nats for each next character
    scope: np.ndarray | None = None   # bool over the template's positions, or None: everywhere


class WordCompletion:
    """Per decode position, the bonus rows get for starting a content word where the whole word
    fits the template's tones and for continuing one they have started in the same line
    (``add``). Built once per request (``of``); ``fit`` reads the decoder's per-position masks."""

    def __init__(self, words: list[ContentWord], enc: E.Encoded):
        self.words = [w for w in words if w.bonus > 0 and len(w.ids) >= 2]
        slot = (enc.fmt == E.F_CHAR) | (enc.fmt == E.F_RHYME)
        # run[p]: how many slots of p's line stand right before p, without a mark between
        self.run = np.zeros(len(enc.fmt), dtype=np.int64)
        for p in range(1, len(enc.fmt)):
            if slot[p] and slot[p - 1] and enc.slot_line[p] == enc.slot_line[p - 1]:
                self.run[p] = self.run[p - 1] + 1
        self.rhyme_slot = enc.fmt == E.F_RHYME
        self.starts: list[np.ndarray] = [np.zeros(len(enc.fmt), dtype=bool) for _ in self.words]

    @classmethod
    def of(cls, texts: list[str], strengths: list[float], scopes: list[np.ndarray | None],
           vocab, enc: E.Encoded) -> "WordCompletion | None":
        """The completion for a request's contents (``scopes[c]``: where content c steers), or
        None when no content has a word to complete at its strength."""
        words = [ContentWord(ids, completion_bonus(s), scope)
                 for text, s, scope in zip(texts, strengths, scopes) for ids in words_of(text, vocab)]
        got = cls(words, enc)
        return got if got.words else None

    def fit(self, masks: dict[int, np.ndarray]) -> None:
        """Where each word may start: positions from which its characters all fall on free slots
        of one line (no mark between) whose masks (tones) allow them, within the word's scope,
        ending before the line's rhyme (whose group the decoder settles later)."""
        T = len(self.run)
        for w, starts in zip(self.words, self.starts):
            n = len(w.ids)
            for p in range(T - n + 1):
                end = p + n - 1
                if self.run[end] - self.run[p] != n - 1:     # not n slots in a row of one line
                    continue
                if self.rhyme_slot[end] or (w.scope is not None and not w.scope[p:end + 1].all()):
                    continue
                starts[p] = all(q in masks and masks[q][c] for q, c in zip(range(p, end + 1), w.ids))

    def add(self, p: int, out: np.ndarray, scores: np.ndarray) -> None:
        """Add the bonuses for position p to ``scores`` (rows, vocabulary) in place, from the
        rows' tokens so far (``out``: rows x positions). A row that has written a word whole
        gets no more bonus to start it again."""
        before = int(self.run[p])
        for w, starts in zip(self.words, self.starts):
            if w.scope is not None and not w.scope[p]:
                continue
            ids = np.asarray(w.ids)
            for k in range(1, min(before, len(ids) - 1) + 1):
                started = np.all(out[:, p - k:p] == ids[:k], axis=1)
                if started.any():
                    scores[started, ids[k]] += w.bonus
            stutter = before and ids[1] != ids[0]     # a doubled word (依依) is not a stutter
            if stutter:
                # the block pushes a content's characters wherever it can: 明 right after 明
                # (明明月, 故故) reads as a stutter, so the word's first character is held back there
                scores[out[:, p - 1] == ids[0], ids[0]] -= w.bonus
            if starts[p]:
                # not a row that has the word whole already, nor one that just wrote its first character
                fresh = ~self._written(w, out, p)
                if stutter:
                    fresh &= out[:, p - 1] != ids[0]
                scores[fresh, ids[0]] += w.bonus * START_SHARE

    @staticmethod
    def _written(w: ContentWord, out: np.ndarray, p: int) -> np.ndarray:
        """Per row: whether the word stands whole in positions before p."""
        n = len(w.ids)
        if p < n:
            return np.zeros(len(out), dtype=bool)
        windows = np.lib.stride_tricks.sliding_window_view(out[:, :p], n, axis=1)
        return np.all(windows == np.asarray(w.ids), axis=2).any(axis=1)

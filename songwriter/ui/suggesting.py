"""Word suggestions for the slot at the cursor: the engine ranks words that fit the slot (its
tone, its rhyme group, the syllables left) in the background. Without an engine for the piece's
language, Chinese shows the rhyme tables' characters and English the words of the pronouncing
dictionary (CMUdict) that fit the syllables left, the stress and the rhyme (perfect, then
slant), commonest first; the panel says which list it is."""

from __future__ import annotations

from PySide6.QtCore import QThreadPool

from songwriter.engine.api import english_words

from .engine_host import FAILED, LOADING, READY, import_shared_modules
from .i18n import tr
from .wording import counted, joined_bits
from .worker import Op

RHYME_KINDS = {"perfect": "perfect rhyme", "slant": "slant rhyme"}


class Suggestions:
    def __init__(self, window):
        self.w = window
        self._suggest_token = 0
        # English words without a model: numpy tables built on first use (seconds), so off the UI
        # thread, and not in the engine's pool (a generation there would hold the list up)
        self.words_pool = QThreadPool(window)
        self.words_pool.setMaxThreadCount(1)

    def shutdown(self, wait_ms: int = 3000) -> None:
        """The window closes: a list still being found is dropped, not shown."""
        self._suggest_token += 1
        self.words_pool.waitForDone(wait_ms)

    def action_suggest(self) -> None:
        self.w.docks["words"].show()
        self.w.docks["words"].raise_()
        self.update_suggestions(load=True)

    def slot_constraints(self, line: int, slot: int) -> str:
        t = self.w.doc.template
        tline = t.lines[line]
        s = tline.slots[slot]
        if t.lang == "zh":
            bits = [tr("Line {n}, slot {k}").format(n=line + 1, k=slot + 1)]
        else:       # a locked word before may fill several syllables in one slot
            bits = [tr("Line {n}, syllable {k}").format(n=line + 1, k=sum(x.span for x in tline.slots[:slot]) + 1)]
        if s.tone:      # a tone in Chinese, a stress in English
            bits.append(tr("tone {t}").format(t=s.tone) if t.lang == "zh" else
                        {"/": tr("stressed"), "x": tr("unstressed")}[s.tone])
        if tline.rhyme and slot == len(tline.slots) - 1:
            name = group_label(t, self.w.session.rhyme_group_of(line, self.w.checks))
            bits.append(tr("rhyme {label}").format(label=tline.rhyme) + (f" ({name})" if name else ""))
        if t.lang == "en":
            left = sum(x.span for x in tline.slots[slot:])
            bits.append(counted("{n} syllable(s) left in the line", left, n=left))
        return joined_bits(bits)       # "rhyme A (上平五微)" kept whole on a narrow panel

    def update_suggestions(self, load: bool = False) -> None:
        if not self.w.docks["words"].isVisible() and not load:
            return
        where = self.w.view.current_slot()
        if where is None or where[1] is None:
            self.w.words_panel.show_words(tr("Select a slot in the editor to see words that fit it."), [], "")
            return
        line, slot = where
        header = self.slot_constraints(line, slot)
        host = self.w.engine_host
        lang = self.w.doc.lang
        self._suggest_token += 1
        token = self._suggest_token
        if lang == "en" and self.w.doc.template.lines[line].slots[slot].lock is not None:
            # an English locked word holds its syllables, so no word fits there: say why, and how to
            # free them (a locked Chinese cell still lists the characters that could replace it)
            self.w.words_panel.show_words(header, [], tr("This word is locked: unlock it (Ctrl+L) to see words for it."))
            return
        can_load = not self.w.engines.unavailable_reason(lang)
        if host.state == READY and lang in host.languages:
            template, text = self.w.session.suggestion_context(line, slot)
            self.w.words_panel.show_words(header, [], tr("Asking the engine…"))
            # ranked by the steered model where it can steer (the same steering as Generate)
            steer = self.w.session.steering_fields() if host.supports_content else {}
            if lang == "en":    # the words with their rhyme and syllables, as the dictionary's list has them
                op = host.call(lambda engine: engine.suggest_words(template, text, line, slot, k=21, **steer),
                               label="suggest")
            else:
                op = host.call(lambda engine: engine.suggest(template, text, line, slot, k=20, **steer), label="suggest")
            op.success(lambda words: self._suggested(token, header, words, line, slot)) \
              .failure(lambda e: self._suggest_failed(token, header, line, slot, e))
            op.run_in_background(host.pool)
            return
        if not can_load:
            why = tr("Not ranked in context: no {lang} model is installed.").format(
                lang=tr("English") if lang == "en" else tr("Chinese"))
        elif host.state == FAILED:
            why = tr("The engine is not available, so these are not ranked.")
        elif host.state == READY:
            why = tr("No model for this language: these are not ranked.")
        elif host.state == LOADING:
            why = tr("The engine is loading; the ranked list follows.")
        else:
            why = tr("Not ranked yet: the engine loads when you generate or press Ctrl+Space.")
        if lang == "en":
            self._english_words(token, header, line, slot, why)
        else:
            fallback = self.w.session.fallback_words(line, slot, self.w.checks)
            self.w.words_panel.show_words(header, [(w, None) for w in fallback], why if fallback else
                                          why + " " + tr("No rhyme-table words for this slot."))
        if load and can_load and host.state not in (FAILED, READY):
            host.load(then=lambda _e: self.update_suggestions(), otherwise=lambda _m: None)

    def _english_words(self, token: int, header: str, line: int, slot: int, why: str) -> None:
        """The words of the pronouncing dictionary that fit the slot, found in the background."""
        template, text = self.w.session.suggestion_context(line, slot)
        self.w.words_panel.show_words(header, [], tr("Finding the words that fit…"))
        import_shared_modules()     # before our thread imports them (see engine_host.SHARED_MODULES)
        op = Op(english_words, template, text, line, slot, k=60, label="english words")
        op.success(lambda words: self._english_found(token, header, self._not_written(words, line, slot), why)) \
          .failure(lambda e: token == self._suggest_token and self.w.words_panel.show_words(
              header, [], tr("The word list could not be read: {e}").format(e=e)))
        op.run_in_background(self.words_pool)

    def _english_found(self, token: int, header: str, words, why: str) -> None:
        if token != self._suggest_token:
            return
        items = [(c.word, None, word_detail(c.syllables, c.rhyme)) for c in words]
        source = tr("From CMUdict: rhymes first, then the commonest.")
        self.w.words_panel.show_words(header, items, (source + " " + why) if items else
                                      tr("No word in the dictionary fits this slot."))

    def _not_written(self, words, line: int, slot: int) -> list:
        """English words without the one already written at the slot: the writer has it."""
        from songwriter.project.layout import en_word_layout

        doc = self.w.doc
        if line >= len(doc.lines):
            return list(words)
        here = next((p.word.lower() for p in en_word_layout(doc.lines[line], doc.template.lines[line])
                     if p.slot == slot), None)
        return [c for c in words if c.word.lower() != here]

    def _suggested(self, token: int, header: str, words, line: int = -1, slot: int = -1) -> None:
        if token != self._suggest_token:
            return
        if self.w.doc.lang == "en":
            items = [(c.word, float(c.score), word_detail(c.syllables, c.rhyme))
                     for c in self._not_written(words, line, slot)[:20]]
        else:
            items = [(str(w), float(s)) for w, s in words]
        self.w.words_panel.show_words(header, items, tr("Ranked by the engine; double-click or Enter puts a word in.")
                                    if items else tr("No word fits this slot."))

    def _suggest_failed(self, token: int, header: str, line: int, slot: int, error) -> None:
        if token != self._suggest_token:
            return
        why = tr("The engine could not suggest: {e}").format(e=error)
        if self.w.doc.lang == "en":         # the dictionary's words still fit, unranked
            self._english_words(token, header, line, slot, why)
            return
        self.w.words_panel.show_words(header, [(w, None) for w in self.w.session.fallback_words(line, slot, self.w.checks)],
                                      why)


def word_detail(syllables: int, rhyme: str) -> str:
    """What a word of the English list is, briefly: the kind of rhyme it makes, and its syllables
    when more than one."""
    bits = [tr(RHYME_KINDS.get(rhyme, rhyme))] if rhyme else []
    if syllables > 1:
        bits.append(counted("{n} syllable(s)", syllables, n=syllables))
    return ", ".join(bits)


def group_label(template, group: str | None) -> str:
    """A rhyme group's name as a writer knows it (江阳辙, 下平七阳), never its id."""
    if not group:
        return ""
    try:
        from songwriter.prosody.chinese import group_name

        return group_name(template.effective_rhyme_system(), group)
    except Exception:   # an English rhyme key or a table that is missing: no name to show
        return ""

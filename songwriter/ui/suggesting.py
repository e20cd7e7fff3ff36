"""Word suggestions for the slot at the cursor: the engine ranks words that fit the slot (its
tone, its rhyme group, the syllables left) in the background; without an engine for the
piece's language the rhyme tables' words show, unranked, and the panel says why."""

from __future__ import annotations

from .engine_host import FAILED, LOADING, READY
from .i18n import tr


class Suggestions:
    def __init__(self, window):
        self.w = window
        self._suggest_token = 0

    def action_suggest(self) -> None:
        self.w.docks["words"].show()
        self.w.docks["words"].raise_()
        self.update_suggestions(load=True)

    def slot_constraints(self, line: int, slot: int) -> str:
        t = self.w.doc.template
        tline = t.lines[line]
        s = tline.slots[slot]
        bits = [tr("Line {n}, slot {k}").format(n=line + 1, k=slot + 1)]
        if s.tone:
            bits.append(tr("tone {t}").format(t=s.tone if t.lang == "zh" else {"/": tr("stressed"), "x": tr("unstressed")}[s.tone]))
        if tline.rhyme and slot == len(tline.slots) - 1:
            name = group_label(t, self.w.session.rhyme_group_of(line, self.w.checks))
            bits.append(tr("rhyme {label}").format(label=tline.rhyme) + (f" ({name})" if name else ""))
        if t.lang == "en":
            left = sum(x.span for x in tline.slots[slot:])
            bits.append(tr("{n} syllable(s) left in the line").format(n=left))
        return " · ".join(bits)

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
        self._suggest_token += 1
        token = self._suggest_token
        if host.state == READY and self.w.doc.lang in host.languages:
            template, text = self.w.session.suggestion_context(line, slot)
            self.w.words_panel.show_words(header, [], tr("Asking the engine…"))
            op = host.call(lambda engine: engine.suggest(template, text, line, slot, k=20), label="suggest")
            op.success(lambda words: self._suggested(token, header, words)) \
              .failure(lambda e: self._suggest_failed(token, header, line, slot, e))
            op.run_in_background(host.pool)
            return
        fallback = self.w.session.fallback_words(line, slot, self.w.checks)
        if host.state == FAILED:
            why = tr("The engine is not available, so these are not ranked.")
        elif host.state == READY:
            why = tr("No model for this language: these are not ranked.")
        elif host.state == LOADING:
            why = tr("The engine is loading; the ranked list follows.")
        else:
            why = tr("Not ranked yet: the engine loads when you generate or press Ctrl+Space.")
        self.w.words_panel.show_words(header, [(w, None) for w in fallback], why if fallback else
                                    why + " " + tr("No rhyme-table words for this slot."))
        if load and host.state not in (FAILED, READY):
            host.load(then=lambda _e: self.update_suggestions(), otherwise=lambda _m: None)

    def _suggested(self, token: int, header: str, words) -> None:
        if token != self._suggest_token:
            return
        items = [(str(w), float(s)) for w, s in words]
        self.w.words_panel.show_words(header, items, tr("Ranked by the engine; double-click or Enter puts a word in.")
                                    if items else tr("No word fits this slot."))

    def _suggest_failed(self, token: int, header: str, line: int, slot: int, error) -> None:
        if token != self._suggest_token:
            return
        self.w.words_panel.show_words(header, [(w, None) for w in self.w.session.fallback_words(line, slot, self.w.checks)],
                                    tr("The engine could not suggest: {e}").format(e=error))


def group_label(template, group: str | None) -> str:
    """A rhyme group's name as a writer knows it (江阳辙, 下平七阳), never its id."""
    if not group:
        return ""
    try:
        from songwriter.prosody.chinese import group_name

        return group_name(template.effective_rhyme_system(), group)
    except Exception:   # an English rhyme key or a table that is missing: no name to show
        return ""

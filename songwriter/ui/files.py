"""What the window does with files: New, Open (and Recent), Save and Save As, importing a song's
lyrics or LRC as a new piece, Export, autosave and the offer to recover unsaved work. The
session does the work (songwriter.session, songwriter.recovery); this asks the questions in
dialogs and keeps the recent-files list."""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path

from songwriter import document as D
from songwriter.lyrics import looks_like_lrc
from songwriter.session import piece_from_song
from songwriter.template import TemplateError

from . import dialogs, settings
from .i18n import tr
from .wording import core_text, counted, syllables_text

SONG_FILTER = "Songwriter project (*.song)"
LYRICS_FILTER = "Lyrics (*.txt *.lrc *.text);;All files (*)"
LRC_FILTER = "LRC lyrics (*.lrc);;All files (*)"
MELODY_FILTER = ("Melodies (*.musicxml *.xml *.mxl *.mid *.midi *.kar *.abc);;MusicXML (*.musicxml *.xml *.mxl);;"
                 "MIDI (*.mid *.midi *.kar);;ABC (*.abc);;All files (*)")


@contextmanager
def _busy():
    """The wait cursor while a file is read (music21 takes a moment the first time)."""
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QApplication

    QApplication.setOverrideCursor(Qt.WaitCursor)
    try:
        yield
    finally:
        QApplication.restoreOverrideCursor()


class FileCommands:
    def __init__(self, window):
        self.w = window

    def maybe_save(self) -> bool:
        """True when it is fine to replace the piece (saved, discarded or unchanged)."""
        if self.w.view.editing_inline:
            self.w.view.finish_inline_edit(commit=True)
        if not self.w.is_modified():
            return True
        name = self.w.session.path.name if self.w.session.path else (self.w.doc.title or tr("Untitled"))
        choice = dialogs.ask_save_changes(self.w, name)
        if choice == "save":
            return self.file_save()
        return choice == "discard"

    def file_new(self) -> None:
        if self.maybe_save():
            self.w.session.new_piece(self.w.starting_template().name)

    def file_open(self, path: str | None = None) -> bool:
        if not self.maybe_save():
            return False
        if not path:
            path = dialogs.open_path(self.w, tr("Open project"), tr(SONG_FILTER), self.last_dir())
            if not path:
                return False
        return self.open_path(path)

    def open_path(self, path: str) -> bool:
        done = self.w.session.open(path)
        if not done:
            self.w.warn(tr("Cannot open the project"), done.note.render(tr))
            return False
        self.w.say(done)
        settings.add_recent(str(self.w.session.path))
        settings.put("last_dir", str(self.w.session.path.parent))
        return True

    def file_save(self) -> bool:
        if self.w.session.path is None:
            return self.file_save_as()
        return self.save_to(self.w.session.path)

    def file_save_as(self) -> bool:
        s = self.w.session
        start = s.path or s.suggested_path or Path(self.last_dir()) / ((self.w.doc.title or "untitled") + D.SUFFIX)
        path = dialogs.save_path(self.w, tr("Save project"), tr(SONG_FILTER), str(start))
        if not path:
            return False
        if not path.endswith(D.SUFFIX):
            path += D.SUFFIX
        return self.save_to(Path(path))

    def save_to(self, path: Path) -> bool:
        if self.w.view.editing_inline:
            self.w.view.finish_inline_edit(commit=True)
        done = self.w.session.save(path)
        if not done:
            self.w.warn(tr("Cannot save"), done.note.render(tr))
            return False
        self.w.say(done)
        self.w.recovery.remove()
        settings.add_recent(str(self.w.session.path))
        settings.put("last_dir", str(self.w.session.path.parent))
        return True

    def last_dir(self) -> str:
        return str(settings.get("last_dir") or "") or str(Path.home())

    def fill_recent(self) -> None:
        m = self.w.actions.menus["recent"]
        m.clear()
        for p in settings.recent_files():
            act = m.addAction(p)
            act.triggered.connect(lambda _=False, x=p: self.file_open(x))
        if not m.actions():
            m.addAction(tr("(none)")).setEnabled(False)
        else:
            m.addSeparator()
            m.addAction(tr("Clear Recent")).triggered.connect(settings.clear_recent)

    # --- import: a song becomes a new piece ---------------------------------------------------
    def import_lyrics(self) -> None:
        path = dialogs.open_path(self.w, tr("Import lyrics"), tr(LYRICS_FILTER), self.last_dir())
        if path:
            self.import_file(path)

    def import_lrc(self) -> None:
        path = dialogs.open_path(self.w, tr("Import LRC"), tr(LRC_FILTER), self.last_dir())
        if path:
            self.import_file(path, kind="lrc")

    def import_file(self, path: str, kind: str | None = None) -> bool:
        from songwriter.melody import is_melody_file
        from songwriter.validate import ValidationError, read_text

        if kind is None and is_melody_file(path):
            return self.import_melody_file(path)

        try:
            text = read_text(path)
        except ValidationError as e:
            self.w.warn(tr("Cannot import"), str(e))
            return False
        if kind is None:
            kind = "lrc" if path.lower().endswith(".lrc") or looks_like_lrc(text) else "lyrics"
        return self.import_song(text, kind, Path(path).name)

    def paste_lyrics(self) -> None:
        text = dialogs.get_text(self.w, tr("Lyrics to re-lyric"),
                                tr("Paste the song's lyrics (one sung line per line) or an LRC file:"), "", multiline=True)
        if text and text.strip():
            self.import_song(text, "lrc" if looks_like_lrc(text) else "lyrics", "")

    def import_song(self, text: str, kind: str, name: str) -> bool:
        """The song's form becomes a new piece (the open one is saved or discarded first, as on
        New), so the open piece and its history are never mixed with the song's."""
        try:
            doc = piece_from_song(text, kind, name, tr("Tune of {name}"), tr("Imported song"))
        except TemplateError as e:
            self.w.warn(tr("Cannot import"), str(e))
            return False
        if not self.maybe_save():
            return False
        self.w.session.replace(doc, None)
        self.w.docks["original"].show()
        self.w.docks["original"].raise_()
        n = len(doc.template.lines)
        self.w.status_hint(counted("Form made from the song: {n} line(s). The original is beside each line and in the "
                                   "Original Song panel.", n, n=n))
        return True

    # --- import: a melody becomes a new piece --------------------------------------------------
    def import_melody(self) -> None:
        path = dialogs.open_path(self.w, tr("Import melody"), tr(MELODY_FILTER), self.last_dir())
        if path:
            self.import_melody_file(path)

    def import_melody_file(self, path: str, part=None, tune=None, lang: str | None = None) -> bool:
        """A melody file (MusicXML, MIDI, ABC) becomes a new piece: its template, a slot per sung
        syllable and a line per phrase, the melody kept with it (what ``songwriter template
        --relyric FILE`` makes). The part, the ABC tune and, for a tune without words, the
        language of the new words are asked where the file leaves a choice. A file that is no
        melody is refused with the reader's reason and the open piece stays as it was."""
        from songwriter.melody import melody_of, piece_from_melody_file, read_melody

        name = Path(path).name
        try:
            with _busy():
                first = read_melody(path, part=part, tune=tune)
        except TemplateError as e:
            self.w.warn(tr("Cannot import the melody"), str(e))
            return False
        parts = (first.meta.get("parts") or []) if part is None else []
        tunes = (first.meta.get("tunes") or []) if tune is None else []
        ask_lang = self.w.doc.lang if lang is None and not first.words else None
        if len(parts) > 1 or len(tunes) > 1 or ask_lang is not None:
            choice = dialogs.melody_options(self.w, name, parts, tunes,
                                            int(first.meta.get("tune_count") or len(tunes)), ask_lang)
            if choice is None:
                return False
            part, tune = choice.get("part", part), choice.get("tune", tune)
            lang = choice.get("lang", lang)
        try:
            with _busy():
                doc = piece_from_melody_file(path, lang=lang, part=part, tune=tune)
        except TemplateError as e:
            self.w.warn(tr("Cannot import the melody"), str(e))
            return False
        if not self.maybe_save():
            return False
        self.w.session.replace(doc, None)
        settings.put("last_dir", str(Path(path).parent))
        if doc.original is not None:
            self.w.docks["original"].show()
        t = doc.template     # short: the status bar's checks and engine take the rest of a 1100 px window
        made = counted("Form made from the melody: {n} line(s), {size}; its notes are over the slots.",
                       len(t.lines), n=len(t.lines), size=syllables_text(t.syllables, t.lang))
        melody = melody_of(t)
        said = [core_text(n) for n in melody.reading_notes()] if melody is not None else []
        if melody is not None and melody.meta.get("warnings") and not self.w.screenshot_mode:
            # something of the file was left out or guessed: worth a box, not a passing message
            dialogs.info(self.w, tr("Melody imported"), tr("{made}\n\nReading {name}:\n{notes}").format(
                made=made, name=name, notes="\n".join("• " + n for n in said)))
        self.w.status_hint(" ".join([made] + [n[:1].upper() + n[1:].rstrip(".") + "." for n in said]),
                           12000 if said else 6000)
        return True

    # --- export -------------------------------------------------------------------------------
    def file_export(self) -> None:
        from songwriter.export import FORMATS, ExportError, export

        by_filter = {f"{tr(desc)} (*.{fmt})": fmt for fmt, desc in FORMATS.items()}
        base = self.w.session.path.stem if self.w.session.path else (self.w.doc.title or "untitled")
        path, chosen = dialogs.export_path(self.w, tr("Export"), ";;".join(by_filter),
                                           str(Path(self.last_dir()) / (base + ".txt")))
        if not path:
            return
        # the chosen format wins where the name ends as that format's files do (Lead sheet (PDF)
        # and song.pdf: the lead sheet); a name typed with another suffix says what is meant
        fmt = by_filter.get(chosen)
        if fmt and not Path(path).name.lower().endswith("." + fmt.rsplit(".", 1)[-1]):
            fmt = None
        try:
            out = export(self.w.doc, path, fmt)
        except ExportError as e:
            self.w.warn(tr("Cannot export"), str(e))
            return
        self.w.status_hint(tr("Exported {name}").format(name=out.name))

    # ==========================================================================================
    # autosave and recovery
    def autosave(self) -> bool:
        return self.w.say(self.w.recovery.write(self.w.session))

    def offer_recovery(self) -> bool:
        """At start: if a Songwriter that did not close normally left unsaved work, offer it.
        What cannot be read is set aside, never deleted, and the writer is told where."""
        for found in self.w.recovery.orphans():
            if found.doc is None:
                kept = self.w.recovery.set_aside(found)
                self.w.warn(tr("Unsaved work could not be read"),
                          tr("Songwriter found unsaved work it cannot open: {error}\n\nThe file was kept as {path}.")
                          .format(error=found.error, path=kept or found.path))
                continue
            name = Path(found.original_path).name if found.original_path else (found.doc.title or tr("an untitled piece"))
            choice = dialogs.ask_recover(self.w, found.time, name)
            if choice == "recover":
                self.w.say(self.w.recovery.recover(self.w.session, found))
                return True
            if choice == "discard":
                self.w.recovery.discard(found)
            return False
        return False

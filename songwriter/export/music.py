"""MusicXML and karaoke MIDI (.kar): the piece's melody with its words under the notes.

Both need a piece whose template was made from a melody (``template.meta["melody"]``); the
writers are ``songwriter.melody.write`` (music21, imported when a file is written)."""

from __future__ import annotations

from songwriter.wording import plural

from .common import title_of

NO_MELODY = ("the piece has no melody: {what} export needs a piece made from a melody file "
             "(songwriter template --relyric tune.musicxml, .mid, .kar or .abc; or Import in the app)")


def checked_melody(doc, what: str):
    """The piece's melody, checked: an ExportError saying why when there is none, when its record
    is broken, or when the lines no longer match its phrases."""
    from songwriter.melody.model import MelodyError, melody_of

    from . import ExportError

    try:
        melody = melody_of(doc.template)
    except MelodyError as e:
        raise ExportError(f"the piece's melody cannot be read: {e}") from None
    if melody is None:
        raise ExportError(NO_MELODY.format(what=what))
    if not melody.matches(doc.template):
        lengths = melody.line_lengths()
        raise ExportError(f"the piece's lines no longer match its melody's phrases (the form was edited: "
                          f"the melody has {plural(len(melody.lines), 'line')} of {', '.join(map(str, lengths))} "
                          f"{'syllable' if lengths == [1] else 'syllables'}), so {what} export cannot put the "
                          f"words on the notes")
    return melody


def _music21_needed(what: str):
    from . import ExportError

    return ExportError(f"{what} export needs music21 (pip install music21), which is not installed")


def _melody_file(doc, what: str, writer: str) -> bytes:
    """The bytes ``songwriter.melody.write.<writer>`` makes of the piece and its melody; what
    cannot be written becomes an ExportError naming ``what``."""
    from songwriter.melody.model import MelodyError

    from . import ExportError

    checked_melody(doc, what)
    try:
        from songwriter.melody import write

        return getattr(write, writer)(doc.template, doc.text, title_of(doc))
    except ImportError:
        raise _music21_needed(what) from None
    except MelodyError as e:
        raise ExportError(str(e)) from None


def to_musicxml(doc) -> bytes:
    return _melody_file(doc, "MusicXML", "musicxml_bytes")


def to_kar(doc) -> bytes:
    return _melody_file(doc, "Karaoke MIDI", "kar_bytes")

"""Melodies: read a tune (MusicXML, MIDI, ABC), make a template of it, fit words to its notes.

Nothing heavy at import: music21 is imported when a melody file is read (``read_melody``)."""

from songwriter.melody.model import Melody, MelodyError, Note, attach, melody_of

__all__ = ["Melody", "MelodyError", "Note", "attach", "melody_of", "read_melody", "is_melody_file",
           "template_from_melody", "template_from_melody_file", "piece_from_melody_file", "SUFFIXES"]

SUFFIXES = (".musicxml", ".xml", ".mxl", ".mid", ".midi", ".kar", ".abc")


def is_melody_file(path) -> bool:
    """A melody file by its suffix, or an existing file whose content is one (a MusicXML file
    saved as .txt is read as MusicXML, not as lyrics)."""
    from songwriter.melody.reader import is_melody_file as by_name_or_content

    return by_name_or_content(path)


def read_melody(path, part=None, tune=None) -> Melody:
    from songwriter.melody.reader import read_melody as read

    return read(path, part=part, tune=tune)


def template_from_melody(melody: Melody, lang: str | None = None, rhyme_system: str | None = None):
    from songwriter.melody.build import template_from_melody as build

    return build(melody, lang=lang, rhyme_system=rhyme_system)


def template_from_melody_file(path, lang: str | None = None, part=None, tune=None,
                              rhyme_system: str | None = None):
    return template_from_melody(read_melody(path, part=part, tune=tune), lang=lang, rhyme_system=rhyme_system)


def piece_from_melody_file(path, lang: str | None = None, part=None, tune=None, title: str = ""):
    """A new project (Document) to write words to a melody file: its template from the melody
    (the melody kept with it), titled after the file; a file with words keeps them as the
    project's original (kind "lyrics", each line at its first note's time), as an imported song
    is kept. Raises MelodyError (a TemplateError) with the reason for a file that is no melody."""
    from pathlib import Path

    from songwriter.document import Original, new_document

    melody = read_melody(path, part=part, tune=tune)
    template = template_from_melody(melody, lang=lang)
    doc = new_document(template, title=title or melody.title or Path(str(path)).stem)
    if melody.words:
        lines = melody.original_lines()
        times = [ln.time for ln in template.lines]
        doc.original = Original("lyrics", "\n".join(lines) + "\n", lines, times, melody.source)
    return doc

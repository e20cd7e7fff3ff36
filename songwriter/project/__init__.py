"""The song being written and its ``.song`` file, one job per module (no Qt, no torch).

``songwriter.document`` re-exports every public name, so code that imports from there keeps
working; new code may import from the module that holds the name:

    schema       what a .song file is: its format id, version, limits; DocumentError; HOLE
    records      what a project keeps beside its text: candidates, history entries, the original
                 song, and the form signature that tells which form a candidate was written for
    layout       how a line's text lies over the template: Chinese cells, English words
    locks        locking and unlocking what is written (a Chinese cell, an English word)
    form_edits   changing the form under the text: another form, line lengths, rhyme, tones
    timing       when each line of a re-lyricked song is sung: the song's times, while the lines are its
    document     the Document itself: template + text + locks + candidates + history
    codec        the Document as JSON, and the validation of every field read back
    atomic       crash-safe writing of any file (temporary file, fsync, rename)
    files        loading and saving .song files
    line_status  what the editor shows per line, from a check report
"""

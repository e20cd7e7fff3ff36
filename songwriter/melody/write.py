"""The melody back out with the new words under its notes: MusicXML (each syllable on its note,
a melisma drawn with an extender line) and karaoke MIDI (.kar: the syllables as text events, '/'
before each new line). music21 is imported here only, when a file is written.

Chinese: each character goes on the first note of its slot, with the punctuation after it.
English: a word of several syllables is cut into as many written syllables as the layout sings it
on (``hyphenated``: "whith-er"), each on the first note of its slot; the MusicXML marks them
begin/middle/end (``<syllabic>``, drawn with hyphens), the .kar starts each new word with a space
(the karaoke convention), so a file read back has a syllable per slot again.
"""

from __future__ import annotations

import os
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from songwriter.melody.model import Melody, MelodyError, melody_of
from songwriter.template import FREE, Template, syllable_units, text_lines


def words_on_notes(template: Template, text: str, melody: Melody | None = None) -> dict[int, str]:
    """Note index -> the syllable sung from it (with any punctuation after it), for every slot
    of the text that is written."""
    melody = melody if melody is not None else melody_of(template)
    if melody is None:
        raise MelodyError("the template has no melody to put the words under")
    if not melody.matches(template):
        raise MelodyError("the template's lines no longer match its melody's phrases")
    out: dict[int, str] = {}
    lines = text_lines(text, template) if text.strip() else []
    for li, tline in enumerate(template.lines):
        if li >= len(lines):
            break
        syllables = melody.lines[li]
        if template.lang == "zh":
            for k, (unit, punct) in enumerate(syllable_units(lines[li], "zh")[: len(syllables)]):
                if unit != FREE:
                    out[syllables[k][0]] = unit + punct
            continue
        from songwriter.document import en_word_layout

        for place in en_word_layout(lines[li], tline):
            pieces = hyphenated(place.word, place.syllables)
            for k, piece in enumerate(pieces):
                at = place.start + k
                if at >= len(syllables) or not piece:
                    continue
                last = k == len(pieces) - 1
                # '-' before: the word began on an earlier note; after: it goes on (music21's
                # Lyric reads these as <syllabic> begin / middle / end)
                out[syllables[at][0]] = ("-" if k else "") + piece + ("" if last else "-") + \
                    (place.punct if last else "")
    return out


_DIGRAPHS = ("th", "sh", "ch", "ph", "wh", "gh", "ck", "ng", "qu")
# short (checked) vowels: a stressed one keeps the consonant after it in its syllable (riv-er,
# heav-en, cit-y), as hymnals and dictionaries cut; a long one leaves it to the next (ho-ly, pa-per)
_SHORT_VOWELS = frozenset("AE EH IH AH UH".split())


# endings a stem keeps its consonants before (morn-ing, ask-est; wan-der-ing)
_STEM_SUFFIXES = ("ing", "ings", "ed", "edst", "est", "eth")
# consonant clusters a written syllable may open with: a cluster between two vowel groups is cut
# at its first place that leaves one of these or a single consonant (win-ter, chil-dren, but
# bound-less, dark-ness, Christ-mas, bright-ness)
_ONSETS = frozenset("""bl br cl cr dr fl fr gl gr pl pr sc sk sl sm sn sp st sw tr tw dw qu
    th sh ch ph wh thr shr chr phr spl spr str scr squ""".split())


@dataclass(frozen=True)
class _Sound:
    """What the pronunciation says of a vowel group: its vowel phone (AH1; "" unknown), whether
    the group is spelled with an o, and whether the word sounds W and Y as consonants."""
    vowel: str
    spelled_o: bool
    w_sounded: bool
    y_sounded: bool

    @property
    def short_stressed(self) -> bool:
        # AA is short where it is spelled o (bod-y, hon-our), long in fa-ther
        phone = self.vowel[:-1]
        return self.vowel[-1:] in ("1", "2") and (phone in _SHORT_VOWELS or (phone == "AA" and self.spelled_o))

    @property
    def unstressed(self) -> bool:
        return self.vowel[-1:] == "0"


def _cut_between(low: str, end: int, start: int, before: _Sound, plain_before: bool = True) -> int:
    """Where to cut a word between a vowel group ending at ``end`` and the next starting at
    ``start``, ``before`` the sound of the first (``plain_before``: a group of vowel letters only,
    not one joined over a silent e as eve-ning's): after a silent e between them (love-ly) or an
    elision (heav'n-ly); before an -ing, -ed, -est ending after a cluster, an unstressed vowel or
    a stem the dictionary knows (morn-ing, wan-der-ing, bless-ing, ris-ing: rise); after a single
    consonant or th when the vowel before it is short and stressed (riv-er, moth-er), else before
    it (ho-ly, fa-ther); after a w or y that is part of the vowel (flow-er, pray-er; but a-way);
    inside a cluster where what follows can open a syllable (win-ter, chil-dren, bound-less);
    before the consonant of a final -le (ta-ble)."""
    between = low[end:start]
    if not between:
        return start
    silent = [i for i, c in enumerate(between) if c == "e"]
    if silent:
        return end + silent[-1] + 1     # love-ly, hope-ful
    elided = [i for i, c in enumerate(between[:-1]) if c in "'\u2019"]
    if elided:
        return end + elided[0] + 2      # heav'n-ly
    # no stem ends in a consonant and r or l (hun-dred, sa-cred: their -ed is no ending); a word
    # ends in ss, ll, ff or zz, not in the other doubles a short stem adds (bless-ing, run-ning)
    stem_cluster = len(between) >= 2 and not (between[-2:] in _ONSETS and between[-1] in "rl") and (
        between[-1] != between[-2] or between[-1] in "slfz")
    if low[start:] in _STEM_SUFFIXES and (len(between) == 1 and (before.unstressed or plain_before
                                                                  and _known_stem(low, start))
                                          or stem_cluster):
        return start                    # morn-ing, wan-der-ing, bless-ing, ris-ing (but run-ning, eve-ning)
    if low.endswith("le") and start == len(low) - 1 and len(between) >= 2:
        return start - 2                # ta-ble, lit-tle
    if len(between) == 1:
        # after a stressed vowel it is the vowel's end (flow-er, pray-er); else the next onset (be-yond)
        vowel_part = not before.unstressed and (
            (between == "w" and not before.w_sounded) or (between == "y" and not before.y_sounded))
        if between == "x" or vowel_part or before.short_stressed:
            return start                # ex-it, flow-er, pray-er, riv-er
        return end                      # ho-ly, pa-per, a-way
    if between == "th" or between in _ONSETS and between[1] in "rl":
        # a consonant with r or l opens the syllable after a long or unstressed vowel (sa-cred,
        # su-preme, fa-ther); a short stressed one keeps the first (Af-ri-ca, moth-er)
        return end + (2 if between == "th" else 1) if before.short_stressed else end
    first = 2 if between[:2] in _DIGRAPHS else 1
    if first == 2 and len(between) == 2:
        return end + 2 if between in ("ck", "ng", "gh") else end
    for cut in range(end + first, start):
        if start - cut == 1 or low[cut:start] in _ONSETS:
            return cut
    return start - 1


def _known_stem(low: str, start: int) -> bool:
    """Whether the letters before an ending at ``start`` are a word by themselves, or with the
    silent e the ending took away (ris-ing: rise, prais-ing: praise)."""
    from songwriter.prosody import english

    stem = low[:start]
    return english.in_dictionary(stem) or english.in_dictionary(stem + "e")


def _sounds(word: str, groups: list[list[int]]) -> list[_Sound]:
    """Per vowel group of ``word``, its sound by the word's pronunciation with as many syllables,
    else the nearest count read from the start (a sung silent e comes at the end: lov-ed)."""
    from songwriter.prosody import english

    prons = [p.split() for p in english.pronunciations(word)]
    phones = min(prons, key=lambda p: abs(sum(x[-1:].isdigit() for x in p) - len(groups))) if prons else []
    vowels = [x for x in phones if x[-1:].isdigit()]
    return [_Sound(vowels[k] if k < len(vowels) else "", word[a:a + 1].lower() == "o", "W" in phones, "Y" in phones)
            for k, (a, _) in enumerate(groups)]


def _groups_for(word: str, count: int) -> list[list[int]]:
    """The word's written vowel groups ([start, end)), made ``count`` where the spelling allows."""
    from songwriter.prosody import english

    low = word.lower()
    runs = [list(r) for r in english.spelled_nuclei(word)] or [[0, 1]]
    # a silent e sung (fi-re, de-si-re, ti-red), the last ones first; then a y before a vowel
    # (glo-ry-ing)
    silent = [i for c in "ye" for i, x in enumerate(low) if x == c and not any(a <= i < b for a, b in runs)]
    while len(runs) < count and silent:
        i = silent.pop()
        runs = sorted(runs + [[i, i + 1]])

    def lone_e(i: int) -> bool:
        return low[runs[i][0]:runs[i][1]] == "e"

    while len(runs) > count:             # more vowel groups than sung syllables: join two
        # first a silent e inside the word: of a compound (lone-li-ness, eve-ning) joined back,
        # one before an r joined on (ev-ery, wan-dering: ev'ry, wand'ring); else the nearest
        # groups. A last syllable's e is sung (-ness, -est).
        def weight(i: int):
            back = lone_e(i + 1) and i + 2 < len(runs) and low[runs[i + 1][1]:runs[i + 1][1] + 1] != "r"
            on = lone_e(i) and i > 0 and low[runs[i][1]:runs[i][1] + 1] == "r"
            return (not (back or on), runs[i + 1][0] - runs[i][1], -i)

        k = min(range(len(runs) - 1), key=weight)
        runs[k:k + 2] = [[runs[k][0], runs[k + 1][1]]]
    while len(runs) < count:             # fewer: part the longest vowel group (be-ing, o-ur)
        k = max(range(len(runs)), key=lambda i: (runs[i][1] - runs[i][0], -i))
        a, b = runs[k]
        if b - a < 2:
            break
        mid = a + (b - a) // 2
        runs[k:k + 1] = [[a, mid], [mid, b]]
    return runs


def hyphenated(word: str, count: int) -> list[str]:
    """The written word cut into ``count`` syllables for singing under ``count`` notes, as
    hymnals cut them (hap-py, riv-er, ho-ly, whith-er, ta-ble, flow-er): between the vowel groups
    of the spelling (``english.spelled_nuclei``), a consonant kept by a short stressed vowel
    (CMUdict); where the spelling shows more or fewer groups than the word is sung in, a silent e
    joined (love-ly, ev-ery) or sung (fi-re), or a long vowel group parted (be-ing, o-ur). A word
    cut at its own hyphens when their pieces are as many. Always ``count`` pieces, in order,
    together the word (a piece is empty only when the word has fewer letters than syllables)."""
    if count <= 1 or not word:
        return [word] + [""] * max(0, count - 1)
    parts = word.split("-")
    if len(parts) == count and all(parts):
        return parts
    low = word.lower()
    runs = _groups_for(word, count)
    sounds = _sounds(word, runs)
    cuts = [_cut_between(low, runs[k][1], runs[k + 1][0], sounds[k],
                         all(c in "aeiouy" for c in low[runs[k][0]:runs[k][1]])) for k in range(len(runs) - 1)]
    pieces, at = [], 0
    for c in cuts + [len(word)]:
        pieces.append(word[at:c])
        at = c
    if len(pieces) < count:              # too few letters to part: cut letters off the end
        while len(pieces) < count and len(pieces[-1]) > 1:
            last = pieces.pop()
            pieces += [last[:-1], last[-1]]
        pieces += [""] * (count - len(pieces))
    return pieces


def _ql(x: float) -> Fraction:
    return Fraction(x).limit_denominator(96)


def _spelled(midi_number: int, tonality):
    """The pitch spelled as the key writes it (A# in B major, B-flat in F major), with no
    accidental object on a natural note: music21 gives a note made from a MIDI number an explicit
    natural, which makeNotation then prints before every such note in a key with sharps or flats."""
    from music21 import pitch

    p = pitch.Pitch(midi=midi_number)
    if tonality is not None:
        in_key = {q.name for q in tonality.pitches}
        wanted = "-" if tonality.sharps < 0 else "#"      # a note outside the key: flats in a flat key
        if p.name not in in_key:
            other = p.getEnharmonic()
            if other.name in in_key or (other.name[1:] == wanted and p.name[1:] not in ("", wanted)):
                p = other
    if p.accidental is not None and p.accidental.alter == 0:
        p.accidental = None
    return p


def melody_score(template: Template, text: str, title: str = ""):
    """A music21 Score of the melody line with the words as lyrics (verse 1)."""
    from music21 import key, metadata, meter, note, stream, tempo

    melody = melody_of(template)
    words = words_on_notes(template, text, melody)
    part = stream.Part()
    part.partName = melody.part if melody.part and not melody.part.isdigit() else "Voice"
    try:
        metre = meter.TimeSignature(melody.time_signature)
    except Exception:
        metre = meter.TimeSignature("4/4")
    part.append(metre)
    bar = _ql(metre.barDuration.quarterLength)
    pickup = _pickup(melody, bar)
    # a pickup is written as a short first bar: the notes go in after the rest that fills the
    # bar's start, and that rest is taken out again once the bars are made (_pickup_bar)
    pad = bar - pickup if pickup else Fraction(0)
    m = re.fullmatch(r"([A-Ga-g][#-]?)\s+(major|minor)", melody.key or "")
    tonality = key.Key(m.group(1), m.group(2)) if m else None
    if tonality is not None:
        part.append(tonality)
    part.append(tempo.MetronomeMark(number=round(melody.tempo, 2)))
    pos = Fraction(0)
    for j, n in enumerate(melody.notes):
        onset = _ql(n.onset) + pad
        if onset > pos:
            part.append(note.Rest(quarterLength=onset - pos))
        el = note.Note(_spelled(n.pitch, tonality), quarterLength=_ql(n.duration))
        if j in words:
            el.lyric = words[j]
        part.append(el)
        pos = onset + _ql(n.duration)
    score = stream.Score()
    score.metadata = metadata.Metadata(title=title or template.name or melody.title or "Song")
    score.insert(0, part)
    score = score.makeNotation()
    if pad:
        _pickup_bar(score.parts[0], pad)
    return score


def _pickup(melody: Melody, bar: Fraction) -> Fraction:
    """How long the tune's pickup (anacrusis) is: its first downbeat's distance from the start,
    less whole bars; 0 for a tune that starts on a downbeat (or has no note on one). The beat
    strengths read from the file place the downbeats."""
    downbeat = next((n for n in melody.notes if n.beat >= 1.0), None)
    return _ql(downbeat.onset) % bar if downbeat is not None and bar > 0 else Fraction(0)


def _pickup_bar(part, pad: Fraction) -> None:
    """Make the first bar a pickup bar: take out the rest that filled its first ``pad`` quarters,
    move its notes to its start and the later bars back by ``pad``, and number it 0 (the later
    bars from 1), as notation programs write a pickup."""
    bars = list(part.getElementsByClass("Measure"))
    first = bars[0]
    for el in list(first.notesAndRests):
        if el.isRest and _ql(el.offset) + _ql(el.quarterLength) <= pad:
            first.remove(el)
    for el in list(first.notesAndRests):
        first.setElementOffset(el, _ql(el.offset) - pad)
    first.paddingLeft = float(pad)
    first.number = 0
    for k, later in enumerate(bars[1:], 1):
        part.setElementOffset(later, _ql(later.offset) - pad)
        later.number = k


def musicxml_bytes(template: Template, text: str, title: str = "") -> bytes:
    """MusicXML (uncompressed) with the words under the notes and extenders over melismas."""
    from music21.musicxml.m21ToXml import GeneralObjectExporter

    melody = melody_of(template)
    score = melody_score(template, text, title)
    raw = GeneralObjectExporter(score).parse()
    head, sep, body = raw.partition(b"<score-partwise")
    root = ET.fromstring(sep + body)
    _add_extenders(root, melody, words_on_notes(template, text, melody))
    _drop_placeholder_composer(root)
    for bar in root.iter("measure"):
        if bar.get("number") == "0":
            bar.set("implicit", "yes")          # a pickup bar: not counted in the bar numbers
    return head + ET.tostring(root, encoding="utf-8", xml_declaration=False)


def _drop_placeholder_composer(root) -> None:
    """music21 names itself the composer of a score that names none ("Music21"); notation
    programs would print that over the song."""
    for identification in root.iter("identification"):
        for creator in identification.findall("creator"):
            if creator.get("type") == "composer" and (creator.text or "").strip() == "Music21":
                identification.remove(creator)


def _add_extenders(root, melody: Melody, words: dict[int, str]) -> None:
    """Give the syllable that starts each melisma an <extend type="start"/> (MuseScore draws the
    line under the notes it is held over). The file's pitched notes, less the continuations of
    notes tied over a bar line, are the melody's notes in order."""
    held = {syl[0] for line in melody.lines for syl in line if len(syl) > 1}
    j = -1
    for n in root.iter("note"):
        if n.find("rest") is not None or n.find("grace") is not None:
            continue
        ties = {t.get("type") for t in n.findall("tie")}
        if "stop" in ties:
            continue
        j += 1
        if j in held and j in words:
            lyric = n.find("lyric")
            if lyric is not None and lyric.find("extend") is None:
                ext = ET.Element("extend", {"type": "start"})
                children = list(lyric)
                at = next((i + 1 for i, c in enumerate(children) if c.tag == "text"), len(children))
                lyric.insert(at, ext)


def write_musicxml(template: Template, text: str, path, title: str = "") -> Path:
    """Write ``.musicxml`` (or ``.xml``) with the words under the notes; returns the path."""
    from songwriter.document import write_atomic

    p = Path(os.fspath(path))
    write_atomic(p, musicxml_bytes(template, text, title))
    return p


def kar_bytes(template: Template, text: str, title: str = "") -> bytes:
    """A karaoke MIDI file: the melody with its syllables as text events ('\\' before the first,
    '/' before the first of each later line), as .kar players read them."""
    from music21 import midi

    melody = melody_of(template)
    words = words_on_notes(template, text, melody)
    starts = {line[0][0] for line in melody.lines if line}
    score = melody_score(template, text, title)
    mf = midi.translate.music21ObjectToMidiFile(score)
    order = sorted(words)
    english = template.lang == "en"
    k = 0
    for track in mf.tracks:
        for ev in track.events:
            if isinstance(ev, midi.MidiEvent) and ev.type == midi.MetaEvents.LYRIC and k < len(order):
                j = order[k]
                mark = "\\" if k == 0 else ("/" if j in starts else "")
                syllable = words[j]
                if english:
                    # karaoke text runs on: a new word starts with a space, a word's later
                    # syllables follow with none ("Whith" "er"), and no hyphens are shown
                    goes_on = syllable.startswith("-")
                    syllable = syllable.strip("-") if len(syllable) > 1 else syllable
                    syllable = ("" if goes_on or mark else " ") + syllable
                ev.type = midi.MetaEvents.TEXT_EVENT
                ev.data = (mark + syllable).encode("utf-8")
                k += 1
    return mf.writestr()


def write_kar(template: Template, text: str, path, title: str = "") -> Path:
    from songwriter.document import write_atomic

    p = Path(os.fspath(path))
    write_atomic(p, kar_bytes(template, text, title))
    return p

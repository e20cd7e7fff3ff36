"""Write the melody fixtures of tests/data/melody with music21 (run from the repository root):

    .venv/bin/python tests/data/melody/make_fixtures.py [FOLDER]

Songs are written in a small jianpu-like text: ``degree:quarters:syllable`` per note, where the
degree is 1-7 (``'`` an octave up, ``,`` an octave down), ``r`` a rest; the syllable ``-`` continues
the previous one (a melisma); a ``~`` after the quarters ties the note to the next. The two
Chinese songs are public domain (茉莉花, a Jiangsu folk song; 送别, 李叔同's words, 1915, to
J. P. Ordway's tune), encoded by hand from their common jianpu; they are both fixtures and the
real songs on which the tone table is checked (docs/melody.md).
"""

from __future__ import annotations

import sys
from pathlib import Path

MOLIHUA = {  # 2/4, 1 = F
    "title": "茉莉花", "meter": "2/4", "tonic": 65,
    "lines": [
        "3:0.5:好 3:0.25:一 5:0.25:朵 6:0.25:美 1':0.25:丽 1':0.25:的 6:0.25:- | "
        "5:0.5:茉 5:0.25:莉 6:0.25:- 5:1~:花， | 5:1:- r:1",
        "3:0.5:好 3:0.25:一 5:0.25:朵 6:0.25:美 1':0.25:丽 1':0.25:的 6:0.25:- | "
        "5:0.5:茉 5:0.25:莉 6:0.25:- 5:1~:花， | 5:1:- r:1",
        "5:0.5:芬 5:0.5:芳 | 5:0.5:美 3:0.25:丽 5:0.25:- 6:0.5:满 6:0.5:枝 | 5:1:桠， r:1",
        "3:0.5:又 2:0.25:香 3:0.25:- 5:0.5:又 3:0.25:白 2:0.25:- | 1:0.5:人 1:0.25:人 2:0.25:- 1:1:夸。",
    ],
}

SONGBIE = {  # 4/4, 1 = F
    "title": "送别", "meter": "4/4", "tonic": 65,
    "lines": [
        "5:1:长 3:0.5:亭 5:0.5:- 1':2:外，",
        "6:1:古 1':1:道 5:2:边，",
        "5:1:芳 1:0.5:草 2:0.5:- 3:1:碧 2:0.5:连 1:0.5:- 2:3:天。 r:1",
        "5:1:晚 3:0.5:风 5:0.5:- 1':1.5:拂 7:0.5:柳 6:1:笛 1':1:声 5:2:残，",
        "5:1:夕 2:0.5:阳 3:0.5:- 4:1.5:山 7,:0.5:外 1:3:山。 r:1",
        "6:1:天 1':1:之 1':2:涯， 7:1:地 6:0.5:之 7:0.5:- 1':2:角，",
        "6:0.5:知 7:0.5:- 1':0.5:交 6:0.5:- 6:0.5:半 5:0.5:- 3:0.5:零 1:0.5:- 2:3:落。 r:1",
        "5:1:一 3:0.5:壶 5:0.5:- 1':1.5:浊 7:0.5:酒 6:1:尽 1':1:余 5:2:欢，",
        "5:1:今 2:0.5:宵 3:0.5:- 4:1.5:别 7,:0.5:梦 1:3:寒。 r:1",
    ],
}

SCALE = {"1": 0, "2": 2, "3": 4, "4": 5, "5": 7, "6": 9, "7": 11}

TWO_TUNES_ABC = """\
%abc-2.1
% Two short tunes in one file: phrases are the ABC lines.

X:1
T:First tune
M:2/4
L:1/8
Q:1/4=96
K:G
GA Bd | e2 d2 | BA GA | B4 |
dB AG | E2 D2 | GA Bd | G4 |]

X:2
T:Second tune
M:3/4
L:1/8
K:D
D2 F2 A2 | d4- d2 | z2 c2 B2 |
A2 [FAd]2 F2 | E6 |
D2 E2 F2 | D6 |]
"""

EMPTY_ABC = """\
X:1
T:No notes here
M:4/4
K:C
"""


def parse_song(text_lines: list[str], tonic: int):
    """[(midi pitch or None, quarters, syllable or None, tie)] per note of the song, and where its
    lines end (index of the last note of each line)."""
    notes, ends = [], []
    for line in text_lines:
        for tok in line.split():
            if tok == "|":
                continue
            degree, quarters, *rest = tok.split(":")
            syllable = rest[0] if rest else None
            tie = quarters.endswith("~")
            quarters = float(quarters.rstrip("~"))
            if degree == "r":
                notes.append((None, quarters, None, False))
                continue
            octave = 12 * degree.count("'") - 12 * degree.count(",")
            pitch = tonic + SCALE[degree.strip("',")] + octave
            notes.append((pitch, quarters, None if syllable == "-" else syllable, tie))
        ends.append(len(notes) - 1)
    return notes, ends


def song_stream(song: dict, words: bool = True, chord_at: int | None = None):
    """A music21 Score of one part; ``chord_at``: the note (by index) that gets a third below it."""
    from music21 import chord, key, metadata, meter, note, stream, tempo, tie

    notes, _ = parse_song(song["lines"], song["tonic"])
    part = stream.Part()
    part.partName = "Voice"
    part.append(meter.TimeSignature(song["meter"]))
    part.append(key.Key("F"))
    part.append(tempo.MetronomeMark(number=72))
    tied_from = False
    for i, (pitch, quarters, syllable, tied) in enumerate(notes):
        if pitch is None:
            el = note.Rest(quarterLength=quarters)
        elif chord_at == i:
            el = chord.Chord([pitch - 4, pitch], quarterLength=quarters)
        else:
            el = note.Note(pitch, quarterLength=quarters)
        if pitch is not None:
            if tied and tied_from:
                el.tie = tie.Tie("continue")
            elif tied:
                el.tie = tie.Tie("start")
            elif tied_from:
                el.tie = tie.Tie("stop")
            tied_from = tied
            if words and syllable:
                text = syllable.rstrip("，。")
                el.lyric = text + syllable[len(text):]
        part.append(el)
    score = stream.Score()
    score.metadata = metadata.Metadata(title=song["title"])
    score.insert(0, part)
    return score.makeNotation()


def bass_part(song: dict):
    from music21 import meter, note, stream

    notes, _ = parse_song(song["lines"], song["tonic"])
    total = sum(q for _, q, _, _ in notes)
    part = stream.Part()
    part.partName = "Bass"
    part.append(meter.TimeSignature(song["meter"]))
    bars = int(total // 2)
    for i in range(bars):
        part.append(note.Note(41 if i % 2 == 0 else 36, quarterLength=2))
    return part


def write_musicxml(song: dict, path: Path, breath_after: list[int] = ()) -> None:
    from music21 import articulations

    score = song_stream(song)
    if breath_after:
        sung = [n for n in score.recurse().notes]
        for i in breath_after:
            sung[i].articulations.append(articulations.BreathMark())
    score.write("musicxml", fp=str(path))


def write_midi(song: dict, path: Path) -> None:
    """The melody without words, a chord on its third note, and a bass part after it."""
    from music21 import stream

    melody = song_stream(song, words=False, chord_at=2)
    score = stream.Score()
    score.insert(0, melody.parts[0])
    score.insert(0, bass_part(song).makeMeasures())
    _write_named_midi(score, path, ["Melody", "Bass"])


def _write_named_midi(score, path: Path, names: list[str]) -> None:
    """Write a score as MIDI with a track name on each track with notes (DAWs show them)."""
    from music21 import midi

    mf = midi.translate.music21ObjectToMidiFile(score)
    named = [t for t in mf.tracks if any(isinstance(e, midi.MidiEvent) and e.type == midi.ChannelVoiceMessages.NOTE_ON
                                         for e in t.events)]
    for track, name in zip(named, names):
        dt = midi.DeltaTime(track, time=0)
        ev = midi.MidiEvent(track, type=midi.MetaEvents.SEQUENCE_TRACK_NAME)
        ev.data = name.encode("utf-8")
        track.events[0:0] = [dt, ev]
    mf.open(str(path), "wb")
    mf.write()
    mf.close()


def write_kar(song: dict, path: Path) -> None:
    """A karaoke MIDI file: the song's syllables as text events, '/' starting a line and '\\' a
    stanza, as .kar files write them (written with music21's MIDI objects)."""
    from music21 import midi

    score = song_stream(song, words=True)
    mf = midi.translate.music21ObjectToMidiFile(score)
    starts = []               # per sung syllable: does it start a line of the song?
    for line in song["lines"]:
        syllables = [tok.split(":")[2] for tok in line.split() if tok.count(":") == 2 and not tok.endswith(":-")]
        starts += [True] + [False] * (len(syllables) - 1)
    k = 0
    for track in mf.tracks:
        for ev in track.events:
            if isinstance(ev, midi.MidiEvent) and ev.type == midi.MetaEvents.LYRIC:
                text = ev.data.decode("utf-8").rstrip("，。")
                mark = "\\" if k == 0 else ("/" if starts[k] else "")
                ev.type = midi.MetaEvents.TEXT_EVENT
                ev.data = (mark + text).encode("utf-8")
                k += 1
    mf.open(str(path), "wb")
    mf.write()
    mf.close()


def write_all(folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    p = folder / "molihua.musicxml"
    write_musicxml(MOLIHUA, p)
    out.append(p)
    p = folder / "songbie.musicxml"
    write_musicxml(SONGBIE, p)
    out.append(p)
    p = folder / "molihua.mid"
    write_midi({**MOLIHUA, "lines": MOLIHUA["lines"][:2]}, p)
    out.append(p)
    p = folder / "songbie.kar"
    write_kar({**SONGBIE, "lines": SONGBIE["lines"][:3]}, p)
    out.append(p)
    p = folder / "two_tunes.abc"
    p.write_text(TWO_TUNES_ABC, encoding="utf-8")
    out.append(p)
    p = folder / "empty.abc"
    p.write_text(EMPTY_ABC, encoding="utf-8")
    out.append(p)
    xml = (folder / "molihua.musicxml").read_text(encoding="utf-8")
    p = folder / "broken.musicxml"
    p.write_text(xml[: len(xml) // 3], encoding="utf-8")     # cut off in the middle of the XML
    out.append(p)
    p = folder / "broken.mid"
    p.write_bytes(b"MThd\x00\x00\x00\x06\x00\x01\x00\x02\x01\xe0MTrk\x00\x00\x01\x00\x00\x90")
    out.append(p)
    return out


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent
    for f in write_all(target):
        print(f)

"""Words to Essen folk melodies: 倒字 rate, model log-prob and time, tone fit off and on.

    python bench/melody_fit.py                     # 50 tunes of han1.abc, 4 candidates each
    python bench/melody_fit.py --tunes 10 --n 8 --runs 0 1 3 --model models/zh
    python bench/melody_fit.py --runs 0 1,pool1 1,pool2 1,pool4 1,rank,pool4 3,pool4 --readback

For each of the first ``--tunes`` tunes of the Essen collection's ``han1.abc`` (shipped with
music21) it makes the template (``template_from_melody``), sets the melody's tone-fit strength,
generates ``--n`` candidates (seed = the tune's number) and checks them (``check_fit``): adjacent
tone pairs, those graded bad (倒字) and poor, the model's mean log-probability per character of
the words (and its perplexity, e to the minus that), the time per request (median and mean),
whether every candidate fits its template, and whether the template has one line per ABC line.
The words of the two hand-encoded real songs (tests/data/melody) are checked the same way.

A run is ``STRENGTH[,poolP][,rank]``: the tone-fit strength (0 off, 1 the default, 3 strong);
``poolP`` draws P times the candidates kept for the ranking by fit (the default is
``melody.fit.POOL`` up to strength 1, ``STRONG_POOL`` above); ``rank`` turns the decoder's 倒字 mask off, leaving the ranking alone (how
generation chose before the mask). ``--readback`` writes the first candidate of each tune of the
first run with strength above 0 as MusicXML and reads it back with music21: every syllable must be
on its note (the tune's pitches and onsets, one syllable per slot on the slot's first note).
Figures go to docs/results.md ("Writing to a melody") and docs/melody.md. Exit status 0 (1 when
a candidate does not fit its template or a syllable is read back off its note).

English (``--lang en``, the English model): the tunes are the Essen collection's Irish folk songs
with English titles (``irl.abc``, ``EN_TUNES``; songs sung in English), read as English templates.
Per run: the syllable pairs whose stresses were compared with their beats and those the beats
contradict (``check_fit``'s stress problems: within a word, and between neighbours), unstressed
function words on downbeats, words cut by rests, long notes on closed syllables, and the words'
mean log-probability per word under the model with the template as the writer has it (the words
scored again, teacher-forced, without the beat marks the fit shows the model, so every run is
scored alike) and its perplexity. The real words of three songs in music21's corpus with English
lyrics are checked the same way. In a run, ``rank`` turns the decoder's ``StressFit`` off, ``nomarks`` keeps the beats' stress
marks from the model (the decoder's avoidances and costs stay), ``nocost`` sets its costs to 0
(the avoidances and marks stay): how the default was chosen.
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def han1() -> Path:
    import music21

    return Path(music21.__file__).parent / "corpus" / "essenFolksong" / "han1.abc"


def irl() -> Path:
    import music21

    return Path(music21.__file__).parent / "corpus" / "essenFolksong" / "irl.abc"


# The tunes of irl.abc with English titles (the rest are Irish-language songs), less three (6, 10,
# 17) whose metre music21 reads as 1/8, which gives their beats no strengths to speak of.
EN_TUNES = (1, 8, 9, 11, 14, 16, 18, 19, 20, 22, 23, 25, 26, 27, 28, 30)
# Songs in music21's corpus with English words under their notes: the real words' fit.
EN_SONGS = ("leadSheet/fosterBrownHair.mxl", "johnson_j_r/lift_every_voice.mxl",
            "leadSheet/berlinAlexandersRagtime.mxl")


def irish_templates(count: int):
    """[(tune number, English template)] of the first ``count`` of EN_TUNES."""
    from songwriter.melody import read_melody, template_from_melody

    return [(n, template_from_melody(read_melody(irl(), tune=n), lang="en")) for n in EN_TUNES[:count]]


def word_logprob(engine, template, text: str) -> tuple[float, int]:
    """The words of an English ``text``, teacher-forced through the model under ``template`` as
    it is (its free slots free, no beat marks): (sum of their log-probabilities, words). Each
    word counts at its first syllable, as the decoder's score does."""
    import numpy as np

    from songwriter.engine import encoding as E
    from songwriter.engine.encoding_en import given_lines_en

    plain = E.encode_template(template, engine.vocab)
    words = E.encode_template(given_lines_en(template, text, lambda i: True), engine.vocab)
    if len(plain) != len(words):
        raise SystemExit(f"{template.name}: the words do not lie over the template's syllables")
    syl = (words.fmt == E.F_CHAR) | (words.fmt == E.F_RHYME)
    targets = np.where(syl & (words.word_start == 0), engine.vocab.fill, words.given)
    lp = engine.backend.score({k: v[None, :] for k, v in plain.arrays().items()}, targets[None, :],
                              engine.vocab.bos)[0]
    at = syl & (words.word_start == 1)
    return float(lp[at].sum()), int(at.sum())


def essen_templates(count: int):
    """[(tune number, template)] of the first ``count`` tunes of han1.abc, and how many have
    one line per ABC line."""
    from songwriter.melody import read_melody, template_from_melody
    from songwriter.melody.reader import _abc_tunes

    path = han1()
    tunes = _abc_tunes(path.read_text(encoding="latin-1"))[:count]
    phrases_ok, out = 0, []
    for number, body in tunes:
        abc_lines = [ln for ln in body.splitlines()
                     if ln.strip() and not re.match(r"^[A-Za-z]:", ln) and not ln.startswith("%")]
        t = template_from_melody(read_melody(path, tune=number))
        phrases_ok += len(t.lines) == len(abc_lines)
        out.append((number, t))
    return out, phrases_ok


def parse_run(spec: str) -> dict:
    parts = spec.split(",")
    run = {"name": spec, "strength": float(parts[0]), "pool": None, "mask": True, "marks": True, "costs": True}
    for p in parts[1:]:
        if p == "rank":
            run["mask"] = False
        elif p == "nomarks":
            run["marks"] = False
        elif p == "nocost":
            run["costs"] = False
        elif p.startswith("pool"):
            run["pool"] = float(p[4:])
        else:
            raise SystemExit(f"bad run {spec!r}: STRENGTH[,poolP][,rank] (English also ,nomarks ,nocost)")
    return run


def with_strength(template, strength: float):
    from songwriter.melody import attach, melody_of

    t = template.copy()
    m = melody_of(t)
    m.tone_strength = strength
    attach(t, m)
    return t


def hanzi_count(text: str) -> int:
    from songwriter.template import is_hanzi

    return sum(1 for ch in text if is_hanzi(ch))


def run_once_en(engine, templates, run: dict, n: int) -> dict:
    """English: generate for every template under ``run``; the figures and the candidates."""
    from songwriter.engine import decode_en
    from songwriter.engine.service import GenerationRequest
    from songwriter.melody import fit

    pools, of = (fit.POOL, fit.STRONG_POOL), decode_en.StressFit.of
    knobs = ("SHOW_MARKS", "NEIGHBOUR_CLASH", "LEANING_BEFORE_WEAKER", "CLOSED_ON_LONG")
    saved = {k: getattr(decode_en, k) for k in knobs}
    if run["pool"] is not None:
        fit.POOL = fit.STRONG_POOL = run["pool"]
    if not run["mask"]:
        decode_en.StressFit.of = classmethod(lambda cls, *a: None)
    if not run["marks"]:
        decode_en.SHOW_MARKS = False
    if not run["costs"]:
        decode_en.NEIGHBOUR_CLASH = decode_en.LEANING_BEFORE_WEAKER = decode_en.CLOSED_ON_LONG = 0.0
    got = {"pairs": 0, "bad": 0, "poor": 0, "rhythm": 0, "rest": 0, "long": 0, "closed": 0, "fits": 0,
           "count": 0, "words": 0, "logp": 0.0, "own": 0.0, "times": [], "cpu": [], "texts": []}
    try:
        for number, template in templates:
            t = with_strength(template, run["strength"])
            t0, c0 = time.perf_counter(), time.process_time()
            cands = engine.generate(GenerationRequest(template=t, n=n, seed=number))
            got["times"].append(time.perf_counter() - t0)
            got["cpu"].append(time.process_time() - c0)
            got["texts"].append((number, t, [c.text for c in cands]))
            for c in cands:
                r = fit.check_fit(t, c.text)
                got["pairs"] += r.stress_pairs
                got["bad"] += r.stress_bad
                got["poor"] += r.stress_poor
                got["rhythm"] += sum(p.kind == "rhythm" for p in r.problems)
                got["rest"] += sum(p.kind == "rest" for p in r.problems)
                got["long"] += r.long_notes
                got["closed"] += r.long_closed
                lp, k = word_logprob(engine, template, c.text)
                got["logp"] += lp
                got["own"] += c.score * k
                got["words"] += k
                got["fits"] += c.check.ok
                got["count"] += 1
    finally:
        (fit.POOL, fit.STRONG_POOL), decode_en.StressFit.of = pools, of
        for k, v in saved.items():
            setattr(decode_en, k, v)
    got["logp"] /= max(1, got["words"])
    got["own"] /= max(1, got["words"])
    return got


def real_words_en() -> None:
    import music21

    from songwriter.melody import read_melody, template_from_melody
    from songwriter.melody.fit import check_fit

    root = Path(music21.__file__).parent / "corpus"
    for name in EN_SONGS:
        m = read_melody(root / name)
        r = check_fit(template_from_melody(m, lang="en"), "\n".join(m.original_lines()))
        print(f"real words, {m.title or name}: stress {r.stress_bad + r.stress_poor}/{r.stress_pairs} = "
              f"{r.stress_clash_rate:.1%} against the beats ({r.stress_bad} within words), "
              f"{sum(p.kind == 'rhythm' for p in r.problems)} function words on downbeats, "
              f"long notes on closed syllables {r.long_closed}/{r.long_notes}")


def main_en(args, runs) -> int:
    from songwriter.engine.service import Engine
    from songwriter.melody.fit import POOL, STRONG_POOL

    templates = irish_templates(args.tunes)
    print(f"{len(templates)} tunes of {irl().name} as English templates: "
          + ", ".join(f"{n} ({t.name.split(',')[0]}, {sum(ln.syllables for ln in t.lines)} syllables)"
                      for n, t in templates))
    real_words_en()
    engine = Engine.load(args.model, backend=args.backend)
    engine.tables.english().sung()              # the tables made (or read from the cache) once
    version = engine.manifest.get("version", "?")
    print(f"model {engine.model_dir} {version} ({engine.backend_name}), {args.n} candidates per tune, "
          f"default pool {POOL:g} (above strength 1: {STRONG_POOL:g})")
    print("| run | stress against the beats | within words | function words on downbeats | words cut by rests "
          "| long notes on closed syllables | mean log-prob a word | perplexity | decoder's own score "
          "| s per request (median, mean) | CPU s per request (median) | fit |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    failed = False
    for run in runs:
        got = run_once_en(engine, templates, run, args.n)
        failed |= got["fits"] != got["count"]
        clash = got["bad"] + got["poor"]
        print(f"| {run['name']} | {clash}/{got['pairs']} = {clash / max(1, got['pairs']):.1%} "
              f"| {got['bad']} | {got['rhythm']} | {got['rest']} "
              f"| {got['closed']}/{got['long']} = {got['closed'] / max(1, got['long']):.1%} "
              f"| {got['logp']:.3f} | {2.718281828 ** -got['logp']:.1f} | {got['own']:.3f} "
              f"| {statistics.median(got['times']):.2f}, {statistics.mean(got['times']):.2f} "
              f"| {statistics.median(got['cpu']):.2f} | {got['fits']}/{got['count']} |", flush=True)
        for number, _, cands in got["texts"][: args.samples]:
            print(f"    tune {number}: {cands[0].replace(chr(10), ' / ')}")
    return 1 if failed else 0


def run_once(engine, templates, run: dict, n: int) -> dict:
    """Generate for every template under ``run``; the figures and the candidates."""
    from songwriter.engine import decode
    from songwriter.engine.service import GenerationRequest
    from songwriter.melody import fit

    pools, of = (fit.POOL, fit.STRONG_POOL), decode.ToneFit.of
    if run["pool"] is not None:
        fit.POOL = fit.STRONG_POOL = run["pool"]
    if not run["mask"]:
        decode.ToneFit.of = classmethod(lambda cls, *a: None)
    try:
        pairs = bad = poor = fits = count = chars = 0
        logp = 0.0
        times, texts = [], []
        for number, template in templates:
            t = with_strength(template, run["strength"])
            t0 = time.perf_counter()
            cands = engine.generate(GenerationRequest(template=t, n=n, seed=number))
            times.append(time.perf_counter() - t0)
            texts.append((number, t, [c.text for c in cands]))
            for c in cands:
                r = fit.check_fit(t, c.text)
                pairs += r.pairs
                bad += r.dao_zi
                poor += r.grades[fit.POOR]
                k = hanzi_count(c.text)
                logp += c.score * k          # every character of these templates is free
                chars += k
                fits += c.check.ok
                count += 1
    finally:
        (fit.POOL, fit.STRONG_POOL), decode.ToneFit.of = pools, of
    return {"pairs": pairs, "bad": bad, "poor": poor, "fits": fits, "count": count,
            "logp": logp / chars, "times": times, "texts": texts}


def read_back(texts) -> tuple[int, int, list[str]]:
    """Each tune's first candidate written as MusicXML and parsed with music21: (syllables on
    their notes, syllables in all, what was off)."""
    from music21 import converter

    from songwriter.melody import melody_of
    from songwriter.melody.write import write_musicxml
    from songwriter.template import is_hanzi

    good = total = 0
    off: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        for number, t, cands in texts:
            melody = melody_of(t)
            path = write_musicxml(t, cands[0], Path(tmp) / f"tune{number}.musicxml")
            score = converter.parse(str(path))
            notes = [x for x in score.recurse().notes if not (x.tie and x.tie.type in ("stop", "continue"))]
            if [x.pitch.midi for x in notes] != [m.pitch for m in melody.notes]:
                off.append(f"tune {number}: the notes read back differ")
                continue
            onsets = [float(x.offset + x.getContextByClass("Measure").offset) for x in notes]
            shift = onsets[0] - melody.notes[0].onset                  # a pickup bar starts at 0
            if any(abs(a - shift - m.onset) > 1e-6 for a, m in zip(onsets, melody.notes)):
                off.append(f"tune {number}: the onsets read back differ")
            want: dict[int, str] = {}
            for li, line in enumerate(cands[0].split("\n")):
                chars = [ch for ch in line if is_hanzi(ch)]
                for k, slot in enumerate(melody.lines[li]):
                    want[slot[0]] = chars[k]
            for j, x in enumerate(notes):
                sung = (x.lyric or "").rstrip("，。！？；、,.!?;:")
                if j in want:
                    total += 1
                    good += sung == want[j]
                    if sung != want[j]:
                        off.append(f"tune {number}, note {j + 1}: {sung!r}, not {want[j]!r}")
                elif sung:
                    off.append(f"tune {number}, note {j + 1}: {sung!r} on a note with no syllable")
    return good, total, off


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tunes", type=int, default=None, help="how many tunes (default 50; English: all 16)")
    ap.add_argument("--lang", choices=("zh", "en"), default="zh",
                    help="en: English words to the Irish tunes of irl.abc, with the English model")
    ap.add_argument("--n", type=int, default=4)
    ap.add_argument("--runs", nargs="+", default=None,
                    help="STRENGTH[,poolP][,rank] per run (see the module's help); default 0 1 3 "
                         "1,rank,pool4 (English: 0 1 3)")
    ap.add_argument("--readback", action="store_true", help="MusicXML written and read back with music21")
    ap.add_argument("--model", default=None)
    ap.add_argument("--backend", default="auto")
    ap.add_argument("--samples", type=int, default=0, help="print the first candidate of this many tunes per run")
    args = ap.parse_args(argv)

    from songwriter.engine.service import Engine
    from songwriter.melody import read_melody, template_from_melody
    from songwriter.melody.fit import POOL, STRONG_POOL, check_fit

    args.runs = args.runs or (["0", "1", "3"] if args.lang == "en" else ["0", "1", "3", "1,rank,pool4"])
    runs = [parse_run(s) for s in args.runs]
    if args.lang == "en":
        args.tunes = len(EN_TUNES) if args.tunes is None else args.tunes
        args.model = args.model or str(ROOT / "models" / "en")
        if args.readback:
            raise SystemExit("--readback reads Chinese syllables back; not with --lang en")
        return main_en(args, runs)
    args.tunes = 50 if args.tunes is None else args.tunes
    templates, phrases_ok = essen_templates(args.tunes)
    print(f"{len(templates)} tunes of {han1().name}: {phrases_ok} templates with one line per ABC line")
    for name in ("molihua.musicxml", "songbie.musicxml"):
        m = read_melody(ROOT / "tests" / "data" / "melody" / name)
        r = check_fit(template_from_melody(m), "\n".join(m.original_lines()))
        print(f"real words, {m.title}: {r.pairs} pairs, grades {r.grades}")

    engine = Engine.load(args.model, backend=args.backend)
    engine.tables.mandarin_tones()              # the tone table made (or read from the cache) once
    version = engine.manifest.get("version", "?")
    print(f"model {engine.model_dir} {version} ({engine.backend_name}), {args.n} candidates per tune, "
          f"default pool {POOL:g} (above strength 1: {STRONG_POOL:g})")
    print("| run | 倒字 | poor pairs | mean log-prob | perplexity | s per request (median, mean) | fit |")
    print("|---|---|---|---|---|---|---|")
    failed = False
    first_on = None
    for run in runs:
        got = run_once(engine, templates, run, args.n)
        if first_on is None and run["strength"] > 0:
            first_on = got
        failed |= got["fits"] != got["count"]
        print(f"| {run['name']} | {got['bad']}/{got['pairs']} = {got['bad'] / got['pairs']:.2%} "
              f"| {got['poor'] / got['pairs']:.2%} | {got['logp']:.3f} | {2.718281828 ** -got['logp']:.1f} "
              f"| {statistics.median(got['times']):.2f}, {statistics.mean(got['times']):.2f} "
              f"| {got['fits']}/{got['count']} |", flush=True)
        for number, _, cands in got["texts"][: args.samples]:
            print(f"    tune {number}: {cands[0].replace(chr(10), ' / ')}")
    if args.readback and first_on is not None:
        good, total, off = read_back(first_on["texts"])
        print(f"MusicXML read back with music21: {good}/{total} syllables on their notes")
        for line in off[:10]:
            print("   ", line)
        failed |= bool(off)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

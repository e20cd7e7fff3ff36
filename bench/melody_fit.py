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
    run = {"name": spec, "strength": float(parts[0]), "pool": None, "mask": True}
    for p in parts[1:]:
        if p == "rank":
            run["mask"] = False
        elif p.startswith("pool"):
            run["pool"] = float(p[4:])
        else:
            raise SystemExit(f"bad run {spec!r}: STRENGTH[,poolP][,rank]")
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
    ap.add_argument("--tunes", type=int, default=50)
    ap.add_argument("--n", type=int, default=4)
    ap.add_argument("--runs", nargs="+", default=["0", "1", "3", "1,rank,pool4"],
                    help="STRENGTH[,poolP][,rank] per run (see the module's help)")
    ap.add_argument("--readback", action="store_true", help="MusicXML written and read back with music21")
    ap.add_argument("--model", default=None)
    ap.add_argument("--backend", default="auto")
    ap.add_argument("--samples", type=int, default=0, help="print the first candidate of this many tunes per run")
    args = ap.parse_args(argv)

    from songwriter.engine.service import Engine
    from songwriter.melody import read_melody, template_from_melody
    from songwriter.melody.fit import POOL, STRONG_POOL, check_fit

    runs = [parse_run(s) for s in args.runs]
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

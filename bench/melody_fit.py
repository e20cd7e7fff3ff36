"""Words to Essen folk melodies: 倒字 rate and model score, tone fit off and on.

    python bench/melody_fit.py                         # 50 tunes of han1.abc, 4 candidates each
    python bench/melody_fit.py --tunes 10 --n 8 --strength 0 1 --model models/zh

For each of the first ``--tunes`` tunes of the Essen collection's ``han1.abc`` (shipped with
music21) it makes the template (``template_from_melody``), sets the melody's tone-fit strength,
generates ``--n`` candidates (seed = the tune's number) and checks them (``check_fit``): adjacent
tone pairs, those graded bad (倒字) and poor, the candidates' mean model log-probability, whether
every candidate fits its template, and whether the template has one line per ABC line. The words
of the two hand-encoded real songs (tests/data/melody) are checked the same way. Figures go to
docs/melody.md. Exit status 0.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def han1() -> Path:
    import music21

    return Path(music21.__file__).parent / "corpus" / "essenFolksong" / "han1.abc"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tunes", type=int, default=50)
    ap.add_argument("--n", type=int, default=4)
    ap.add_argument("--strength", type=float, nargs="+", default=[0.0, 0.3, 1.0, 3.0])
    ap.add_argument("--model", default=None)
    ap.add_argument("--backend", default="auto")
    args = ap.parse_args(argv)

    from songwriter.engine.service import Engine, GenerationRequest
    from songwriter.melody import attach, melody_of, read_melody, template_from_melody
    from songwriter.melody.fit import check_fit
    from songwriter.melody.reader import _abc_tunes

    path = han1()
    text = path.read_text(encoding="latin-1")
    tunes = _abc_tunes(text)[: args.tunes]
    phrases_ok = 0
    templates = []
    for number, body in tunes:
        abc_lines = [ln for ln in body.splitlines()
                     if ln.strip() and not re.match(r"^[A-Za-z]:", ln) and not ln.startswith("%")]
        t = template_from_melody(read_melody(path, tune=number))
        phrases_ok += len(t.lines) == len(abc_lines)
        templates.append((number, t))
    print(f"{len(tunes)} tunes of {path.name}: {phrases_ok} templates with one line per ABC line")

    for name in ("molihua.musicxml", "songbie.musicxml"):
        m = read_melody(ROOT / "tests" / "data" / "melody" / name)
        r = check_fit(template_from_melody(m), "\n".join(m.original_lines()))
        print(f"real words, {m.title}: {r.pairs} pairs, grades {r.grades}")

    engine = Engine.load(args.model, backend=args.backend)
    print(f"model {engine.model_dir} ({engine.backend_name}), {args.n} candidates per tune")
    for strength in args.strength:
        pairs = bad = poor = fits = count = 0
        score = 0.0
        t0 = time.perf_counter()
        for number, template in templates:
            t = template.copy()
            m = melody_of(t)
            m.tone_strength = strength
            attach(t, m)
            for c in engine.generate(GenerationRequest(template=t, n=args.n, seed=number)):
                r = check_fit(t, c.text)
                pairs += r.pairs
                bad += r.dao_zi
                poor += r.grades["poor"]
                score += c.score
                fits += c.check.ok
                count += 1
        print(f"strength {strength:g}: 倒字 {bad}/{pairs} = {bad / pairs:.2%}, poor {poor / pairs:.2%}, "
              f"mean log-prob {score / count:.3f}, fit {fits}/{count}, {time.perf_counter() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())

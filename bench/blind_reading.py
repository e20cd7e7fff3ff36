"""The blind reading of docs/results.md: generated and real pieces, shuffled, read without labels.

    python bench/blind_reading.py make --model models/zh --out runs/blind/zh-0.1.5122
    # a reader with a fresh context reads <out>/pieces.md (nothing else) and answers in
    # <out>/answers.json: [{"n": 1, "guess": "human"|"machine", "fluency": 1-5,
    #                      "coherence": 1-5, "quality": 1-5, "why": "..."}, ...]
    python bench/blind_reading.py score --out runs/blind/zh-0.1.5122
    # --against OTHER_MODEL: its pieces too, same forms and seeds, in the same file, scored apart
    python bench/blind_reading.py merge --part runs/blind/A:runs/en-gpu-model:before \
        --part runs/blind/B:models/en:after --out runs/blind/AB
    # one model's pieces from each earlier file (relabelled), the first file's real pieces, one new
    # shuffled file: two ways of decoding read by one reader (same forms and seeds)

``make`` writes ``pieces.md`` (the pieces numbered, in a shuffled order, with no labels) and
``key.json`` (which is which: the model and seed or the corpus id; keep it from the reader). It
generates one piece per seed for each form through the engine facade, as the app does (8
candidates, the app's sampling defaults, the top-ranked candidate kept), and takes as many real
pieces of the same forms from the corpus's test split: 七绝, 五律 and 阮郎归, a tune held out of
training. With ``--set modern`` the pieces are modern Chinese, the register of lyrics: the held-out modern
poems of the test split (新诗 of 1917-1948), up to 8 lines of each; ours are written to the shapes
of other held-out poems as a song would be (their line lengths, every second line rhyming; the
template ``train.evaluate.gold_template`` makes for a lyric). With ``--set english``: Shakespearean
sonnets and hymn stanzas re-lyricked to the syllables and rhymes of held-out hymns' first stanzas,
beside held-out sonnets and other held-out hymns' first stanzas. With ``--set melody``: new words
to 8 Essen folk tunes (four to eight phrases, among the first 50 of music21's ``han1.abc``, the
tunes bench/melody_fit.py measures) at the default tone fit, beside the 8 held-out modern poems
whose first lines are nearest each tune's phrase lengths. ``score`` prints how many of ours passed as human, the mean ratings of each group,
and the flaws readers named before, counted on the text: lines that open with an empty negation
or question word, and characters repeated within a piece (a reduplication such as 萧萧 aside).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from songwriter.train.args import DEFAULT_CORPUS  # noqa: E402

# (form, how many of ours and as many real ones, which real pieces match it)
FORMS = (("七绝", 6), ("五律", 5), ("阮郎归", 5))
HOLLOW_OPENINGS = ("不见", "不是", "不知", "不堪", "不须", "不用", "几时", "何时", "何处", "何人", "谁知", "谁家", "莫道", "莫问")
PUNCT = "，。、；：？！"


def chars_per_line(lines: list[str]) -> list[int]:
    return [len([c for c in ln if c not in PUNCT]) for ln in lines]


def real_matches(form: str, piece: dict) -> bool:
    n = chars_per_line(piece["lines"])
    if form == "七绝":
        return piece["kind"] == "shi" and n == [7] * 4
    if form == "五律":
        return piece["kind"] == "shi" and n == [5] * 8
    return piece["kind"] == "ci" and form in str(piece.get("tune", ""))


def real_pieces(corpus: Path, rng: random.Random) -> dict[str, list[dict]]:
    test = set(json.loads((corpus / "split.json").read_text())["test"])
    found: dict[str, list[dict]] = {form: [] for form, _ in FORMS}
    with open(corpus / "pieces.jsonl", encoding="utf-8") as f:
        for line in f:
            p = json.loads(line)
            if p["id"] in test:
                for form, _ in FORMS:
                    if real_matches(form, p):
                        found[form].append(p)
    return {form: rng.sample(found[form], k) for form, k in FORMS}


# --plan: one topic per generated piece, in turn (subjects real poems of these forms take)
PLAN_TOPICS = ("梅花", "登高", "秋思", "明月", "春雨", "思乡", "边关", "江南", "归隐", "离别", "怀古", "落花",
               "夜雨", "渔父", "菊花", "寒食")


def generated_pieces(model: str, seed: int, plan_strength: float | None = None,
                     options: dict | None = None) -> dict[str, list[dict]]:
    """One piece per seed and form, as the app writes it. With ``plan_strength``: each piece gets a
    topic (PLAN_TOPICS in turn), the planner's keyword per line, each steering its own line.
    ``options``: request fields other than the app's (temperature, line_choices)."""
    from songwriter.engine.service import Engine, GenerationRequest
    from songwriter.forms import named_form

    engine = Engine.load(model)
    stats = None
    if plan_strength is not None:
        from songwriter.plan import PLAN_FILE, load_stats, propose_plan

        if not engine.supports_content:
            raise SystemExit(f"--plan: {model} has no content-steering block (docs/cocon.md)")
        stats = load_stats(Path(model) / PLAN_FILE)
    out: dict[str, list[dict]] = {}
    topics = iter(PLAN_TOPICS * 4)
    for form, k in FORMS:
        out[form] = []
        for i in range(k):
            template = named_form(form)
            extra = {}
            if stats is not None:
                topic = next(topics)
                plan = propose_plan(stats, topic, len(template.lines), seed=seed + 101 * i)
                extra = {"line_content": plan, "strength": plan_strength}
            request = GenerationRequest(template=template, n=8, seed=seed + 101 * i, **extra, **(options or {}))
            best = engine.generate(request)[0]
            out[form].append({"lines": best.text.split("\n"), "seed": seed + 101 * i, "score": best.score,
                              **({"topic": topic, "plan": plan, "strength": plan_strength} if extra else {})})
    return out


MODERN_PIECES = 8      # of ours, and as many real ones
MODERN_LINES = 8       # the first lines of a poem, at most


def modern_poems(corpus: Path, rng: random.Random) -> tuple[list[dict], list[dict]]:
    """Held-out modern poems, their first lines: (shapes for ours, real ones), disjoint."""
    test = set(json.loads((corpus / "split.json").read_text())["test"])
    found = []
    with open(corpus / "pieces.jsonl", encoding="utf-8") as f:
        for line in f:
            p = json.loads(line)
            if p["id"] in test and p.get("mix") == "poem":
                found.append({**p, "lines": p["lines"][:MODERN_LINES]})
    if len(found) < 2 * MODERN_PIECES:
        raise SystemExit(f"{corpus}: {len(found)} held-out modern poems; {2 * MODERN_PIECES} wanted "
                         "(rebuild the corpus: build-corpus reads zh_modern_poems_pd.jsonl)")
    chosen = rng.sample(sorted(found, key=lambda p: p["id"]), 2 * MODERN_PIECES)
    return chosen[:MODERN_PIECES], chosen[MODERN_PIECES:]


def generated_modern(model: str, shapes: list[dict], seed: int, options: dict | None = None) -> list[dict]:
    from songwriter.engine.service import Engine, GenerationRequest
    from songwriter.train.evaluate import gold_template

    engine = Engine.load(model)
    out = []
    for i, shape in enumerate(shapes):
        request = GenerationRequest(template=gold_template(shape, kind="lyric"), n=8, seed=seed + 101 * i,
                                    **(options or {}))
        best = engine.generate(request)[0]
        out.append({"lines": best.text.split("\n"), "seed": seed + 101 * i, "score": best.score,
                    "shape_of": shape["id"]})
    return out


ENGLISH_PIECES = 8     # of ours and as many real ones, of each kind (sonnet, hymn stanza)


def english_real(corpus: Path, rng: random.Random) -> tuple[list[dict], list[dict], list[dict]]:
    """Held-out English pieces: (real sonnets, hymn stanzas whose shapes ours take, real hymn
    stanzas), the two sets of hymns disjoint. Every sonnet is test material; a hymn stanza is
    the first stanza of a test hymn."""
    from songwriter.train import corpus as C

    test = set(C.load_split(corpus)["test"])
    sonnets, hymns = [], []
    for p in C.load_pieces(corpus):
        if p["id"] not in test:
            continue
        if p["kind"] == "sonnet" and len(p["lines"]) == 14:
            sonnets.append(p)
        elif p["kind"] == "hymn":
            end = (list(p.get("breaks", [])) + [len(p["lines"])])[0]
            if 4 <= end <= 8:
                hymns.append({**p, "lines": p["lines"][:end]})
    key = lambda p: p["id"]  # noqa: E731
    real_sonnets = rng.sample(sorted(sonnets, key=key), ENGLISH_PIECES)
    chosen = rng.sample(sorted(hymns, key=key), 2 * ENGLISH_PIECES)
    return real_sonnets, chosen[:ENGLISH_PIECES], chosen[ENGLISH_PIECES:]


# --steer: the sonnets' subjects, one each in turn (the hymn stanzas keep their own words' theme)
SONNET_TOPICS = ("the sea at night", "winter snow and frost", "a garden of roses", "the city streets",
                 "a mother and her child", "war and soldiers", "autumn leaves", "the stars above")


def hymn_relyric(lines: list[str]):
    """The template a writer re-lyricking a hymn stanza makes: its lines' syllables, metre and
    rhymes (``template_from_lyrics``), the kind of piece a hymn."""
    from songwriter.lyrics import template_from_lyrics

    template = template_from_lyrics("\n".join(lines), "en")
    template.kind = "hymn"
    return template


def generated_english(model: str, hymn_shapes: list[dict], seed: int, options: dict | None = None,
                      steer: bool = False) -> list[dict]:
    """Shakespearean sonnets, and hymn stanzas re-lyricked to held-out stanzas' syllables and
    rhymes (as a writer re-lyrics a hymn tune), the top-ranked of 8 candidates each; ``options``:
    request fields other than the app's (temperature, line_choices). ``steer``: as the app steers
    them, each sonnet by a topic (SONNET_TOPICS) and each hymn stanza by its original words (the
    re-lyric's kept theme), at strength 0."""
    from songwriter.engine.service import Engine, GenerationRequest
    from songwriter.forms import named_form

    engine = Engine.load(model)
    jobs = [("sonnet", named_form("Shakespearean sonnet"), None, SONNET_TOPICS[k % len(SONNET_TOPICS)])
            for k in range(ENGLISH_PIECES)]
    jobs += [("hymn", hymn_relyric(h["lines"]), h["id"], " ".join(h["lines"])) for h in hymn_shapes]
    out = []
    for i, (form, template, shape_of, subject) in enumerate(jobs):
        content = {"content": [subject]} if steer else {}
        best = engine.generate(GenerationRequest(template=template, n=8, seed=seed + 101 * i, **content,
                                                 **(options or {})))[0]
        out.append({"form": form, "lines": best.text.split("\n"), "seed": seed + 101 * i,
                    "score": best.score, **({"shape_of": shape_of} if shape_of else {}),
                    **({"content": subject} if steer else {})})
    return out


MELODY_PIECES = 8      # of ours, and as many real ones
MELODY_TUNES = 50      # ours are written to tunes among the first 50 of han1.abc (bench/melody_fit.py's)
MELODY_LINES = (4, 8)  # tunes of four to eight phrases: a piece long enough to read, short enough to match


def melody_tunes(rng: random.Random) -> list[tuple[int, object]]:
    """MELODY_PIECES tunes (number, template) of the first MELODY_TUNES Essen tunes of han1.abc
    with MELODY_LINES phrases, chosen with ``rng``."""
    sys.path.insert(0, str(ROOT / "bench"))
    from melody_fit import essen_templates

    tunes, _ = essen_templates(MELODY_TUNES)
    fit = [(n, t) for n, t in tunes if MELODY_LINES[0] <= len(t.lines) <= MELODY_LINES[1]]
    return rng.sample(fit, MELODY_PIECES)


def shape_distance(lines: list[str], lengths: list[int]) -> int:
    """How far a piece's first lines are from a tune's phrase lengths: characters of difference
    line by line, a missing line counting whole."""
    have = chars_per_line(lines[: len(lengths)])
    have += [0] * (len(lengths) - len(have))
    return sum(abs(a - b) for a, b in zip(have, lengths))


def melody_real(corpus: Path, shapes: list[list[int]]) -> list[dict]:
    """For each tune's phrase lengths, the held-out modern poem (the register nearest lyrics, as
    in the modern set) whose first lines are nearest that shape, its first as many lines; each
    poem once."""
    test = set(json.loads((corpus / "split.json").read_text())["test"])
    found = []
    with open(corpus / "pieces.jsonl", encoding="utf-8") as f:
        for line in f:
            p = json.loads(line)
            if p["id"] in test and p.get("mix") == "poem":
                found.append(p)
    if len(found) < len(shapes):
        raise SystemExit(f"{corpus}: {len(found)} held-out modern poems; {len(shapes)} wanted "
                         "(rebuild the corpus: build-corpus reads zh_modern_poems_pd.jsonl)")
    out, used = [], set()
    for lengths in shapes:
        best = min((p for p in found if p["id"] not in used),
                   key=lambda p: (shape_distance(p["lines"], lengths), p["id"]))
        used.add(best["id"])
        out.append({**best, "lines": best["lines"][: len(lengths)], "shape": lengths})
    return out


def generated_melody(model: str, tunes: list[tuple[int, object]], seed: int) -> list[dict]:
    """New words to each tune at the default tone fit, the top-ranked of 8 candidates, as the
    app writes them (``songwriter generate --relyric han1.abc --tune N -n 8``)."""
    from songwriter.engine.service import Engine, GenerationRequest

    engine = Engine.load(model)
    out = []
    for i, (number, template) in enumerate(tunes):
        best = engine.generate(GenerationRequest(template=template, n=8, seed=seed + 101 * i))[0]
        out.append({"lines": best.text.split("\n"), "seed": seed + 101 * i, "score": best.score,
                    "tune": f"han1.abc X:{number}"})
    return out


def request_options(args) -> dict:
    """The request fields the command line sets (the app's own where unset)."""
    return {name: getattr(args, name) for name in ("temperature", "line_choices", "repetition_penalty")
            if getattr(args, name) is not None}


def make(args) -> int:
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(args.seed)
    items = []
    # with --against, a second model writes the same forms with the same seeds into the same file:
    # one reader judges both, which compares them better than two readers (docs/results.md)
    models = [args.model] + ([args.against] if args.against else [])
    if args.set == "english":
        corpus = Path(args.corpus if args.corpus != str(DEFAULT_CORPUS) else ROOT / "runs" / "corpus" / "en")
        sonnets, shapes, hymns = english_real(corpus, rng)
        items += [{"source": "machine", "model": model, "lang": "en", **p}
                  for model in models
                  for p in generated_english(model, shapes, args.seed, request_options(args), getattr(args, "steer", False))]
        items += [{"source": "human", "form": "sonnet", "lang": "en", "id": p["id"], "lines": p["lines"]}
                  for p in sonnets]
        items += [{"source": "human", "form": "hymn", "lang": "en", "id": p["id"], "lines": p["lines"]}
                  for p in hymns]
        heading = "English poems: sonnets and hymn stanzas (a stanza may open a longer hymn), numbered."
    elif args.set == "modern":
        shapes, real = modern_poems(Path(args.corpus), rng)
        items += [{"source": "machine", "model": model, "form": "lyric", **p}
                  for model in models for p in generated_modern(model, shapes, args.seed, request_options(args))]
        items += [{"source": "human", "form": "lyric", "id": p["id"], "lines": p["lines"]} for p in real]
        heading = "Modern Chinese poems or lyrics (some are the opening lines of a longer piece), numbered."
    elif args.set == "melody":
        tunes = melody_tunes(rng)
        real = melody_real(Path(args.corpus), [[ln.syllables for ln in t.lines] for _, t in tunes])
        items += [{"source": "machine", "model": model, "form": "melody", **p}
                  for model in models for p in generated_melody(model, tunes, args.seed)]
        items += [{"source": "human", "form": "melody", "id": p["id"], "lines": p["lines"], "shape": p["shape"]}
                  for p in real]
        heading = "Modern Chinese lyrics or poems (some are the opening lines of a longer piece), numbered."
    else:
        for model in models:
            for form, pieces in generated_pieces(model, args.seed, args.plan, request_options(args)).items():
                items += [{"source": "machine", "model": model, "form": form, **p} for p in pieces]
        for form, pieces in real_pieces(Path(args.corpus), rng).items():
            items += [{"source": "human", "form": form, "id": p["id"], "lines": p["lines"]} for p in pieces]
        heading = "Classical Chinese poems, numbered."
    write_file(items, heading, out, rng)
    return 0


STANDS_ALONE = " Each piece stands alone."


def write_file(items: list[dict], heading: str, out: Path, rng: random.Random) -> None:
    """Shuffle ``items`` with ``rng``, number them and write ``pieces.md`` (no labels) and ``key.json``."""
    rng.shuffle(items)
    text = ["# Pieces", "", f"{heading}{STANDS_ALONE}", ""]
    for n, item in enumerate(items, 1):
        item["n"] = n
        text += [f"## {n}", ""] + [ln for ln in item["lines"]] + [""]
    out.mkdir(parents=True, exist_ok=True)
    (out / "pieces.md").write_text("\n".join(text), encoding="utf-8")
    (out / "key.json").write_text(json.dumps(items, ensure_ascii=False, indent=1), encoding="utf-8")
    print(f"{len(items)} pieces -> {out / 'pieces.md'}; the key -> {out / 'key.json'}")


def heading_of(folder: Path) -> str:
    """The heading line ``write_file`` wrote into a folder's pieces.md (what the pieces are)."""
    f = folder / "pieces.md"
    lines = f.read_text(encoding="utf-8").splitlines() if f.exists() else []
    return lines[2].removesuffix(STANDS_ALONE) if len(lines) > 2 else "Poems, numbered."


def merge(args) -> int:
    """Machine pieces of one model from each of several earlier files, relabelled, with the real
    pieces of the first, in one new shuffled file. The files must hold the same real pieces (the
    same ``make --seed``): otherwise the reader would see more real pieces than generated ones."""
    items, reals = [], []
    for part in args.part:
        try:
            folder, model, label = part.split(":", 2)
        except ValueError:
            print(f"error: --part {part!r}: say FOLDER:MODEL:LABEL", file=sys.stderr)
            return 2
        key = json.loads((Path(folder) / "key.json").read_text(encoding="utf-8"))
        mine = [dict(i, model=label) for i in key if i["source"] == "machine" and i.get("model") == model]
        if not mine:
            print(f"error: {folder}/key.json has no pieces of {model}", file=sys.stderr)
            return 2
        items += mine
        reals.append(sorted(str(i.get("id")) for i in key if i["source"] == "human"))
        if len(reals) == 1:
            real_items = [i for i in key if i["source"] == "human"]
    if any(r != reals[0] for r in reals[1:]):
        print("error: the files hold different real pieces (make them with the same --seed)", file=sys.stderr)
        return 2
    items += real_items
    first = Path(args.part[0].split(":", 1)[0])
    write_file(items, heading_of(first), Path(args.out), random.Random(args.seed))
    return 0


def flaws(lines: list[str], lang: str = "zh") -> tuple[int, int, int]:
    """(lines opening with a hollow negation or question word, lines, characters repeated in the
    piece apart from adjacent reduplication). English: (0, lines, content words of four letters
    or more used again in the piece)."""
    if lang == "en":
        import re

        words = [w for w in re.findall(r"[a-z']+", " ".join(lines).lower()) if len(w) >= 4]
        return 0, len(lines), len(words) - len(set(words))
    body = [ln.strip(PUNCT) for ln in lines]
    hollow = sum(ln.startswith(HOLLOW_OPENINGS) for ln in body)
    seen: dict[str, int] = {}
    for ln in body:
        for i, c in enumerate(ln):
            if i and ln[i - 1] == c:
                continue   # 萧萧, 年年: a reduplication is one word
            seen[c] = seen.get(c, 0) + 1
    return hollow, len(body), sum(v - 1 for v in seen.values() if v > 1)


# a line's first word (character) counts as an echo once it opened this many earlier lines: verse
# opens a few lines with "And" or "My", a regulated Chinese poem hardly ever two with one character
FIRST_ECHO_AFTER = {"en": 2, "zh": 1}


def units(line: str, lang: str) -> list[str]:
    """A line's words (English, lowercased) or characters (Chinese), marks left out."""
    import re

    if lang == "en":
        return re.findall(r"[a-z']+", line.lower())
    return [c for c in line if c not in PUNCT and not c.isspace()]


def echoes(lines: list[str], lang: str = "en") -> tuple[int, int, int, int]:
    """(pairs of words or characters that were already written earlier in the piece, pairs,
    lines whose first two units open an earlier line too, lines whose first unit opened
    ``FIRST_ECHO_AFTER`` earlier lines already): a piece of "You are the ... of the" lines, of
    nine lines opening "My", of 不知 … 不见 … 不须. A Chinese reduplication (萧萧) is no pair."""
    from collections import Counter

    seen: set[tuple[str, str]] = set()
    openings: set[tuple[str, ...]] = set()
    firsts: Counter = Counter()
    again = pairs = echoed = thirds = 0
    for line in lines:
        words = units(line, lang)
        line_pairs = [pair for pair in zip(words, words[1:]) if lang == "en" or pair[0] != pair[1]]
        again += sum(pair in seen for pair in line_pairs)
        pairs += len(line_pairs)
        seen.update(line_pairs)
        opening = tuple(words[:2])
        echoed += opening in openings
        openings.add(opening)
        if words:
            thirds += firsts[words[0]] >= FIRST_ECHO_AFTER[lang]
            firsts[words[0]] += 1
    return again, pairs, echoed, thirds


def score(args) -> int:
    out = Path(args.out)
    key = {item["n"]: item for item in json.loads((out / "key.json").read_text(encoding="utf-8"))}
    # a reader may number the answers "n" or "piece"
    answers = {a.get("n", a.get("piece")): a for a in json.loads((out / "answers.json").read_text(encoding="utf-8"))}
    missing = sorted(set(key) - set(answers))
    if missing:
        print(f"error: no answer for pieces {missing}", file=sys.stderr)
        return 2
    # the pieces of each group: "machine" (or "machine MODEL" each, with --against) and "human"
    models = {item.get("model") for item in key.values() if item["source"] == "machine"}
    groups: dict[str, list[int]] = {}
    for n, item in sorted(key.items()):
        apart = item["source"] == "machine" and len(models) > 1
        groups.setdefault(f"machine {item.get('model')}" if apart else item["source"], []).append(n)
    rows = {}
    for source in sorted(groups, key=lambda g: (g == "human", g)):
        ns = groups[source]
        hollow = lines = repeats = again = pairs = echoed = thirds = 0
        for n in ns:
            h, ln, r = flaws(key[n]["lines"], key[n].get("lang", "zh"))
            hollow, lines, repeats = hollow + h, lines + ln, repeats + r
            a, p, e, t = echoes(key[n]["lines"], key[n].get("lang", "zh"))
            again, pairs, echoed, thirds = again + a, pairs + p, echoed + e, thirds + t
        rows[source] = {
            "pieces": len(ns),
            "judged_human": sum(answers[n]["guess"].lower().startswith("h") for n in ns),
            **{m: statistics.mean(float(answers[n][m]) for n in ns) for m in ("fluency", "coherence", "quality")},
            "hollow_line_openings": hollow / max(1, lines),
            "repeated_chars_per_piece": repeats / max(1, len(ns)),
            "word_pairs_again": again / max(1, pairs),
            "echoed_openings": echoed / max(1, lines),
            "first_word_thirds_per_piece": thirds / max(1, len(ns)),
            "by_form": {form: {"pieces": len(fs),
                               "judged_human": sum(answers[n]["guess"].lower().startswith("h") for n in fs),
                               "fluency": statistics.mean(float(answers[n]["fluency"]) for n in fs)}
                        for form in sorted({key[n]["form"] for n in ns})
                        for fs in [[n for n in ns if key[n]["form"] == form]]},
        }
    english = any(item.get("lang") == "en" for item in key.values())
    for source, r in rows.items():
        label = "real" if source == "human" else "ours" + source[len("machine"):]
        repeated = "repeated words" if english else "repeated characters"
        print(f"{label}: {r['judged_human']} of {r['pieces']} judged human; fluency {r['fluency']:.2f}, "
              f"coherence {r['coherence']:.2f}, quality {r['quality']:.2f}; hollow openings "
              f"{r['hollow_line_openings']:.0%} of lines; {repeated} {r['repeated_chars_per_piece']:.1f} a piece")
        if english:
            print(f"  word pairs written again {r['word_pairs_again']:.1%}; lines opening as an earlier one "
                  f"{r['echoed_openings']:.1%}; lines opening with a word two earlier lines opened with "
                  f"{r['first_word_thirds_per_piece']:.1f} a piece")
        else:
            print(f"  character pairs written again {r['word_pairs_again']:.1%}; lines opening as an earlier "
                  f"one {r['echoed_openings']:.1%}; lines opening with a character an earlier line opened with "
                  f"{r['first_word_thirds_per_piece']:.1f} a piece")
        for form, f in r["by_form"].items():
            print(f"  {form}: {f['judged_human']} of {f['pieces']} judged human, fluency {f['fluency']:.2f}")
    (out / "score.json").write_text(json.dumps(rows, indent=1))
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("make", help="write the shuffled pieces and their key")
    m.add_argument("--model", default=str(ROOT / "models" / "zh"))
    m.add_argument("--corpus", default=str(DEFAULT_CORPUS))
    m.add_argument("--out", required=True)
    m.add_argument("--seed", type=int, default=2026)
    m.add_argument("--against", metavar="MODEL", default=None,
                   help="a second model's pieces in the same file (same forms and seeds), scored apart")
    m.add_argument("--set", choices=("classical", "modern", "english", "melody"), default="classical",
                   help="classical: 七绝, 五律, 阮郎归; modern: lyrics to the shapes of held-out modern poems; "
                        "english: sonnets and hymn stanzas (--corpus defaults to runs/corpus/en); "
                        "melody: new words to Essen folk tunes beside held-out modern poems of their shapes")
    m.add_argument("--plan", type=float, metavar="STRENGTH", default=None,
                   help="classical set: each of ours gets a topic and the planner's keyword per line, "
                        "steering its line at this strength (the model needs its content-steering block)")
    m.add_argument("--repetition-penalty", type=float, default=None,
                   help="english, classical and modern sets: nats off a word's log-prob per earlier use in "
                        "ours (default: the decoder's own)")
    m.add_argument("--temperature", type=float, default=None,
                   help="english, classical and modern sets: sample ours at this temperature (default: the app's)")
    m.add_argument("--steer", action="store_true",
                   help="english set: steer ours as the app does, each sonnet by a topic and each hymn stanza "
                        "by its original words (the model needs word associations, plan.json)")
    m.add_argument("--line-choices", type=int, default=None,
                   help="english, classical and modern sets: each line sampled this many times per candidate, the likeliest kept "
                        "(default: the app's)")
    m.set_defaults(func=make)
    g = sub.add_parser("merge", help="one model's pieces from each of several files, in one new file")
    g.add_argument("--part", action="append", required=True, metavar="FOLDER:MODEL:LABEL")
    g.add_argument("--out", required=True)
    g.add_argument("--seed", type=int, default=11)
    g.set_defaults(func=merge)
    s = sub.add_parser("score", help="count what the reader said against the key")
    s.add_argument("--out", required=True)
    s.set_defaults(func=score)
    args = ap.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())

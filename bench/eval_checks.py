"""Do the checks agree with real poems? Real pieces checked against their named forms.

    python bench/eval_checks.py                                   # everything, summary figures
    python bench/eval_checks.py --part shi --show 20              # also list 20 failures of each kind
    python bench/eval_checks.py --zh-corpus runs/corpus/zh --en-data ../shared/data/en --json out.json

Parts (``--part``, repeatable; all by default):

- ``shi``: the regulated shapes of the held-out test split (four or eight lines of five or seven
  characters) checked with ``check --form 五绝/七绝/五律/七律``. A piece counts as *regulated* when
  its skeleton is: its even lines end 平 and rhyme together, and the second character of every line
  follows 粘 and 对 (the tones that make verse 近体). The rest are listed with the rule each
  breaks (most are 古绝 and 古风 in a regulated shape).
- ``ci``: the pieces of the 20 most common 词牌 of the test split, each checked with
  ``check --form TUNE`` (any variant of the tune in the library).
- ``cipu``: the library's tones against the standard 词谱 (龙榆生《唐宋词格律》, written out in
  tests/data/cipu.txt): the share of the slots the 词谱 fixes that the library fixes alike, and
  the share of the slots it leaves free that the library leaves free.
- ``sonnets``: Shakespeare's 152 fourteen-line sonnets against ``--form "shakespearean sonnet"``.
- ``hymns``: the verses of the 1908 hymns against their metre (common, long, short metre, 8.7.8.7
  and the other metres of tests: see ``HYMN_METRES``), the metre of a hymn being the one that most
  of its verses have the syllable counts of.
- ``ballads``: the poems of the Gutenberg songs, ballads and hymns subset written in four-line
  stanzas most of which have the ballad stanza's syllable counts (8.6.8.6), every four-line stanza
  against ``--form "ballad stanza"`` (iambic 4.3.4.3, the second and fourth lines rhyming); also
  apart, those from a book with "ballad" in its title.

Reads the corpora from where they are (never copies them); prints figures and, with ``--show``,
failures with the rule and the place. Exit status 0.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from songwriter import checks  # noqa: E402
from songwriter.forms import named_form  # noqa: E402
from songwriter.prosody import chinese  # noqa: E402

REGULATED_SHAPES = {(4, 5): "五绝", (4, 7): "七绝", (8, 5): "五律", (8, 7): "七律"}
PARTS = ("shi", "ci", "cipu", "sonnets", "hymns", "ballads")


def _first_problem(report) -> str:
    """The rule a failing report names first, as 'kind' (piece problems first)."""
    for p in report.problems:
        return p.kind
    for line in report.lines:
        for p in line.problems:
            return p.kind
    return ""


def _problems(report) -> list[str]:
    out = [f"piece: {p.message}" for p in report.problems]
    for line in report.lines:
        for p in line.problems:
            where = f" char {p.slot + 1}" if p.slot is not None else ""
            out.append(f"line {line.index + 1}{where} {p.kind}: {p.message}")
    return out


# ---- Chinese regulated verse ------------------------------------------------------------------

def _load_pieces(corpus: Path, split: str) -> list[dict]:
    ids = set(json.loads((corpus / "split.json").read_text(encoding="utf-8"))[split])
    out = []
    with open(corpus / "pieces.jsonl", encoding="utf-8") as fh:
        for raw in fh:
            d = json.loads(raw)
            if d["id"] in ids:
                out.append(d)
    return out


def _classes(line: str, k: int) -> frozenset[str]:
    return chinese.verse_tone_classes(line, k, "classical")


def regulated_skeleton(lines: list[str]) -> str:
    """'' when the piece has the skeleton of regulated verse, else the first rule it breaks:
    even lines end 平 and rhyme (平水韵), second characters alternate (对) and carry on (粘)."""
    bodies = ["".join(c for c in ln if chinese.is_hanzi(c)) for ln in lines]
    for i in range(1, len(bodies), 2):
        if "平" not in _classes(bodies[i], len(bodies[i]) - 1):
            return "仄韵 (an even line ends 仄)"
    groups = [chinese.rhyme_groups(b, len(b) - 1, "pingshui") for b in bodies[1::2]]
    if not set.intersection(*(set(g) for g in groups)):
        return "出韵 (the even lines do not share a 平水韵 group)"
    seconds = [_classes(b, 1) for b in bodies]
    for i in range(1, len(bodies)):
        a, b = seconds[i - 1], seconds[i]
        if len(a) != 1 or len(b) != 1:
            continue
        if i % 2 == 1 and a == b:
            return f"失对 (lines {i} and {i + 1} have the same tone at character 2)"
        if i % 2 == 0 and a != b:
            return f"失粘 (line {i + 1} does not carry on line {i}'s tone at character 2)"
    return ""


def eval_shi(corpus: Path, show: int) -> dict:
    pieces = _load_pieces(corpus, "test")
    rows = defaultdict(lambda: Counter())
    failures: dict[str, list] = defaultdict(list)
    rules: dict[str, Counter] = defaultdict(Counter)
    for d in pieces:
        if d["kind"] != "shi":
            continue
        lines = d["lines"]
        lengths = {sum(chinese.is_hanzi(c) for c in ln) for ln in lines}
        if len(lengths) != 1:
            continue
        shape = (len(lines), lengths.pop())
        if shape not in REGULATED_SHAPES:
            continue
        name = REGULATED_SHAPES[shape]
        text = "\n".join(lines)
        report = checks.check(text, named_form(name))
        skeleton = regulated_skeleton(lines)
        group = "regulated" if not skeleton else "other"
        rows[name]["all"] += 1
        rows[name][group] += 1
        if report.ok:
            rows[name][f"{group}_pass"] += 1
            rows[name]["all_pass"] += 1
        elif group == "regulated":
            rules[name][_first_problem(report)] += 1
            failures[name].append((d["id"], text, _problems(report)))
        else:
            rules[name + " other"][skeleton.split(" ")[0]] += 1
    out = {}
    for name in ("五绝", "七绝", "五律", "七律"):
        r = rows[name]
        out[name] = {k: r[k] for k in ("all", "all_pass", "regulated", "regulated_pass", "other", "other_pass")}
        out[name]["regulated_fail_rules"] = dict(rules[name].most_common())
        out[name]["other_rules"] = dict(rules[name + " other"].most_common())
    total = Counter()
    for name in out:
        for k in ("all", "all_pass", "regulated", "regulated_pass"):
            total[k] += out[name][k]
    out["total"] = dict(total)
    print("regulated verse of the test split, checked with --form NAME:")
    for name, r in out.items():
        pr = 100 * r["regulated_pass"] / max(1, r["regulated"])
        pa = 100 * r["all_pass"] / max(1, r["all"])
        print(f"  {name}: regulated {r['regulated_pass']}/{r['regulated']} ({pr:.1f} %) | "
              f"all of the shape {r['all_pass']}/{r['all']} ({pa:.1f} %)"
              + (f" | failing rules {r['regulated_fail_rules']}" if r.get("regulated_fail_rules") else "")
              + (f" | not regulated: {r['other_rules']}" if r.get("other_rules") else ""))
    for name, items in failures.items():
        for pid, text, probs in items[:show]:
            print(f"\n  [{name}] {pid}\n    " + text.replace("\n", "") + "\n    " + "\n    ".join(probs))
    return out


# ---- 词牌 ----------------------------------------------------------------------------------------

def eval_ci(corpus: Path, show: int, top: int = 20) -> dict:
    from songwriter.prosody import cipai

    pieces = [d for d in _load_pieces(corpus, "test") if d["kind"] == "ci"]
    by_tune: dict[str, list[dict]] = defaultdict(list)
    for d in pieces:
        by_tune[cipai.canonical_tune(d.get("tune") or "")].append(d)
    library = cipai.load_library()
    tunes = [t for t, _ in sorted(by_tune.items(), key=lambda kv: (-len(kv[1]), kv[0])) if t in library][:top]
    out = {}
    total = Counter()
    fails = []
    for tune in tunes:
        form = named_form(tune)
        c = Counter()
        for d in by_tune[tune]:
            report = checks.check("\n".join(d["lines"]), form)
            c["all"] += 1
            if report.ok:
                c["pass"] += 1
            else:
                c[_first_problem(report)] += 1
                fails.append((tune, d["id"], "".join(d["lines"]), _problems(report), report.form))
        out[tune] = dict(c)
        total.update(c)
    out["total"] = dict(total)
    print(f"\n词牌: the {len(tunes)} most common tunes of the test split, checked with --form TUNE:")
    for tune, c in out.items():
        rest = {k: v for k, v in c.items() if k not in ("all", "pass")}
        print(f"  {tune}: {c.get('pass', 0)}/{c['all']} ({100 * c.get('pass', 0) / c['all']:.1f} %) {rest or ''}")
    out["tone_only"] = tone_only = _tone_only_failures(corpus, tunes, fails)
    print(f"  pieces failing on tones alone: {tone_only['pieces']}; of them {tone_only['kept_97']} break only slots "
          f"that at least 97 % of the tune's corpus pieces read in that format keep (a rule the poems keep, broken "
          f"or misread here), {tone_only['kept_90']} only slots kept by at least 90 %")
    for tune, pid, text, probs, used in fails[:show]:
        print(f"\n  [{tune}] {pid} ({used})\n    {text}\n    " + "\n    ".join(probs[:6]))
    return out


def _tone_only_failures(corpus: Path, tunes: list[str], fails: list) -> dict:
    """For the pieces that fail on tones alone: how widely the tune's pieces (all splits of the
    corpus, read in the format the report names) keep the tone at each flagged slot. A slot kept
    by nearly every piece is a rule of the tune; a piece that breaks it is flagged by design."""
    from songwriter.forms import alternatives
    from songwriter.prosody import cipai
    from songwriter.template import syllable_units, text_lines

    wanted = {t for t, _, _, probs, _ in fails if probs and all(" tone: " in p for p in probs)}
    if not wanted:
        return {"pieces": 0, "kept_97": 0, "kept_90": 0}
    every: dict[str, list[str]] = defaultdict(list)
    with open(corpus / "pieces.jsonl", encoding="utf-8") as fh:
        for raw in fh:
            d = json.loads(raw)
            if d["kind"] == "ci":
                tune = cipai.canonical_tune(d.get("tune") or "")
                if tune in wanted:
                    every[tune].append("\n".join(d["lines"]))
    shapes: dict[str, dict] = {}
    read: dict[tuple, list] = {}
    support: dict[tuple, float] = {}
    pieces = kept_97 = kept_90 = 0
    for tune, _, _, probs, used in fails:
        if not probs or not all(" tone: " in p for p in probs):
            continue
        pieces += 1
        if tune not in shapes:
            form = named_form(tune)
            shapes[tune] = {t.name: t for t in [form] + alternatives(form)}
        worst = 1.0
        for p in probs:
            m = re.match(r"line (\d+) char (\d+) tone: .*the template wants (.)", p)
            if not m:
                worst = 0.0
                continue
            line, slot, tone = int(m[1]) - 1, int(m[2]) - 1, m[3]
            template = shapes[tune][used]
            key = (tune, used, line, slot)
            if key not in support:
                if (key[0], key[1]) not in read:
                    want = [ln.syllables for ln in template.lines]
                    rows = []
                    for text in every[tune]:
                        lines = text_lines(text, template)
                        if [len(syllable_units(x, "zh")) for x in lines] == want:
                            rows.append(["".join(u for u, _ in syllable_units(x, "zh")) for x in lines])
                    read[(key[0], key[1])] = rows
                votes = Counter()
                for rows in read[(key[0], key[1])]:
                    classes = chinese.verse_tone_classes(rows[line], slot, "classical")
                    if len(classes) == 1:
                        votes[next(iter(classes))] += 1
                support[key] = votes[tone] / max(1, sum(votes.values()))
            worst = min(worst, support[key])
        kept_97 += worst >= 0.97
        kept_90 += worst >= 0.90
    return {"pieces": pieces, "kept_97": kept_97, "kept_90": kept_90}


def read_cipu(path: Path) -> dict[str, str]:
    """tests/data/cipu.txt: tune -> its 词谱 tones, one of 平 仄 中 per character, lines joined."""
    out = {}
    for raw in path.read_text(encoding="utf-8").splitlines():
        raw = raw.strip()
        if not raw or raw.startswith("#"):
            continue
        tune, _, pattern = raw.partition(":")
        out[tune.strip()] = re.sub(r"[^平仄中]", "", pattern)
    return out


def _corpus_tones(corpus: Path, tune: str, form) -> list[Counter]:
    """Per character of a tune's standard format: the classical tones of the tune's corpus pieces
    (all splits) whose sentences have the format's lengths; characters read both ways cast none."""
    from songwriter.prosody import cipai

    want = [ln.length for ln in form.lines]
    votes = [Counter() for _ in range(sum(want))]
    path = corpus / "pieces.jsonl"
    if not path.exists():
        return []
    with open(path, encoding="utf-8") as fh:
        for raw in fh:
            d = json.loads(raw)
            if d["kind"] != "ci" or cipai.canonical_tune(d.get("tune") or "") != tune:
                continue
            lines = ["".join(c for c in ln if chinese.is_hanzi(c)) for ln in d["lines"]]
            if [len(x) for x in lines] != want:
                continue
            k = 0
            for line in lines:
                for i in range(len(line)):
                    classes = chinese.verse_tone_classes(line, i, "classical")
                    if len(classes) == 1:
                        votes[k][next(iter(classes))] += 1
                    k += 1
    return votes


def eval_cipu(show: int, corpus: Path | None = None) -> dict:
    from songwriter.prosody import cipai

    cipu = read_cipu(ROOT / "tests" / "data" / "cipu.txt")
    out = {}
    fixed = same = free = kept_free = 0
    for tune, ref in cipu.items():
        form = cipai.find_form(tune)
        lib = "".join(ln.tones for ln in form.lines)
        if len(lib) != len(ref):
            print(f"  {tune}: the 词谱 has {len(ref)} characters, the library's standard format {len(lib)}: skipped")
            continue
        f = sum(1 for r in ref if r != "中")
        s = sum(1 for r, x in zip(ref, lib) if r != "中" and r == x)
        fr = sum(1 for r in ref if r == "中")
        kf = sum(1 for r, x in zip(ref, lib) if r == "中" and x == "中")
        diffs = [(i, r, x) for i, (r, x) in enumerate(zip(ref, lib)) if r != x]
        out[tune] = {"fixed": f, "agree": s, "free": fr, "free_in_library": kf, "differences": diffs}
        # the typed 词谱 against the corpus: how many pieces keep each tone it fixes, and how
        # much of a minority each slot it frees has
        votes = _corpus_tones(corpus, tune, form) if corpus else []
        if votes:
            kept = [(v[r] / max(1, sum(v.values())), i) for i, (r, v) in enumerate(zip(ref, votes)) if r != "中"]
            minor = [(min(v["平"], v["仄"]) / max(1, sum(v.values())), i)
                     for i, (r, v) in enumerate(zip(ref, votes)) if r == "中"]
            out[tune]["corpus_pieces"] = max(sum(v.values()) for v in votes)
            out[tune]["fixed_kept_lowest"] = min(kept) if kept else None
            out[tune]["free_minority_lowest"] = min(minor) if minor else None
        fixed, same, free, kept_free = fixed + f, same + s, free + fr, kept_free + kf
    out["total"] = {"fixed": fixed, "agree": same, "free": free, "free_in_library": kept_free}
    print(f"\nlibrary tones against the 词谱 ({len(out) - 1} tunes): where the 词谱 fixes a tone the library "
          f"agrees at {same}/{fixed} ({100 * same / max(1, fixed):.1f} %); where it leaves the tone free the "
          f"library does too at {kept_free}/{free} ({100 * kept_free / max(1, free):.1f} %)")
    for tune, r in out.items():
        if tune != "total":
            print(f"  {tune}: fixed {r['agree']}/{r['fixed']}, free {r['free_in_library']}/{r['free']}"
                  + (f"  differences (index, 词谱, library) {r['differences']}" if show else ""))
            if r.get("fixed_kept_lowest"):
                (k, ki), m = r["fixed_kept_lowest"], r.get("free_minority_lowest")
                print(f"    corpus ({r['corpus_pieces']} pieces in the format): every tone the 词谱 fixes is kept by "
                      f"at least {100 * k:.1f} % of them (lowest at character {ki + 1})"
                      + (f"; every slot it frees has a minority of at least {100 * m[0]:.1f} % "
                         f"(lowest at character {m[1] + 1})" if m else ""))
    return out


# ---- English ------------------------------------------------------------------------------------

def read_sonnets(path: Path) -> list[list[str]]:
    blocks = [b.strip().splitlines() for b in re.split(r"\n\s*\n", path.read_text(encoding="utf-8"))]
    return [[ln.strip() for ln in b] for b in blocks if b]


def eval_sonnets(en: Path, show: int) -> dict:
    sonnets = [s for s in read_sonnets(en / "shakespeare_sonnets.txt") if len(s) == 14]
    form = named_form("shakespearean sonnet")
    lines_ok = sonnets_ok = 0
    kinds = Counter()
    fails = []
    for n, s in enumerate(sonnets):
        report = checks.check("\n".join(s), form)
        lines_ok += sum(c.ok for c in report.lines)
        sonnets_ok += report.ok
        for c in report.lines:
            for p in c.problems:
                kinds[p.kind] += 1
                fails.append((n, c.text, p.kind, p.message))
    total = 14 * len(sonnets)
    print(f"\nShakespeare's {len(sonnets)} fourteen-line sonnets, --form 'shakespearean sonnet': "
          f"lines {lines_ok}/{total} ({100 * lines_ok / total:.1f} %), sonnets {sonnets_ok}/{len(sonnets)}; "
          f"flags {dict(kinds.most_common())}")
    for n, text, kind, msg in fails[:show]:
        print(f"  [{kind}] {text}  -- {msg}")
    return {"sonnets": len(sonnets), "sonnets_ok": sonnets_ok, "lines": total, "lines_ok": lines_ok,
            "flags": dict(kinds)}


# Hymn metres: name -> the form that checks it (see songwriter/forms.py).
HYMN_METRES = {
    (8, 6, 8, 6): "Common metre",
    (8, 8, 8, 8): "Long metre",
    (6, 6, 8, 6): "Short metre",
    (8, 7, 8, 7): "8.7.8.7",
    (7, 7, 7, 7): "7.7.7.7",
    (7, 6, 7, 6): "7.6.7.6",
    (6, 5, 6, 5): "6.5.6.5",
    (11, 10, 11, 10): "11.10.11.10",
}


def _clean_hymn_line(line: str) -> str:
    line = re.sub(r"\([^)]*\)", " ", line)            # sung echoes in brackets
    line = line.replace("…", " ").replace("Evry", "Ev'ry")
    return re.sub(r"\s+", " ", line).strip()


def eval_hymns(en: Path, show: int) -> dict:
    from songwriter.prosody import english

    hymns = json.loads((en / "christ_in_song_1908.json").read_text(encoding="utf-8"))
    c = Counter()
    kinds = Counter()
    fails = []
    by_metre = Counter()
    metre_lines, metre_lines_ok = Counter(), Counter()
    for h in hymns:
        verses = [[_clean_hymn_line(x) for x in v["lines"] if _clean_hymn_line(x)]
                  for v in h["lyrics"] if v.get("type") == "verse"]
        verses = [v for v in verses if len(v) == 4]
        if not verses:
            c["hymns_not_quatrains"] += 1
            continue
        votes = Counter()
        for v in verses:
            counts = [english.line_syllables(x) for x in v]
            for metre in HYMN_METRES:
                if all(n in cs for n, cs in zip(metre, counts)):
                    votes[metre] += 1
        metre, n = votes.most_common(1)[0] if votes else (None, 0)
        if metre is None or n * 2 < len(verses):
            c["hymns_other_metre"] += 1
            continue
        c["hymns"] += 1
        by_metre[HYMN_METRES[metre]] += 1
        form = named_form(HYMN_METRES[metre])
        for v in verses:
            report = checks.check("\n".join(v), form)
            c["verses"] += 1
            c["verses_ok"] += report.ok
            c["lines"] += 4
            c["lines_ok"] += sum(x.ok for x in report.lines)
            metre_lines[HYMN_METRES[metre]] += 4
            metre_lines_ok[HYMN_METRES[metre]] += sum(x.ok for x in report.lines)
            for x in report.lines:
                for p in x.problems:
                    kinds[p.kind] += 1
                    fails.append((h["number"], report.form, x.text, p.kind, p.message))
    print(f"\n1908 hymns (Christ in Song), verses of four lines against their metre: {c['hymns']} hymns "
          f"({dict(by_metre.most_common())}; {c['hymns_other_metre']} in another metre, "
          f"{c['hymns_not_quatrains']} without four-line verses); lines {c['lines_ok']}/{c['lines']} "
          f"({100 * c['lines_ok'] / max(1, c['lines']):.1f} %), verses {c['verses_ok']}/{c['verses']} "
          f"({100 * c['verses_ok'] / max(1, c['verses']):.1f} %); flags {dict(kinds.most_common())}")
    print("  lines by metre: " + ", ".join(f"{m} {metre_lines_ok[m]}/{n}" for m, n in metre_lines.most_common()))
    for num, metre, text, kind, msg in fails[:show]:
        print(f"  [{num} {metre} {kind}] {text}  -- {msg}")
    return {**c, "flags": dict(kinds), "metres": dict(by_metre),
            "lines_by_metre": {m: [metre_lines_ok[m], n] for m, n in metre_lines.items()}}


BALLAD_COUNTS = (8, 6, 8, 6)


def eval_ballads(en: Path, show: int) -> dict:
    import gzip

    from songwriter.prosody import english

    form = named_form("Ballad stanza")
    c, kinds, fails = Counter(), Counter(), []
    with gzip.open(en / "epg_songs_ballads_hymns_subset.jsonl.gz", "rt", encoding="utf-8") as fh:
        for raw in fh:
            d = json.loads(raw)
            stanzas = [s for s in d["stanzas"] if len(s) == 4]
            if not stanzas or 2 * len(stanzas) < len(d["stanzas"]):
                continue
            votes = sum(all(n in english.line_syllables(x) for n, x in zip(BALLAD_COUNTS, s)) for s in stanzas)
            if 2 * votes < len(stanzas):
                continue
            group = ("", "ballad_book_") if "ballad" in d["book"].lower() else ("",)
            for g in group:
                c[g + "poems"] += 1
            for s in stanzas:
                report = checks.check("\n".join(s), form)
                for g in group:
                    c[g + "stanzas"] += 1
                    c[g + "stanzas_ok"] += report.ok
                    c[g + "lines"] += 4
                    c[g + "lines_ok"] += sum(x.ok for x in report.lines)
                for x in report.lines:
                    for p in x.problems:
                        kinds[p.kind] += 1
                        fails.append((d["author"], x.text, p.kind, p.message))

    def share(g: str) -> str:
        return (f"lines {c[g + 'lines_ok']}/{c[g + 'lines']} ({100 * c[g + 'lines_ok'] / max(1, c[g + 'lines']):.1f} %), "
                f"stanzas {c[g + 'stanzas_ok']}/{c[g + 'stanzas']}")
    print(f"\npoems in ballad stanzas (Gutenberg songs, ballads and hymns; {c['poems']} poems whose four-line "
          f"stanzas mostly count 8.6.8.6), --form 'ballad stanza': {share('')}; flags {dict(kinds.most_common())}; "
          f"from books titled ballads ({c['ballad_book_poems']} poems): {share('ballad_book_')}")
    for author, text, kind, msg in fails[:show]:
        print(f"  [{author} {kind}] {text}  -- {msg}")
    return {**c, "flags": dict(kinds)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--zh-corpus", type=Path, default=ROOT / "runs" / "corpus" / "zh",
                    help="the built Chinese corpus (pieces.jsonl, split.json)")
    ap.add_argument("--en-data", type=Path, default=ROOT.parent / "shared" / "data" / "en",
                    help="folder with shakespeare_sonnets.txt, christ_in_song_1908.json and "
                         "epg_songs_ballads_hymns_subset.jsonl.gz")
    ap.add_argument("--part", action="append", choices=PARTS, help="what to measure (default: all)")
    ap.add_argument("--show", type=int, default=0, help="list this many failures of each part")
    ap.add_argument("--json", type=Path, help="write the figures here")
    args = ap.parse_args(argv)
    parts = args.part or list(PARTS)
    t0 = time.time()
    out = {}
    if "shi" in parts:
        out["shi"] = eval_shi(args.zh_corpus, args.show)
    if "ci" in parts:
        out["ci"] = eval_ci(args.zh_corpus, args.show)
    if "cipu" in parts:
        out["cipu"] = eval_cipu(args.show, args.zh_corpus)
    if "sonnets" in parts:
        out["sonnets"] = eval_sonnets(args.en_data, args.show)
    if "hymns" in parts:
        out["hymns"] = eval_hymns(args.en_data, args.show)
    if "ballads" in parts:
        out["ballads"] = eval_ballads(args.en_data, args.show)
    print(f"\n({time.time() - t0:.0f} s)")
    if args.json:
        args.json.write_text(json.dumps(out, ensure_ascii=False, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

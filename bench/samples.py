"""Samples of the model on five templates, and a quality gate on them.

    python bench/samples.py --model models/zh                       # seed 2026, 8 candidates a case
    python bench/samples.py --model models/zh --markdown            # the Samples section of docs/results.md
    python bench/samples.py --model DIR --seed 7 -n 16 --top 5 --backend torch

Each case is a `songwriter generate` command (the same parser, template loader and request, through
the engine facade): a 七绝 (平水韵), 鹧鸪天 (词林正韵), a notation with characters locked at the
start, middle and end of lines (中华新韵), a notation whose last line locks its rhyme character
(平水韵: the lock fixes the group) and a re-lyric of bench/relyric-song.txt (中华新韵). For each
it prints the template as notation, the top candidates by score with their check, and the time
the generation took; --markdown prints the same as the markdown of docs/results.md's Samples.

The gate: the exit status is 1, with the case and the rule on stderr, unless in every case the
engine returned n distinct candidates, each passes checks.check() under the case's rhyme system,
and each keeps every locked character in its slot. 2 for bad arguments or a model that does not
load. Timings are printed, never gated.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from songwriter import checks  # noqa: E402
from songwriter.cli_generate import BACKENDS, register, request_from_args  # noqa: E402
from songwriter.engine.errors import GenerationError, ModelLoadError  # noqa: E402
from songwriter.engine.service import Engine, GenerationRequest  # noqa: E402
from songwriter.forms import named_form  # noqa: E402
from songwriter.template import Template, TemplateError, format_notation, syllable_units, text_lines  # noqa: E402

SONG = ROOT / "bench" / "relyric-song.txt"
NUMBERS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight",
           9: "nine", 10: "ten"}


@dataclass
class Case:
    title: str          # the heading, as in docs/results.md
    flags: list[str]    # the `songwriter generate` options that give the template (and rhyme system)
    system: str         # the rhyme system its candidates are checked with
    label: str | None = ""   # the options shown in the heading: "" all of ``flags``, None none


def cases(song: str = "bench/relyric-song.txt") -> list[Case]:
    return [
        Case("七绝", ["--form", "七绝"], "pingshui"),
        Case("鹧鸪天", ["--form", "鹧鸪天"], "cilin"),
        Case("locked start/middle/end, rhyme A",
             ["--notation", r"春_____，\n___风___。@A\n_____月，\n______天。@A", "--rhyme-system", "xinyun"],
             "xinyun", None),
        Case("locked rhyme character on the last line fixes the group",
             ["--notation", r"_____，\n_____。@A\n_____，\n____山。@A", "--rhyme-system", "pingshui"],
             "pingshui", None),
        Case("re-lyric of a song", ["--relyric", song], "xinyun"),
    ]


@dataclass
class Outcome:
    case: Case
    template: Template | None = None
    candidates: list = field(default_factory=list)
    reports: list = field(default_factory=list)      # checks.check() under the case's system, per candidate
    ms: float = 0.0
    busy_other: float = 0.0                          # cores other processes used meanwhile
    failures: list[str] = field(default_factory=list)   # "rule: detail"


# ----------------------------------------------------------------------------------------------
# The gate

def locked_slots(template: Template) -> list[tuple[int, int, str]]:
    """(line, slot, character) of every locked slot."""
    return [(i, k, s.lock) for i, line in enumerate(template.lines)
            for k, s in enumerate(line.slots) if s.lock is not None]


def lock_failures(text: str, template: Template) -> list[str]:
    """Locked characters the text does not have in their slots (read independently of check())."""
    lines = text_lines(text, template)
    out = []
    for i, k, ch in locked_slots(template):
        units = syllable_units(lines[i], template.lang) if i < len(lines) else []
        got = units[k][0] if k < len(units) else None
        if got != ch:
            out.append(f"line {i + 1} slot {k + 1} is {got or 'missing'!s}, {ch} is locked")
    return out


def gate(template: Template, texts: list[str], n: int, system: str) -> tuple[list[str], list]:
    """(failures as "rule: detail", check reports) for the candidates of one case."""
    failures = []
    if len(texts) != n:
        failures.append(f"distinct: {len(texts)} distinct candidates of {n} asked "
                        "(the template leaves fewer different texts)")
    dup = len(texts) - len(set(texts))
    if dup:
        failures.append(f"distinct: {dup} duplicate candidate{'s' if dup > 1 else ''}")
    reports = []
    for j, text in enumerate(texts, 1):
        report = checks.check(text, template, system)
        reports.append(report)
        if not report.ok:
            failures.append(f"check: candidate {j} does not fit ({first_problem(report)})")
        for problem in lock_failures(text, template):
            failures.append(f"locks: candidate {j}: {problem}")
    return failures, reports


def first_problem(report) -> str:
    for p in report.problems:
        return p.message
    for c in report.lines:
        for p in c.problems:
            where = f" syllable {p.slot + 1}" if p.slot is not None else ""
            return f"line {c.index + 1}{where}, {p.kind}: {p.message}"
    return "fits"


# ----------------------------------------------------------------------------------------------
# Running the cases

def cpu_seconds() -> tuple[float, float]:
    """(busy seconds of all CPUs, CPU seconds of this process) so far."""
    try:
        with open("/proc/stat") as f:
            vals = [int(x) for x in f.readline().split()[1:8]]
        busy = (sum(vals) - vals[3] - vals[4]) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError):
        busy = 0.0
    t = os.times()
    return busy, t.user + t.system


def generate_parser() -> argparse.ArgumentParser:
    """The parser of `songwriter generate` itself, so that a case is exactly that command."""
    ap = argparse.ArgumentParser(prog="songwriter")
    register(ap.add_subparsers(dest="command", required=True))
    return ap


def run_case(engine: Engine, parser, case: Case, n: int, seed: int) -> Outcome:
    out = Outcome(case)
    args = parser.parse_args(["generate", *case.flags, "-n", str(n), "--seed", str(seed)])
    try:
        req = request_from_args(args)   # as `songwriter generate` builds it
    except TemplateError as e:
        out.failures.append(f"template: {e}")
        return out
    out.template = req.template
    asked = args.rhyme_system or out.template.effective_rhyme_system()
    if asked != case.system:
        out.failures.append(f"system: the engine would rhyme in {asked}, the case checks {case.system}")
        return out
    busy0, own0 = cpu_seconds()
    t0 = time.perf_counter()
    try:
        out.candidates = engine.generate(req)
    except (GenerationError, TemplateError) as e:
        out.failures.append(f"generate: {e}")
        return out
    wall = time.perf_counter() - t0
    busy1, own1 = cpu_seconds()
    out.ms = wall * 1000
    out.busy_other = max(0.0, (busy1 - busy0) - (own1 - own0)) / wall if wall > 0 else 0.0
    failures, out.reports = gate(out.template, [c.text for c in out.candidates], n, case.system)
    out.failures.extend(failures)
    return out


# ----------------------------------------------------------------------------------------------
# Printing

def notation(template: Template) -> str:
    return format_notation(template, headers=False).rstrip("\n")


def check_word(report) -> str:
    return "check ok" if report.ok else f"check FAILS ({first_problem(report)})"


def top_of(o: Outcome, top: int) -> list[tuple]:
    ranked = sorted(zip(o.candidates, o.reports), key=lambda cr: -cr[0].score)
    return ranked[:top]


def heading(case: Case) -> str:
    if case.label is None:
        return f"{case.title} ({case.system})"
    flags = case.label or " ".join(quote(a) for a in case.flags)
    return f"{case.title} (`{flags}`, {case.system})"


def quote(arg: str) -> str:
    """Shell quoting that leaves Chinese words bare (shlex.quote quotes anything non-ASCII)."""
    return arg if re.fullmatch(r"[\w@%+=:,./-]+", arg) else shlex.quote(arg)


def command(case: Case, n: int, seed: int) -> str:
    return "songwriter generate " + " ".join(quote(a) for a in [*case.flags, "-n", str(n), "--seed", str(seed)])


def timing(o: Outcome, engine: Engine) -> str:
    shared = ", shared machine" if o.busy_other > 0.3 else ""
    backend = engine.backend_name.replace(" (", " ").replace(")", "")   # onnxruntime-cpu (int8): no nesting
    return f"{len(o.candidates)} candidates in {o.ms:.0f} ms, {backend}{shared}"


def print_plain(outcomes: list[Outcome], engine: Engine, n: int, seed: int, top: int) -> None:
    for o in outcomes:
        print(f"== {heading(o.case)}")
        print(f"   {command(o.case, n, seed)}")
        if o.template is not None:
            print(notation(o.template))
        for j, (c, r) in enumerate(top_of(o, top), 1):
            print(f"  {j}. score {c.score:.2f}, {check_word(r)}: {' / '.join(c.lines)}")
        if o.candidates:
            print(f"  ({timing(o, engine)})")
        print(f"  gate: {'ok' if not o.failures else 'FAILED'}")
        for f in o.failures:
            print(f"    {f}")
        print()


def model_words(engine: Engine, model: str) -> str:
    try:
        shown = Path(model).resolve().relative_to(ROOT).as_posix()
    except ValueError:
        shown = model
    steps = engine.manifest.get("train_steps")
    version = engine.manifest.get("version")
    if steps:
        return f"`{shown}` at step {steps:,}"
    return f"`{shown}` version {version}" if version else f"`{shown}`"


def print_markdown(outcomes: list[Outcome], engine: Engine, model: str, n: int, seed: int, top: int,
                   ok: bool, backend: str = "auto") -> None:
    shown = NUMBERS.get(top, str(top))
    print("## Samples")
    print()
    lines = [f"Seed {seed}, n {n}, the top {shown} by score (mean log-prob), {model_words(engine, model)}."]
    if ok:
        lines.append(f"Every candidate passes `check()` in its case's rhyme system, the {n} candidates of a case "
                     "are distinct and every locked character stays in its slot.")
    else:
        lines.append("**Not every case passes the gate** (distinct candidates, `check()`, locked characters): "
                     "see the cases marked below.")
    written = f"python bench/samples.py --model {quote(model)} --seed {seed} -n {n}"
    if backend != "auto":
        written += f" --backend {backend}"
    lines.append(f"Written by `{written} --markdown`. Each case is one `songwriter generate` command with "
                 f"`-n {n} --seed {seed}` and the options in its heading (a notation: `--notation` with the "
                 f"lines joined by `\\n` and `--rhyme-system`), e.g. `{command(outcomes[0].case, n, seed)}`. "
                 "Times are of the generation alone, after a warm-up request.")
    print(wrap(" ".join(lines)))
    for o in outcomes:
        print()
        print(f"### {heading(o.case)}")
        print()
        if o.template is not None:
            print("```")
            print(notation(o.template))
            print("```")
            print()
        for c, r in top_of(o, top):
            print(f"- score {c.score:.2f}, {check_word(r)}: {' / '.join(c.lines)}")
        if o.candidates:
            print()
            print(f"({timing(o, engine)})")
        if o.failures:
            print()
            print("Gate failed: " + "; ".join(o.failures))
    print()


def wrap(text: str, width: int = 100) -> str:
    """Wrap at spaces, never inside a `code span`."""
    out, line = [], ""
    for word in re.findall(r"(?:`[^`]*`|\S)+", text):
        if line and len(line) + 1 + len(word) > width:
            out.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    out.append(line)
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="bench/samples.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", default="models/zh", help="model folder (default models/zh)")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("-n", type=int, default=8, help="candidates per case (the gate wants all distinct)")
    ap.add_argument("--backend", default="auto", choices=BACKENDS)
    ap.add_argument("--top", type=int, default=3, help="candidates printed per case, best score first")
    ap.add_argument("--relyric", default=None, metavar="FILE",
                    help="the song of the re-lyric case (default bench/relyric-song.txt)")
    ap.add_argument("--markdown", action="store_true", help="print the Samples section of docs/results.md")
    args = ap.parse_args(argv)
    if not 1 <= args.n <= 64:
        ap.error("-n must be between 1 and 64")
    if args.top < 1:
        ap.error("--top must be at least 1")
    model = args.model
    if not Path(model).is_absolute() and not Path(model).exists() and (ROOT / model).exists():
        model = str(ROOT / model)       # models/zh from outside the checkout
    song = args.relyric or (SONG.relative_to(ROOT).as_posix() if Path.cwd().resolve() == ROOT else str(SONG))
    try:
        engine = Engine.load(model, backend=args.backend)
    except ModelLoadError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if engine.backend_note:
        print(f"note: {engine.backend_note}", file=sys.stderr)
    parser = generate_parser()
    try:   # off the clock: the process's first request pays for imports and prosody tables
        engine.generate(GenerationRequest(template=named_form("五绝"), n=1, seed=0))
    except GenerationError:
        pass
    outcomes = []
    for case in cases(song):
        o = run_case(engine, parser, case, args.n, args.seed)
        outcomes.append(o)
        for f in o.failures:
            print(f"FAIL {case.title}: {f}", file=sys.stderr)
    ok = not any(o.failures for o in outcomes)
    top = min(args.top, args.n)
    if args.markdown:
        print_markdown(outcomes, engine, args.model, args.n, args.seed, top, ok, args.backend)
    else:
        print_plain(outcomes, engine, args.n, args.seed, top)
    failed = [o.case.title for o in outcomes if o.failures]
    print(f"gate: {'all ' + str(len(outcomes)) + ' cases pass' if ok else 'FAILED in ' + ', '.join(failed)}",
          file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

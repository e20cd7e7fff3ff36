"""`songwriter generate` (fill a template with the neural engine) and `songwriter bench` (decode
latency of every backend), registered by songwriter.cli. Bad input exits with status 2 and a
message on stderr. The training commands are songwriter.cli_train's.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from songwriter.project.steering import theme_by_default, theme_pieces   # shared with the app
from songwriter.template import TemplateError

BACKENDS = ("auto", "onnx", "onnx-fp32", "onnx-int8", "torch", "torch-cpu", "cpu", "cuda")


def _fail(msg: str) -> int:
    print(f"error: {msg}", file=sys.stderr)
    return 2


def _template_from_args(args):
    from songwriter.cli import InputError, load_template_file, template_from_song_file
    from songwriter.template import TemplateError, parse_notation

    given = [x for x in (args.form, args.notation, args.template, args.relyric) if x is not None]
    if len(given) != 1:
        raise TemplateError("give exactly one of --form, --notation, --template or --relyric")
    if args.form is not None:
        from songwriter.forms import named_form

        return named_form(args.form)
    if args.notation is not None:
        return parse_notation(args.notation.replace("\\n", "\n"))
    path = Path(args.template or args.relyric)
    if not path.is_file():
        from songwriter.melody import is_melody_file

        kind = "template" if args.template else "melody" if is_melody_file(path) else "lyrics"
        raise TemplateError(f"no {kind} file {path}")
    try:
        if args.template:
            return load_template_file(str(path))
        template = template_from_song_file(str(path), getattr(args, "lang", None), getattr(args, "part", None),
                                           getattr(args, "tune", None))
    except InputError as e:
        raise TemplateError(str(e)) from None
    for note in melody_notes(template):
        print(f"note: {note}", file=sys.stderr)
    return template


def melody_notes(template) -> list[str]:
    """What reading a melody file decided that the writer should know (which track was taken
    and how to take another, repeats written out, a file read as what it is despite its name,
    what music21 guessed), one line each; none for a piece without a melody."""
    from songwriter.melody import melody_of

    melody = melody_of(template)
    if melody is None:
        return []
    chosen = melody.meta.get("part_chosen")
    return ([f"{chosen} (--part NAME or NUMBER takes another)"] if chosen else []) + melody.reading_notes()


def _with_kind(template, kind: str | None):
    """--kind: the kind of piece (the register the engine writes in) in place of the form's."""
    if kind is None:
        return template
    from songwriter.cli import InputError, resolve_kind
    from songwriter.template import TemplateError

    try:
        template.kind = resolve_kind(kind, template.lang)
    except InputError as e:
        raise TemplateError(str(e)) from None
    return template


def _with_tone_fit(template, tone_fit: float | None):
    """--tone-fit: how much a melody's fit weighs in generation, Chinese tones or English stress
    (kept with the melody)."""
    if tone_fit is None:
        return template
    from songwriter.melody import attach, melody_of
    from songwriter.template import TemplateError

    melody = melody_of(template)
    if melody is None:
        raise TemplateError("--tone-fit is for a melody (MusicXML, MIDI or ABC given to --relyric)")
    if not 0 <= tone_fit <= 10:
        raise TemplateError(f"--tone-fit must be from 0 (off) to 10, not {tone_fit}")
    melody.tone_strength = tone_fit
    attach(template, melody)
    return template


def request_from_args(args):
    """The GenerationRequest of `songwriter generate`'s options (TemplateError for a bad template)."""
    from songwriter.engine.service import GenerationRequest

    template = _with_tone_fit(_with_kind(_template_from_args(args), getattr(args, "kind", None)),
                              getattr(args, "tone_fit", None))
    theme = theme_contents(args, template)
    content, strength, strengths = _steering_from_args(args, len(theme))
    extra = {}
    line_content = line_content_from_args(args, template)
    if line_content is not None:
        extra["line_content"] = line_content
    return GenerationRequest(template=template, text=args.text or "", content=content + theme, strength=strength,
                             strengths=strengths, rhyme_system=args.rhyme_system, n=args.n, seed=args.seed,
                             temperature=args.temperature, top_k=args.top_k, top_p=args.top_p,
                             line_choices=getattr(args, "line_choices", None), **extra)


def _steering_from_args(args, n_theme: int = 0) -> tuple[list[str], float, list[float] | None]:
    """--content (repeatable) and --strength (one for all, or one per content, in order; with the
    song's theme (--keep-theme), one more for the theme's contents)."""
    content = list(getattr(args, "content", None) or [])
    given = list(getattr(args, "strength", None) or [])
    if len(given) > 1:
        if len(given) == len(content) and not n_theme:
            return content, 0.0, given
        if n_theme and len(given) == len(content) + 1:
            return content, 0.0, given[:-1] + [given[-1]] * n_theme
        more = " (and one more for the song's theme)" if n_theme else ""
        raise TemplateError(f"--strength: give one strength for all contents or one per --content "
                            f"({len(content)}){more}, not {len(given)}")
    return content, (given[0] if given else 0.0), None


# --- the per-line plan (--plan, --line-content) and the song's theme (--keep-theme) ------------

def plan_stats_path(args, template) -> Path:
    """--plan-stats, else plan.json in the model folder (--model, or the language's default)."""
    from songwriter.engine.api import default_model_dir
    from songwriter.plan import PLAN_FILE

    if getattr(args, "plan_stats", None):
        return Path(args.plan_stats)
    return Path(args.model or default_model_dir(template.lang)) / PLAN_FILE


def line_content_from_args(args, template) -> list[str] | None:
    """One content per template line ("" for none): --line-content as given ("|" between lines),
    or --plan's proposal for the topic (one keyword per line, seeded by --seed); None without either."""
    topic = getattr(args, "plan", None)
    given = getattr(args, "line_content", None)
    if topic is not None and given is not None:
        raise TemplateError("give --plan TOPIC (the keywords are proposed) or --line-content (your own), not both")
    n = len(template.lines)
    if given is not None:
        entries = [e.strip() for e in given.split("|")]
        if len(entries) != n:
            raise TemplateError(f"--line-content: give one entry per template line ({n}, separated by |, "
                                f"empty for none), not {len(entries)}")
        return entries
    if topic is None:
        return None
    from songwriter.plan import PlanError, load_stats, propose_plan

    try:
        path = plan_stats_path(args, template)
        stats = load_stats(path)
        if stats.lang != template.lang:
            names = {"zh": "Chinese", "en": "English"}
            raise PlanError(f"the statistics at {path} are {names.get(stats.lang, stats.lang)}; the template is "
                            f"{names.get(template.lang, template.lang)}: give --plan-stats for its language, "
                            f"or --line-content")
        return propose_plan(stats, topic, n, seed=args.seed)
    except PlanError as e:
        raise TemplateError(f"--plan: {e}") from None


def original_lyrics(path: str, template) -> list[str]:
    """The words of the song being re-lyricked, one line each: a melody's own words, an LRC file's
    lines in time order, or a lyrics file's lines (section labels such as [Chorus] left out)."""
    from songwriter.lyrics import looks_like_lrc, parse_lrc
    from songwriter.melody import melody_of

    melody = melody_of(template)
    if melody is not None:
        return [ln for ln in melody.original_lines() if ln.strip()]
    from songwriter import lyrics
    from songwriter.cli import read_text_file

    text = read_text_file(path)
    if path.lower().endswith(".lrc") or looks_like_lrc(text):
        return [ll.text for ll in parse_lrc(text)]
    # the lines the template was made from: blank lines and section labels are not lines (the
    # lyrics reader's own rule, not a copy of it)
    return [ln.strip() for ln in text.splitlines() if ln.strip() and not lyrics._SECTION.match(ln.strip())]


def keep_theme(args, template) -> bool:
    """--keep-theme / --no-keep-theme; by default on for a Chinese song, off for a classical form
    and for English (``theme_by_default``)."""
    asked = getattr(args, "keep_theme", None)
    if asked is not None and getattr(args, "relyric", None) is None:
        raise TemplateError("--keep-theme and --no-keep-theme are for --relyric (the song's own words as content)")
    if getattr(args, "relyric", None) is None:
        return False
    return asked if asked is not None else theme_by_default(template)


def theme_contents(args, template) -> list[str]:
    """The song's own lyrics as contents (--keep-theme), in pieces of about
    ``project.steering.THEME_CHARS`` characters cut at line ends; [] when the theme is off or the song has no words."""
    if not keep_theme(args, template):
        return []
    return theme_pieces(original_lyrics(args.relyric, template))


def steering_asked(args) -> list[str]:
    """The options that asked for steering, as the user typed them (for the note of a model without it)."""
    asked = []
    if getattr(args, "content", None):
        asked.append("--content")
    if getattr(args, "plan", None) is not None:
        asked.append("--plan")
    if getattr(args, "line_content", None) is not None:
        asked.append("--line-content")
    if getattr(args, "keep_theme", None):
        asked.append("--keep-theme")
    return asked


def cmd_generate(args) -> int:
    from songwriter.engine.errors import GenerationError, ModelLoadError
    from songwriter.engine.service import Engine, default_model_dir
    from songwriter.template import TemplateError

    try:
        req = request_from_args(args).check()     # before the model loads: bad options fail at once
    except (TemplateError, GenerationError) as e:
        return _fail(str(e))
    line_content = getattr(req, "line_content", None)
    steered = bool(req.content) or any(c.strip() for c in line_content or ())
    if args.plan_only and args.plan is None:
        return _fail("--plan-only goes with --plan TOPIC")
    if args.plan is not None:
        if args.plan_only and args.json:
            print(json.dumps({"topic": args.plan, "keywords": line_content}, ensure_ascii=False))
            return 0
        _print_plan(args.plan, line_content, args.json)
        if args.plan_only:
            return 0
    try:
        # the installed model of the template's language (models/en for an English form)
        model_dir = Path(args.model or default_model_dir(req.template.lang))
        backend = args.backend
        if steered and backend == "auto":
            from songwriter.engine.model_folder import COCON_WEIGHTS, has_onnx_content

            if (model_dir / COCON_WEIGHTS).is_file() and not has_onnx_content(model_dir):
                backend = "torch"   # the block without its ONNX graphs runs on torch only
        engine = Engine.load(model_dir, backend=backend)
    except ModelLoadError as e:
        return _fail(str(e))
    t0 = time.perf_counter()
    try:
        cands = engine.generate(req)
    except (GenerationError, TemplateError) as e:
        return _fail(str(e))
    ms = (time.perf_counter() - t0) * 1000
    if args.json:
        print(json.dumps({"backend": engine.backend_name, "elapsed_ms": round(ms, 1),
                          **({"backend_note": engine.backend_note} if engine.backend_note else {}),
                          **({"plan": {"topic": args.plan, "keywords": line_content}} if args.plan is not None else {}),
                          **({"line_content": line_content} if line_content is not None else {}),
                          "steered": steered and engine.supports_content,
                          "candidates": [{"text": c.text, "lines": c.lines, "score": c.score,
                                          "check": c.check.to_dict()} for c in cands]},
                         ensure_ascii=False, indent=1))
    else:
        from songwriter.export.common import stanza_text

        for i, c in enumerate(cands, 1):
            ok = "ok" if c.check.ok else "DOES NOT FIT"
            print(f"# {i}  score {c.score:.3f}  {ok}")
            print(stanza_text(req.template, c.lines))      # the stanzas apart, as the template shows them
            print()
        print(f"({engine.backend_name}, {ms:.0f} ms)", file=sys.stderr)
    if engine.backend_note:
        print(f"note: {engine.backend_note}", file=sys.stderr)
    if steered and not engine.supports_content:
        asked = steering_asked(args)
        if len(req.content) > len(args.content or []) and not args.keep_theme:
            asked.append("the song's theme (on by default for a Chinese song: --no-keep-theme turns it off)")
        what = " and ".join(asked) + (" are" if len(asked) > 1 else " is")
        print(f"note: {what} ignored: {engine.backend_name} with this model has no content steering "
              f"(it needs {'the block, see docs/cocon.md' if engine.backend_name.startswith('torch') else 'the block and its graphs from export-onnx, or --backend torch'})",
              file=sys.stderr)
    if len(cands) < req.n:
        from songwriter.wording import plural, verb

        print(f"note: only {plural(len(cands), 'different text')} {verb(len(cands), 'fits', 'fit')} this "
              f"template (asked for {req.n})", file=sys.stderr)
    return 0


def _print_plan(topic: str, keywords: list[str] | None, json_follows: bool) -> None:
    """The proposed keywords, one per line (stdout; stderr when JSON follows on stdout)."""
    out = sys.stderr if json_follows else sys.stdout
    print(f"# plan for {topic}: one keyword per line (edit them and pass --line-content)", file=out)
    for i, w in enumerate(keywords or [], 1):
        print(f"{i:>3}  {w or '-'}", file=out)
    print("--line-content " + "'" + "|".join(keywords or []) + "'", file=out)
    print(file=out)


def cmd_bench(args) -> int:
    import runpy

    script = Path(__file__).resolve().parents[1] / "bench" / "latency.py"
    if not script.is_file():
        return _fail(f"the benchmark ships with the source tree ({script} is not here)")
    sys.argv = [str(script), *args.bench_args]
    runpy.run_path(str(script), run_name="__main__")
    return 0


def register(subparsers) -> None:
    from songwriter.cli import add_kind_option

    p = subparsers.add_parser("generate", help="fill a template with the neural engine")
    p.add_argument("--form", help="a named form (七绝, 鹧鸪天, sonnet, ...)")
    p.add_argument("--notation", help="a template in the compact notation (lines separated by newlines)")
    p.add_argument("--template", help="a template file (.json or notation text)")
    p.add_argument("--relyric", metavar="FILE",
                   help="lyrics (plain text), an .lrc file, or a melody (MusicXML .musicxml .xml .mxl, "
                        "MIDI .mid .kar, ABC .abc): new words for the same tune")
    from songwriter.cli import add_melody_options

    add_melody_options(p)
    p.add_argument("--tone-fit", type=float, metavar="STRENGTH",
                   help="how much the words fit a melody (Chinese tones, English stress on the "
                        "beats): 0 off, 1 default, more is stricter")
    p.add_argument("--text", help="current text (its lines give context when regenerating)")
    p.add_argument("--content", action="append", metavar="TEXT",
                   help="what the piece is about: keywords, a line, a passage (repeatable); needs a model "
                        "with the content-steering block (docs/cocon.md)")
    p.add_argument("--strength", action="append", type=float, metavar="F",
                   help="content strength (added to the content's attention logits; 0 as trained, more "
                        "steers harder, -100 is off): once for all contents, or once per --content")
    p.add_argument("--plan", metavar="TOPIC",
                   help="propose one keyword per line for a topic (a title or a few keywords: '明月 故乡') from "
                        "the corpus's statistics (plan.json in the model folder, docs/plan.md), print them and "
                        "steer each line by its own (--strength); --seed picks another plan")
    p.add_argument("--plan-only", action="store_true", help="with --plan: print the plan and stop (no model)")
    p.add_argument("--plan-stats", metavar="FILE", help="the planner's statistics (default: the model's plan.json)")
    p.add_argument("--line-content", metavar="K1|K2|...",
                   help="one content per template line, separated by | (empty: none), each steering its line: "
                        "your own plan, or --plan's edited")
    p.add_argument("--keep-theme", action=argparse.BooleanOptionalAction, default=None,
                   help="with --relyric: the song's own words steer the new ones (as content, at --strength), "
                        "so they keep its subject; default on for a Chinese song, off for a classical form and for English")
    p.add_argument("--rhyme-system", help="xinyun, shisanzhe, pingshui, cilin")
    add_kind_option(p)
    p.add_argument("-n", type=int, default=8, help="number of candidates")
    p.add_argument("--seed", type=int)
    p.add_argument("--temperature", type=float, default=1.0)
    p.add_argument("--top-k", type=int, default=32)
    p.add_argument("--top-p", type=float, default=0.95)
    p.add_argument("--line-choices", type=int, metavar="K",
                   help="write each line K times per candidate and keep the likeliest (default 4)")
    p.add_argument("--backend", default="auto", choices=BACKENDS)
    p.add_argument("--model", help="model folder (default models/zh, or models/en for an English template)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_generate)

    p = subparsers.add_parser("bench", help="decode latency of every backend (bench/latency.py; --help there)",
                              add_help=False, prefix_chars="+")   # every option goes to the script
    p.add_argument("bench_args", nargs=argparse.REMAINDER)
    p.set_defaults(func=cmd_bench)


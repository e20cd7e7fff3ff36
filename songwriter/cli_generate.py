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
    return template


def _with_tone_fit(template, tone_fit: float | None):
    """--tone-fit: how much a melody's Chinese tone fit weighs in ranking (kept with the melody)."""
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

    content, strength, strengths = _steering_from_args(args)
    return GenerationRequest(template=_with_tone_fit(_template_from_args(args), getattr(args, "tone_fit", None)),
                             text=args.text or "", content=content, strength=strength, strengths=strengths,
                             rhyme_system=args.rhyme_system, n=args.n, seed=args.seed,
                             temperature=args.temperature, top_k=args.top_k, top_p=args.top_p)


def _steering_from_args(args) -> tuple[list[str], float, list[float] | None]:
    """--content (repeatable) and --strength (one for all, or one per content, in order)."""
    from songwriter.template import TemplateError

    content = list(getattr(args, "content", None) or [])
    given = list(getattr(args, "strength", None) or [])
    if len(given) > 1 and len(given) != len(content):
        raise TemplateError(f"--strength: give one strength for all contents or one per --content "
                            f"({len(content)}), not {len(given)}")
    if len(given) > 1:
        return content, 0.0, given
    return content, (given[0] if given else 0.0), None


def cmd_generate(args) -> int:
    from songwriter.engine.errors import GenerationError, ModelLoadError
    from songwriter.engine.service import Engine, default_model_dir
    from songwriter.template import TemplateError

    try:
        req = request_from_args(args).check()     # before the model loads: bad options fail at once
    except (TemplateError, GenerationError) as e:
        return _fail(str(e))
    try:
        # the installed model of the template's language (models/en for an English form)
        model_dir = Path(args.model or default_model_dir(req.template.lang))
        backend = args.backend
        if req.content and backend == "auto":
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
                          "candidates": [{"text": c.text, "lines": c.lines, "score": c.score,
                                          "check": c.check.to_dict()} for c in cands]},
                         ensure_ascii=False, indent=1))
    else:
        for i, c in enumerate(cands, 1):
            ok = "ok" if c.check.ok else "DOES NOT FIT"
            print(f"# {i}  score {c.score:.3f}  {ok}")
            print(c.text)
            print()
        print(f"({engine.backend_name}, {ms:.0f} ms)", file=sys.stderr)
    if engine.backend_note:
        print(f"note: {engine.backend_note}", file=sys.stderr)
    if req.content and not engine.supports_content:
        print(f"note: --content is ignored: {engine.backend_name} with this model has no content steering "
              f"(it needs {'the block, see docs/cocon.md' if engine.backend_name.startswith('torch') else 'the block and its graphs from export-onnx, or --backend torch'})",
              file=sys.stderr)
    if len(cands) < req.n:
        print(f"note: only {len(cands)} different texts fit this template (asked for {req.n})", file=sys.stderr)
    return 0


def cmd_bench(args) -> int:
    import runpy

    script = Path(__file__).resolve().parents[1] / "bench" / "latency.py"
    if not script.is_file():
        return _fail(f"the benchmark ships with the source tree ({script} is not here)")
    sys.argv = [str(script), *args.bench_args]
    runpy.run_path(str(script), run_name="__main__")
    return 0


def register(subparsers) -> None:
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
                   help="a melody's Chinese tone fit in ranking: 0 off, 1 default, more is stricter")
    p.add_argument("--text", help="current text (its lines give context when regenerating)")
    p.add_argument("--content", action="append", metavar="TEXT",
                   help="what the piece is about: keywords, a line, a passage (repeatable); needs a model "
                        "with the content-steering block (docs/cocon.md)")
    p.add_argument("--strength", action="append", type=float, metavar="F",
                   help="content strength (added to the content's attention logits; 0 as trained, more "
                        "steers harder, -100 is off): once for all contents, or once per --content")
    p.add_argument("--rhyme-system", help="xinyun, shisanzhe, pingshui, cilin")
    p.add_argument("-n", type=int, default=8, help="number of candidates")
    p.add_argument("--seed", type=int)
    p.add_argument("--temperature", type=float, default=1.0)
    p.add_argument("--top-k", type=int, default=32)
    p.add_argument("--top-p", type=float, default=0.95)
    p.add_argument("--backend", default="auto", choices=BACKENDS)
    p.add_argument("--model", help="model folder (default models/zh, or models/en for an English template)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_generate)

    p = subparsers.add_parser("bench", help="decode latency of every backend (bench/latency.py; --help there)",
                              add_help=False, prefix_chars="+")   # every option goes to the script
    p.add_argument("bench_args", nargs=argparse.REMAINDER)
    p.set_defaults(func=cmd_bench)


"""The command line: the app's capabilities, headless.

Exit status: 0 success (for `check`: the text fits), 1 the text does not fit, 2 bad input.
Generation (cli_generate), training (cli_train) and export (cli_export) register their own commands.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys

from songwriter.template import (
    KINDS_BY_LANG, LANG_NAMES, Template, TemplateError, format_notation, from_dict, parse_notation, to_dict,
)

MAX_INPUT_BYTES = 5_000_000


class InputError(Exception):
    """Bad input from the command line: printed as one clear line, exit status 2."""


def read_text_file(path: str) -> str:
    """Read a text file ('-' is stdin) with clear errors for the usual mistakes (validate.read_text);
    stdin's bytes are decoded as a file's are (validate.decode_text)."""
    from songwriter.validate import decode_text, read_text

    if path == "-":
        stream = getattr(sys.stdin, "buffer", None)
        if stream is None:           # a stdin of text already (a test's, an embedding program's)
            return sys.stdin.read()
        data = stream.read(MAX_INPUT_BYTES + 1)
        if len(data) > MAX_INPUT_BYTES:
            raise InputError(f"stdin: more than {MAX_INPUT_BYTES:,} bytes is too large")
        return decode_text(data, "stdin", InputError)
    return read_text(path, InputError, MAX_INPUT_BYTES)


def add_template_options(parser: argparse.ArgumentParser, relyric: bool = False) -> None:
    """The template options shared by `check`, `generate` and friends."""
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--form", metavar="NAME", help="a named form or 词牌 (see `songwriter forms`)")
    group.add_argument("--notation", metavar="TEXT", help="a template in the compact notation")
    group.add_argument("--template", metavar="FILE", help="a template file: notation, or JSON from --json")
    if relyric:
        group.add_argument("--relyric", metavar="FILE",
                           help="lyrics, an .lrc file, or a melody (MusicXML, MIDI, ABC) to re-lyric")
        add_melody_options(parser)
    parser.add_argument("--rhyme-system", metavar="NAME",
                        help="xinyun 中华新韵, shisanzhe 十三辙, pingshui 平水韵, cilin 词林正韵; perfect, slant")
    add_kind_option(parser)


KIND_HELP = ("the kind of piece, the register the engine writes in: shi, ci, qu, lyric, poem (Chinese); "
             "poem, lyric, hymn (English); default: the form's")


def add_kind_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--kind", metavar="KIND", help=KIND_HELP)


def template_from_args(args: argparse.Namespace) -> Template:
    from songwriter.forms import named_form

    # "is not None", not truthiness: an empty --form '' is a mistake to name, not an absent option
    if args.form is not None:
        template = named_form(args.form)
    elif args.notation is not None:
        template = parse_notation(args.notation.replace("\\n", "\n"))
    elif getattr(args, "relyric", None) is not None:
        template = template_from_song_file(args.relyric, getattr(args, "lang", None),
                                           getattr(args, "part", None), getattr(args, "tune", None))
    else:
        template = load_template_file(args.template)
    return with_template_options(template, args)


def with_template_options(template: Template, args: argparse.Namespace) -> Template:
    """--rhyme-system and --kind in place of the form's."""
    if getattr(args, "rhyme_system", None):
        template.rhyme_system = resolve_rhyme_system(args.rhyme_system, template.lang)
    if getattr(args, "kind", None):
        template.kind = resolve_kind(args.kind, template.lang)
    return template


def resolve_kind(name: str, lang: str) -> str:
    kinds = KINDS_BY_LANG[lang]
    kind = name.strip().lower()
    if kind not in kinds:
        raise InputError(f"--kind {name!r}: a {LANG_NAMES[lang]} piece is one of {', '.join(kinds)}")
    return kind


def resolve_rhyme_system(name: str, lang: str) -> str:
    if lang == "zh":
        from songwriter.prosody.chinese import resolve_rhyme_system as resolve
    else:
        from songwriter.prosody.english import resolve_rhyme_system as resolve
    try:
        return resolve(name)
    except ValueError as e:
        raise InputError(str(e)) from None


def load_template_file(path: str) -> Template:
    from songwriter.validate import parse_json

    text = read_text_file(path)
    if text.lstrip().startswith("{"):
        data = parse_json(text, path, error=InputError)
        if isinstance(data, dict) and "template" in data:    # a project file: its template
            return from_dict(data["template"], f"{path}: template")
        return from_dict(data, f"{path}: template")
    return parse_notation(text)


def add_melody_options(parser: argparse.ArgumentParser) -> None:
    """Options for re-lyricking a melody file (and the language of any re-lyric)."""
    parser.add_argument("--lang", choices=("zh", "en"),
                        help="the language of the new words (default: the old words', else zh)")
    parser.add_argument("--part", metavar="NAME|N",
                        help="a melody file's part or track, by name or number (default: the first with notes)")
    parser.add_argument("--tune", metavar="N", type=int, help="an ABC file's tune, by its X: number (default: the first)")


def template_from_song_file(path: str, lang: str | None = None, part: str | None = None,
                            tune: int | None = None) -> Template:
    """A re-lyric template from lyrics, an LRC file, or a melody file (by its suffix: MusicXML,
    MIDI, ABC; see docs/melody.md)."""
    from songwriter.lyrics import looks_like_lrc, template_from_lrc, template_from_lyrics
    from songwriter.melody import is_melody_file, template_from_melody_file

    if is_melody_file(path) and path != "-":
        return template_from_melody_file(path, lang=lang, part=part, tune=tune)
    if part is not None or tune is not None:
        raise InputError("--part and --tune are for melody files (MusicXML, MIDI, ABC)")
    text = read_text_file(path)
    is_lrc = path.lower().endswith(".lrc") or looks_like_lrc(text)
    return template_from_lrc(text, lang) if is_lrc else template_from_lyrics(text, lang)


# ----------------------------------------------------------------------------------------------

def cmd_forms(args: argparse.Namespace) -> int:
    from songwriter.forms import list_forms

    rows = list_forms(args.query or "")
    if args.json:
        print(json.dumps([{"name": n, "lang": lang, "description": d} for n, lang, d in rows],
                         ensure_ascii=False, indent=1))
        return 0
    if not rows:
        print(f"no form matches {args.query!r}")
        return 1
    for name, lang, desc in rows[: args.limit] if args.limit else rows:
        print(f"{name}\t{lang}\t{desc}")
    return 0


def cmd_template(args: argparse.Namespace) -> int:
    from songwriter.forms import named_form
    from songwriter.lyrics import template_from_lrc, template_from_lyrics

    if args.name is not None:
        template = named_form(args.name)
    elif args.relyric is not None:
        from songwriter.cli_generate import melody_notes

        template = template_from_song_file(args.relyric, args.lang, args.part, args.tune)
        for note in melody_notes(template):
            print(f"note: {note}", file=sys.stderr)
    elif args.from_lyrics is not None:
        template = template_from_lyrics(read_text_file(args.from_lyrics))
    elif args.from_lrc is not None:
        template = template_from_lrc(read_text_file(args.from_lrc))
    elif args.notation is not None:
        template = parse_notation(args.notation.replace("\\n", "\n"))
    else:
        raise InputError("give a form NAME, --relyric FILE, --from-lyrics FILE, --from-lrc FILE or --notation TEXT")
    with_template_options(template, args)
    if args.json:
        print(json.dumps(to_dict(template), ensure_ascii=False, indent=1))
    else:
        print(format_notation(template), end="")
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    from songwriter.checks import check

    template = template_from_args(args)
    text = read_text_file(args.file)
    if not text.strip():
        raise InputError(f"{args.file}: the text is empty")
    report = check(text, template)
    if args.json:
        print(json.dumps(report.to_dict(), ensure_ascii=False, indent=1))
    else:
        print(report.summary())
    return 0 if report.ok else 1


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="songwriter", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("forms", help="list the named forms and 词牌, searchable")
    p.add_argument("query", nargs="?", help="part of a name, e.g. 鹧鸪 or sonnet")
    p.add_argument("--limit", type=int, default=0, help="show at most this many")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_forms)

    p = sub.add_parser("template", help="print a template: notation, or JSON with --json")
    p.add_argument("name", nargs="?", help="a named form or 词牌")
    p.add_argument("--from-lyrics", metavar="FILE", help="a template from plain lyrics (re-lyricking)")
    p.add_argument("--from-lrc", metavar="FILE", help="a template from an LRC file, keeping timestamps")
    p.add_argument("--relyric", metavar="FILE",
                   help="a template for new words to lyrics, an LRC file or a melody (MusicXML, MIDI, ABC)")
    add_melody_options(p)
    p.add_argument("--notation", metavar="TEXT", help="parse and normalise a notation")
    p.add_argument("--rhyme-system", metavar="NAME")
    add_kind_option(p)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_template)

    p = sub.add_parser("check", help="does a text fit a template? exit 0 yes, 1 no, 2 bad input")
    add_template_options(p)
    p.add_argument("file", help="the text to check ('-' for stdin)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_check)

    from songwriter import cli_export, cli_generate, cli_train

    for module in (cli_generate, cli_train, cli_export):
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        code = args.func(args) or 0
        sys.stdout.flush()      # a reader that went away shows here, not in Python's flush at exit
        return code
    except BrokenPipeError:
        return reader_gone()
    except (InputError, TemplateError) as e:
        print(f"songwriter {args.command}: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


def reader_gone() -> int:
    """The reader of stdout went away (`songwriter forms | head`): stop quietly, as Unix tools do.
    They die of SIGPIPE, which a shell reports as 128 + 13; so does this. Python would report the
    broken pipe once more when it flushes stdout at exit, so stdout is pointed at /dev/null first."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):       # no file descriptor behind stdout (a test's capture)
        pass
    return 128 + getattr(signal, "SIGPIPE", 13)


if __name__ == "__main__":
    sys.exit(main())

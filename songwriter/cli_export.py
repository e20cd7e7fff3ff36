"""`songwriter export`: a project to txt, md, pdf, png, lrc, json, and for a piece written to a
melody musicxml, kar and a lead sheet (svg, sheet.pdf); headless (registered by cli.py)."""

from __future__ import annotations

import argparse
import sys


# what to do with a poem or lyrics given to `export`: what the app and the other commands offer
NOT_A_PROJECT_HINT = (
    "To export it, open it in the app (File > Import Lyrics or Import LRC) and save it as a project; from "
    "the command line, `songwriter check --form NAME {file}` checks it against a form and "
    "`songwriter generate --relyric {file}` writes new words to its tune")


def register(subparsers) -> None:
    from songwriter.export import FORMATS

    p = subparsers.add_parser(
        "export", help="export a .song project: " + ", ".join(FORMATS),
        description="Export a Songwriter project (.song) as " + "; ".join(f"{k}: {v}" for k, v in FORMATS.items()) + ".")
    p.add_argument("project", help="the .song project file")
    p.add_argument("--format", "-f", choices=sorted(FORMATS), help="the format (default: from the -o suffix)")
    p.add_argument("-o", "--output", required=True, metavar="FILE", help="where to write ('-' for stdout, text formats only)")
    p.set_defaults(func=cmd_export)


def cmd_export(args: argparse.Namespace) -> int:
    from songwriter.cli import InputError
    from songwriter.document import DocumentError, load
    from songwriter.export import BINARY, ExportError, export, format_for, render
    from songwriter.project.schema import NotAProjectError

    try:
        doc = load(args.project)
    except NotAProjectError as e:
        raise InputError(f"{e}. {NOT_A_PROJECT_HINT.format(file=args.project)}") from None
    except DocumentError as e:
        raise InputError(str(e)) from None
    try:
        if args.output == "-":
            fmt = format_for("", args.format or "txt")
            if fmt in BINARY:
                raise InputError(f"{fmt} is binary: give a file with -o")
            sys.stdout.write(render(doc, fmt).decode("utf-8"))
            return 0
        path = export(doc, args.output, args.format)
    except ExportError as e:
        raise InputError(str(e)) from None
    print(f"wrote {path}", file=sys.stderr)
    return 0

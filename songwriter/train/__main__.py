"""`python -m songwriter.train build-corpus|build-corpus-en|train|eval|eval-cocon ...` (the same
commands as `songwriter ...`, and eval-cocon: train/evaluate_cocon.py)."""

import argparse
import sys

from songwriter.cli_train import register


def main(argv=None) -> int:
    from songwriter.train import evaluate_cocon

    ap = argparse.ArgumentParser(prog="python -m songwriter.train")
    sub = ap.add_subparsers(dest="command", required=True)
    register(sub)
    evaluate_cocon.register(sub)
    args = ap.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())

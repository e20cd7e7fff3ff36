"""`python -m songwriter.train build-corpus|build-corpus-en|train|eval ...` (the same commands as `songwriter ...`)."""

import sys

from songwriter.cli_train import main

if __name__ == "__main__":
    sys.exit(main())

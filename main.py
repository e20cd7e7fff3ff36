#!/usr/bin/env python3
"""Launch Songwriter's desktop app.

    python main.py [PROJECT.song]
    python main.py --screenshot FILE [--open PROJECT.song] [--lang zh|en] [--size 1400x900]

A screenshot run reads the user's settings and changes none of them.
"""

import sys

from songwriter.ui.app import main

if __name__ == "__main__":
    sys.exit(main(sys.argv))

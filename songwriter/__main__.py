import sys

from songwriter.cli import main

sys.exit(main())

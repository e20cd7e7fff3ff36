"""Kill -9 during saves: is the project file always whole, and is nothing left behind?

    python bench/kill_save.py                  # 200 kills of a ~5.7 MB project, figures printed
    python bench/kill_save.py --kills 50 --mb 2 --json out.json

A child process saves a large project (a 七律 with long notes, about ``--mb`` MB as JSON, at most
what the notes admit) over and over through ``document.save``; the parent kills it with SIGKILL at
a random moment, then checks that the project file loads (``document.load``) and is one of the
versions that was saved, whole. After all kills one more save is made, and the temporaries the
killed saves left beside the file must be gone. Prints the kill count, files intact, the
versions seen, temporaries left before and after the final save, and the time. Exit status 1 if
any file was damaged or a temporary survived the final save.
"""

from __future__ import annotations

import argparse
import json
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from songwriter import document as D  # noqa: E402
from songwriter.forms import named_form  # noqa: E402

CHILD = """
import os, sys
sys.path.insert(0, {root!r})
from songwriter import document as D
doc = D.load({path!r})
print("ready", flush=True)
version = 0
while True:
    version += 1
    doc.title = "%d:%d" % (os.getpid(), version)    # a version no other child writes
    D.save(doc, {path!r})
"""


def big_project(path: Path, mb: float) -> None:
    """A real project of about ``mb`` MB (at most what a project's notes admit, about 5.7 MB): a
    七律 with long notes."""
    doc = D.new_document(named_form("七律"), title="version 0")
    line = "明月松间照，清泉石上流。\n"                  # 13 characters, 37 bytes in UTF-8
    doc.notes = line * max(1, min(int(mb * 1e6 / 37), (D.MAX_TEXT_CHARS - 1) // len(line)))
    D.save(doc, path)
    D.load(path)   # the project is itself a valid project


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kills", type=int, default=200)
    ap.add_argument("--mb", type=float, default=9.0, help="project size (capped by the notes' limit)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    rng = random.Random(args.seed)
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "big.song"
        big_project(path, args.mb)
        size = path.stat().st_size
        intact, damaged, versions = 0, [], set()
        for _ in range(args.kills):
            child = subprocess.Popen([sys.executable, "-c", CHILD.format(root=str(ROOT), path=str(path))],
                                     stdout=subprocess.PIPE, text=True)
            child.stdout.readline()                    # loaded: from here on it only saves
            time.sleep(rng.uniform(0.0, 2.0))          # somewhere inside one of its saves
            child.send_signal(signal.SIGKILL)
            child.wait()
            try:
                doc = D.load(path)
                versions.add(doc.title)
                intact += 1
            except D.DocumentError as e:
                damaged.append(str(e))
        left_before = len(list(Path(tmp).glob(".*.tmp")))
        D.save(D.load(path), path)
        left_after = len(list(Path(tmp).glob(".*.tmp")))
    res = {"kills": args.kills, "project_bytes": size, "intact": intact, "damaged": damaged,
           "distinct_versions_seen": len(versions), "temporaries_before_final_save": left_before,
           "temporaries_after_final_save": left_after, "seconds": round(time.perf_counter() - t0, 1)}
    print(f"{args.kills} kills during saves of a {size / 1e6:.1f} MB project: {intact} files intact, "
          f"{len(damaged)} damaged; {len(versions)} distinct saved versions found after a kill; temporaries left "
          f"{left_before} before the next save, {left_after} after it; {res['seconds']} s")
    for e in damaged[:5]:
        print("  damaged:", e)
    if args.json:
        Path(args.json).write_text(json.dumps(res, indent=1))
    return 1 if damaged or left_after else 0


if __name__ == "__main__":
    sys.exit(main())

"""Saving: atomic, the user's umask, no temporaries left behind by interrupted saves."""

import os
import subprocess
import sys

from songwriter import document as D


def test_new_file_gets_the_umask_and_an_existing_file_keeps_its_mode(tmp_path):
    old = os.umask(0o027)
    try:
        D.write_atomic(tmp_path / "a.song", "x")
        assert (tmp_path / "a.song").stat().st_mode & 0o777 == 0o640
    finally:
        os.umask(old)
    b = tmp_path / "b.song"
    b.write_text("old")
    b.chmod(0o604)
    D.write_atomic(b, "new")
    assert b.stat().st_mode & 0o777 == 0o604 and b.read_text() == "new"


def test_temporaries_of_dead_savers_are_removed_and_live_ones_kept(tmp_path):
    target = tmp_path / "poem.song"
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True).stdout.strip()
    stale = tmp_path / f".poem.song.{dead}.abc123.tmp"
    stale.write_bytes(b"half a save")
    live = tmp_path / f".poem.song.{os.getppid()}.def456.tmp"
    live.write_bytes(b"someone saving now")
    other = tmp_path / f".other.song.{dead}.x.tmp"
    other.write_bytes(b"another file's")
    D.write_atomic(target, "done")
    assert target.read_text() == "done"
    assert not stale.exists() and live.exists() and other.exists()
    assert [p.name for p in tmp_path.glob(".poem.song.*.tmp")] == [live.name]


def test_a_save_killed_halfway_leaves_the_old_file_and_the_next_save_cleans_up(tmp_path):
    target = tmp_path / "poem.song"
    target.write_text("old")
    code = ("import os, sys\nfrom songwriter import document as D\n"
            "os.replace = lambda *a: os._exit(9)\n"        # die between writing and renaming
            f"D.write_atomic({str(target)!r}, 'new' * 1000)\n")
    assert subprocess.run([sys.executable, "-c", code]).returncode == 9
    assert target.read_text() == "old" and len(list(tmp_path.glob(".poem.song.*.tmp"))) == 1
    D.write_atomic(target, "newer")
    assert target.read_text() == "newer" and not list(tmp_path.glob(".*.tmp"))

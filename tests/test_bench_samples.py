"""bench/samples.py: its gate catches each rule, and it runs end to end on the tiny model."""

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from songwriter.template import parse_notation

ROOT = Path(__file__).resolve().parents[1]
NOTATION = "春_____，\n___风___。@A\n_____月，\n______天。@A"
GOOD = ["春水绕城东去，\n山前晚风吹柳岸。\n楼头一弯新月，\n照人归去满江天。",
        "春草青青满路，\n江边晚风送客船。\n谁家楼上明月，\n照见归人一片天。"]


def load_samples():
    spec = importlib.util.spec_from_file_location("bench_samples", ROOT / "bench" / "samples.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod            # dataclasses look their module up while it executes
    spec.loader.exec_module(mod)
    return mod


def rules(failures):
    return {f.split(":")[0] for f in failures}


def test_gate_rules():
    s = load_samples()
    t = parse_notation(NOTATION)
    failures, reports = s.gate(t, GOOD, 2, "xinyun")
    assert failures == [] and all(r.ok for r in reports)
    assert rules(s.gate(t, [GOOD[0], GOOD[0]], 2, "xinyun")[0]) == {"distinct"}
    assert rules(s.gate(t, GOOD[:1], 2, "xinyun")[0]) == {"distinct"}          # fewer than n
    moved = GOOD[0].replace("晚风吹", "风晚吹")                                    # 风 leaves its slot
    assert rules(s.gate(t, [moved, GOOD[1]], 2, "xinyun")[0]) == {"check", "locks"}
    assert s.lock_failures(moved, t) == ["line 2 slot 4 is 晚, 风 is locked"]
    unrhymed = GOOD[0].replace("柳岸", "柳树")                                     # rhyme A broken
    assert rules(s.gate(t, [unrhymed, GOOD[1]], 2, "xinyun")[0]) == {"check"}
    assert s.gate(t, [unrhymed], 1, "xinyun")[0][0].startswith("check: candidate 1 does not fit (line ")


def test_cases_match_their_rhyme_systems():
    from songwriter.cli_generate import request_from_args

    s = load_samples()
    parser = s.generate_parser()
    for case in s.cases(str(ROOT / "bench" / "relyric-song.txt")):
        args = parser.parse_args(["generate", *case.flags])
        t = request_from_args(args).template
        assert (args.rhyme_system or t.effective_rhyme_system()) == case.system, case.title
    song = request_from_args(parser.parse_args(["generate", "--relyric", str(ROOT / "bench" / "relyric-song.txt")])).template
    assert 12 <= len(song.lines) <= 16 and len({ln.stanza for ln in song.lines}) == 3
    assert len(song.rhyme_groups()) >= 2


def test_samples_on_tiny_model(tmp_path):
    pytest.importorskip("torch")
    from helpers.tiny_model import make_tiny_model

    d = make_tiny_model(tmp_path)
    r = subprocess.run([sys.executable, str(ROOT / "bench" / "samples.py"), "--model", str(d), "--backend", "torch",
                        "-n", "2", "--top", "1", "--markdown"],
                       capture_output=True, text=True, timeout=600, cwd=str(ROOT))
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("## Samples") and r.stdout.count("\n### ") == 5
    assert r.stdout.count("- score ") == 5 and "check ok" in r.stdout
    assert "gate: all 5 cases pass" in r.stderr

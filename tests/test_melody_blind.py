"""bench/blind_reading.py --set melody: new words to Essen tunes beside held-out modern poems of
the tunes' shapes, shuffled, the reading file without labels and the key apart."""

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

import blind_reading  # noqa: E402


def write_corpus(folder: Path) -> None:
    """Held-out modern poems of known shapes, one poem of the training split, a classical poem."""
    pieces = [{"id": f"modern:poem:{i}", "kind": "modern", "mix": "poem",
               "lines": ["春" * (6 + i) + "，"] * 3 + ["风" * (6 + i) + "。"] * 3} for i in range(10)]
    pieces.append({"id": "modern:poem:train", "kind": "modern", "mix": "poem", "lines": ["花" * 8 + "，"] * 6})
    pieces.append({"id": "shi:1", "kind": "shi", "lines": ["白日依山尽，"] * 6})
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "pieces.jsonl").write_text("\n".join(json.dumps(p, ensure_ascii=False) for p in pieces) + "\n",
                                         encoding="utf-8")
    test = [p["id"] for p in pieces if p["id"] != "modern:poem:train"]
    (folder / "split.json").write_text(json.dumps({"train": ["modern:poem:train"], "test": test}))


def test_real_pieces_are_the_nearest_held_out_poems_each_once(tmp_path):
    write_corpus(tmp_path / "corpus")
    got = blind_reading.melody_real(tmp_path / "corpus", [[8, 8, 8, 8], [8, 8, 8, 8], [12, 12, 12, 12, 12]])
    # 8 characters a line: poem 2 exactly, then poem 1 or 3 (one off a line; the lower id first);
    # never the training split's poem of exactly that shape, never a classical poem
    assert [p["id"] for p in got] == ["modern:poem:2", "modern:poem:1", "modern:poem:6"]
    assert [len(p["lines"]) for p in got] == [4, 4, 5]            # its first lines, as many as phrases
    assert blind_reading.shape_distance(["春春，", "风风风。"], [2, 4, 5]) == 0 + 1 + 5


def test_make_writes_unlabelled_pieces_and_a_key_apart(tmp_path, monkeypatch):
    pytest.importorskip("music21")
    write_corpus(tmp_path / "corpus")
    seen = {}

    def fake_generated(model, tunes, seed):
        seen["shapes"] = [[ln.syllables for ln in t.lines] for _, t in tunes]
        return [{"lines": ["天" * ln.syllables + "，" for ln in t.lines], "seed": seed + 101 * i, "score": -3.0,
                 "tune": f"han1.abc X:{n}"} for i, (n, t) in enumerate(tunes)]

    monkeypatch.setattr(blind_reading, "generated_melody", fake_generated)
    monkeypatch.setattr(blind_reading, "MELODY_PIECES", 3)
    out = tmp_path / "blind"
    assert blind_reading.main(["make", "--set", "melody", "--corpus", str(tmp_path / "corpus"),
                               "--out", str(out), "--model", "m"]) == 0
    key = json.loads((out / "key.json").read_text(encoding="utf-8"))
    assert sorted(item["source"] for item in key) == ["human"] * 3 + ["machine"] * 3
    assert all(4 <= len(shape) <= 8 for shape in seen["shapes"])         # tunes of four to eight phrases
    human = [item for item in key if item["source"] == "human"]
    assert sorted(len(h["lines"]) for h in human) == sorted(len(s) for s in seen["shapes"])
    text = (out / "pieces.md").read_text(encoding="utf-8")
    for word in ("machine", "human", "han1", "modern:poem", "tune", "seed"):
        assert word not in text
    assert [item["n"] for item in key] == [1, 2, 3, 4, 5, 6]
    assert [item["source"] for item in key[:3]] != ["machine"] * 3          # shuffled, not ours first

"""The device kit (train/device_kit.py): the corpus packed and restored, files split into pieces
and joined with every sha256 checked, and a tiny run resumed from a checkpoint that made the trip."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from helpers.tiny_model import write_tiny_corpus

from songwriter.train import device_kit as K

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def corpus(tmp_path):
    return write_tiny_corpus(tmp_path / "corpus")


def test_pack_unpack_round_trip(corpus, tmp_path):
    vocab = tmp_path / "vocab.json"
    vocab.write_text('{"tokens": ["a"]}')
    kit = tmp_path / "kit"
    bundle = K.pack(corpus, kit, vocab, log=lambda m: None)
    assert (kit / "pieces.jsonl.xz").exists() and not (kit / "pieces.jsonl").exists()
    assert bundle["corpus_sha256"] == K.sha256_file(corpus / "pieces.jsonl")
    back, run = tmp_path / "back", tmp_path / "run"
    K.unpack(kit, back, run, log=lambda m: None)
    for name in ("pieces.jsonl", "split.json", "stats.json"):
        assert (back / name).read_bytes() == (corpus / name).read_bytes()
    assert (run / "vocab.json").read_bytes() == vocab.read_bytes()
    K.unpack(kit, back, run, log=lambda m: None)       # a second time: kept as they are


def test_unpack_refuses_a_damaged_kit(corpus, tmp_path):
    kit = tmp_path / "kit"
    K.pack(corpus, kit, log=lambda m: None)
    data = bytearray((kit / "pieces.jsonl.xz").read_bytes())
    data[len(data) // 2] ^= 0xFF
    (kit / "pieces.jsonl.xz").write_bytes(bytes(data))
    with pytest.raises(K.KitError, match="pieces.jsonl"):
        K.unpack(kit, tmp_path / "back", log=lambda m: None)
    assert not (tmp_path / "back" / "pieces.jsonl").exists()
    with pytest.raises(K.KitError, match="bundle.json"):
        K.unpack(tmp_path / "nothing", tmp_path / "back", log=lambda m: None)


def test_pack_takes_a_model_folder_to_warm_start_from(corpus, tmp_path):
    from songwriter.engine import model_folder as MF

    init = tmp_path / "model"
    init.mkdir()
    for name in MF.TORCH_FILES:
        (init / name).write_text(name)
    (init / MF.WEIGHTS).write_bytes(bytes(range(256)) * 41 + b"odd")   # an odd length, as planes
    (init / MF.STEP).write_text("not needed to warm-start")
    kit = tmp_path / "kit"
    bundle = K.pack(corpus, kit, init=init, log=lambda m: None)
    assert {k for k in bundle["files"] if k.startswith("init/")} == {f"init/{n}" for n in MF.TORCH_FILES}
    assert not any((kit / "init" / n).exists() for n in MF.TORCH_FILES)     # they travel compressed
    K.unpack(kit, tmp_path / "back", log=lambda m: None)
    assert sorted(p.name for p in (kit / "init").iterdir() if not p.name.endswith(".xz")) == sorted(MF.TORCH_FILES)
    for name in MF.TORCH_FILES:
        assert (kit / "init" / name).read_bytes() == (init / name).read_bytes()
    planes = kit / "init" / (MF.WEIGHTS + ".planes.xz")
    planes.write_bytes(planes.read_bytes()[:-20])
    (kit / "init" / MF.WEIGHTS).unlink()
    with pytest.raises(K.KitError, match="damaged"):
        K.unpack(kit, tmp_path / "back", log=lambda m: None)
    (init / MF.WEIGHTS).unlink()
    with pytest.raises(K.KitError, match=MF.WEIGHTS.replace(".", r"\.") + " is missing"):
        K.pack(corpus, tmp_path / "kit2", init=init, log=lambda m: None)


def _pieces(tmp_path, size=250_000):
    src = tmp_path / "model"
    src.mkdir()
    (src / "model.safetensors").write_bytes(os.urandom(size))
    (src / "config.json").write_text('{"n_layer": 1}')
    out = tmp_path / "out"
    manifest = K.split([src, tmp_path / "model" / "config.json"], out, "model", piece_mib=0.1, log=lambda m: None)
    return src, out, manifest


def test_split_join_checks_every_piece(tmp_path):
    src, out, manifest = _pieces(tmp_path)
    assert len(manifest["parts"]) == 3
    assert all(p["size"] <= 0.1 * K.MIB for p in manifest["parts"])
    K.join(out, tmp_path / "back", "model", log=lambda m: None)
    assert (tmp_path / "back" / "model" / "model.safetensors").read_bytes() == (src / "model.safetensors").read_bytes()
    assert (tmp_path / "back" / "config.json").read_text() == '{"n_layer": 1}'


def test_join_refuses_a_missing_piece(tmp_path):
    _, out, _ = _pieces(tmp_path)
    (out / "model.tar.001").unlink()
    with pytest.raises(K.KitError, match=r"1 of 3 pieces missing.*model\.tar\.001"):
        K.join(out, tmp_path / "back", "model", log=lambda m: None)
    assert not (tmp_path / "back").exists()


def test_join_refuses_a_corrupt_piece(tmp_path):
    _, out, _ = _pieces(tmp_path)
    data = bytearray((out / "model.tar.002").read_bytes())
    data[10] ^= 1
    (out / "model.tar.002").write_bytes(bytes(data))
    with pytest.raises(K.KitError, match=r"piece model\.tar\.002 is damaged"):
        K.join(out, tmp_path / "back", "model", log=lambda m: None)
    with pytest.raises(K.KitError, match="no pieces named 'other'"):
        K.join(out, tmp_path / "back", "other", log=lambda m: None)


def test_split_refuses_more_than_a_call_brings_back(tmp_path):
    src = tmp_path / "big"
    src.write_bytes(b"\0" * (9 * 1024))
    with pytest.raises(K.KitError, match="more than one device call brings back"):
        K.split([src], tmp_path / "out", "big", piece_mib=1 / 1024, log=lambda m: None)   # 10 files


def _train(corpus, out, steps):
    cmd = [sys.executable, "-m", "songwriter.train", "train", "--corpus", str(corpus), "--out", str(out),
           "--layers", "1", "--d-model", "32", "--heads", "2", "--steps", str(steps), "--eval-every", "100",
           "--dev-pieces", "2", "--precision", "fp32", "--batch-tokens", "256", "--warmup", "2", "--log-every", "1"]
    env = dict(os.environ, OMP_NUM_THREADS="1")
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300, env=env)


def test_a_run_resumes_from_joined_pieces(corpus, tmp_path):
    torch = pytest.importorskip("torch")
    run = tmp_path / "run"
    r = _train(corpus, run, 2)
    assert r.returncode == 0, r.stderr
    out = tmp_path / "out"
    K.split([run / "ckpt.pt", run / "vocab.json", run / "log.jsonl"], out, "ckpt", piece_mib=0.2,
            log=lambda m: None)
    assert len(json.loads((out / "ckpt.parts.json").read_text())["parts"]) > 1
    back = tmp_path / "back"
    K.join(out, back, "ckpt", log=lambda m: None)
    assert K.sha256_file(back / "ckpt.pt") == K.sha256_file(run / "ckpt.pt")
    a = torch.load(run / "ckpt.pt", weights_only=True)
    b = torch.load(back / "ckpt.pt", weights_only=True)
    assert a["step"] == b["step"] == 2 and a["sampler"] == b["sampler"]
    assert all(torch.equal(a["model"][k], b["model"][k]) for k in a["model"])
    r = _train(corpus, back, 4)
    assert r.returncode == 0, r.stderr
    assert "resuming from step 2" in r.stdout
    assert torch.load(back / "ckpt.pt", weights_only=True)["step"] == 4


def test_cli_errors_are_one_line(tmp_path):
    r = subprocess.run([sys.executable, "-m", "songwriter.train.device_kit", "join", str(tmp_path), "--dest",
                        str(tmp_path / "x")], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and r.stderr.startswith("error: ") and "model.parts.json is missing" in r.stderr

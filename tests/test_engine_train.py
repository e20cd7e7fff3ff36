"""Training plumbing on a tiny built-in corpus: masks, resume, export, torchrun with 2 processes."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from helpers.tiny_model import POEMS, write_tiny_corpus  # noqa: E402

from songwriter.engine import encoding as E  # noqa: E402
from songwriter.engine.vocab import Vocab  # noqa: E402
from songwriter.train.corpus import clean_lines, tune_groups  # noqa: E402
from songwriter.train.dataset import MaskConfig, PieceStore, make_example  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def corpus(tmp_path):
    return write_tiny_corpus(tmp_path / "corpus")


def test_clean_lines():
    assert clean_lines(["春眠不觉晓,处处闻啼鸟(一作鸣)。"]) == ["春眠不觉晓，", "处处闻啼鸟。"]
    assert clean_lines(["春眠□觉晓，"]) is None
    assert clean_lines(["「夜来」风雨声"]) == ["夜来风雨声。"]


def test_modern_pieces_are_shown_to_the_model_in_their_register():
    from songwriter.train.corpus import channel_kind

    assert channel_kind("shi", "shi", "shi:tang:3") == "shi"
    assert channel_kind("modern", "poem", "modern:poem:12") == "poem"
    for source in ("tatoeba", "commonvoice", "kdconv"):
        assert channel_kind("modern", "modern", f"modern:{source}:7") == "speech"
    assert channel_kind("modern", "modern", "modern:pd:7") == "modern"
    assert channel_kind("modern", "bible", "modern:cuv1919:7") == "modern"
    pieces = [{"id": "modern:tatoeba:0", "kind": "modern", "lines": ["我喜欢看电影。", "你呢？"]},
              {"id": "modern:poem:0", "kind": "modern", "mix": "poem", "lines": ["我是一条天狗呀，", "我把月来吞了。"]}]
    vocab = Vocab.build(["我喜欢看电影你呢是一条天狗呀把月来吞了"], min_count=1)
    store = PieceStore(pieces, vocab, 64, workers=1)
    assert [set(store.piece(i)["kind"]) for i in range(2)] == [{E.KIND_IDS["speech"]}, {E.KIND_IDS["poem"]}]


def test_alias_tunes_group_together():
    g = tune_groups(["南歌子", "南柯子・南歌子", "浣溪沙", "念奴娇", "百字令・念奴娇"])
    assert g["南歌子"] == g["南柯子・南歌子"]
    assert g["念奴娇"] == g["百字令・念奴娇"]
    assert g["浣溪沙"] != g["南歌子"]


def test_examples_mask_and_channels():
    import numpy as np

    v = Vocab.build(POEMS, min_count=1)
    store = PieceStore([{"id": "a", "kind": "shi", "lines": clean_lines([POEMS[4]])}], v)
    p = store.piece(0)
    rng = np.random.default_rng(0)
    # 七绝 rhyming 天/眠/船: lines 1, 2 and 4 carry one label
    assert [int(x) for x in p["label"][p["fmt"] == E.F_RHYME]] == [1, 1, 0, 1]
    ex = make_example(p, v, rng, MaskConfig(p_no_given_piece=0.0, p_no_given_line=0.0, p_whole_line=1.0))
    chars = (ex["fmt"] == E.F_CHAR) | (ex["fmt"] == E.F_RHYME)
    assert (ex["given"][chars] == ex["targets"][chars]).all()
    ex = make_example(p, v, rng, train=False)
    assert (ex["given"][chars] == v.fill).all()
    assert (ex["given"][~chars] == ex["targets"][~chars]).all()
    assert ex["inputs"][0] == v.bos and (ex["inputs"][1:] == ex["targets"][:-1]).all()
    # the kind of piece: always at evaluation, left unknown in about a tenth of training examples
    assert set(ex["kind"]) == {E.KIND_IDS["shi"]} and len(ex["kind"]) == len(ex["targets"])
    kinds = [int(make_example(p, v, rng)["kind"][0]) for _ in range(400)]
    assert set(kinds) == {0, E.KIND_IDS["shi"]} and 15 < kinds.count(0) < 70


def _train(corpus, out, *extra, steps=3):
    cmd = [sys.executable, "-m", "songwriter.train", "train", "--corpus", str(corpus), "--out", str(out),
           "--layers", "1", "--d-model", "32", "--heads", "2", "--steps", str(steps), "--eval-every", "2",
           "--dev-pieces", "2", "--precision", "fp32", "--batch-tokens", "256", "--warmup", "2", "--log-every", "1", *extra]
    env = dict(os.environ, OMP_NUM_THREADS="1")
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300, env=env)


def trained_model(corpus, tmp_path, steps=2) -> Path:
    """A tiny run of ``steps`` steps exported to ``tmp_path / "m1"`` (a model folder to start from)."""
    first = tmp_path / "first"
    assert _train(corpus, first, steps=steps).returncode == 0
    subprocess.run([sys.executable, "-m", "songwriter.train", "train", "--out", str(first), "--export",
                    str(tmp_path / "m1")], cwd=ROOT, check=True, capture_output=True, timeout=120)
    return tmp_path / "m1"


def test_train_resume_export(corpus, tmp_path):
    out = tmp_path / "run"
    r = _train(corpus, out, steps=2)
    assert r.returncode == 0, r.stderr
    assert (out / "ckpt.pt").exists()
    r = _train(corpus, out, steps=4)
    assert r.returncode == 0, r.stderr
    assert "resuming from step 2" in r.stdout
    assert torch.load(out / "ckpt.pt", weights_only=True)["step"] == 4
    log = [json.loads(x) for x in (out / "log.jsonl").read_text().splitlines()]
    assert any("dev" in rec for rec in log) and any("loss" in rec for rec in log)
    r = subprocess.run([sys.executable, "-m", "songwriter.train", "train", "--out", str(out), "--export",
                        str(tmp_path / "model")], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    from songwriter.engine.service import Engine, GenerationRequest
    from songwriter.forms import named_form

    eng = Engine.load(tmp_path / "model")
    assert eng.manifest["train_steps"] == 4
    c = eng.generate(GenerationRequest(template=named_form("五绝"), n=2, seed=0))
    assert all(x.check.ok for x in c)


def test_warm_start_from_a_model_folder_with_a_mix(corpus, tmp_path):
    """--init-from starts a new run from a shipped folder's weights and vocabulary; --mix sets the
    sampling shares; the exported model counts the steps of both; dev-figures reads either."""
    from safetensors.torch import load_file

    trained_model(corpus, tmp_path)
    second = tmp_path / "second"
    r = _train(corpus, second, "--init-from", str(tmp_path / "m1"), "--mix", "shi=1,ci=0", steps=3)
    assert r.returncode == 0, r.stderr
    assert "starting from" in r.stdout
    assert Vocab.load(second / "vocab.json").sha256 == Vocab.load(tmp_path / "m1" / "vocab.json").sha256
    ck = torch.load(second / "ckpt.pt", weights_only=True)
    assert ck["train_config"]["weights"] == {"shi": 1.0, "ci": 0.0}
    # the warm start really loaded the weights: one step of training moves them only a little
    w0 = load_file(str(tmp_path / "m1" / "model.safetensors"))
    name = next(k for k in w0 if k.endswith("weight") and w0[k].dim() == 2)
    assert torch.allclose(ck["model"][name], w0[name].float(), atol=0.05)
    subprocess.run([sys.executable, "-m", "songwriter.train", "train", "--out", str(second), "--export",
                    str(tmp_path / "m2")], cwd=ROOT, check=True, capture_output=True, timeout=120)
    manifest = json.loads((tmp_path / "m2" / "manifest.json").read_text())
    assert manifest["train_steps"] == 5 and manifest["init_from"]["steps"] == 2
    r = subprocess.run([sys.executable, "-m", "songwriter.train", "dev-figures", str(tmp_path / "m2"),
                        str(second / "ckpt.pt"), "--corpus", str(corpus)], cwd=ROOT, capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.count("ci NLL") == 2


def test_warm_start_records_the_architecture_it_trained(corpus, tmp_path):
    """A warm-started run trains its starting model's architecture whatever the size options say;
    the checkpoint's and the exported manifest's train config state that architecture (also for a
    checkpoint written before the trainer recorded it, which says the command line's sizes)."""
    from songwriter.train.trainer import export

    first = tmp_path / "first"
    r = _train(corpus, first, "--layers", "2", "--d-model", "48", "--heads", "3", "--eval-every", "0", steps=1)
    assert r.returncode == 0, r.stderr
    export(first / "ckpt.pt", tmp_path / "m1")
    second = tmp_path / "second"   # _train asks for 1 layer, d_model 32, 2 heads
    r = _train(corpus, second, "--init-from", str(tmp_path / "m1"), "--eval-every", "0", steps=1)
    assert r.returncode == 0, r.stderr
    arch = {"n_layer": 2, "n_head": 3, "d_model": 48}
    ck = torch.load(second / "ckpt.pt", weights_only=True)
    assert {k: ck["model_config"][k] for k in arch} == arch
    assert {k: ck["train_config"][k] for k in arch} == arch
    assert ck["train_config"]["max_len"] == ck["model_config"]["max_len"]
    export(second / "ckpt.pt", tmp_path / "m2")
    manifest = json.loads((tmp_path / "m2" / "manifest.json").read_text())
    assert {k: manifest["train_config"][k] for k in arch} == arch
    # a checkpoint of the older trainer: train_config with the default sizes
    ck["train_config"].update(n_layer=6, n_head=5, d_model=320)
    torch.save(ck, second / "ckpt.pt")
    export(second / "ckpt.pt", tmp_path / "m3")
    manifest = json.loads((tmp_path / "m3" / "manifest.json").read_text())
    assert {k: manifest["train_config"][k] for k in arch} == arch


def test_checkpoint_counts_the_steps_after_the_last_log_line(corpus, tmp_path):
    """Tokens and seconds of the steps since the last log line are in the checkpoint: a run logging
    every step and one that never logs (stopped, then resumed) count the same tokens."""
    every = tmp_path / "every"
    r = _train(corpus, every, "--eval-every", "0", steps=5)
    assert r.returncode == 0, r.stderr
    log = [json.loads(x) for x in (every / "log.jsonl").read_text().splitlines()]
    per_step = [b["tokens"] - a["tokens"] for a, b in zip([{"tokens": 0}, *log], log)]
    assert len(per_step) == 5 and all(n > 0 for n in per_step)
    assert torch.load(every / "ckpt.pt", weights_only=True)["extra"]["tokens"] == sum(per_step)
    never = tmp_path / "never"
    r = _train(corpus, never, "--log-every", "100", "--eval-every", "2", steps=3)
    assert r.returncode == 0, r.stderr
    ck = torch.load(never / "ckpt.pt", weights_only=True)
    assert ck["extra"]["tokens"] == sum(per_step[:3]) and ck["extra"]["seconds"] > 0
    r = _train(corpus, never, "--log-every", "100", "--eval-every", "0", steps=5)
    assert r.returncode == 0, r.stderr
    assert "resuming from step 3" in r.stdout
    ck = torch.load(never / "ckpt.pt", weights_only=True)
    assert ck["step"] == 5 and ck["extra"]["tokens"] == sum(per_step)
    assert not (never / "log.jsonl").exists() or all("loss" not in json.loads(x)
                                                      for x in (never / "log.jsonl").read_text().splitlines())


def test_eval_with_and_without_perplexity(corpus, tmp_path):
    run = tmp_path / "run"
    assert _train(corpus, run, steps=2).returncode == 0
    subprocess.run([sys.executable, "-m", "songwriter.train", "train", "--out", str(run), "--export",
                    str(tmp_path / "m")], cwd=ROOT, check=True, capture_output=True, timeout=120)
    for extra in ([], ["--no-perplexity"]):
        out = tmp_path / f"eval{len(extra)}.json"
        r = subprocess.run([sys.executable, "-m", "songwriter.train", "eval", "--model", str(tmp_path / "m"),
                            "--corpus", str(corpus), "--split", "dev", "--gen-pieces", "1", "--backend", "torch",
                            "--rhyme-system", "xinyun", "--out", str(out), *extra],
                           cwd=ROOT, capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stderr
        res = json.loads(out.read_text())
        assert (res["perplexity"] is None) == bool(extra)
        assert res["rhyme_system"] == "xinyun"
        assert res["generation"]["format"]["micro_f1"] == 100.0 and res["generation"]["check_pass"] == 100.0
        # the held-out modern sentence, written as a lyric, with the register of what came out
        modern = res["modern"]
        assert modern["pieces"] == 1 and modern["check_pass"] == 100.0
        assert set(modern["closest_kind"]) == {"generated_lyric", "gold_modern", "generated_ci", "gold_ci"}
        assert sum(modern["closest_kind"]["generated_lyric"].values()) == 100.0


@pytest.mark.parametrize("mix, needle", [("ci=0.5,song=0.5", "KIND=SHARE"), ("ci=x", "not a number"),
                                         ("ci=0,shi=0", "every share is zero"), ("ci=-1,shi=1", "negative")])
def test_bad_mix_is_refused(mix, needle):
    from songwriter.train.args import parse_mix

    with pytest.raises(ValueError, match=needle):
        parse_mix(mix)


def test_torchrun_two_processes(corpus, tmp_path):
    out = tmp_path / "ddp"
    cmd = [sys.executable, "-m", "torch.distributed.run", "--nproc_per_node", "2", "--master_port", "29531",
           "-m", "songwriter.train", "train", "--corpus", str(corpus), "--out", str(out), "--layers", "1",
           "--d-model", "32", "--heads", "2", "--steps", "3", "--eval-every", "0", "--dev-pieces", "2",
           "--precision", "fp32", "--batch-tokens", "256", "--warmup", "1"]
    env = dict(os.environ, OMP_NUM_THREADS="1")
    r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300, env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    assert torch.load(out / "ckpt.pt", weights_only=True)["step"] == 3


def test_cli_errors(tmp_path):
    r = subprocess.run([sys.executable, "-m", "songwriter.train", "train", "--corpus", str(tmp_path)],
                       cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "build-corpus" in r.stderr
    r = subprocess.run([sys.executable, "-m", "songwriter.train", "build-corpus", "--source", str(tmp_path),
                        "--out", str(tmp_path / "o")], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "chinese-poetry" in r.stderr


def test_bf16_is_refused_on_a_cpu_without_bf16(monkeypatch):
    from songwriter.train import trainer

    monkeypatch.setattr(trainer.torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(trainer, "bf16_supported_cpu", lambda: False)
    assert "no bf16 instructions" in trainer.unsupported_precision("bf16")
    assert trainer.unsupported_precision("fp32") is None and trainer.unsupported_precision("auto") is None
    monkeypatch.setattr(trainer, "bf16_supported_cpu", lambda: True)
    assert trainer.unsupported_precision("bf16") is None


def test_eval_templates_label_the_rhymes_the_measure_hears():
    """The gold template's A lines are exactly the Rhyme measure's positions of the gold, even
    when a second rhyme has as many lines (the measure breaks that tie by group index)."""
    import re

    from songwriter.metrics import _rhyme_positions
    from songwriter.train.evaluate import gold_template

    tie = ("荒山明月，下有云来去。深夜纤毫静可数。问古今底事，留此空光，修月户、犹是当年玉斧。思君持羽扇，"
           "来伴微吟，水佩风环饮松露。待勾漏丹成，约与轻飞，人间世、不知归处。更长啸、馀声振林溪，见乱红惊飞，半岩花雨。")
    plain = "白日依山尽，黄河入海流。欲穷千里目，更上一层楼。"
    for piece in (tie, plain):
        lines = re.findall(r"[^，。、；：？！]+[，。、；：？！]+", piece)
        t = gold_template({"lines": lines})
        assert {i for i, tl in enumerate(t.lines) if tl.rhyme == "A"} == _rhyme_positions(piece)


def test_warm_start_adds_the_kind_channel_to_an_older_model(tmp_path, corpus):
    """A model from before the kind channel starts a run with the channel added at zero: the new
    model computes what the old one did until training moves it."""
    from helpers.tiny_model import make_tiny_model

    from songwriter.engine.torch_backend import TorchBackend
    from songwriter.forms import named_form
    from songwriter.train.trainer import export

    old = make_tiny_model(tmp_path / "old", steps=2, kind_channel=False)
    run = tmp_path / "run"
    r = _train(corpus, run, "--init-from", str(old), "--eval-every", "0", "--lr", "0", steps=1)
    assert r.returncode == 0, r.stderr
    assert "adding the kind channel" in r.stdout
    export(run / "ckpt.pt", tmp_path / "new")
    assert json.loads((tmp_path / "new" / "config.json").read_text())["n_kind"] == E.N_KINDS
    a, vocab, _ = TorchBackend.from_dir(old, "cpu")
    b, _, _ = TorchBackend.from_dir(tmp_path / "new", "cpu")
    enc = E.encode_template(named_form("五绝"), vocab)
    arrays = {k: v[None] for k, v in enc.arrays().items()}
    targets = enc.given[None].copy()
    import numpy as np

    assert np.allclose(a.score(arrays, targets, vocab.bos), b.score(arrays, targets, vocab.bos), atol=1e-2)


def _pieces_with_poems(n_poems: int) -> list[dict]:
    pieces = [{"id": f"shi:{i}", "kind": "shi", "lines": clean_lines([p])} for i, p in enumerate(POEMS * 20)]
    pieces += [{"id": f"ci:{t}:{i}", "kind": "ci", "tune": t, "lines": clean_lines([POEMS[12]])}
               for t in ("鹧鸪天", "浣溪沙", "念奴娇", "水调歌头") for i in range(12)]
    pieces += [{"id": f"modern:x:{i}", "kind": "modern", "lines": ["我们明天一起去看海，", "你说好吗？"]}
               for i in range(300)]
    pieces += [{"id": f"modern:poem:{i}", "kind": "modern", "mix": "poem", "lines": ["轻轻的我走了，", "正如我轻轻的来。"]}
                for i in range(n_poems)]
    return pieces


def test_modern_poems_are_held_out_without_moving_the_rest_of_the_split():
    from songwriter.train.corpus import make_split

    before = make_split(_pieces_with_poems(0), n_tunes=1)
    after = make_split(_pieces_with_poems(100), n_tunes=1)
    for part in ("dev", "test"):
        old, new = set(before[part]), set(after[part])
        assert old <= new
        poems = new - old
        assert poems and all(i.startswith("modern:poem:") for i in poems)
    assert not set(after["dev"]) & set(after["test"])


def test_the_mix_draws_a_group_inside_a_kind_at_its_own_share():
    import numpy as np

    from songwriter.train.args import parse_mix
    from songwriter.train.dataset import Sampler

    assert parse_mix("modern=0.7,poem=0.3") == {"modern": 0.7, "poem": 0.3}
    pieces = [p for p in _pieces_with_poems(10) if p["kind"] == "modern"]
    v = Vocab.build(["".join(p["lines"]) for p in pieces], min_count=1)
    store = PieceStore(pieces, v)
    assert list(store.kinds).count("modern") == len(pieces)       # the kind channel: all modern
    sampler = Sampler(store, {"modern": 0.5, "poem": 0.5}, tokens=256, seed=0)
    drawn = np.concatenate([np.asarray(b) for b in (sampler._refill() or sampler.queue)])
    poem_share = np.mean(store.mix[drawn] == "poem")
    assert 0.4 < poem_share < 0.6     # 10 poems among 310 pieces, drawn half the time
    # weights that do not name the group draw its pieces as their kind's
    sampler = Sampler(store, {"modern": 1.0}, tokens=256, seed=0)
    sampler._refill()
    drawn = np.concatenate([np.asarray(b) for b in sampler.queue])
    assert 0 < np.mean(store.mix[drawn] == "poem") < 0.15

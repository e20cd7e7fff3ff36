"""Content steering (engine/cocon.py, train/cocon.py) on the tiny model: the block is the base
exactly without content or at a very negative strength (tolerance 1e-5 on log-probs), steered
candidates keep every constraint, a block of another base is refused, the CLI takes --content and
--strength, and train-cocon runs its losses on a fixture corpus."""

import json
import shutil

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from helpers.tiny_model import POEMS, make_tiny_model  # noqa: E402

from songwriter.engine.api import GenerationRequest, ModelLoadError, request_problem  # noqa: E402
from songwriter.engine.cocon import (  # noqa: E402
    CoConBlock, CoConConfig, content_layout, load_block, make_steering, save_block,
)
from songwriter.engine.model_folder import WEIGHTS, file_sha256  # noqa: E402
from songwriter.engine.service import Engine  # noqa: E402
from songwriter.forms import named_form  # noqa: E402

TOL = 1e-5   # the stated tolerance: log-probs with no content / tau -100 against the base model's


@pytest.fixture(scope="module")
def base_dir(tmp_path_factory):
    return make_tiny_model(tmp_path_factory.mktemp("model"), steps=15)


def random_block(model_dir, seed: int = 0) -> CoConBlock:
    """A block with random (non-zero) weights everywhere, so it does change what it sees."""
    from songwriter.engine.torch_backend import read_model_dir

    cfg, _, _, _ = read_model_dir(model_dir)
    bcfg = CoConConfig.for_base(cfg)
    bcfg.base_sha256 = file_sha256(model_dir / WEIGHTS)
    block = CoConBlock(bcfg)
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in block.parameters():
            p.copy_(torch.randn(p.shape, generator=g) * 0.3)
    return block.eval()


@pytest.fixture(scope="module")
def steer_dir(base_dir, tmp_path_factory):
    d = tmp_path_factory.mktemp("steer") / "m"
    shutil.copytree(base_dir, d)
    save_block(random_block(d), d, dtype=torch.float32)
    return d


def _scores(engine, content, strengths):
    from songwriter.engine import encoding as E

    enc = E.encode_template(named_form("七绝"), engine.vocab)
    arrays = {k: v[None] for k, v in enc.arrays().items()}
    targets = np.where(enc.given == engine.vocab.fill, engine.vocab.id("月"), enc.given)[None]
    be = engine.backend.steered(content, strengths, engine.vocab) if content else engine.backend
    return be.score(arrays, targets, engine.vocab.bos)[0]


def test_content_layout(base_dir):
    from songwriter.engine.vocab import Vocab

    vocab = Vocab.load(base_dir / "vocab.json")
    lay = content_layout("明月 故乡", vocab)
    assert [vocab.tokens[i] for i in lay["tok"]] == ["明", "月", "</s>", "故", "乡", "</s>"]
    assert lay["line"].tolist() == [0, 0, 0, 1, 1, 1] and lay["bpos"].tolist() == [2, 1, 0, 2, 1, 0]
    lay = content_layout("床前明月光，疑是地上霜。", vocab)
    assert [vocab.tokens[i] for i in lay["tok"]][5:7] == ["，", "</s>"] and lay["line"][-1] == 1
    assert content_layout("abc 123", vocab) is None           # nothing in the vocabulary
    assert len(content_layout("明月光，" * 100, vocab, max_len=20)["tok"]) <= 20


def test_no_content_or_very_negative_strength_is_the_base(base_dir, steer_dir):
    base = Engine.load(base_dir, backend="torch")
    steer = Engine.load(steer_dir, backend="torch")
    assert steer.supports_content and not base.supports_content
    want = _scores(base, [], [])
    assert np.abs(_scores(steer, [], []) - want).max() == 0
    assert np.abs(_scores(steer, ["明月 故乡", "春风"], [-100.0, -100.0]) - want).max() <= TOL
    assert np.abs(_scores(steer, ["明月 故乡"], [2.0]) - want).max() > 1e-2     # it does steer
    # a content with nothing in the vocabulary steers nothing
    assert steer.backend.steered(["abc"], [5.0], steer.vocab) is steer.backend
    # and whole generations: the same candidates as the base model
    req = dict(template=named_form("七绝"), n=3, seed=4)
    a = base.generate(GenerationRequest(**req))
    for content, strength in (([], 0.0), (["明月", "故乡"], -100.0)):
        b = steer.generate(GenerationRequest(**req, content=content, strength=strength))
        assert [c.text for c in b] == [c.text for c in a]
        assert np.allclose([c.score for c in b], [c.score for c in a], atol=TOL)


def test_steered_decode_steps_match_the_full_pass(steer_dir):
    """The KV-cached decode path (block cache included) computes what the whole-sequence pass does."""
    from songwriter.engine import encoding as E

    engine = Engine.load(steer_dir, backend="torch")
    be = engine.backend.steered(["明月 故乡", "春风"], [0.0, 3.0], engine.vocab)
    enc = E.encode_template(named_form("五绝"), engine.vocab)
    targets = np.where(enc.given == engine.vocab.fill, engine.vocab.id("山"), enc.given)
    full = be.score({k: v[None] for k, v in enc.arrays().items()}, targets[None], engine.vocab.bos)[0]
    state = be.start(enc.arrays(), 2)
    prev = np.full(2, engine.vocab.bos)
    steps = []
    for p in range(len(enc)):
        lp = be.step(state, prev, p)
        assert np.allclose(lp[0], lp[1])
        steps.append(lp[0, targets[p]])
        prev = np.full(2, targets[p])
    assert np.abs(np.asarray(steps) - full).max() < 1e-4


def test_steered_candidates_keep_every_constraint(steer_dir):
    from songwriter.template import parse_notation

    engine = Engine.load(steer_dir, backend="torch")
    t = parse_notation("春____，\n_____月。@A\n_____，\n_____雪。@A")
    cands = engine.generate(GenerationRequest(template=t, content=["明月", "故乡"], strengths=[2.0, 5.0],
                                              n=4, seed=2))
    assert cands and all(c.check.ok for c in cands)
    assert all(c.lines[0].startswith("春") and c.lines[1].endswith("月。") for c in cands)
    # regenerating one line: the others stay as written
    text = "\n".join(cands[0].lines)
    again = engine.generate(GenerationRequest(template=t, text=text, lines=[2], content=["故乡"], strength=3.0,
                                              n=2, seed=5))
    assert all(c.check.ok and c.lines[0] == cands[0].lines[0] and c.lines[3] == cands[0].lines[3] for c in again)


def test_block_of_another_base_is_refused(steer_dir, tmp_path):
    d = tmp_path / "m"
    shutil.copytree(steer_dir, d)
    info = json.loads((d / "cocon.json").read_text())
    info["base_sha256"] = "0" * 64
    (d / "cocon.json").write_text(json.dumps(info))
    with pytest.raises(ModelLoadError, match="trained on another base model.*train-cocon"):
        Engine.load(d, backend="torch")
    (d / "cocon.json").unlink()
    with pytest.raises(ModelLoadError, match="incomplete: cocon.json is missing"):
        Engine.load(d, backend="torch")


def test_strengths_are_checked_and_cli_takes_content(steer_dir, capsys):
    t = named_form("七绝")
    assert request_problem(GenerationRequest(template=t, content=["a", "b"], strengths=[1.0])).startswith("strengths")
    assert request_problem(GenerationRequest(template=t, content=["a"], strengths=[float("nan")]))
    assert not request_problem(GenerationRequest(template=t, content=["a", "b"], strengths=[1.0, -2.0]))
    assert GenerationRequest(template=t, content=["a", "b"], strength=2.0).content_strengths() == [2.0, 2.0]
    from songwriter.cli import main

    argv = ["generate", "--form", "七绝", "--model", str(steer_dir), "-n", "2", "--seed", "1", "--json",
            "--content", "明月", "--content", "故乡"]
    assert main(argv + ["--strength", "1", "--strength", "2", "--strength", "3"]) == 2
    assert "one per --content" in capsys.readouterr().err
    assert main(argv + ["--strength", "2"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["backend"].startswith("torch") and all(c["check"]["ok"] for c in out["candidates"])


def test_make_steering_several_contents_side_by_side(steer_dir):
    engine = Engine.load(steer_dir, backend="torch")
    be = engine.backend
    s = make_steering(be.model, be.cocon, engine.vocab, ["明月 故乡", "xyz", "春风"], [1.0, 9.0, -2.0])
    # 明月</s>故乡</s> (6 keys) at tau 1, the empty content dropped, 春风</s> (3 keys) at tau -2
    assert s.cbias.flatten().tolist() == [1.0] * 6 + [-2.0] * 3


def _fixture_corpus(tmp_path):
    from songwriter.train.corpus import clean_lines

    corpus = tmp_path / "corpus"
    corpus.mkdir()
    with open(corpus / "pieces.jsonl", "w", encoding="utf-8") as f:
        for i, p in enumerate(POEMS):
            f.write(json.dumps({"id": f"t{i}", "kind": "shi", "lines": clean_lines([p])}, ensure_ascii=False) + "\n")
    (corpus / "split.json").write_text(json.dumps({"dev": ["t0", "t5"], "test": ["t13"]}))
    return corpus


def test_losses_of_weight_zero_are_not_computed(base_dir, tmp_path):
    """--weights 1,0,0 trains on the self loss alone: the cycle and adversarial passes (two more
    passes a step, and the discriminator's) are not run once their start step is reached."""
    from songwriter.train.cocon import CoConTrainConfig, train_cocon

    cfg = CoConTrainConfig(base=str(base_dir), out=str(tmp_path / "run"), corpus=str(_fixture_corpus(tmp_path)),
                           batch_tokens=400, total_steps=8, warmup=2, cycle_start=2, adv_start=2, log_every=2,
                           eval_every=100, precision="fp32", w_cycle=0.0, w_adv=0.0)
    out = train_cocon(cfg, log=lambda m: None)
    recs = [json.loads(x) for x in (out / "log.jsonl").read_text().splitlines()]
    train = [r for r in recs if "self" in r]
    assert len(train) == 4 and not any(k in r for r in train for k in ("cycle", "adv", "disc"))


def test_train_cocon_smoke(base_dir, tmp_path):
    """A few steps on a fixture corpus: every loss is logged and finite, the content helps on the
    training batches more at the end than at the start (self below null), the block's files name
    the base, install refuses another base."""
    from songwriter.train.cocon import CoConTrainConfig, install_block, train_cocon

    corpus = _fixture_corpus(tmp_path)
    cfg = CoConTrainConfig(base=str(base_dir), out=str(tmp_path / "run"), corpus=str(corpus), batch_tokens=400,
                           total_steps=60, warmup=5, lr=3e-3, cycle_start=5, adv_start=5, log_every=10,
                           eval_every=30, precision="fp32")
    out = train_cocon(cfg, log=lambda m: None)
    recs = [json.loads(x) for x in (out / "log.jsonl").read_text().splitlines()]
    train = [r for r in recs if "self" in r]
    assert len(train) == 6 and all(np.isfinite(r[k]) for r in train[1:] for k in ("self", "null", "cycle", "adv", "disc"))
    gap = [r["self"] - r["null"] for r in train]
    assert gap[-1] < 0 and np.mean(gap[-3:]) < np.mean(gap[:2])
    assert any("dev" in r for r in recs)
    info = json.loads((out / "cocon.json").read_text())
    assert info["base_sha256"] == file_sha256(base_dir / WEIGHTS) and info["extra"]["train_steps"] == 60
    d = tmp_path / "m"
    shutil.copytree(base_dir, d)
    install_block(out, d)
    assert Engine.load(d, backend="torch").supports_content
    other = make_tiny_model(tmp_path / "other", steps=1, seed=1)
    with pytest.raises(SystemExit, match="another base"):
        install_block(out, other)
    # rerunning the same command resumes from the checkpoint (nothing left to do at step 60)
    cfg.total_steps = 62
    train_cocon(cfg, log=lambda m: None)
    assert json.loads((out / "cocon.json").read_text())["extra"]["train_steps"] == 62


def test_a_block_of_an_earlier_base_starts_the_next_ones_training(base_dir, tmp_path):
    """--init-block: a block trained on one base is the start for the base trained further. The
    engine refuses it on the moved base; training starts from its weights (its layer kept) and the
    block written at the end names the new base, so the engine loads it there."""
    from songwriter.engine.torch_backend import read_model_dir
    from songwriter.train.cocon import CoConTrainConfig, install_block, train_cocon

    corpus = _fixture_corpus(tmp_path)
    first = CoConTrainConfig(base=str(base_dir), out=str(tmp_path / "first"), corpus=str(corpus), batch_tokens=400,
                             total_steps=6, warmup=2, lr=3e-3, log_every=2, eval_every=100, precision="fp32",
                             w_cycle=0.0, w_adv=0.0)
    old = tmp_path / "old"
    shutil.copytree(base_dir, old)
    install_block(train_cocon(first, log=lambda m: None), old)
    moved = make_tiny_model(tmp_path / "moved", steps=1, seed=1)
    cfg, *_ = read_model_dir(moved)
    with pytest.raises(ModelLoadError, match="another base"):
        shutil.copy(old / "cocon.json", moved / "cocon.json")
        shutil.copy(old / "cocon.safetensors", moved / "cocon.safetensors")
        load_block(moved, cfg)
    for name in ("cocon.json", "cocon.safetensors"):
        (moved / name).unlink()
    start = load_block(old, cfg, any_base=True)
    said = []
    warm = CoConTrainConfig(base=str(moved), out=str(tmp_path / "warm"), corpus=str(corpus), batch_tokens=400,
                            total_steps=1, warmup=1, lr=1e-9, log_every=1, eval_every=100, precision="fp32",
                            w_cycle=0.0, w_adv=0.0, init_block=str(old))
    out = train_cocon(warm, log=said.append)
    assert any("starts from" in m for m in said)
    install_block(out, moved)
    block = load_block(moved, cfg)
    assert block.cfg.layer == start.cfg.layer
    for (name, a), b in zip(start.state_dict().items(), block.state_dict().values()):
        assert torch.allclose(a, b, atol=1e-3), name         # one step at lr 1e-9, saved as fp16
    with pytest.raises(SystemExit, match="no content-steering block"):
        train_cocon(CoConTrainConfig(base=str(moved), out=str(tmp_path / "none"), corpus=str(corpus),
                                     init_block=str(base_dir), precision="fp32"), log=lambda m: None)


def test_train_cocon_options_match_the_config():
    """train-cocon's options are defined without torch (train/args.py); their defaults are the config's."""
    from songwriter.train.args import COCON_DEFAULTS
    from songwriter.train.cocon import CoConTrainConfig

    cfg = CoConTrainConfig()
    assert {k: getattr(cfg, k) for k in COCON_DEFAULTS} == COCON_DEFAULTS


def test_block_started_from_the_base_writes_nothing_yet_scores_content_as_the_base(base_dir):
    """--init base: the block's layer norms, q and k are the base's next layer's self-attention, its
    content keys/values that attention's k/v, so a query scores a content key exactly as the base
    scores the same state in its own context; W_o is still zero, so log-probs are the base's."""
    from songwriter.engine.torch_backend import build_model, read_model_dir
    from songwriter.train.cocon import start_from_base

    cfg, _, _, state = read_model_dir(base_dir)
    base = build_model(cfg, state, str(base_dir)).eval()
    block = CoConBlock(CoConConfig.for_base(cfg))
    start_from_base(block, base)
    nxt = base.blocks[block.cfg.layer]
    h = torch.randn(2, 7, cfg.d_model, generator=torch.Generator().manual_seed(3))
    with torch.no_grad():
        k_base, v_base = nxt.self_attn.project_kv(nxt.ln1(h))
        kc, vc = block.content_kv(h)
        assert torch.allclose(kc, k_base) and torch.allclose(vc, v_base)
        assert torch.allclose(block.split(block.k(block.ln(h))), k_base)
        assert torch.allclose(block.q(block.ln(h)), nxt.self_attn.q(nxt.ln1(h)))
        zero_bias = torch.zeros(1, 1, 1, 7)
        assert torch.equal(block(h, (kc, vc), zero_bias), h)      # writes nothing before training


def test_keywords_are_visible_to_their_own_positions_unless_masked(base_dir):
    """A keyword content is there to be written: by default its tokens name no source position, so
    the same-token mask leaves them visible to the queries that predict them; with mask_keywords
    they keep the positions they came from (CoCon's rule, as lines and phrases always do)."""
    from songwriter.engine.torch_backend import read_model_dir
    from songwriter.engine import encoding as E
    from songwriter.train.cocon import CoConTrainConfig, draw_contents

    _, vocab, _, _ = read_model_dir(base_dir)
    ids = [vocab.id(c) for c in "明月照高楼"]
    # one line of a piece, as PieceStore.piece lays it out
    p = {"tok": np.asarray(ids + [vocab.eol]), "fmt": np.asarray([E.F_CHAR] * 4 + [E.F_RHYME, E.F_EOL]),
         "lstart": np.asarray([1, 0, 0, 0, 0, 0]), "bpos": np.arange(5, -1, -1), "line": np.zeros(6, int)}
    rarity = np.ones(len(vocab))
    for mask, expect_src in ((False, False), (True, True)):
        cfg = CoConTrainConfig(p_keywords=1.0, p_lines=0.0, mask_keywords=mask)
        for seed in range(5):
            contents = draw_contents(p, vocab, np.random.default_rng(seed), rarity, cfg)
            assert contents
            for c in contents:
                chars = c["src"][:-1]                      # the last is the content's own line end
                assert (chars >= 0).all() == expect_src and ((chars < 0).all() != expect_src)
                if expect_src:
                    assert [int(t) for t in p["tok"][chars]] == c["tok"][:-1].tolist()


def test_two_character_keywords_can_be_held_to_a_word_list(base_dir):
    """With a word list, a two-character keyword is one of its words (明月 here), never two
    neighbours that are not a word (月照, 照高, 高楼 are not on the list)."""
    from songwriter.engine import encoding as E
    from songwriter.engine.torch_backend import read_model_dir
    from songwriter.train.cocon import CoConTrainConfig, draw_contents

    _, vocab, _, _ = read_model_dir(base_dir)
    ids = [vocab.id(c) for c in "明月照高楼"]
    p = {"tok": np.asarray(ids + [vocab.eol]), "fmt": np.asarray([E.F_CHAR] * 4 + [E.F_RHYME, E.F_EOL]),
         "lstart": np.asarray([1, 0, 0, 0, 0, 0]), "bpos": np.arange(5, -1, -1), "line": np.zeros(6, int)}
    words = {(ids[0], ids[1])}
    cfg = CoConTrainConfig(p_keywords=1.0, p_lines=0.0)
    seen = set()
    for seed in range(40):
        for c in draw_contents(p, vocab, np.random.default_rng(seed), np.ones(len(vocab)), cfg, words):
            chars = tuple(c["tok"][:-1].tolist())
            seen.add(chars)
            assert len(chars) == 1 or chars == (ids[0], ids[1])
    assert (ids[0], ids[1]) in seen

"""English training on a tiny corpus written from tests/data/en_poems.txt: the pieces' layout and
masks, a short smoke run of the trainer (`train --lang en`) whose loss goes down, and its export
writing English that fits a sonnet."""

import json

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from helpers.tiny_model_en import en_pieces, tiny_vocab  # noqa: E402

from songwriter.engine import encoding as E  # noqa: E402
from songwriter.train.dataset import make_example  # noqa: E402
from songwriter.train.dataset_en import EnglishPieceStore, label_lines, layout_line, _Words  # noqa: E402


@pytest.fixture
def corpus(tmp_path):
    d = tmp_path / "corpus-en"
    d.mkdir()
    pieces = en_pieces()
    pieces[5]["kind"] = "hymn"
    pieces[6]["kind"] = "song"
    with open(d / "pieces.jsonl", "w", encoding="utf-8") as f:
        for p in pieces:
            f.write(json.dumps(p) + "\n")
    (d / "split.json").write_text(json.dumps({"dev": [pieces[1]["id"]], "test": [pieces[-1]["id"]]}))
    (d / "stats.json").write_text(json.dumps({"corpus_sha256": "test-en"}))
    return d


def test_a_line_in_syllables():
    v = tiny_vocab()
    lay = layout_line("Shall I compare thee to a summer's day?", _Words(v))
    toks = [v.tokens[i] for i in lay["tok"]]
    assert toks == ["shall", "i", "compare", "<fill>", "thee", "to", "a", "summer's", "<fill>", "day", "?", "</s>"]
    assert lay["bpos"] == [10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 0]
    assert lay["fmt"][9] == E.F_RHYME and lay["fmt"].count(E.F_RHYME) == 1
    # an iambic pentameter line gets the metre on every syllable (x = 2, / = 1)
    assert lay["tmetre"][:10] == [2, 1] * 5
    # lexical stress only where a word has two syllables or more: com-PARE, SUM-mer's
    assert lay["tlex"][2:4] == [2, 1] and lay["tlex"][7:9] == [1, 2] and lay["tlex"][0] == 0


def test_rhyme_labels_from_the_last_words():
    from songwriter.prosody import english

    ends = ["day", "night", "way", "light", "cloud"]
    labels, groups = label_lines([english.rhyme_keys(w, "perfect") for w in ends])
    assert labels == [1, 2, 1, 2, 0]
    assert groups[0] == groups[2] != 0


def test_examples_give_whole_words():
    v = tiny_vocab()
    store = EnglishPieceStore(en_pieces()[:5], v, max_len=128)
    rng = np.random.default_rng(1)
    for i in range(len(store)):
        for _ in range(5):
            p = store.piece(i, rng)
            ex = make_example(p, v, rng)
            assert len(ex["inputs"]) == len(ex["targets"]) <= 128
            syl = (ex["fmt"] == E.F_CHAR) | (ex["fmt"] == E.F_RHYME)
            given = syl & (ex["given"] != v.fill)
            # a given word is given at every syllable it fills, never in part
            starts = np.nonzero(p["wstart"])[0].tolist() + [len(syl)]
            for a, b in zip(starts[:-1], starts[1:]):
                span = [q for q in range(a, b) if syl[q]]
                assert len({bool(given[q]) for q in span}) == 1
            # inputs are the targets shifted: a word's further syllables are <fill>
            assert (ex["inputs"][1:] == ex["targets"][:-1]).all()
            assert (ex["tone"][~syl] == 0).all()


def test_smoke_training_loss_goes_down_and_export_writes_sonnets(corpus, tmp_path):
    from songwriter.engine.service import Engine, GenerationRequest
    from songwriter.forms import named_form
    from songwriter.train.trainer import TrainConfig, export, train

    out = tmp_path / "run-en"
    cfg = TrainConfig(corpus=str(corpus), out=str(out), lang="en", n_layer=2, n_head=2, d_model=32, max_len=256,
                      train_len=128, batch_tokens=512, lr=3e-3, warmup=5, total_steps=60, log_every=10,
                      eval_every=30, dev_pieces=5, precision="fp32", dropout=0.0, ckpt_minutes=100,
                      vocab_min_count=1, threads=1)
    ckpt = train(cfg, log=lambda m: None)
    logs = [json.loads(x) for x in (out / "log.jsonl").read_text().splitlines()]
    losses = [r["loss"] for r in logs if "loss" in r]
    assert len(losses) == 6
    assert losses[-1] < losses[0] * 0.8, losses
    dev = [r["dev"] for r in logs if "dev" in r]
    assert len(dev) == 2 and set(dev[0]) == {"poem"}        # the fixture's one dev piece is a poem
    assert dev[-1]["poem"]["char_nll"] < dev[0]["poem"]["char_nll"] + 1.0
    vocab = json.loads((out / "vocab.json").read_text())
    assert vocab["language"] == "en"
    model_dir = export(ckpt, tmp_path / "model-en")
    manifest = json.loads((model_dir / "manifest.json").read_text())
    assert manifest["languages"] == ["en"] and manifest["name"] == "songwriter-en"
    engine = Engine.load(model_dir, backend="torch-cpu")
    cands = engine.generate(GenerationRequest(template=named_form("Shakespearean sonnet"), n=2, seed=4))
    assert cands and all(c.check.ok for c in cands)


def test_train_cli_takes_lang():
    import argparse

    from songwriter.train.args import add_train_arguments, parse_mix

    ap = argparse.ArgumentParser()
    add_train_arguments(ap)
    a = ap.parse_args(["--lang", "en", "--vocab-size", "20000", "--mix", "poem=0.5,song=0.4,hymn=0.1"])
    assert a.lang == "en" and a.vocab_size == 20000
    assert parse_mix(a.mix, "en") == {"poem": 0.5, "song": 0.4, "hymn": 0.1}
    with pytest.raises(ValueError):
        parse_mix("ci=1", "en")


def test_a_line_takes_the_reading_that_gives_the_pieces_line_length():
    v = tiny_vocab()
    p = {"id": "s", "kind": "poem", "lines": en_pieces()[4]["lines"]}
    store = EnglishPieceStore([p], v)
    x = store.piece(0)
    # "Thou art more lovely and more temperate:" is ten syllables with tem-per-ate's three
    line1 = x["line"] == 1
    assert int(x["bpos"][line1][0]) == 10
    assert x["tmetre"][line1][:10].tolist() == [2, 1] * 5


def test_evaluation_figures(tmp_path):
    from helpers.tiny_model_en import make_tiny_model_en

    from songwriter.train.evaluate_en import evaluate, word_distinct

    d = tmp_path / "corpus-eval"
    d.mkdir()
    pieces = en_pieces()
    pieces[4]["kind"] = "sonnet"
    pieces[5]["kind"] = "hymn"
    with open(d / "pieces.jsonl", "w", encoding="utf-8") as f:
        for p in pieces:
            f.write(json.dumps(p) + "\n")
    (d / "split.json").write_text(json.dumps({"dev": [], "test": [pieces[4]["id"], pieces[5]["id"]]}))
    model = make_tiny_model_en(tmp_path, steps=5)
    res = evaluate(model, d, gen_pieces=1, backend="torch-cpu", samples=tmp_path / "s.jsonl", log=lambda m: None)
    assert set(res["perplexity"]) == {"sonnet", "hymn"}
    assert res["perplexity"]["sonnet"]["word_ppl"] > 1
    for kind in ("sonnet", "hymn"):
        g = res["generation"][kind]
        assert g["pieces"] == 1 and g["check_ok"] == 1.0
        assert g["syllable_exact_lines"] == 1.0 and g["rhyme_rate"] == 1.0
    assert res["generation"]["sonnet"]["metre_agreement"] == 1.0
    assert len((tmp_path / "s.jsonl").read_text().splitlines()) == 2
    assert word_distinct(["a b a b", "c d"])["mi_d1"] == 4 / 6


def test_layout_in_several_processes_is_the_layout_of_one():
    v = tiny_vocab()
    pieces = en_pieces()
    one = EnglishPieceStore(pieces, v, max_len=128, workers=1)
    many = EnglishPieceStore(pieces, v, max_len=128, workers=3)
    assert len(one) == len(many) == len(pieces)
    assert one.offsets.tolist() == many.offsets.tolist()
    assert one.ids == many.ids and one.kinds.tolist() == many.kinds.tolist()
    for k in EnglishPieceStore.COLS:
        assert one.cols[k].dtype == many.cols[k].dtype
        assert np.array_equal(one.cols[k], many.cols[k]), k


def test_english_batches_from_several_makers_are_independent_streams_and_a_resume_draws_anew():
    from songwriter.train.dataset import Sampler
    from songwriter.train.prefetch import BatchPrefetcher

    v = tiny_vocab()
    store = EnglishPieceStore(en_pieces(), v, max_len=128, workers=1)
    weights = {"poem": 1.0}
    with BatchPrefetcher(Sampler(store, weights, 300, 5), workers=2) as feed:
        assert feed.independent and feed.workers == 2
        got = [feed.next() for _ in range(6)]
        st = json.loads(json.dumps(feed.state()))
    for b in got:
        assert b["inputs"].shape == b["targets"].shape and b["inputs"].shape[1] <= 128
        assert set(np.unique(b["fmt"])) <= set(range(E.F_EOS + 1)) | {E.F_PAD}
    # the two makers' first batches are drawn apart, and the saved state moved on from the start
    assert any(a.shape != b.shape or not np.array_equal(a, b) for a, b in zip(got[0].values(), got[1].values()))
    assert st != json.loads(json.dumps(Sampler(store, weights, 300, 5).state()))
    again = Sampler(store, weights, 300, 0)
    again.load_state(st)
    with BatchPrefetcher(again, workers=2) as feed:
        first = feed.next()
    assert any(a.shape != b.shape or not np.array_equal(a, b) for a, b in zip(first.values(), got[0].values()))


def test_a_warm_start_from_a_model_before_prose_gains_the_prose_row_as_the_song_row(corpus, tmp_path):
    from safetensors.torch import load_file, save_file

    from songwriter.engine import encoding_en as EN
    from songwriter.train.trainer import TrainConfig, export, train

    small = dict(lang="en", n_layer=1, n_head=2, d_model=32, max_len=256, train_len=128, batch_tokens=512,
                 lr=1e-3, warmup=1, log_every=1, eval_every=100, dev_pieces=2, precision="fp32", dropout=0.0,
                 ckpt_minutes=100, vocab_min_count=1, threads=1)
    first = train(TrainConfig(corpus=str(corpus), out=str(tmp_path / "a"), total_steps=1, **small), log=lambda m: None)
    m1 = export(first, tmp_path / "m1")
    state = load_file(str(m1 / "model.safetensors"))          # as the English models before prose were
    state["kind.weight"] = state["kind.weight"][:EN.EN_KIND_IDS["prose"]].clone()
    save_file(state, str(m1 / "model.safetensors"), metadata={"format_version": "1"})
    config = json.loads((m1 / "config.json").read_text())
    (m1 / "config.json").write_text(json.dumps({**config, "n_kind": EN.EN_KIND_IDS["prose"]}))
    said = []
    second = train(TrainConfig(corpus=str(corpus), out=str(tmp_path / "b"), total_steps=1, lr=0.0,
                               init_from=str(m1), **{k: v for k, v in small.items() if k != "lr"}), log=said.append)
    assert any("adding the kinds prose" in m for m in said)
    ck = torch.load(second, weights_only=True)
    rows = ck["model"]["kind.weight"]
    assert ck["model_config"]["n_kind"] == EN.N_KINDS_EN == rows.shape[0]
    assert torch.equal(rows[EN.EN_KIND_IDS["prose"]], rows[EN.EN_KIND_IDS["song"]])

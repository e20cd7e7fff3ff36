"""The content-steering evaluation (train/evaluate_cocon.py, `python -m songwriter.train eval-cocon`)
on the tiny model with a random block and a fixture corpus of held-out 七绝, 五律 and ci: the table
has a row per strength and both baselines, the locked-words baseline uses every content character
by construction, form stays 100 on every row, tau -100 measures as the base, the acceptance probe
counts whole words, a folder without a block gets the baselines and a note, and the onnxruntime
backend runs it too."""

import json
import shutil

import pytest

torch = pytest.importorskip("torch")

from helpers.tiny_model import POEMS, make_tiny_model  # noqa: E402
from test_cocon import random_block  # noqa: E402

from songwriter.engine.cocon import save_block  # noqa: E402
from songwriter.train import evaluate_cocon as EC  # noqa: E402
from songwriter.train.__main__ import main  # noqa: E402

STRENGTHS = (-100.0, -2.0, 0.0, 1.0, 2.0, 5.0)


@pytest.fixture(scope="module")
def base_dir(tmp_path_factory):
    return make_tiny_model(tmp_path_factory.mktemp("model"), steps=15)


@pytest.fixture(scope="module")
def steer_dir(base_dir, tmp_path_factory):
    d = tmp_path_factory.mktemp("steer") / "m"
    shutil.copytree(base_dir, d)
    save_block(random_block(d), d, dtype=torch.float32)
    return d


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """Every fixture poem held out: six 七绝, two 五律, two ci (彩袖殷勤 and 明月几时有)."""
    from songwriter.train.corpus import clean_lines

    d = tmp_path_factory.mktemp("corpus")
    ids = []
    with open(d / "pieces.jsonl", "w", encoding="utf-8") as f:
        f.write(json.dumps({"id": "train:0", "kind": "shi", "lines": ["青山一道同云雨，"]}, ensure_ascii=False) + "\n")
        for i, p in enumerate(POEMS):
            ids.append(f"t{i}")
            kind = "ci" if i >= len(POEMS) - 2 else "shi"
            f.write(json.dumps({"id": ids[-1], "kind": kind, "lines": clean_lines([p])}, ensure_ascii=False) + "\n")
    (d / "split.json").write_text(json.dumps({"dev": [], "test": ids}))
    return d


def _run(capsys, tmp_path, model, corpus, *extra):
    out = tmp_path / "eval.json"
    rc = main(["eval-cocon", "--model", str(model), "--corpus", str(corpus), "--per-shape", "1", "--n", "2",
               "--out", str(out), *extra])
    assert rc == 0
    return json.loads(out.read_text(encoding="utf-8")), capsys.readouterr().out


def test_held_out_templates_and_contents(corpus):
    pieces = EC.read_test_pieces(corpus)
    assert [p["id"] for p in pieces] == [f"t{i}" for i in range(len(POEMS))]     # the training piece left out
    assert [EC.shape_of(p) for p in pieces].count("七绝") == 6
    assert [EC.shape_of(p) for p in pieces].count("五律") == 2
    assert [EC.shape_of(p) for p in pieces].count("ci") == 2
    items = EC.make_items(pieces, 2, seed=3)
    assert len(items) == 2 * len(EC.SHAPES) * len(EC.SOURCES)
    for it in items:
        if it["source"] != "keywords":   # content from another held-out piece, never the template's own
            assert it["donor"] != it["piece"]["id"] and it["donor"].startswith("t")
        if it["source"] == "poem-keywords":
            assert 1 <= len(it["content"]) <= 2 and all(len(w) == 2 for w in it["content"])
    assert EC.make_items(pieces, 2, seed=3) == items    # seeded


def test_words_relevance_and_uses():
    assert EC.content_words(["床前明月光，疑是地上霜。"]) == ["床前", "明月光", "疑是", "地上霜"]
    assert EC.content_words(["孤舟蓑笠翁独钓", "雪", "明月 故乡"]) == ["孤舟", "蓑笠", "翁独钓", "雪", "明月", "故乡"]
    assert EC.relevance_share({"明", "月"}, "明日月") == 1.0
    assert EC.relevance_share({"明", "月", "故", "乡"}, "明日\n山水") == 0.25
    assert EC.uses_word("床前明月光，\n疑是地上霜。", EC.PROBE_CONTENT)
    assert not EC.uses_word("举头望明\n月低头思故\n乡。", EC.PROBE_CONTENT)     # broken across lines
    assert not EC.uses_word("月明故里乡", EC.PROBE_CONTENT)


def test_embedding_relevance_credits_the_same_and_related_characters(base_dir):
    scorer = EC.Scorer(base_dir)
    v, e = scorer.vocab, scorer.unit_emb
    assert EC.embedding_relevance({"明", "月"}, "明月光", v, e) == pytest.approx(1.0, abs=1e-5)
    partial = EC.embedding_relevance({"明", "月"}, "明日山", v, e)
    assert partial < 1.0 and partial > EC.embedding_relevance({"明"}, "日山", v, e) - 1e-6


def test_table_over_strengths_and_baselines(steer_dir, corpus, capsys, tmp_path):
    res, printed = _run(capsys, tmp_path, steer_dir, corpus, "--backend", "torch",
                        "--strengths=" + ",".join(f"{x:g}" for x in STRENGTHS))
    rows = {r["row"]: r for r in res["rows"]}
    assert list(rows) == ["none", "locked"] + [f"tau={x:g}" for x in STRENGTHS]
    assert res["supports_content"] and not res["note"]
    for r in rows.values():
        assert r["candidates"] == 9 * 2 and r["failed_requests"] == 0
        assert r["format_micro_f1"] == 100 and r["rhyme_micro_f1"] == 100 and r["check_pass"] == 100
        assert r["ppl"] > 1 and 0 < r["distinct2_micro"] <= 100
    # the locked words: every content character in every candidate, by construction
    assert rows["locked"]["unplaced_words"] == 0
    assert rows["locked"]["relevance_share"] == 1.0
    assert rows["locked"]["relevance_embedding"] == pytest.approx(1.0, abs=1e-5)
    assert rows["none"]["relevance_share"] < 1.0
    # tau -100 is the base model: the same candidates, so the same figures as no content
    for key in ("relevance_share", "relevance_embedding", "ppl", "distinct2_micro"):
        assert rows["tau=-100"][key] == pytest.approx(rows["none"][key], rel=1e-6)
    # a random block at tau 5 writes something else
    assert [s["text"] for s in rows["tau=5"]["samples"]] != [s["text"] for s in rows["none"]["samples"]]
    # the probe: no content and each strength, 16 checked candidates, counts within bounds
    assert [p["strength"] for p in res["probe"]] == [None, *STRENGTHS]
    for p in res["probe"]:
        assert p["candidates"] == EC.PROBE_N and p["check_pass"] == EC.PROBE_N
        assert p["uses_both_words"] <= p["uses_a_word"] <= p["uses_a_character"] <= EC.PROBE_N
    assert res["probe"][1]["uses_a_word"] == res["probe"][0]["uses_a_word"]    # tau -100 = no content
    for name in rows:
        assert f"| {name} |" in printed
    assert "uses 明月 or 故乡 whole" in printed


def test_without_a_block_the_baselines_and_a_note(base_dir, corpus, capsys, tmp_path):
    res, printed = _run(capsys, tmp_path, base_dir, corpus, "--backend", "torch")
    assert [r["row"] for r in res["rows"]] == ["none", "locked"]
    assert not res["supports_content"] and "steered rows need a block" in printed
    assert [p["strength"] for p in res["probe"]] == [None]
    assert res["rows"][1]["relevance_share"] == 1.0 and res["rows"][1]["format_micro_f1"] == 100


def test_onnx_backend(steer_dir, corpus, capsys, tmp_path):
    pytest.importorskip("onnxruntime")
    pytest.importorskip("onnx")
    from songwriter.train.onnx_export import export_model_dir

    d = tmp_path / "m"
    shutil.copytree(steer_dir, d)
    export_model_dir(d, int8=False, log=lambda *a: None)
    res, _ = _run(capsys, tmp_path, d, corpus, "--backend", "onnx", "--strengths", "2")
    assert res["backend"].startswith("onnx") and res["supports_content"]
    assert [r["row"] for r in res["rows"]] == ["none", "locked", "tau=2"]
    assert all(r["check_pass"] == 100 and r["format_micro_f1"] == 100 for r in res["rows"])
    assert res["rows"][1]["relevance_share"] == 1.0

"""`songwriter generate` on the tiny model: JSON output, notation input, clear exit 2 on bad input."""

import json

import pytest

pytest.importorskip("torch")

from helpers.tiny_model import make_tiny_model  # noqa: E402

from songwriter.cli import main  # noqa: E402


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    return make_tiny_model(tmp_path_factory.mktemp("model"))


def test_generate_json(model_dir, capsys):
    assert main(["generate", "--form", "五绝", "--model", str(model_dir), "-n", "2", "--seed", "3", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["backend"].startswith("torch") and out["elapsed_ms"] > 0
    assert len(out["candidates"]) == 2
    for c in out["candidates"]:
        assert c["check"]["ok"] and len(c["lines"]) == 4 and c["text"] == "\n".join(c["lines"])


def test_generate_notation_and_template_file(model_dir, capsys, tmp_path):
    assert main(["generate", "--notation", "春___，\n____月。@A", "--model", str(model_dir), "-n", "1",
                 "--seed", "1"]) == 0
    text = capsys.readouterr().out
    assert "春" in text and "月。" in text
    from songwriter.forms import named_form
    from songwriter.template import to_dict

    f = tmp_path / "t.json"
    f.write_text(json.dumps(to_dict(named_form("七绝")), ensure_ascii=False), encoding="utf-8")
    assert main(["generate", "--template", str(f), "--model", str(model_dir), "-n", "1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["candidates"][0]["check"]["ok"]


def test_generate_relyric_keeps_the_song_shape(model_dir, capsys):
    from pathlib import Path

    from songwriter.lyrics import template_from_lyrics

    song = Path(__file__).parent / "data" / "molihua.txt"
    want = template_from_lyrics(song.read_text(encoding="utf-8"))
    assert main(["generate", "--relyric", str(song), "--model", str(model_dir), "-n", "2", "--seed", "5",
                 "--json"]) == 0
    for c in json.loads(capsys.readouterr().out)["candidates"]:
        assert c["check"]["ok"]
        assert [len(x) for x in c["lines"]] == [len(tl.slots) for tl in want.lines]


@pytest.mark.parametrize("argv, needle", [
    (["generate", "--form", "不存在的牌子"], "unknown form"),
    (["generate"], "exactly one"),
    (["generate", "--notation", "春___，", "--form", "七绝"], "exactly one"),
    (["generate", "--notation", "____东。@A\n____月。@A", "--rhyme-system", "pingshui"], "rhyme A"),
    (["generate", "--form", "七绝", "--rhyme-system", "nope"], "rhyme system"),
    (["generate", "--template", "/no/such/file.json"], "no template file"),
    (["generate", "--relyric", "/no/such/song.lrc"], "no lyrics file"),
])
def test_bad_input_exits_2(model_dir, capsys, argv, needle):
    assert main(argv + ["--model", str(model_dir)]) == 2
    assert needle in capsys.readouterr().err


def test_missing_model_exits_2(tmp_path, capsys):
    assert main(["generate", "--form", "七绝", "--model", str(tmp_path / "none")]) == 2
    assert "no model" in capsys.readouterr().err


def _first_candidate(out: str) -> list[str]:
    """The printed lines of the first candidate: after its '# 1' header, up to the next header."""
    text = out.split("# 1 ", 1)[1].split("\n", 1)[1]
    return text.split("\n# 2 ", 1)[0].rstrip("\n").split("\n")


def test_generate_prints_the_stanzas_apart(model_dir, capsys, tmp_path):
    """鹧鸪天's 上阕 and 下阕, a song's verses: a blank line between them, as the template shows."""
    assert main(["generate", "--form", "鹧鸪天", "--model", str(model_dir), "-n", "1", "--seed", "2"]) == 0
    printed = _first_candidate(capsys.readouterr().out)
    assert [len(x) for x in printed] == [8, 8, 8, 8, 0, 4, 4, 8, 8, 8], printed
    song = tmp_path / "song.txt"
    song.write_text("床前明月光，\n疑是地上霜。\n\n举头望明月，\n低头思故乡。\n", encoding="utf-8")
    assert main(["generate", "--relyric", str(song), "--model", str(model_dir), "-n", "1", "--seed", "2"]) == 0
    printed = _first_candidate(capsys.readouterr().out)
    assert [len(x) for x in printed] == [6, 6, 0, 6, 6], printed


def test_the_note_of_fewer_candidates_counts_in_good_english(model_dir, capsys):
    """A template locked through has one text: "only 1 different text fits", not "1 ... texts fit"."""
    assert main(["generate", "--notation", "春风明月。", "--model", str(model_dir), "-n", "3"]) == 0
    err = capsys.readouterr().err
    assert "only 1 different text fits this template (asked for 3)" in err, err

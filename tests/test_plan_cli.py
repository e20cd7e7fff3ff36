"""`songwriter generate --plan TOPIC`, `--line-content`, `--relyric FILE --keep-theme`: the flags
parse and reach the request (its ``line_content`` and ``content``), the plan is printed, and a
model without content steering says so. No model is trained here: the engine is a stand-in where
a command would load one."""

import json
from pathlib import Path

import pytest

from songwriter import cli
from songwriter.cli_generate import request_from_args
from songwriter.engine.api import GenerationRequest

DATA = Path(__file__).parent / "data"

# a small statistics file: two subjects, scenery (place 10-30) and feeling (70-90)
WORDS = ["月", "明月", "故乡", "寒霜", "归梦", "边塞", "黄沙", "将军", "霜天", "思归"]
POSITION = [40, 10, 80, 20, 90, 10, 20, 80, 30, 85]


def stats_dict() -> dict:
    related = {"明月": ["故乡", "寒霜", "归梦", "霜天", "思归"], "故乡": ["明月", "寒霜", "归梦", "思归"],
               "边塞": ["黄沙", "将军"], "黄沙": ["边塞", "将军"], "将军": ["边塞", "黄沙"],
               "寒霜": ["明月", "故乡"], "归梦": ["明月", "故乡"], "霜天": ["明月"], "思归": ["明月", "故乡"]}
    neighbors = []
    for w in WORDS:
        flat = []
        for k, x in enumerate(related.get(w, [])):
            flat += [WORDS.index(x), 30 - k]
        neighbors.append(flat)
    return {"format": "songwriter-plan", "version": 1, "words": WORDS, "df": [50] * len(WORDS),
            "position": POSITION, "neighbors": neighbors}


@pytest.fixture
def stats_file(tmp_path):
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(stats_dict(), ensure_ascii=False), encoding="utf-8")
    return path


def parse(*argv):
    return cli.build_parser().parse_args(["generate", *argv])


def test_plan_reaches_the_request_as_line_content(stats_file):
    req = request_from_args(parse("--form", "五绝", "--plan", "明月 故乡", "--plan-stats", str(stats_file),
                                  "--strength", "2", "--seed", "1"))
    assert isinstance(req, GenerationRequest)
    assert len(req.line_content) == 4 and "明月" in req.line_content and "故乡" in req.line_content
    assert all(w in WORDS for w in req.line_content)
    assert req.line_content[0] == "明月"          # scenery first
    assert req.strength == 2.0 and req.content == []
    again = request_from_args(parse("--form", "五绝", "--plan", "明月 故乡", "--plan-stats", str(stats_file),
                                    "--seed", "1"))
    assert again.line_content == req.line_content
    req.check()


def test_line_content_is_taken_as_given(stats_file):
    req = request_from_args(parse("--form", "五绝", "--line-content", "明月| 寒霜||故乡"))
    assert req.line_content == ["明月", "寒霜", "", "故乡"]
    with pytest.raises(cli.TemplateError, match="one entry per template line .4"):
        request_from_args(parse("--form", "五绝", "--line-content", "明月|故乡"))
    with pytest.raises(cli.TemplateError, match="not both"):
        request_from_args(parse("--form", "五绝", "--line-content", "a|b|c|d", "--plan", "明月",
                                "--plan-stats", str(stats_file)))


def test_plan_only_prints_the_keywords_without_a_model(stats_file, capsys):
    assert cli.main(["generate", "--form", "七绝", "--plan", "明月 故乡", "--plan-only",
                     "--plan-stats", str(stats_file), "--model", "/nonexistent"]) == 0
    out = capsys.readouterr().out
    assert "# plan for 明月 故乡" in out and "  1  明月" in out and "--line-content '明月|" in out
    assert cli.main(["generate", "--form", "七绝", "--plan", "明月 故乡", "--plan-only", "--json",
                     "--plan-stats", str(stats_file)]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["topic"] == "明月 故乡" and len(got["keywords"]) == 4 and got["keywords"][0] == "明月"


def test_plan_errors_are_one_clear_line(stats_file, tmp_path, capsys):
    assert cli.main(["generate", "--form", "七绝", "--plan", "明月", "--plan-stats",
                     str(tmp_path / "missing.json")]) == 2
    err = capsys.readouterr().err
    assert "--plan" in err and "build-plan" in err
    assert cli.main(["generate", "--form", "七绝", "--plan", "xyz", "--plan-stats", str(stats_file)]) == 2
    assert "no word of the topic" in capsys.readouterr().err
    assert cli.main(["generate", "--form", "sonnet", "--plan", "love", "--plan-stats", str(stats_file)]) == 2
    assert "Chinese" in capsys.readouterr().err
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "songwriter-plan", "version": 1, "words": ["月"], "df": [], '
                   '"position": [1], "neighbors": [[]]}', encoding="utf-8")
    assert cli.main(["generate", "--form", "七绝", "--plan", "月", "--plan-stats", str(bad)]) == 2
    assert "df: expected one number per word" in capsys.readouterr().err
    assert cli.main(["generate", "--form", "七绝", "--plan-only"]) == 2
    assert "--plan-only goes with --plan" in capsys.readouterr().err


# --- re-lyricking on the song's own theme --------------------------------------------------------

def test_keep_theme_is_on_for_a_song_and_off_for_a_classical_poem():
    song = request_from_args(parse("--relyric", str(DATA / "molihua.txt")))
    assert song.content and "好一朵美丽的茉莉花" in song.content[0] and "\n" in song.content[0]
    assert all(len(c) <= 100 for c in song.content)
    assert not request_from_args(parse("--relyric", str(DATA / "molihua.txt"), "--no-keep-theme")).content
    assert not request_from_args(parse("--relyric", str(DATA / "jingyesi.txt"))).content
    poem = request_from_args(parse("--relyric", str(DATA / "jingyesi.txt"), "--keep-theme"))
    assert poem.content == ["床前明月光，\n疑是地上霜。\n举头望明月，\n低头思故乡。"]


def test_keep_theme_is_off_for_an_english_song_unless_asked(tmp_path):
    """The English lean on the old words cost fluency read blind: an English re-lyric keeps its
    theme only when the writer asks."""
    hymn = tmp_path / "hymn.txt"
    hymn.write_text("Nearer, my God, to Thee,\nNearer to Thee!\nE'en though it be a cross\nThat raiseth me;\n",
                    encoding="utf-8")
    assert not request_from_args(parse("--relyric", str(hymn))).content
    kept = request_from_args(parse("--relyric", str(hymn), "--keep-theme")).content
    assert kept and "Nearer, my God, to Thee" in kept[0]


def test_keep_theme_reads_an_lrc_file_without_its_times():
    req = request_from_args(parse("--relyric", str(DATA / "molihua.lrc"), "--keep-theme"))
    assert req.content and "[" not in "".join(req.content) and "好一朵美丽的茉莉花" in req.content[0]


def test_keep_theme_strengths_and_contents():
    req = request_from_args(parse("--relyric", str(DATA / "jingyesi.txt"), "--keep-theme", "--content", "秋",
                                  "--strength", "3"))
    assert req.content[0] == "秋" and "床前明月光" in req.content[1] and req.content_strengths() == [3.0, 3.0]
    req = request_from_args(parse("--relyric", str(DATA / "jingyesi.txt"), "--keep-theme", "--content", "秋",
                                  "--strength", "3", "--strength", "1"))
    assert req.content_strengths() == [3.0, 1.0]       # one per --content, then the theme's
    with pytest.raises(cli.TemplateError, match="one more for the song's theme"):
        request_from_args(parse("--relyric", str(DATA / "jingyesi.txt"), "--keep-theme", "--content", "秋",
                                "--strength", "3", "--strength", "1", "--strength", "2"))
    with pytest.raises(cli.TemplateError, match="are for --relyric"):
        request_from_args(parse("--form", "七绝", "--keep-theme"))


# --- a model without content steering ------------------------------------------------------------

class PlainEngine:
    """A stand-in for a model folder without the content-steering block."""
    backend_name = "onnxruntime-cpu (int8)"
    backend_note = ""
    supports_content = False

    def __init__(self):
        self.requests = []

    def generate(self, req):
        self.requests.append(req)
        return []


@pytest.fixture
def plain_engine(monkeypatch):
    from songwriter.engine import service

    engine = PlainEngine()
    monkeypatch.setattr(service.Engine, "load", classmethod(lambda cls, *a, **k: engine))
    return engine


def test_a_model_without_steering_says_what_it_ignores(plain_engine, stats_file, capsys):
    assert cli.main(["generate", "--form", "七绝", "--content", "明月", "-n", "1"]) == 0
    assert "note: --content is ignored" in capsys.readouterr().err
    assert cli.main(["generate", "--form", "七绝", "--plan", "明月", "--plan-stats", str(stats_file),
                     "-n", "1"]) == 0
    got = capsys.readouterr()
    assert "  1  明月" in got.out and "note: --plan is ignored" in got.err
    assert plain_engine.requests[-1].line_content[0] == "明月"
    assert cli.main(["generate", "--relyric", str(DATA / "molihua.txt"), "-n", "1"]) == 0
    err = capsys.readouterr().err
    assert "the song's theme" in err and "--no-keep-theme" in err
    assert cli.main(["generate", "--relyric", str(DATA / "molihua.txt"), "--content", "月", "-n", "1"]) == 0
    assert "--content and the song's theme (on by default" in capsys.readouterr().err
    assert cli.main(["generate", "--relyric", str(DATA / "molihua.txt"), "--keep-theme", "-n", "1"]) == 0
    assert "note: --keep-theme is ignored" in capsys.readouterr().err
    assert cli.main(["generate", "--relyric", str(DATA / "molihua.txt"), "--no-keep-theme", "-n", "1"]) == 0
    assert "ignored" not in capsys.readouterr().err

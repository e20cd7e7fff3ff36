import json
import subprocess
import sys

from conftest import DATA

from songwriter.cli import main


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_template_named_cipai(capsys):
    code, out, _ = run(capsys, "template", "鹧鸪天")
    assert code == 0
    body = [ln for ln in out.splitlines() if ln and not ln.startswith("#")]
    assert [len(ln.split("@")[0]) - 1 for ln in body] == [7, 7, 7, 7, 3, 3, 7, 7, 7]


def test_template_qilv_json(capsys):
    code, out, _ = run(capsys, "template", "七律", "--json")
    data = json.loads(out)
    assert code == 0 and len(data["lines"]) == 8 and data["tone_system"] == "classical"


def test_template_from_lyrics_and_lrc(capsys):
    code, out, _ = run(capsys, "template", "--from-lyrics", str(DATA / "molihua.txt"))
    assert code == 0 and out.count("@A") == 7
    code, out, _ = run(capsys, "template", "--from-lrc", str(DATA / "molihua.lrc"))
    assert code == 0 and "[00:05.10]" in out


def test_check_exit_status(capsys, tmp_path):
    code, out, _ = run(capsys, "check", "--form", "五绝", str(DATA / "dengguanquelou.txt"))
    assert code == 0 and "fits the template" in out
    bad = tmp_path / "bad.txt"
    bad.write_text("白云依山尽，\n黄河入海流。\n欲穷千里目，\n更上一层楼。\n", encoding="utf-8")
    code, out, _ = run(capsys, "check", "--form", "五绝", str(bad), "--json")
    assert code == 1 and json.loads(out)["lines"][0]["tones"] is False


def test_bad_input_exits_2_with_a_message(capsys, tmp_path):
    code, _, err = run(capsys, "check", "--form", "七决", str(DATA / "shanxing.txt"))
    assert code == 2 and "unknown form" in err
    code, _, err = run(capsys, "check", "--form", "七绝", str(tmp_path / "missing.txt"))
    assert code == 2 and "no such file" in err
    (tmp_path / "e.txt").write_text("")
    code, _, err = run(capsys, "check", "--form", "七绝", str(tmp_path / "e.txt"))
    assert code == 2 and "empty" in err
    code, _, err = run(capsys, "template", "--notation", "，__")
    assert code == 2 and "line 1" in err
    code, _, err = run(capsys, "check", "--form", "七绝", "--rhyme-system", "klingon", str(DATA / "shanxing.txt"))
    assert code == 2 and "xinyun" in err


def test_kind_option_sets_the_register_for_the_templates_language(capsys):
    code, out, _ = run(capsys, "template", "Common metre")
    assert code == 0 and "# kind: hymn" in out
    code, out, _ = run(capsys, "template", "Common metre", "--kind", "Poem")
    assert code == 0 and "# kind: poem" in out
    code, _, err = run(capsys, "template", "七绝", "--kind", "hymn")
    assert code == 2 and "a Chinese piece is one of shi, ci, qu, lyric, poem" in err


def test_forms_search(capsys):
    code, out, _ = run(capsys, "forms", "sonnet")
    assert code == 0 and "Petrarchan sonnet" in out


def test_console_entry_point_runs():
    result = subprocess.run([sys.executable, "-m", "songwriter", "template", "七绝"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and "@A" in result.stdout


def test_a_reader_that_goes_away_ends_the_command_quietly():
    """`songwriter forms | head`: the pipe closes before the output is written; the command stops
    as a Unix tool does (status 128 + SIGPIPE), with no traceback."""
    for argv in (["forms"], ["template", "鹧鸪天"]):
        proc = subprocess.Popen([sys.executable, "-m", "songwriter", *argv],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        proc.stdout.close()          # the reader is gone before the first line is written
        err = proc.stderr.read().decode("utf-8", "replace")
        assert proc.wait(timeout=60) == 141, err
        assert err == ""

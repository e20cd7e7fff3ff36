"""Hostile input (issue 14): each class of input that once ended in a traceback now gets a clear
one-line error naming what is wrong (exit 2 on the command line), or the right answer."""

import json

import pytest

from songwriter import document as D
from songwriter.cli import main
from songwriter.engine.api import GenerationRequest, model_facts, read_manifest
from songwriter.engine.errors import GenerationError, ModelLoadError
from songwriter.forms import named_form
from songwriter.template import from_dict, to_dict
from songwriter.validate import Fields, ValidationError, confined_path, parse_json


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def one_line_error(err: str) -> str:
    lines = [x for x in err.splitlines() if x.strip()]
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


def project(**changes) -> dict:
    doc = D.new_document(named_form("五绝"), title="t")
    doc.set_text("床前明月光，\n疑是地上霜。\n举头望明月，\n低头思故乡。")
    doc.add_candidates([D.CandidateRecord(text=doc.text, lines=list(doc.lines), score=-1.0)])
    data = doc.to_dict()
    data["original"] = {"kind": "lrc", "text": "x", "lines": [{"text": "x", "time": 1.0}]}
    for path, value in changes.items():
        target = data
        keys = path.split("/")
        for k in keys[:-1]:
            target = target[int(k)] if isinstance(target, list) else target[k]
        target[int(keys[-1]) if isinstance(target, list) else keys[-1]] = value
    return data


# --- project and template JSON: validated before use -------------------------------------------

WRONG_FIELDS = [
    ("template/lines/0/rhyme", 1, "template.lines[0].rhyme: expected a rhyme label"),
    ("template/lines/0/stanza", None, "template.lines[0].stanza: expected a whole number"),
    ("template/meta", [1], "template.meta: expected an object"),
    ("template/rhyme_system", 7, "template.rhyme_system: expected a string"),
    ("template/lines/0/slots/0/span", True, "span: expected a whole number"),
    ("candidates/0/regenerated", [True], "candidates[0].regenerated[0]: expected a whole number"),
    ("candidates/0/text", {}, "candidates[0].text: expected a string"),
    ("candidates/0/score", "high", "candidates[0].score: expected a finite number"),
    ("original/lines/0/time", -5, "original.lines[0].time: expected a finite number from 0"),
    ("content", [1], "content[0]: expected a string"),
    ("strength", [], "strength: expected a finite number"),
]


@pytest.mark.parametrize("path, value, message", WRONG_FIELDS)
def test_a_wrong_field_is_named_by_export_and_check(capsys, tmp_path, path, value, message):
    p = tmp_path / "x.song"
    p.write_text(json.dumps(project(**{path: value})), "utf-8")
    code, _, err = run(capsys, "export", str(p), "-o", str(tmp_path / "x.txt"))
    assert code == 2 and message in one_line_error(err)
    if path.startswith("template/"):
        (tmp_path / "poem.txt").write_text("床前明月光，", "utf-8")
        code, _, err = run(capsys, "check", "--template", str(p), str(tmp_path / "poem.txt"))
        assert code == 2 and message in one_line_error(err)


@pytest.mark.parametrize("raw, message", [
    ('{"lines": [{"slots": [{}], "time": NaN}]}', "NaN is not a number JSON allows"),
    ('{"lines": [{"slots": [{}], "time": Infinity}]}', "Infinity is not a number JSON allows"),
    ('{"meta": ' + "[" * 50_000 + "]" * 50_000 + "}", "nested too deeply"),
    ('{"lines": ' + "[" * 40 + "]" * 40 + "}", "nested too deeply"),
])
def test_json_that_no_reader_accepts(capsys, tmp_path, raw, message):
    p = tmp_path / "t.json"
    p.write_text(raw, "utf-8")
    (tmp_path / "poem.txt").write_text("床前明月光，", "utf-8")
    code, _, err = run(capsys, "check", "--template", str(p), str(tmp_path / "poem.txt"))
    assert code == 2 and message in one_line_error(err)


def test_lrc_export_of_a_project_whose_time_is_nan_is_refused_when_read(tmp_path, capsys):
    p = tmp_path / "x.song"
    p.write_text(json.dumps(project()).replace('"time": 1.0', '"time": NaN'), "utf-8")
    code, _, err = run(capsys, "export", str(p), "-o", str(tmp_path / "x.lrc"))
    assert code == 2 and "NaN" in one_line_error(err)


def test_a_valid_project_still_round_trips():
    doc = D.Document.from_dict(project())
    assert D.Document.from_dict(doc.to_dict()).to_dict() == doc.to_dict()
    t = named_form("鹧鸪天")
    assert to_dict(from_dict(to_dict(t))) == to_dict(t)


# --- arguments: checked before they reach the decoder --------------------------------------------

@pytest.mark.parametrize("argv, message", [
    (["check", "--form", "", "poem.txt"], "no form name given"),
    (["generate", "--form", "五绝", "--temperature", "nan"], "temperature must be"),
    (["generate", "--form", "五绝", "--temperature", "inf"], "temperature must be"),
    (["generate", "--form", "五绝", "--seed", "-1"], "seed must be"),
    (["generate", "--form", "五绝", "-n", "0"], "n must be"),
    (["generate", "--form", "五绝", "--top-p", "nan"], "top-p must be"),
    (["generate", "--form", "五绝", "--rhyme-system", "klingon"], "unknown rhyme system"),
    (["generate", "--form", ""], "no form name given"),
])
def test_bad_options_fail_at_once_in_one_line(capsys, tmp_path, monkeypatch, argv, message):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "poem.txt").write_text("床前明月光，", "utf-8")

    def no_model(*a, **k):
        raise AssertionError("the model was loaded before the options were checked")

    monkeypatch.setattr("songwriter.engine.service.Engine.load", no_model)
    code, _, err = run(capsys, *argv)
    assert code == 2 and message in one_line_error(err)


def test_the_facade_checks_requests_too():
    for bad in ({"temperature": float("inf")}, {"seed": -1}, {"n": 65}, {"top_k": -1}, {"strength": float("nan")},
                {"content": [1]}, {"n": True}):
        with pytest.raises(GenerationError):
            GenerationRequest(template=named_form("五绝"), **bad).check()
    GenerationRequest(template=named_form("五绝"), temperature=0, seed=0).check()


def test_backend_cuda_without_cuda_is_a_clear_refusal(monkeypatch):
    from songwriter.engine import service

    monkeypatch.setattr(service, "_torch_cuda_possible", lambda: False)
    with pytest.raises(ModelLoadError, match="torch cannot use a CUDA GPU here"):
        service.Engine.load(backend="cuda")


def test_a_manifest_with_wrong_fields_is_refused_by_name(tmp_path):
    good = {"name": "m", "version": "1", "languages": ["zh"], "vocab_sha256": "x", "format_version": 1}
    for change, message in [({"languages": 5}, "languages: expected a list"),
                            ({"languages": ["xx"]}, "expected codes from zh, en"),
                            ({"supports_content": "yes"}, "supports_content: expected true or false"),
                            ({"name": 3}, "name: expected a string")]:
        (tmp_path / "manifest.json").write_text(json.dumps({**good, **change}), "utf-8")
        with pytest.raises(ModelLoadError, match=message):
            read_manifest(tmp_path)
        assert message in model_facts(tmp_path).error
    (tmp_path / "manifest.json").write_text(json.dumps(good), "utf-8")
    assert model_facts(tmp_path).languages == ("zh",)


def test_onnx_json_may_not_name_files_outside_the_model_folder(tmp_path):
    from songwriter.engine.onnx_backend import read_onnx_manifest

    for name in ("../outside.onnx", "/etc/passwd", "a/../../b.onnx", "."):
        (tmp_path / "onnx.json").write_text(json.dumps({"files": {"encoder": name}}), "utf-8")
        with pytest.raises(ModelLoadError, match="outside the folder"):
            read_onnx_manifest(tmp_path)
    (tmp_path / "onnx.json").write_text(json.dumps({"files": {"encoder": "encoder.onnx"}}), "utf-8")
    assert read_onnx_manifest(tmp_path)["files"] == {"encoder": "encoder.onnx"}


# --- sizes: refused or capped ------------------------------------------------------------------

def test_a_poem_card_taller_than_the_cap_is_refused(tmp_path):
    from songwriter.export import ExportError, export

    doc = D.new_document(named_form("五绝"))
    doc.set_text("床" * 200_000)
    with pytest.raises(ExportError, match="too long for a card"):
        export(doc, tmp_path / "x.png")
    assert not (tmp_path / "x.png").exists()


def test_a_long_line_is_checked_as_too_long(capsys, tmp_path):
    (tmp_path / "long.txt").write_text("床" * 50_000, "utf-8")
    code, out, _ = run(capsys, "check", "--form", "五绝", str(tmp_path / "long.txt"))
    assert code == 1 and "does not fit" in out


# --- the validation layer itself -----------------------------------------------------------------

def test_fields_name_the_field_and_what_was_expected():
    f = Fields({"n": True, "x": 1.5, "s": "abc", "l": [1, "a"]}, "thing")
    with pytest.raises(ValidationError, match=r"^thing.n: expected a whole number from 0 to 9, got true$"):
        f.integer("n", lo=0, hi=9)
    with pytest.raises(ValidationError, match=r"thing.missing: expected a finite number, got nothing"):
        f.number("missing")
    with pytest.raises(ValidationError, match=r"thing.l\[1\]: expected a whole number"):
        f.integers("l")
    with pytest.raises(ValidationError, match="one of a, b"):
        f.string("s", choices=("a", "b"))
    assert f.number("x", lo=0) == 1.5 and f.string("absent", "d") == "d" and f.strings("absent", []) == []
    with pytest.raises(ValidationError, match="more than the 10 allowed"):
        parse_json("[" + "1," * 10 + "1]", "x", max_bytes=10)
    assert confined_path("m", "a/../b.onnx", "f").name == "b.onnx"

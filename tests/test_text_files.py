"""The text files Songwriter reads (validate.read_text / decode_text): every Unicode encoding
that says what it is with a byte-order mark, UTF-8, and the legacy Chinese and Western ones
(GB18030, Latin-1) told apart; anything else refused with what was tried."""
import subprocess
import sys

import pytest
from conftest import DATA

from songwriter.cli import main
from songwriter.validate import ValidationError, decode_text, read_text

POEM = (DATA / "dengguanquelou.txt").read_text("utf-8")
LATIN = ["Café au lait, the naïve résumé\n", "naïve\n", "Zürich\n", "créée\n", "Élan vital\n",
         "Señor, mañana\n", "Schöne Grüße\n", "Ça va? Très bien — à bientôt!\n"]
CHINESE = [POEM, "這是繁體中文的歌詞，我們一起唱。\n", "我的love在哪里\n", "愛你一萬年\n"]


@pytest.mark.parametrize("encoding", ["utf-8", "utf-8-sig", "utf-16", "utf-16-le", "utf-16-be", "utf-32",
                                      "utf-32-le", "utf-32-be"])
def test_unicode_with_a_byte_order_mark(encoding):
    text = "春风 café\n第二行\n"
    data = (("\ufeff" if encoding[-3:] in ("-le", "-be") else "") + text).encode(encoding)
    assert decode_text(data, "x") == text


@pytest.mark.parametrize("text", LATIN)
def test_latin_1_is_not_read_as_chinese(text):
    """GB18030 reads most of these (naïve as na飗e): the reading is taken for a misread Latin-1."""
    assert decode_text(text.encode("latin-1" if "—" not in text else "cp1252"), "x") == text


@pytest.mark.parametrize("text", CHINESE)
def test_gbk_chinese_is_still_chinese(text):
    assert decode_text(text.encode("gbk"), "x") == text
    assert decode_text(text.encode("gb18030"), "x") == text


@pytest.mark.parametrize("data, needle", [
    (bytes(range(256)) * 4, "it holds NUL bytes"),
    ("AB\n".encode("utf-16-le"), "UTF-16 without a byte-order mark"),
    (b"\xff\xfe\x00\xd8", "starts with a UTF-16 byte-order mark but is not UTF-16 text"),
    (b"\x81\x01\x02\x03\x8d", "tried UTF-8; UTF-16 and UTF-32 with a byte-order mark; GB18030 (GBK); Latin-1"),
])
def test_what_is_no_text_is_refused_with_what_was_tried(data, needle):
    with pytest.raises(ValidationError) as e:
        decode_text(data, "song.bin")
    assert str(e.value).startswith("song.bin: ") and needle in str(e.value)
    assert "re-save it as UTF-8" in str(e.value)


def test_check_template_and_import_read_latin_1_and_utf_16(tmp_path, capsys):
    latin = tmp_path / "latin1.txt"
    latin.write_bytes("Café au lait, the naïve résumé\n".encode("latin-1"))
    wide = tmp_path / "utf16.txt"
    wide.write_text(POEM, encoding="utf-16")        # with its byte-order mark
    assert read_text(latin) == "Café au lait, the naïve résumé\n" and read_text(wide) == POEM
    assert main(["check", "--form", "五绝", str(wide)]) == 0
    assert "fits the template" in capsys.readouterr().out
    assert main(["check", "--notation", "_ _ _ _, _ _ _ _ _", str(latin)]) == 0
    lrc = tmp_path / "song.lrc"
    lrc.write_text("[00:01.00]白日依山尽\n[00:05.00]黄河入海流\n", encoding="utf-16")
    assert main(["template", "--relyric", str(lrc)]) == 0
    assert "[00:05.00]" in capsys.readouterr().out


def test_stdin_is_decoded_as_a_file_is():
    data = "Café au lait, the naïve résumé\n".encode("latin-1")
    result = subprocess.run([sys.executable, "-m", "songwriter", "template", "--from-lyrics", "-", "--json"],
                            input=data, capture_output=True, timeout=60)
    assert result.returncode == 0, result.stderr.decode()
    assert b'"lang": "en"' in result.stdout

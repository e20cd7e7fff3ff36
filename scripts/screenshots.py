"""The user guide's screenshots (docs/screenshots/), made with the shipped model: every panel, in
the English and the Chinese interface, at 1100x700 and 1600x1000.

    QT_QPA_PLATFORM=offscreen python scripts/screenshots.py [--out docs/screenshots] [--model models/zh]

Each scene starts from a fresh window with settings of its own (nothing of the user's is read or
written) and a fixed seed, so the same model gives the same pictures:

    write     a 七绝 with 春风 locked, generated; Form, Candidates, Rhymes and Words at a rhyme slot
    ci        a 鹧鸪天, generated; History and Steering
    steering  a 七绝 about 明月 故乡: a content entry, the per-line plan proposed for the topic, generated;
              the Steering panel steering the generation (the shipped model has its block)
    relyric   茉莉花 (a folk song) imported as LRC and given new words; Original Song
    sonnet    a Shakespearean sonnet being written, the words that rhyme with line 1 (without an
              English model Generate says so, and the words come from CMUdict)
    melody    送别 (tests/data/melody/songbie.musicxml) imported as a melody and given words with two
              characters changed to show two 倒字 and a weak fit; the fourth line's 笛 lit as if
              playing, the words for its slot
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

SIZES = [(1100, 700), (1600, 1000)]
SEED = 7
# 茉莉花, a folk song in the public domain; the times are made up for the picture
JASMINE = ("[ti:茉莉花]\n[00:01.00]好一朵美丽的茉莉花\n[00:06.00]好一朵美丽的茉莉花\n[00:11.00]芬芳美丽满枝桠\n"
           "[00:15.00]又香又白人人夸\n[00:19.00]让我来将你摘下\n[00:23.00]送给别人家\n[00:27.00]茉莉花呀茉莉花\n")
# 送别 (李叔同, public domain) as the fixture's melody; 雨 for 外 and 小花开满天 for 芳草碧连天: two 倒字
SONGBIE = ROOT / "tests" / "data" / "melody" / "songbie.musicxml"
SONGBIE_WORDS = ["长亭雨，", "古道边，", "小花开满天。", "晚风拂柳笛声残，", "夕阳山外山。", "天之涯，", "地之角，",
                 "知交半零落。", "一壶浊酒尽余欢，", "今宵别梦寒。"]
# Sonnet 18 (Shakespeare, public domain), the quatrain the picture shows written
SONNET = ["Shall I compare thee to a summer's day?", "Thou art more lovely and more temperate:",
          "Rough winds do shake the darling buds of May,", "And summer's lease hath all too short a date;"]


def wait(app, cond, seconds: float) -> None:
    from PySide6.QtCore import QEventLoop

    end = time.monotonic() + seconds
    while time.monotonic() < end and not cond():
        app.processEvents(QEventLoop.AllEvents, 50)
        time.sleep(0.01)


def fresh_window(app, model: str, size: tuple[int, int]):
    from PySide6.QtCore import QSettings

    from songwriter.ui import settings
    from songwriter.ui.mainwindow import MainWindow

    home = tempfile.mkdtemp(prefix="songwriter-shots-")
    QSettings.setPath(QSettings.IniFormat, QSettings.UserScope, home)
    os.environ["SONGWRITER_DATA_DIR"] = str(Path(home) / "data")
    settings.put("seed", SEED)
    win = MainWindow(model_dir=model, autosave_seconds=3600)
    win.screenshot_mode = True
    win.resize(*size)
    win.show()
    wait(app, lambda: False, 0.3)
    return win


def generate(app, win) -> None:
    win.action_generate()
    wait(app, lambda: not win.busy, 180)
    if not win.doc.candidates:
        raise SystemExit("the engine wrote no candidates: " + win.statusBar().currentMessage())


def suggest_at(app, win, line: int, slot: int) -> None:
    """The words for a slot, once the engine has answered (or said it cannot)."""
    from songwriter.ui.engine_host import LOADING
    from songwriter.ui.i18n import tr

    win.view.setFocus()
    win.view.set_cursor(line, slot)
    win.suggestions.update_suggestions(load=True)
    wait(app, lambda: win.engine_host.state != LOADING, 120)
    win.suggestions.update_suggestions()
    pending = (tr("Asking the engine…"), tr("Finding the words that fit…"))
    wait(app, lambda: win.words_panel.note.text() not in pending, 60)


def scene_write(app, win) -> None:
    win.use_form("七绝")     # a new window starts in an English form once an English model is installed
    win.view.setFocus()
    win.session.set_title("春望")
    win.view.set_cursor(0, 0)
    win.type_chars("春风")
    win.toggle_lock([(0, 0), (0, 1)])
    generate(app, win)
    suggest_at(app, win, 1, 6)


def scene_ci(app, win) -> None:
    win.use_form("鹧鸪天")
    generate(app, win)
    win.docks["history"].raise_()
    win.docks["steering"].raise_()
    win.view.setFocus()
    win.view.set_cursor(0, 0)


def scene_steering(app, win) -> None:
    from PySide6.QtWidgets import QWidget

    from songwriter.session import load_plan_stats

    win.use_form("七绝")
    win.view.setFocus()
    win.session.set_title("月夜")
    win.session.add_entry("秋夜 思乡", strength=1.0)
    win.say(win.session.propose_plan(load_plan_stats(win.engines.folder_for("zh")), "明月 故乡"))
    generate(app, win)
    win.docks["steering"].show()
    win.docks["steering"].raise_()
    win.view.setFocus()
    wait(app, lambda: False, 0.3)
    area = win.docks["steering"].widget()
    area.ensureWidgetVisible(win.steering_panel.plan_box, 0, 0)   # the plan in view
    bar = area.verticalScrollBar()
    if bar.value():     # scrolled: to the next part's top, so no line of text is cut at the panel's top
        tops = [c.y() for c in win.steering_panel.findChildren(QWidget) if c.parent() is win.steering_panel]
        bar.setValue(min([y for y in tops if y >= bar.value()] + [bar.maximum()]))


def scene_steering_sonnet(app, win) -> None:
    """An English sonnet on "the sea at night": the English model leans by its word associations."""
    from songwriter.session import load_plan_stats

    win.use_form("Shakespearean sonnet")
    win.view.setFocus()
    win.session.add_entry("the sea at night")
    win.say(win.session.propose_plan(load_plan_stats(win.engines.folder_for("en")), "the sea at night"))
    generate(app, win)
    win.docks["steering"].show()
    win.docks["steering"].raise_()
    win.view.setFocus()


def scene_relyric(app, win) -> None:
    win.files.import_song(JASMINE, "lrc", "茉莉花.lrc")
    generate(app, win)
    win.docks["original"].raise_()
    suggest_at(app, win, 0, 0)


def scene_sonnet(app, win) -> None:
    win.use_form("Shakespearean sonnet")
    for i, text in enumerate(SONNET):
        win.set_line_text(i, text)
    win.toggle_line_lock([0])
    suggest_at(app, win, 2, 8)         # May: the words that rhyme with day


def scene_melody(app, win) -> None:
    if not win.files.import_melody_file(str(SONGBIE)):
        raise SystemExit("could not import " + str(SONGBIE))
    for i, text in enumerate(SONGBIE_WORDS):
        win.set_line_text(i, text)
    win.run_checks()
    suggest_at(app, win, 3, 4)         # 笛: the words the engine ranks for the slot
    win.view.set_playing((3, 4))       # lit as Play lights the syllable being sung


SCENES = {"write": scene_write, "ci": scene_ci, "steering": scene_steering, "steering-sonnet": scene_steering_sonnet,
          "relyric": scene_relyric, "sonnet": scene_sonnet, "melody": scene_melody}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(ROOT / "docs" / "screenshots"))
    ap.add_argument("--model", default=str(ROOT / "models" / "zh"))
    ap.add_argument("--only", nargs="*", choices=sorted(SCENES), help="these scenes only")
    args = ap.parse_args(argv)

    from songwriter.ui.app import make_app
    from songwriter.ui.i18n import set_language

    app = make_app(["songwriter"])
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for name, scene in SCENES.items():
        if args.only and name not in args.only:
            continue
        for lang in ("en", "zh"):
            set_language(lang)
            for size in SIZES:
                win = fresh_window(app, args.model, size)
                scene(app, win)
                wait(app, lambda: False, 0.6)
                path = out / f"{name}-{lang}-{size[0]}x{size[1]}.png"
                win.grab().save(str(path), "PNG")
                print(f"wrote {path}: {win.statusBar().currentMessage()}", file=sys.stderr)
                win.session.set_clean()
                win.close()
                win.deleteLater()
                wait(app, lambda: False, 0.1)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Starting the app: fonts, language, the window, crash recovery; and --screenshot."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="songwriter-app", description="Songwriter: write lyrics and poems to a form.")
    p.add_argument("project", nargs="?", help="a .song project to open")
    p.add_argument("--open", dest="open_", metavar="PROJECT.song", help="a .song project to open")
    p.add_argument("--screenshot", metavar="FILE", help="render the main window offscreen to a PNG and exit")
    p.add_argument("--lang", choices=["en", "zh"], help="UI language for this run")
    p.add_argument("--model", metavar="DIR", help="a model folder, used for the languages its manifest lists "
                   "(default: the installed model of each language, models/zh and models/en)")
    p.add_argument("--backend", default=None, help="engine backend: auto, onnx or torch")
    p.add_argument("--size", default="1400x900", type=window_size,
                   help="window size for --screenshot, WIDTHxHEIGHT (e.g. 1100x700, 1400x900, 1600x1000)")
    p.add_argument("--generate", action="store_true", help="with --screenshot: generate before the shot")
    return p.parse_args(argv)


SIZE_LIMITS = (320, 8192)      # the least and the most a --screenshot window may be, each way


def window_size(text: str) -> tuple[int, int]:
    """``--size``: WIDTHxHEIGHT in pixels; anything else is refused with what would do."""
    lo, hi = SIZE_LIMITS
    try:
        w, h = (int(x) for x in text.lower().split("x"))
    except ValueError:
        w = h = -1
    if not (lo <= w <= hi and lo <= h <= hi):
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a window size: give WIDTHxHEIGHT in pixels, each {lo} to {hi}, "
            "e.g. 1100x700, 1400x900 or 1600x1000")
    return w, h


def make_app(argv: list[str]):
    from PySide6.QtWidgets import QApplication

    from songwriter.export.fonts import font, register_fonts

    from . import settings

    app = QApplication.instance() or QApplication(argv[:1] or ["songwriter"])
    app.setOrganizationName(settings.ORG)
    app.setApplicationName(settings.APP)
    app.setApplicationDisplayName("Songwriter")
    register_fonts()
    f = font(10.5)
    app.setFont(f)
    return app


def choose_language(forced: str | None) -> None:
    from . import settings
    from .i18n import language, set_language, system_language

    set_language(forced or settings.get("language") or system_language())
    install_qt_translations(language())


_qt_translator = None      # Qt's own words (OK, Cancel, Close) in the UI's language, while installed


def install_qt_translations(lang: str) -> bool:
    """Qt's own words in the UI's language: the standard buttons (OK, Cancel, Close, Save), the
    file dialogs and the text boxes' menus come from Qt, which ships their Chinese (qtbase_zh_CN.qm
    in its translations folder). False when there is nothing to load (English, or no file)."""
    global _qt_translator
    from PySide6.QtCore import QCoreApplication, QLibraryInfo, QLocale, QTranslator

    app = QCoreApplication.instance()
    if app is None:
        return False
    if _qt_translator is not None:
        app.removeTranslator(_qt_translator)
        _qt_translator = None
    if lang != "zh":
        return False
    translator = QTranslator(app)
    folder = QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)
    if not translator.load(QLocale(QLocale.Chinese, QLocale.China), "qtbase", "_", folder):
        return False
    app.installTranslator(translator)
    _qt_translator = translator
    return True


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv if argv is None else argv)
    args = parse_args(argv[1:])
    if args.screenshot and not os.environ.get("QT_QPA_PLATFORM"):
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
    app = make_app(argv)
    project = args.open_ or args.project
    from . import settings

    if args.screenshot:     # a picture of the window: the user's settings are read, never changed
        settings.keep_unchanged()
    try:
        choose_language(args.lang)
        from .mainwindow import MainWindow

        window = MainWindow(model_dir=args.model, backend=args.backend)
        if args.screenshot:
            return screenshot(app, window, args.screenshot, project, args.size, args.generate)
    finally:
        if args.screenshot:
            settings.keep_unchanged(False)
    window.show()
    if not window.files.offer_recovery() and project:
        window.files.open_path(project)
    return app.exec()


def screenshot(app, window, out: str, project: str | None, size: tuple[int, int], generate: bool) -> int:
    w, h = size
    window.screenshot_mode = True     # no dialog may wait for an answer: errors go to stderr
    window.autosave_timer.stop()
    window.resize(w, h)
    window.show()
    if project and not window.files.open_path(project):
        return 2
    window.view.setFocus()
    window.run_checks()
    if generate:
        window.start_generation(None)
        _wait(app, lambda: not window.busy, 120_000)
    window.view.set_cursor(0, 0)
    window.suggestions.update_suggestions()
    _wait(app, lambda: False, 600)
    pix = window.grab()
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    ok = pix.save(out, "PNG")
    window.session.set_clean()
    window.session.recovered = False
    window.close()
    print(f"wrote {out}" if ok else f"could not write {out}", file=sys.stderr)
    return 0 if ok else 1


def _wait(app, cond, ms: int) -> None:
    import time

    from PySide6.QtCore import QEventLoop

    end = time.monotonic() + ms / 1000
    while time.monotonic() < end and not cond():
        app.processEvents(QEventLoop.AllEvents, 50)
        time.sleep(0.01)

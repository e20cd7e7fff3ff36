"""scripts/qt_system_libs.py: the package that holds each library Qt's plugin may miss."""

import importlib.util
from pathlib import Path

spec = importlib.util.spec_from_file_location(
    "qt_system_libs", Path(__file__).resolve().parents[1] / "scripts" / "qt_system_libs.py")
qt_system_libs = importlib.util.module_from_spec(spec)
spec.loader.exec_module(qt_system_libs)


def test_debian_package_names_follow_the_soname():
    name = qt_system_libs.debian_package
    assert name("libxcb-cursor.so.0") == "libxcb-cursor0"
    assert name("libxcb-icccm.so.4") == "libxcb-icccm4"
    assert name("libxkbcommon-x11.so.0") == "libxkbcommon-x11-0"
    assert name("libEGL.so.1") == "libegl1"
    assert name("libdbus-1.so.3") == "libdbus-1-3"
    assert name("libglib-2.0.so.0") == "libglib2.0-0"


def test_nothing_missing_for_the_offscreen_platform_the_tests_use():
    assert qt_system_libs.missing_libraries("offscreen") == []

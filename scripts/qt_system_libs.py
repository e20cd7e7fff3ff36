"""Make sure the system libraries Qt needs are there before the app or the tests start.

    python scripts/qt_system_libs.py [xcb|offscreen] [--dry-run]

The PySide6 wheel brings Qt itself but not the system libraries its platform plugin links
(libxcb-cursor0 and friends on a desktop, libEGL and fontconfig everywhere). This lists what the
plugin cannot find (``ldd``), then installs the Debian/Ubuntu packages that hold them when it can
(root, or sudo without a password, and apt-get), or stops with the exact command to run. Exit 0
when nothing is missing (or not on Linux), 1 when something still is.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

# Library file -> Debian package where the package name does not follow from the file's name.
PACKAGE_OF = {
    "libglib-2.0.so.0": "libglib2.0-0",
    "libgthread-2.0.so.0": "libglib2.0-0",
    "libgobject-2.0.so.0": "libglib2.0-0",
    "libfreetype.so.6": "libfreetype6",
    "libpng16.so.16": "libpng16-16",
    "libGLX.so.0": "libglx0",
    "libOpenGL.so.0": "libopengl0",
}


def debian_package(soname: str) -> str:
    """Debian names a shared library's package after its soname: libxcb-icccm.so.4 ->
    libxcb-icccm4, libxkbcommon-x11.so.0 -> libxkbcommon-x11-0 (a dash when the name ends in a digit)."""
    if soname in PACKAGE_OF:
        return PACKAGE_OF[soname]
    m = re.fullmatch(r"(.+?)\.so\.(\d+)(?:\..*)?", soname)
    if not m:
        return soname
    name, version = m.group(1).lower(), m.group(2)
    return f"{name}-{version}" if name[-1].isdigit() else f"{name}{version}"


def qt_files(platform: str) -> list[Path]:
    spec = importlib.util.find_spec("PySide6")
    if spec is None or not spec.origin:
        return []
    qt = Path(spec.origin).parent / "Qt"
    files = [qt / "plugins" / "platforms" / f"libq{platform}.so", qt / "lib" / "libQt6Gui.so.6",
             qt / "lib" / "libQt6Widgets.so.6"]
    if platform == "xcb":
        files.append(qt / "lib" / "libQt6XcbQpa.so.6")
    return [f for f in files if f.exists()]


def missing_libraries(platform: str) -> list[str]:
    missing: set[str] = set()
    for f in qt_files(platform):
        try:
            out = subprocess.run(["ldd", str(f)], capture_output=True, text=True, timeout=60).stdout
        except (OSError, subprocess.SubprocessError):
            return []
        missing.update(line.split()[0] for line in out.splitlines() if "=> not found" in line)
    return sorted(missing)


def main(argv: list[str]) -> int:
    dry_run = "--dry-run" in argv
    args = [a for a in argv if not a.startswith("--")]
    platform = args[0] if args else os.environ.get("QT_QPA_PLATFORM", "xcb") or "xcb"
    if not sys.platform.startswith("linux") or not shutil.which("ldd"):
        return 0
    missing = missing_libraries(platform)
    if not missing:
        return 0
    packages = sorted({debian_package(m) for m in missing})
    print(f"Qt's {platform} platform needs system libraries that are missing: {', '.join(missing)}",
          file=sys.stderr)
    apt = shutil.which("apt-get")
    if not apt:
        print("Install them with your system's package manager (on Debian or Ubuntu: "
              f"sudo apt-get install -y {' '.join(packages)}), then run make again.", file=sys.stderr)
        return 1
    if os.geteuid() == 0:
        prefix = []
    elif shutil.which("sudo") and subprocess.run(["sudo", "-n", "true"], capture_output=True).returncode == 0:
        prefix = ["sudo", "-n"]
    else:
        prefix = None
    command = [*(prefix if prefix is not None else ["sudo"]), "apt-get", "install", "-y", "--no-install-recommends", *packages]
    if prefix is None or dry_run:
        print("Install them with:\n    " + " ".join(command) + "\nthen run make again.", file=sys.stderr)
        return 1
    print("Installing: " + " ".join(command), file=sys.stderr)
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    if subprocess.run(command, env=env).returncode != 0:      # the package lists may be stale
        subprocess.run([*prefix, "apt-get", "update"], env=env)
        subprocess.run(command, env=env)
    still = missing_libraries(platform)
    if still:
        print(f"Still missing: {', '.join(still)}. Install the packages that hold them "
              f"(tried: {' '.join(packages)}).", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""The layers of DESIGN.md, checked on the source: the core modules import neither Qt nor
torch, the engine imports torch only where the model is defined, run or exported, and the window
reaches the engine only through its light API (songwriter.engine.api)."""

import ast
import os
import subprocess
import sys
from pathlib import Path

PKG = Path(__file__).resolve().parents[1] / "songwriter"
CORE = ["prosody", "template.py", "forms.py", "lyrics.py", "checks.py", "metrics.py", "document.py",
        "session.py", "recovery.py", "validate.py"]
HEAVY = ("PySide6", "torch", "onnxruntime", "onnx")
# the engine modules that hold or run the torch model (SongNet, its CoCon block; its ONNX export is training-time code:
# train/onnx_export.py); the others are read by the ONNX engine
TORCH_ENGINE = {"model.py", "cocon.py", "torch_backend.py"}
LIGHT_ENGINE = {"songwriter.engine.api", "songwriter.engine.errors", "songwriter.engine.model_folder"}


def imports(path: Path, top_level_only: bool = False) -> set[str]:
    """Absolute module names a file imports (inside functions too, unless top_level_only)."""
    tree = ast.parse(path.read_text("utf-8"))
    nodes = tree.body if top_level_only else ast.walk(tree)
    out = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            out.add(node.module)
            if node.module == "songwriter":
                out |= {f"songwriter.{a.name}" for a in node.names}
    return out


def files(*names: str) -> list[Path]:
    out = []
    for name in names:
        p = PKG / name
        out += sorted(p.rglob("*.py")) if p.is_dir() else [p]
    return out


def is_heavy(module: str) -> bool:
    return module.split(".")[0] in HEAVY


def test_core_modules_import_neither_qt_nor_torch_nor_the_engine():
    bad = {}
    for f in files(*CORE):
        for m in imports(f):
            if is_heavy(m) or m.startswith(("songwriter.ui", "songwriter.train", "songwriter.export")) or (
                    m.startswith("songwriter.engine") and m not in LIGHT_ENGINE):
                bad.setdefault(str(f.relative_to(PKG)), []).append(m)
    assert bad == {}


def test_the_engine_imports_torch_only_where_the_model_is():
    bad = {}
    for f in files("engine"):
        if f.name in TORCH_ENGINE:
            continue
        # a lazy import inside a function (the facade picking the torch backend) is fine
        for m in imports(f, top_level_only=True):
            if m.split(".")[0] == "torch" or m in {"songwriter.engine.model", "songwriter.engine.torch_backend"}:
                bad.setdefault(f.name, []).append(m)
    assert bad == {}
    for light in ("api.py", "errors.py", "model_folder.py"):
        assert not [m for m in imports(PKG / "engine" / light, top_level_only=True)
                    if is_heavy(m) or m.split(".")[0] == "numpy"], light


def test_the_engine_imports_nothing_of_training():
    bad = {f.name: sorted(m for m in imports(f) if m.startswith("songwriter.train") or m == "songwriter.train")
           for f in files("engine")}
    assert {k: v for k, v in bad.items() if v} == {}


def test_the_window_reaches_the_engine_only_through_its_api():
    bad = {}
    for f in files("ui"):
        for m in imports(f):
            if m.split(".")[0] in ("torch", "onnxruntime", "onnx") or m.startswith(("songwriter.train", "songwriter.cli")) or (
                    m.startswith("songwriter.engine") and m != "songwriter.engine.api"):
                bad.setdefault(f.name, []).append(m)
    assert bad == {}


def test_core_modules_load_without_qt_torch_or_onnxruntime():
    modules = sorted({"songwriter." + str(f.relative_to(PKG).with_suffix("")).replace(os.sep, ".")
                      for f in files(*CORE) if f.name != "__init__.py"})
    code = ("import importlib, sys\n"
            f"for m in {modules!r}: importlib.import_module(m)\n"
            "import songwriter.engine.api, songwriter.engine.model_folder\n"
            "from songwriter.checks import check\n"
            "from songwriter.forms import named_form\n"
            "check('白日依山尽，黄河入海流。欲穷千里目，更上一层楼。', named_form('五绝'))\n"
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'PySide6', 'torch', 'onnxruntime', 'onnx'}))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                         env={**os.environ, "PYTHONPATH": str(PKG.parent)})
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]", out.stdout

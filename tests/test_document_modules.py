"""The document is split into songwriter.project (one job per module); songwriter.document keeps
every name the app imports from it, and the package stays in the core layer (no Qt, no torch)."""

import ast
from pathlib import Path

import songwriter.document as D
from songwriter.project import atomic, codec, document, files, layout, line_status, records, schema

PROJECT = Path(__file__).resolve().parents[1] / "songwriter" / "project"


def test_every_name_imported_from_document_is_the_one_its_module_holds():
    homes = {
        schema: ["FORMAT_ID", "SCHEMA_VERSION", "SUFFIX", "HOLE", "MAX_FILE_BYTES", "MAX_TEXT_CHARS",
                 "MAX_CANDIDATES", "MAX_HISTORY", "DocumentError", "now_iso"],
        records: ["CandidateRecord", "HistoryEntry", "Original", "form_signature"],
        layout: ["zh_units", "compose_zh", "WordPlace", "en_word_layout"],
        document: ["Document", "new_document"],
        files: ["load", "save"],
        atomic: ["write_atomic", "remove_stale_temporaries", "process_running", "glob_escape", "TMP_SUFFIX"],
        line_status: ["LineStatus", "line_statuses"],
    }
    for module, names in homes.items():
        for name in names:
            assert getattr(D, name) is getattr(module, name), name
    assert D._app_version is codec.app_version
    assert D.FormChange.__module__ == "songwriter.project.form_edits"


def test_the_project_package_imports_neither_qt_nor_torch_nor_the_ui():
    bad = []
    for path in sorted(PROJECT.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else (
                [node.module] if isinstance(node, ast.ImportFrom) and node.module else [])
            for m in names:
                if m.split(".")[0] in ("PySide6", "torch", "onnxruntime", "onnx") or m.startswith(
                        ("songwriter.ui", "songwriter.engine", "songwriter.train", "songwriter.export")):
                    bad.append(f"{path.name}: {m}")
    assert bad == []

"""A model folder's layout, in one place: the names of its files, the check that the files a
backend needs are there, whether it has ONNX graphs, and the hash that ties the graphs (and the
manifest) to the weights they came from. Light: the ONNX engine reads folders without torch.

    models/zh/
      manifest.json       version, languages, vocabulary hash, data credits (engine.api reads it)
      config.json         the model's shape (engine.model.ModelConfig)
      vocab.json          the vocabulary (engine.vocab)
      model.safetensors   the torch weights (engine.torch_backend)
      onnx.json           what the ONNX graphs were exported from (train.onnx_export)
      encoder.onnx, step.onnx, step.int8.onnx   (a shipped folder: only the step variant it loads,
                          or none when it has the steered step below: plain requests run there)
      cocon.safetensors   the content-steering block, when the model has one (engine.cocon)
      cocon.json          its config, with the sha256 of the model.safetensors it was trained on
      cocon_content(.int8).onnx, step.cocon(.int8).onnx   its ONNX path (onnx.json "cocon")
      word_costs.json     costs on the words (characters) its decoder overuses (engine.word_costs)
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from songwriter.engine.errors import ModelLoadError

MANIFEST = "manifest.json"
CONFIG = "config.json"
VOCAB = "vocab.json"
WEIGHTS = "model.safetensors"
ONNX_MANIFEST = "onnx.json"
ENCODER = "encoder.onnx"
ENCODER_INT8 = "encoder.int8.onnx"        # its embedding lookups and weight MatMuls in int8
STEP = "step.onnx"
STEP_INT8 = "step.int8.onnx"
COCON_WEIGHTS = "cocon.safetensors"
COCON_CONFIG = "cocon.json"
COCON_CONTENT = "cocon_content.onnx"      # contents -> the block's keys/values (ONNX)
COCON_CONTENT_INT8 = "cocon_content.int8.onnx"
STEP_COCON = "step.cocon.onnx"            # the step with the block after layer k (ONNX)
STEP_COCON_INT8 = "step.cocon.int8.onnx"

TORCH_FILES = (WEIGHTS, CONFIG, VOCAB, MANIFEST)
ONNX_FILES = (CONFIG, VOCAB, MANIFEST)      # and the graphs onnx.json names


def require(path: str | Path, names: tuple[str, ...]) -> Path:
    """The folder, when it holds every file named; ModelLoadError naming what is missing."""
    path = Path(path)
    if not path.is_dir():
        raise ModelLoadError(f"no model at {path} (the folder does not exist)")
    for name in names:
        if not (path / name).is_file():
            raise ModelLoadError(f"the model at {path} is incomplete: {name} is missing")
    return path


STEP_GRAPHS = (STEP, STEP_INT8, STEP_COCON, STEP_COCON_INT8)


def has_onnx(model_dir: str | Path) -> bool:
    """The folder has an encoder graph and a step graph. A shipped folder may hold only the
    variant the app loads (``export-onnx --only-default``), int8 or fp32; with a content-steering
    block only the steered step, through which plain requests run too (docs/cocon.md)."""
    d = Path(model_dir)
    return ((d / ONNX_MANIFEST).is_file() and any((d / f).is_file() for f in (ENCODER, ENCODER_INT8))
            and any((d / f).is_file() for f in STEP_GRAPHS))


def has_onnx_content(model_dir: str | Path) -> bool:
    """onnx.json names content-steering graphs (export-onnx of a folder with the block); whether
    they load is the onnxruntime backend's question."""
    import json

    try:
        info = json.loads((Path(model_dir) / ONNX_MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(info, dict) and isinstance(info.get("cocon"), dict)


def file_sha256(path: str | Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()

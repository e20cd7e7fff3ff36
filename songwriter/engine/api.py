"""The engine's light API: what a caller sends (a request), what it gets back (candidates), the
errors it may see, and the facts a model folder states about itself. No heavy imports here (no
numpy, no onnxruntime, no torch), so the session layer, the window and the tests can import it
before, or without, loading the engine; the facade (``engine.service``) does the work.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from songwriter.engine.errors import GenerationCancelled, GenerationError, ModelLoadError

if TYPE_CHECKING:   # only for annotations: metrics imports the prosody tables
    from songwriter.metrics import CheckReport
    from songwriter.template import Template

__all__ = ["Candidate", "GenerationCancelled", "GenerationError", "GenerationRequest", "ModelFacts",
           "ModelLoadError", "default_model_dir", "load_engine", "model_facts"]

MANIFEST = "manifest.json"
MAX_MANIFEST_BYTES = 1_000_000


def default_model_dir() -> Path:
    return Path(__file__).resolve().parents[2] / "models" / "zh"


@dataclass
class GenerationRequest:
    """One call to ``Engine.generate``.

    ``text`` is the current piece, one line per template line (``Document.check_text``: unwritten
    cells are ``_``). With ``lines`` None every unlocked slot is written and the text is not used;
    with ``lines`` given, those lines are written again and every other line is context: what is
    written there is kept (the facade locks it), and what is not yet written is filled around it.
    """
    template: "Template"
    text: str = ""
    lines: list[int] | None = None        # regenerate only these lines (the others are context)
    content: list[str] = field(default_factory=list)
    strength: float = 0.0                 # CoCon steering (only when the model supports content)
    rhyme_system: str | None = None       # an override for the CLI; None: the template's own
    n: int = 8
    seed: int | None = None
    temperature: float = 1.0
    top_k: int = 32
    top_p: float = 0.95


@dataclass
class Candidate:
    text: str
    lines: list[str]
    score: float                          # mean log-probability per position (higher is likelier)
    check: "CheckReport"


@dataclass(frozen=True)
class ModelFacts:
    """What a model folder's manifest says, read without loading the model."""
    path: Path
    name: str = ""
    version: str = ""
    languages: tuple[str, ...] = ()
    data: str = ""                        # the training data and its licences (credits)
    error: str = ""                       # why the manifest could not be read ("" when it was)


def model_facts(model_dir: str | Path | None = None) -> ModelFacts:
    """The manifest of a model folder (the default model when None). Never raises: a folder that
    is missing or whose manifest is unreadable gives facts with ``error`` set."""
    path = Path(model_dir) if model_dir else default_model_dir()
    try:
        raw = (path / MANIFEST).read_bytes()[:MAX_MANIFEST_BYTES + 1]
        if len(raw) > MAX_MANIFEST_BYTES:
            return ModelFacts(path, error=f"{MANIFEST} is larger than {MAX_MANIFEST_BYTES:,} bytes")
        data = json.loads(raw.decode("utf-8"))
    except FileNotFoundError:
        return ModelFacts(path, error=f"no {MANIFEST} in {path}")
    except (OSError, UnicodeDecodeError, ValueError) as e:
        return ModelFacts(path, error=f"{path / MANIFEST} could not be read: {e}")
    if not isinstance(data, dict):
        return ModelFacts(path, error=f"{path / MANIFEST} holds no JSON object")
    langs = data.get("languages", ["zh"])
    if not isinstance(langs, list) or not all(isinstance(x, str) for x in langs):
        return ModelFacts(path, error=f"{path / MANIFEST}: \"languages\" must be a list of language codes")

    def text(key: str) -> str:
        value = data.get(key, "")
        return value if isinstance(value, str) else ""

    return ModelFacts(path, name=text("name"), version=text("version"), languages=tuple(langs),
                      data=text("data"))


def load_engine(model_dir: str | Path | None = None, backend: str = "auto"):
    """Load the engine facade (the heavy imports happen here, in the caller's thread)."""
    from songwriter.engine.service import Engine

    return Engine.load(Path(model_dir) if model_dir else default_model_dir(), backend=backend)

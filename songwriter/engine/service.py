"""The engine facade: the one thing the UI and the CLI call.

    engine = Engine.load()                       # models/zh, best backend available
    cands = engine.generate(GenerationRequest(template=named_form("七绝"), n=8, seed=1))
    cands[0].text, cands[0].check.ok             # every candidate fits: check.ok is True

Nothing is loaded at import time. ``generate`` may run in a worker thread; it reports progress as
(positions done, positions in all) and raises GenerationCancelled when ``cancel`` is set.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable

from songwriter import metrics
from songwriter.engine import encoding as E
from songwriter.engine.errors import GenerationCancelled, GenerationError, ModelLoadError
from songwriter.template import Template, TemplateError, lock_text, syllable_units, text_lines

__all__ = ["Candidate", "Engine", "GenerationCancelled", "GenerationError", "GenerationRequest",
           "ModelLoadError", "default_model_dir"]


def default_model_dir() -> Path:
    return Path(__file__).resolve().parents[2] / "models" / "zh"


@dataclass
class GenerationRequest:
    template: Template
    text: str = ""
    lines: list[int] | None = None        # regenerate only these lines (others fixed = context)
    content: list[str] = field(default_factory=list)
    strength: float = 0.0                 # CoCon steering (a later issue; supports_content False)
    rhyme_system: str | None = None
    n: int = 8
    seed: int | None = None
    temperature: float = 1.0
    top_k: int = 32
    top_p: float = 0.95


@dataclass
class Candidate:
    text: str
    lines: list[str]
    score: float
    check: "metrics.CheckReport"


DISTINCT_ATTEMPTS = 3   # decoding rounds to find n distinct candidates for a tight template
BACKENDS = ("auto", "onnx", "onnx-fp32", "onnx-int8", "torch", "torch-cpu", "cpu", "cuda")


def _torch_cuda_possible() -> bool:
    """Could torch run on a GPU here? Answered without importing torch when it cannot (a CPU
    build, or no torch at all), since importing it costs a second or two of load time."""
    import importlib.util

    try:
        spec = importlib.util.find_spec("torch")
    except (ImportError, ValueError):
        return False
    if spec is None or not spec.origin:
        return False
    try:
        version = (Path(spec.origin).parent / "version.py").read_text(encoding="utf-8")
    except OSError:
        version = ""
    if "cuda" in version and any(line.startswith("cuda") and line.rstrip().endswith("None")
                                 for line in version.splitlines()):
        return False
    try:
        import torch

        return bool(torch.cuda.is_available())
    except Exception:
        return False


def _open_backend(model_dir: Path, backend: str):
    """(backend, vocab, manifest, note) for the name asked for; see Engine.load."""
    if backend not in BACKENDS:
        raise ModelLoadError(f"unknown backend {backend!r}; use one of {', '.join(BACKENDS)}")

    def torch_be(device: str):
        try:
            from songwriter.engine.torch_backend import TorchBackend
        except ImportError as e:
            raise ModelLoadError(f"the torch backend needs torch, which is not installed ({e})") from None
        return TorchBackend.from_dir(model_dir, device)

    def onnx_be(variant: str = "auto", device: str = "auto"):
        try:
            from songwriter.engine.onnx_backend import OnnxBackend
        except ImportError as e:
            raise ModelLoadError(f"the onnxruntime backend needs onnxruntime ({e})") from None
        return OnnxBackend.from_dir(model_dir, variant, device)

    if backend.startswith("onnx"):
        return (*onnx_be(backend[5:] or "auto"), "")
    if backend != "auto":
        device = "cpu" if backend in ("cpu", "torch-cpu") else ("cuda" if backend == "cuda" else "auto")
        return (*torch_be(device), "")
    try:
        from songwriter.engine.onnx_backend import available_providers, has_onnx
    except ImportError:
        available_providers, has_onnx = (lambda: []), (lambda d: False)
    onnx_ok = has_onnx(model_dir)
    if onnx_ok and "CUDAExecutionProvider" in available_providers():
        return (*onnx_be("auto", "cuda"), "")
    if _torch_cuda_possible():
        return (*torch_be("cuda"), "")
    why = f"no ONNX graphs in {model_dir} (run `songwriter export-onnx {model_dir}`)"
    if onnx_ok:
        try:
            return (*onnx_be("auto", "cpu"), "")
        except ModelLoadError as e:
            why = str(e)
    try:
        got = torch_be("cpu")
    except ModelLoadError as e:
        if "needs torch" not in str(e):   # the folder itself is wrong: say so as it is
            raise
        raise ModelLoadError(f"{why}; and {e}") from None
    return (*got, f"running on torch on the CPU, slower: {why}")


class Engine:
    backend_note: str = ""    # why auto chose a slower backend, when it did

    def __init__(self, backend, vocab, manifest: dict, model_dir: Path):
        from songwriter.engine.decode import ProsodyTables

        self.backend = backend
        self.vocab = vocab
        self.manifest = manifest
        self.model_dir = Path(model_dir)
        self.backend_name: str = backend.name
        self.supports_content: bool = bool(manifest.get("supports_content", False))
        self.languages: tuple[str, ...] = tuple(manifest.get("languages", ["zh"]))
        self.tables = ProsodyTables(vocab)
        self._lock = threading.Lock()

    @classmethod
    def load(cls, model_dir: str | Path | None = None, backend: str = "auto") -> "Engine":
        """Backends: ``auto`` (onnxruntime on CUDA, else torch on CUDA, else onnxruntime on the
        CPU, else torch on the CPU with a note), ``onnx`` / ``onnx-fp32`` / ``onnx-int8``,
        ``torch`` / ``torch-cpu`` / ``cpu`` / ``cuda``. The choice is in ``backend_name``."""
        model_dir = Path(model_dir) if model_dir else default_model_dir()
        be, vocab, manifest, note = _open_backend(model_dir, backend)
        engine = cls(be, vocab, manifest, model_dir)
        engine.backend_note = note
        return engine

    # ------------------------------------------------------------------------------------------
    def _prepare(self, request: GenerationRequest) -> Template:
        t = request.template
        if t.lang not in self.languages:
            raise GenerationError(f"this model writes {', '.join(self.languages)}; the template is {t.lang}")
        try:
            t.validate()
        except TemplateError as e:
            raise GenerationError(str(e)) from None
        if request.content and not self.supports_content:
            pass  # content steering is ignored by a model without it (the UI greys it out)
        if request.lines is not None:
            if not request.text.strip():
                raise GenerationError("regenerating some lines needs the current text of the others")
            bad = [i for i in request.lines if not 0 <= i < len(t.lines)]
            if bad:
                raise GenerationError(f"no line {bad[0] + 1}: the template has {len(t.lines)} lines")
            have = text_lines(request.text, t)
            keep = [i for i in range(len(t.lines)) if i not in set(request.lines)]
            for i in keep:
                units = syllable_units(have[i], "zh") if i < len(have) else []
                if len(units) != t.lines[i].syllables:
                    raise GenerationError(f"line {i + 1} is kept as context but its text does not fit the "
                                          f"template ({len(units)} characters, {t.lines[i].syllables} wanted)")
            where = [(i, k) for i in keep for k in range(len(t.lines[i].slots))]
            t = lock_text(t, request.text, where)
        if request.n < 1 or request.n > 64:
            raise GenerationError("n must be between 1 and 64")
        return t

    def generate(self, request: GenerationRequest, progress: Callable[[int, int], None] | None = None,
                 cancel: threading.Event | None = None) -> list[Candidate]:
        from songwriter.engine.decode import Sampling, decode

        template = self._prepare(request)
        try:
            enc = E.encode_template(template, self.vocab)
        except E.EncodingError as e:
            raise GenerationError(str(e)) from None
        system = request.rhyme_system or template.effective_rhyme_system()
        decoded: list[tuple[str, object]] = []   # (text, decoded row), distinct texts
        seen: set[str] = set()
        for attempt in range(DISTINCT_ATTEMPTS):
            missing = request.n - len(seen)
            if missing <= 0:
                break
            # a few spare rows, as duplicates are dropped; a later attempt (when a tight template
            # gave too few distinct rows) samples afresh from a seed derived from the request's
            seed = request.seed if request.seed is None or attempt == 0 else request.seed + 7919 * attempt
            sampling = Sampling(n=missing + (missing + 3) // 4, seed=seed, temperature=request.temperature,
                                top_k=request.top_k, top_p=request.top_p)
            with self._lock:
                rows = decode(self.backend, self.vocab, self.tables, template, enc, sampling,
                              request.rhyme_system, progress, cancel)
            for d in sorted(rows, key=lambda d: -d.score):
                text = "\n".join(d.lines)
                if text not in seen and len(seen) < request.n:
                    seen.add(text)
                    decoded.append((text, d))
            if request.temperature <= 0:
                break   # greedy rows do not change with the seed
        # fewer than n only when the template leaves fewer distinct texts than asked for
        return [Candidate(text=text, lines=d.lines, score=d.score, check=metrics.check(text, template, system))
                for text, d in sorted(decoded, key=lambda td: -td[1].score)]

    def suggest(self, template: Template, text: str, line: int, slot: int, k: int = 20) -> list[tuple[str, float]]:
        """Characters that fit (line, slot) — tone, and rhyme with the label's other lines —
        ranked by the model's log-prob in the context of the rest of the text."""
        from songwriter.engine.decode import suggest

        if not 0 <= line < len(template.lines) or not 0 <= slot < len(template.lines[line].slots):
            raise GenerationError(f"no syllable {slot + 1} on line {line + 1}")
        have = text_lines(text, template) if text.strip() else []
        # everything the text fills, except the slot asked about, is given
        where = [(i, s) for i in range(min(len(have), len(template.lines)))
                 for s in range(len(template.lines[i].slots)) if (i, s) != (line, slot)
                 and len(syllable_units(have[i], "zh")) > s]
        t = lock_text(template, text, where) if have else template.copy()
        target = t.lines[line].slots[slot]
        t.lines[line].slots[slot] = replace(target, lock=None)
        enc = E.encode_template(t, self.vocab)
        position = int(((enc.slot_line == line) & (enc.slot_index == slot)).nonzero()[0][0])
        ids = enc.given.copy()
        ids[ids == self.vocab.fill] = self.vocab.unk
        group_lines = None
        if t.lines[line].rhyme:
            group_lines = [have[i] for i in t.rhyme_groups()[t.lines[line].rhyme]
                           if i != line and i < len(have)]
        with self._lock:
            return suggest(self.backend, self.vocab, self.tables, t, enc, ids, position, k,
                           t.rhyme_system, group_lines)

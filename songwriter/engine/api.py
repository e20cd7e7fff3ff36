"""The engine's light API: what a caller sends (a request), what it gets back (candidates), the
errors it may see, and the facts a model folder states about itself. No heavy imports here (no
numpy, no onnxruntime, no torch), so the session layer, the window and the tests can import it
before, or without, loading the engine; the facade (``engine.service``) does the work.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from songwriter.engine.errors import GenerationCancelled, GenerationError, ModelLoadError
from songwriter.engine.model_folder import MANIFEST

if TYPE_CHECKING:   # only for annotations: checks imports the prosody tables
    from songwriter.checks import CheckReport
    from songwriter.template import Template

__all__ = ["Candidate", "GenerationCancelled", "GenerationError", "GenerationRequest", "ModelFacts",
           "ModelLoadError", "default_model_dir", "english_words", "load_engine", "model_facts", "read_manifest",
           "request_problem"]

MAX_MANIFEST_BYTES = 1_000_000


def default_model_dir(lang: str = "zh") -> Path:
    """The installed model of a language: models/zh, models/en."""
    return Path(__file__).resolve().parents[2] / "models" / (lang if lang in ("zh", "en") else "zh")


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
    strengths: list[float] | None = None  # one strength per content, in order (overrides strength)
    # one content per template line ("" for none), each steering only its own line's positions,
    # at ``strength``; with ``content`` too, the whole-piece contents steer every line as well
    line_content: list[str] | None = None
    rhyme_system: str | None = None       # an override for the CLI; None: the template's own
    n: int = 8
    seed: int | None = None
    temperature: float = 1.0
    top_k: int = 32
    top_p: float = 0.95
    # each line sampled this many times per candidate, the likeliest kept (None: the decoders'
    # own, ``decode.LINE_CHOICES``; more is slower and likelier, 1 samples once)
    line_choices: int | None = None
    # nats off a word's log-prob per earlier use in the piece (None: the decoders' own,
    # ``decode.REPEAT_COST_CLASSICAL_ZH`` / ``REPEAT_COST_ZH`` per character and
    # ``decode_en.REPEAT_COST_EN`` per word)
    repetition_penalty: float | None = None

    def content_strengths(self) -> list[float]:
        """The strength of each content (tau, added to its attention logits): ``strengths`` when
        given, else ``strength`` for every content."""
        if self.strengths:
            return [float(x) for x in self.strengths]
        return [float(self.strength)] * len(self.content)

    def has_content(self) -> bool:
        """Whether the request asks for any steering: a whole-piece content or a line's."""
        return bool(self.content) or any(c.strip() for c in self.line_content or ())

    def check(self) -> "GenerationRequest":
        """Refuse (GenerationError, one line naming the option) what the decoder cannot honour:
        the facade checks every request, the CLI before loading a model."""
        problem = request_problem(self)
        if problem:
            raise GenerationError(problem)
        return self


# What a request may ask: a temperature of 0 is greedy; a positive one between these limits
# (beyond them the masks' margin is lost in the division and forbidden tokens come back).
MIN_TEMPERATURE, MAX_TEMPERATURE = 0.05, 5.0
MAX_LINE_CHOICES = 16     # rows per candidate: the model's work and memory grow with it
MAX_REPETITION_PENALTY = 5.0   # nats per earlier use: beyond it a repeat is all but banned
MAX_CANDIDATES = 64
MAX_SEED = 2**63 - 1
MAX_TOP_K = 1_000_000
MAX_STRENGTH = 100.0
MAX_CONTENT = 64
MAX_CONTENT_CHARS = 10_000
MAX_TEXT_CHARS = 2_000_000


def _whole(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _finite(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def request_problem(r: GenerationRequest) -> str:
    """What is wrong with a request, as one line ("" when nothing is)."""
    if not _whole(r.n) or not 1 <= r.n <= MAX_CANDIDATES:
        return f"n must be a whole number from 1 to {MAX_CANDIDATES}, not {r.n!r}"
    if r.seed is not None and (not _whole(r.seed) or not 0 <= r.seed <= MAX_SEED):
        return f"seed must be a whole number from 0 to 2^63-1, not {r.seed!r}"
    if not _finite(r.temperature) or not (r.temperature == 0 or MIN_TEMPERATURE <= r.temperature <= MAX_TEMPERATURE):
        return (f"temperature must be 0 (greedy) or a number from {MIN_TEMPERATURE} to {MAX_TEMPERATURE}, "
                f"not {r.temperature!r}")
    if not _whole(r.top_k) or not 0 <= r.top_k <= MAX_TOP_K:
        return f"top-k must be a whole number of at least 0 (0: no limit), not {r.top_k!r}"
    if not _finite(r.top_p) or not 0 <= r.top_p <= 1:
        return f"top-p must be a number from 0 to 1 (0 or 1: no limit), not {r.top_p!r}"
    if r.line_choices is not None and (not _whole(r.line_choices) or not 1 <= r.line_choices <= MAX_LINE_CHOICES):
        return f"line choices must be a whole number from 1 to {MAX_LINE_CHOICES}, not {r.line_choices!r}"
    if r.repetition_penalty is not None and (
            not _finite(r.repetition_penalty) or not 0 <= r.repetition_penalty <= MAX_REPETITION_PENALTY):
        return (f"the repetition penalty must be a number of nats from 0 to {MAX_REPETITION_PENALTY:g}, "
                f"not {r.repetition_penalty!r}")
    if not _finite(r.strength) or abs(r.strength) > MAX_STRENGTH:
        return f"strength must be a number from -{MAX_STRENGTH:g} to {MAX_STRENGTH:g}, not {r.strength!r}"
    if not isinstance(r.text, str) or len(r.text) > MAX_TEXT_CHARS:
        return f"the text must be a string of at most {MAX_TEXT_CHARS:,} characters"
    if not isinstance(r.content, list) or len(r.content) > MAX_CONTENT or not all(
            isinstance(c, str) and len(c) <= MAX_CONTENT_CHARS for c in r.content):
        return f"content must be at most {MAX_CONTENT} texts of at most {MAX_CONTENT_CHARS:,} characters"
    if r.strengths is not None and (
            not isinstance(r.strengths, list) or len(r.strengths) != len(r.content)
            or not all(_finite(x) and abs(x) <= MAX_STRENGTH for x in r.strengths)):
        return (f"strengths must be one number from -{MAX_STRENGTH:g} to {MAX_STRENGTH:g} per content "
                f"({len(r.content) if isinstance(r.content, list) else 0} here), not {r.strengths!r}")
    if r.line_content is not None:
        n_lines = len(getattr(r.template, "lines", ()))
        if not isinstance(r.line_content, list) or not all(
                isinstance(c, str) and len(c) <= MAX_CONTENT_CHARS for c in r.line_content):
            return (f"line content must be a list of one text per template line (\"\" for none), each of at "
                    f"most {MAX_CONTENT_CHARS:,} characters")
        if len(r.line_content) != n_lines:
            return (f"line content must have one text per template line ({n_lines} here, \"\" for none), "
                    f"not {len(r.line_content)}")
    if r.lines is not None and (not isinstance(r.lines, list) or not all(_whole(i) for i in r.lines)):
        return "lines must be a list of line numbers"
    if r.rhyme_system is not None:
        lang = getattr(r.template, "lang", "zh")
        if lang == "zh":
            from songwriter.prosody.zh_rhyme import resolve_rhyme_system
        else:
            from songwriter.prosody.english import resolve_rhyme_system
        try:
            resolve_rhyme_system(r.rhyme_system)
        except ValueError as e:
            return str(e)
    return ""


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


def read_manifest(model_dir: str | Path, error: type[Exception] = ModelLoadError) -> dict:
    """A model folder's ``manifest.json``, every field the app uses checked (by the shared
    validation layer): both backends and ``model_facts`` read it through here."""
    from songwriter.template import LANGS
    from songwriter.validate import Fields, parse_json

    where = Path(model_dir) / MANIFEST
    try:
        raw = where.read_bytes()[:MAX_MANIFEST_BYTES + 1]
    except FileNotFoundError:
        raise error(f"no {MANIFEST} in {model_dir}") from None
    except OSError as e:
        raise error(f"{where} could not be read: {e.strerror or e}") from None
    data = parse_json(raw, str(where), MAX_MANIFEST_BYTES, error)
    f = Fields(data, f"{where}:", error)
    for key in ("name", "version", "data", "vocab_sha256"):
        f.string(key, "", max_len=10_000)
    langs = f.strings("languages", ["zh"], max_items=len(LANGS))
    for lang in langs:
        if lang not in LANGS:
            raise error(f"{where}: languages: expected codes from {', '.join(LANGS)}, got {lang!r}")
    f.boolean("supports_content", False)
    f.integer("format_version", 1, lo=0)
    return data


def model_facts(model_dir: str | Path | None = None) -> ModelFacts:
    """The manifest of a model folder (the default model when None). Never raises: a folder that
    is missing or whose manifest is unreadable gives facts with ``error`` set."""
    path = Path(model_dir) if model_dir else default_model_dir()
    try:
        data = read_manifest(path)
    except ModelLoadError as e:
        return ModelFacts(path, error=str(e))
    return ModelFacts(path, name=data.get("name", ""), version=data.get("version", ""),
                      languages=tuple(data.get("languages", ["zh"])), data=data.get("data", ""))


def english_words(template: "Template", text: str, line: int, slot: int, k: int = 40) -> list:
    """Words that fit (line, slot) of an English template without a model: from CMUdict and the
    app's word list, by syllables left, stress and rhyme (perfect, then slant), most frequent
    first (``songwriter.engine.words_en.WordChoice``: word, syllables, rhyme, score). The first
    call builds the word tables (seconds): call it off the UI thread. With a loaded English
    engine, ``Engine.suggest`` gives the same words ranked by the model in context."""
    from songwriter.engine.words_en import english_words as fitting_words

    return fitting_words(template, text, line, slot, k)


def load_engine(model_dir: str | Path | None = None, backend: str = "auto"):
    """Load the engine facade (the heavy imports happen here, in the caller's thread)."""
    from songwriter.engine.service import Engine

    return Engine.load(Path(model_dir) if model_dir else default_model_dir(), backend=backend)

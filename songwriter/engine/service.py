"""The engine facade: the one thing the UI and the CLI call.

    engine = Engine.load()                       # models/zh, best backend available
    cands = engine.generate(GenerationRequest(template=named_form("七绝"), n=8, seed=1))
    cands[0].text, cands[0].check.ok             # every candidate fits: check.ok is True

Nothing is loaded at import time. ``generate`` may run in a worker thread; it reports progress as
(positions done, positions in all) and raises GenerationCancelled when ``cancel`` is set.
"""

from __future__ import annotations

import threading
from dataclasses import replace
from pathlib import Path
from typing import Callable

from songwriter import checks
from songwriter.engine import encoding as E
from songwriter.engine.api import (
    Candidate, GenerationCancelled, GenerationError, GenerationRequest, ModelLoadError, default_model_dir,
    request_problem,
)
from songwriter.template import FREE, Template, TemplateError, is_hanzi, syllable_units, text_lines

__all__ = ["Candidate", "Engine", "GenerationCancelled", "GenerationError", "GenerationRequest",
           "ModelLoadError", "default_model_dir", "given_template"]


# Characters the modern part of the corpus (encyclopaedia sentences) uses mostly to spell foreign
# names; as word suggestions for a lyric they read as noise (拉, 巴, 亚, 米), so they come last.
TRANSLITERATION = frozenset("拉巴亚米斯尔克特夫基奥伊娜莎妮玛萨蒂索鲁布贝塔纳尼埃诺兹罗波维利德吉卡普洛丹")
MODERN_KINDS = ("lyric", "poem")


def given_template(template: Template, text: str, free) -> Template:
    """The one place that decides what of the current text is context: a copy of the template in
    which every character written in ``text`` is locked, except at the (line, slot) positions for
    which ``free(line, slot)`` is true. Unwritten cells (``_``) stay free. English: a line with no
    free slot is kept whole, its words locked over its syllables (``encoding_en.given_lines_en``)."""
    if template.lang == "en":    # whole lines: a line none of whose slots is free is kept as written
        from songwriter.engine.encoding_en import given_lines_en

        return given_lines_en(template, text,
                              lambda i: not any(free(i, k) for k in range(len(template.lines[i].slots))))
    t = template.copy()
    if t.lang != "zh" or not text.strip():
        return t
    have = text_lines(text, t)
    for i, line in enumerate(t.lines[: len(have)]):
        units = syllable_units(have[i], "zh")
        for k, slot in enumerate(line.slots[: len(units)]):
            ch = units[k][0]
            if slot.lock is None and ch != FREE and is_hanzi(ch) and not free(i, k):
                line.slots[k] = replace(slot, lock=ch)
    return t


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
    if backend == "cuda" and not _torch_cuda_possible():
        raise ModelLoadError("--backend cuda: torch cannot use a CUDA GPU here (no GPU, or a CPU-only "
                             "torch); use auto, onnx or cpu")
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
        # content steering needs the block (cocon.safetensors) and a backend that runs it (torch,
        # or onnxruntime with the block's graphs from export-onnx)
        self.supports_content: bool = bool(getattr(backend, "supports_content", False))
        self.languages: tuple[str, ...] = tuple(manifest.get("languages", ["zh"]))
        self.tables = ProsodyTables(vocab)
        self.english = getattr(vocab, "language", "zh") == "en"
        from songwriter.engine import word_costs

        self.tables.word_costs = word_costs.load_for(model_dir, vocab)
        self.tables.line_start_costs = word_costs.load_for(model_dir, vocab, "line_start")
        self.tables.doubled_costs = word_costs.load_for(model_dir, vocab, "doubled")
        self.tables.opening_pair_costs = word_costs.load_pairs_for(model_dir, vocab)
        self.tables.cost_kinds = word_costs.kinds_for(model_dir)
        if self.english:
            from songwriter.engine import topic_en
            from songwriter.plan.stats import PlanError

            try:
                self.tables.associations = topic_en.load_for(model_dir, vocab)
            except PlanError as e:
                raise ModelLoadError(str(e)) from None
            # an English model steers by its word associations (no CoCon block): the content lean
            self.supports_content = self.supports_content or self.tables.associations is not None
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
        request.check()
        t = request.template
        if t.lang not in self.languages:
            raise GenerationError(f"this model writes {', '.join(self.languages)}; the template is {t.lang}")
        try:
            t.validate()
        except TemplateError as e:
            raise GenerationError(str(e)) from None
        refrains = t.refrain_problems()
        if refrains:     # the decoders copy a refrain slot for slot from its source line
            raise GenerationError(refrains[0] + ": lock or unlock the same words in both, or make the line no refrain")
        if request.has_content() and not self.supports_content:
            pass  # content steering is ignored by a model without it (the UI greys it out)
        if request.lines is not None:
            # The lines asked for are written again; the others are context: what is written there
            # is kept, and their unwritten cells are filled around it (the caller takes only the
            # lines it asked for).
            bad = [i for i in request.lines if not 0 <= i < len(t.lines)]
            if bad:
                raise GenerationError(f"no line {bad[0] + 1}: the template has {len(t.lines)} lines")
            have = text_lines(request.text, t) if request.text.strip() else []
            rewrite = t.tied_lines(request.lines)     # a refrain and its source are written together
            for i in range(min(len(have), len(t.lines))):
                units = syllable_units(have[i], t.lang)
                if i not in rewrite and len(units) > t.lines[i].syllables:
                    raise GenerationError(f"line {i + 1} is kept as context but has {len(units)} syllables, "
                                          f"{t.lines[i].syllables} wanted: shorten it or regenerate it too")
            t = given_template(t, request.text, lambda i, k: i in rewrite)
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
        from songwriter.melody.fit import melody_ranking

        keep, want = melody_ranking(template, request.n)   # a melody's fit: more rows, the n that fit best
        decoded: list[tuple] = []   # (text, decoded row, its check), distinct texts
        seen: set[str] = set()
        backend, completion = self._steered(request, enc), self._completion(request, enc)   # once a request
        for attempt in range(DISTINCT_ATTEMPTS):
            missing = want - len(decoded)
            if missing <= 0:
                break
            # a few spare rows, as duplicates are dropped; a later attempt (when a tight template
            # gave too few distinct rows) samples afresh from a seed derived from the request's
            seed = request.seed if request.seed is None or attempt == 0 else request.seed + 7919 * attempt
            sampling = Sampling(n=missing + (missing + 3) // 4, seed=seed, temperature=request.temperature,
                                top_k=request.top_k, top_p=request.top_p, line_choices=request.line_choices,
                                repetition_penalty=request.repetition_penalty)
            with self._lock:
                rows = decode(backend, self.vocab, self.tables, template, enc, sampling,
                              request.rhyme_system, progress, cancel, completion)
            for d in sorted(rows, key=lambda d: -d.score):
                text = "\n".join(d.lines)
                if text not in seen and len(decoded) < want:
                    seen.add(text)
                    report = checks.check(text, template, system)
                    if not _misread_tone(report, template):
                        decoded.append((text, d, report))
            if request.temperature <= 0:
                break   # greedy rows do not change with the seed
        # fewer than n only when the template leaves fewer distinct texts than asked for (or, in
        # three rounds, too many rows were set aside for a misread heteronym)
        return [Candidate(text=text, lines=d.lines, score=d.score, check=report)
                for text, d, report in keep(sorted(decoded, key=lambda tdr: -tdr[1].score))]

    def _contents(self, request: GenerationRequest, enc) -> tuple[list[str], list[float], list]:
        """A request's contents, their strengths and scopes: the whole-piece contents (scope
        None), then each line's content at ``strength``, scoped to its line's positions."""
        from songwriter.engine.content import line_positions

        texts, taus = list(request.content), request.content_strengths()
        scopes: list = [None] * len(texts)
        if request.line_content:
            line_of = line_positions(enc.fmt)
            for i, text in enumerate(request.line_content):
                if text.strip():
                    texts.append(text)
                    taus.append(float(request.strength))
                    scopes.append(line_of == i)
        return texts, taus, scopes

    def _completion(self, request: GenerationRequest, enc):
        """The request's content words for the decoder to complete (``content_words``), or None
        without content or a steering block (content is then ignored altogether). English: the
        content's lean over the model's word associations (``topic_en.ContentLean``)."""
        if not request.has_content() or not self.supports_content:
            return None
        if self.english:
            from songwriter.engine.topic_en import ContentLean

            if self.tables.associations is None:
                return None
            return ContentLean.of(self.tables.associations, self.vocab, list(request.content),
                                  request.content_strengths(), request.line_content, request.strength)
        from songwriter.engine.content_words import WordCompletion

        return WordCompletion.of(*self._contents(request, enc), self.vocab, enc)

    def _steered(self, request: GenerationRequest, enc):
        """The backend with the request's contents steering it (only the logits change; every
        constraint of the decoder stays), or the plain backend without content or block.
        Whole-piece contents steer every position; a line's content (``line_content``, at
        ``strength``) only the positions of its line (``enc``: the template as encoded)."""
        if not request.has_content() or not self.supports_content or self.english:
            return self.backend        # English content leans in the decoder (_completion)
        texts, taus, scopes = self._contents(request, enc)
        if not any(s is not None for s in scopes):
            return self.backend.steered(texts, taus, self.vocab)
        return self.backend.steered(texts, taus, self.vocab, scopes)

    def suggest_words(self, template: Template, text: str, line: int, slot: int, k: int = 20, *,
                      content: list[str] | None = None, strength: float = 0.0, strengths: list[float] | None = None,
                      line_content: list[str] | None = None) -> list:
        """English: the words ``suggest`` ranks, each with what the Rhymes and Words panel tells of
        it (``words_en.WordChoice``: the kind of rhyme it makes, the syllables it fills), which a
        word and its score alone lose."""
        steer = self._suggest_request(template, line, slot, content, strength, strengths, line_content)
        if not self.english:
            raise GenerationError("word details are for English; suggest ranks Chinese characters")
        return self._english_choices(steer, text, line, slot, k)

    def _english_choices(self, steer: GenerationRequest, text: str, line: int, slot: int, k: int) -> list:
        # words that fit the slot (syllables, stress, rhyme), ranked by the model in context
        from songwriter.engine.words_en import english_words

        lean = self._completion(steer, None)
        return english_words(steer.template, text, line, slot, k, engine=self,
                             lean=lean.at(line) if lean is not None else None)

    def _suggest_request(self, template, line, slot, content, strength, strengths, line_content) -> GenerationRequest:
        """The steering of a suggestion as a request, checked as a generation's is."""
        if not 0 <= line < len(template.lines) or not 0 <= slot < len(template.lines[line].slots):
            raise GenerationError(f"no syllable {slot + 1} on line {line + 1}")
        steer = GenerationRequest(template=template, content=list(content or []), strength=strength,
                                  strengths=strengths, line_content=line_content)
        problem = request_problem(steer)
        if problem:
            raise GenerationError(problem)
        if template.lang not in self.languages:
            raise GenerationError(f"this model writes {', '.join(self.languages)}; the template is {template.lang}")
        return steer

    def suggest(self, template: Template, text: str, line: int, slot: int, k: int = 20, *,
                content: list[str] | None = None, strength: float = 0.0, strengths: list[float] | None = None,
                line_content: list[str] | None = None) -> list[tuple[str, float]]:
        """Characters that fit (line, slot), ranked by the model's log-prob in the context of the
        rest of the text. Everything written in ``text`` (one line per template line, ``_`` for an
        unwritten cell) is context. At a rhyme slot only characters of the slot's rhyme group
        are listed: the group the label's other lines (written or locked) rhyme in, or while none
        is written yet, characters that belong to a rhyme group at all.

        ``content``, ``strength``, ``strengths``, ``line_content``: the steering of a request
        (``GenerationRequest``'s fields, checked as there); with a content-steering block the
        ranking is the steered model's, so the words lean the way generation does; an English
        model adds the content's lean over its word associations (``topic_en.ContentLean``) to the
        model's scores. Ignored by a model that cannot steer."""
        from songwriter.engine.decode import suggest

        steer = self._suggest_request(template, line, slot, content, strength, strengths, line_content)
        if self.english:
            return [(c.word, c.score) for c in self._english_choices(steer, text, line, slot, k)]
        t = given_template(template, text, lambda i, s: (i, s) == (line, slot))
        t.lines[line].slots[slot] = replace(t.lines[line].slots[slot], lock=None)
        enc = E.encode_template(t, self.vocab)
        position = int(((enc.slot_line == line) & (enc.slot_index == slot)).nonzero()[0][0])
        ids = enc.given.copy()
        ids[ids == self.vocab.fill] = self.vocab.unk
        system = t.effective_rhyme_system()
        label = t.lines[line].rhyme if slot == len(t.lines[line].slots) - 1 else None
        group_lines = None
        if label:
            # the other lines of the label, as their rhyme characters stand (locked or written)
            ends = [t.lines[i].slots[-1].lock for i in t.rhyme_groups()[label] if i != line]
            group_lines = [ch for ch in ends if ch and checks.rhyme_groups_of(ch, "zh", system)]
        wide = k * 4     # room for the ones set aside below
        with self._lock:
            ranked = suggest(self._steered(steer, enc), self.vocab, self.tables, t, enc, ids, position, wide,
                             system, group_lines)
        if label and not group_lines:
            from songwriter.prosody import chinese

            ranked = [(w, s) for w, s in ranked if chinese.rhyme_groups(w, 0, system)]
        if t.kind in MODERN_KINDS:
            ranked = ([(w, s) for w, s in ranked if w not in TRANSLITERATION]
                      + [(w, s) for w, s in ranked if w in TRANSLITERATION])
        return ranked[:k]


def _misread_tone(report, template: Template) -> bool:
    """Whether a decoded row breaks a tone at a slot the decoder chose: a heteronym (看, 长) is
    allowed on a slot of either tone, and in rare phrases the checks settle it on the other
    reading (长安 is cháng). Such a row is set aside and another drawn; a locked character's
    tone is the writer's and does not count. (English stress is the decoder's own choice.)"""
    if template.lang != "zh":
        return False
    for line in report.lines:
        for pr in line.problems:
            if pr.kind == "tone" and (pr.slot is None or line.index >= len(template.lines)
                                      or pr.slot >= len(template.lines[line.index].slots)
                                      or template.lines[line.index].slots[pr.slot].lock is None):
                return True
    return False

"""The onnxruntime decoding backend: what the app runs on (onnxruntime and numpy only, no torch).

It reads the graphs ``songwriter export-onnx`` writes next to a model's weights (see
``onnx_export`` for their inputs and outputs) and implements the torch backend's interface::

    state = backend.start(arrays, n)            # template memory encoded once, for n rows
    logp = backend.step(state, prev, position)  # (n, V) log-probs, a fresh array each step

Per request the caches are numpy arrays bound to the step's session (IO binding shares their
memory with onnxruntime), so a step copies no cache: the graph reads the weights, the memory and
the cache in place, and returns this position's keys/values, which are written into one column of
the caches. The caches grow in blocks of 32 positions (a step reads the whole buffer, later slots
masked). The template memory is encoded for one row and broadcast to all rows.

Loading checks that the ONNX files belong to the weights beside them (hash of model.safetensors
and of the vocabulary, recorded at export) and fails with a ModelLoadError saying what to do.

Content steering (docs/cocon.md), when export-onnx wrote its graphs (onnx.json ``cocon``) and the
folder has the block they came from: ``steered(content, strengths, vocab)`` encodes the contents
once (cocon_content.onnx) and returns a backend whose rows step through step.cocon.onnx, which
binds the content keys/values once per request and the block's key cache like the others. A
content may be scoped to some positions (a line's content, ``scopes``): the bound tau bias then
gets that position's row of a mask before each step. A folder shipped with only the steered step
(``export-onnx --only-default`` of a folder with a block) runs plain requests through it with one
content key whose bias is -inf (``ContentKeys.none``): the block adds exactly nothing.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import onnxruntime as ort

from songwriter.engine.api import read_manifest
from songwriter.engine.content import (
    CONTENT_INPUTS, NEG_INF, STEERING_INPUTS, content_batch, content_layout, key_slots, scope_mask,
)
from songwriter.engine import encoding as E
from songwriter.engine.encoding import CHANNELS
from songwriter.engine.errors import ModelLoadError
from songwriter.engine.model_folder import (  # noqa: F401  (has_onnx: the facade asks here)
    COCON_WEIGHTS, CONFIG, ENCODER, ONNX_FILES, ONNX_MANIFEST, WEIGHTS, file_sha256, has_onnx, require,
)
from songwriter.engine.vocab import Vocab, load_checked



def physical_cores() -> int:
    """Physical cores this process may run on (hyper-threads counted once)."""
    try:
        cpus = os.sched_getaffinity(0)
    except AttributeError:
        return os.cpu_count() or 1
    cores = set()
    for c in cpus:
        try:
            sib = Path(f"/sys/devices/system/cpu/cpu{c}/topology/thread_siblings_list").read_text().strip()
        except OSError:
            sib = str(c)
        cores.add(sib)
    return max(1, len(cores))


def available_providers() -> list[str]:
    return list(ort.get_available_providers())


def read_onnx_dir(path: str | Path, check_weights: bool = True) -> tuple[dict, Vocab, dict, dict]:
    """(config dict, vocab, manifest, onnx manifest) after checking the files belong together."""
    path = require(path, ONNX_FILES)
    if not has_onnx(path):
        raise ModelLoadError(f"{path} has no ONNX graphs: run `songwriter export-onnx {path}`")
    manifest = read_manifest(path)
    cfg = _read_json(path / CONFIG)
    info = read_onnx_manifest(path)
    vocab = load_checked(path, manifest)
    redo = f"; run `songwriter export-onnx {path}` again"
    if info.get("vocab_sha256") != vocab.sha256:
        raise ModelLoadError(f"{path}: the ONNX graphs were exported with another vocabulary{redo}")
    if cfg.get("vocab_size") != len(vocab) or info.get("vocab_size") != len(vocab):
        raise ModelLoadError(f"{path}: config says {cfg.get('vocab_size')} tokens, vocab.json has "
                             f"{len(vocab)}, the ONNX graphs {info.get('vocab_size')}")
    for k in ("n_layer", "n_head", "d_model"):
        if info.get(k) != cfg.get(k):
            raise ModelLoadError(f"{path}: the ONNX graphs have {k}={info.get(k)}, config.json "
                                 f"{cfg.get(k)}{redo}")
    if check_weights and (path / WEIGHTS).is_file() and info.get("weights_sha256") != file_sha256(path / WEIGHTS):
        raise ModelLoadError(f"{path}: the ONNX graphs were exported from other weights than "
                             f"{WEIGHTS}{redo}")
    return cfg, vocab, manifest, info


def _read_json(path: Path, max_bytes: int = 10_000_000) -> dict:
    from songwriter.validate import Fields, parse_json

    try:
        raw = path.read_bytes()[:max_bytes + 1]
    except OSError as e:
        raise ModelLoadError(f"{path} could not be read: {e.strerror or e}") from None
    return Fields(parse_json(raw, str(path), max_bytes, ModelLoadError), f"{path}:", ModelLoadError).data


def read_onnx_manifest(path: Path) -> dict:
    """``onnx.json``, checked: the graph files it names must lie inside the model folder (a name
    with ``..`` or an absolute path is refused, never opened)."""
    from songwriter.validate import Fields, confined_path

    info = _read_json(path / ONNX_MANIFEST)
    f = Fields(info, f"{path / ONNX_MANIFEST}:", ModelLoadError)
    files = f.object("files", {})
    info = dict(info)
    info["files"] = {}
    for k in ("encoder", "encoder_int8", "fp32", "int8"):
        if files.has(k):
            confined_path(path, files.string(k, max_len=255), files.path(k), ModelLoadError)
            info["files"][k] = files.data[k]
    f.string("default", "fp32", choices=("fp32", "int8"))
    for key in ("vocab_size", "n_layer", "n_head", "d_model", "max_len"):
        f.integer(key, None, lo=1, hi=10_000_000, null=True)
    f.string("vocab_sha256", "", max_len=128)
    f.string("weights_sha256", "", max_len=128)
    if f.has("cocon"):
        c = f.object("cocon", {})
        cfiles = c.object("files", {})
        info["cocon"] = dict(c.data)
        info["cocon"]["files"] = {}
        for k in ("content", "content_int8", "fp32", "int8"):
            if cfiles.has(k):
                confined_path(path, cfiles.string(k, max_len=255), cfiles.path(k), ModelLoadError)
                info["cocon"]["files"][k] = cfiles.data[k]
        c.string("block_sha256", "", max_len=128)
        c.integer("layer", None, lo=1, hi=10_000, null=True)
        c.integer("content_len", None, lo=1, hi=10_000_000, null=True)
        c.object("int8_check", {})
    return info


class _State:
    """One request's rows: bound inputs (memory, caches, prev, position) and the binding; when
    steered, the contents' keys and the block's key cache, run by the steered step graph."""

    __slots__ = ("n", "T", "cap", "prev", "pos", "mem", "caches", "binding", "keep", "session", "steering",
                 "block_k", "cbias")


class ContentKeys:
    """One request's contents as the steered step reads them, for every row: ``k``, ``v`` (1, H,
    C, dk) the keys/values of the contents side by side, ``bias`` (1, 1, 1, C) each key's tau;
    ``mask`` (P + 1, C) or None: which keys each position's queries see (``content.scope_mask``,
    a line's content), added to ``bias`` at each step in a buffer of the request's own."""

    __slots__ = ("k", "v", "bias", "mask")

    def __init__(self, k: np.ndarray, v: np.ndarray, bias: np.ndarray, mask: np.ndarray | None = None):
        self.k, self.v, self.bias, self.mask = k, v, bias, mask

    @classmethod
    def none(cls, n_head: int, dk: int) -> "ContentKeys":
        """No content: one zero key whose bias is -inf, so the steered step's content share is
        exactly 0, the block adds exactly nothing and the step is the plain one (docs/cocon.md)."""
        z = np.zeros((1, n_head, 1, dk), dtype=np.float32)
        return cls(z, z.copy(), np.full((1, 1, 1, 1), NEG_INF, dtype=np.float32))


class OnnxBackend:
    """Decoding steps with onnxruntime (CPU, or CUDA when its provider is there)."""

    def __init__(self, model_dir: str | Path, variant: str = "auto", device: str = "auto",
                 threads: int | None = None, spinning: bool = True, check_weights: bool = True):
        self.model_dir = Path(model_dir)
        cfg, vocab, manifest, info = read_onnx_dir(self.model_dir, check_weights)
        self.config, self.vocab, self.manifest, self.info = cfg, vocab, manifest, info
        files = info.get("files", {})
        cocon = info.get("cocon") or {}
        cocon_files = cocon.get("files", {})
        if variant == "auto":
            variant = info.get("default", "fp32")
        if variant not in ("fp32", "int8"):
            raise ModelLoadError(f"unknown ONNX variant {variant!r}; use fp32 or int8")

        def there(name) -> bool:
            return bool(name) and (self.model_dir / name).is_file()

        # Plain requests step through the plain step graph, or, in a folder that ships only the
        # steered one (export-onnx --only-default of a folder with a block), through the steered
        # step with no content key: its output is then the plain step's (docs/cocon.md).
        step_file = files.get(variant) if there(files.get(variant)) else None
        if step_file is None and there(cocon_files.get(variant)):
            step_file = cocon_files[variant]
        if step_file is None:
            other = "fp32" if variant == "int8" else "int8"
            has_other = there(files.get(other)) or there(cocon_files.get(other))
            rebuild = f"`songwriter export-onnx {self.model_dir}` (needs torch) writes both"
            raise ModelLoadError(f"{self.model_dir} has no {variant} step graph"
                                 + (f" (it ships only the {other} one): use {other}, or {rebuild}"
                                    if has_other else f"; {rebuild}"))
        # the int8 variant reads the template through the int8 encoder where the export wrote one
        encoder_file = files.get("encoder_int8") if variant == "int8" and there(files.get("encoder_int8")) \
            else files.get("encoder", ENCODER)
        if not there(encoder_file):
            raise ModelLoadError(f"{self.model_dir} has no encoder graph for the {variant} variant; "
                                 f"`songwriter export-onnx {self.model_dir}` (needs torch) writes it")
        self.encoder_file = encoder_file
        self.plain_steered = step_file != files.get(variant)
        self.step_file = step_file
        self.variant = variant
        have = available_providers()
        if device == "auto":
            device = "cuda" if "CUDAExecutionProvider" in have else "cpu"
        if device == "cuda":
            if "CUDAExecutionProvider" not in have:
                raise ModelLoadError("onnxruntime has no CUDAExecutionProvider here (install onnxruntime-gpu)")
            providers = ["CUDAExecutionProvider", "CPUExecutionProvider"]
        elif device == "cpu":
            providers = ["CPUExecutionProvider"]
        else:
            raise ModelLoadError(f"unknown device {device!r}; use auto, cpu or cuda")
        self.device = device

        def options(spin: bool) -> ort.SessionOptions:
            so = ort.SessionOptions()
            so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
            so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
            so.intra_op_num_threads = threads or physical_cores()
            so.inter_op_num_threads = 1
            so.add_session_config_entry("session.intra_op.allow_spinning", "1" if spin else "0")
            so.log_severity_level = 3
            return so

        # The step's worker threads spin briefly for the next op instead of sleeping (~20 %
        # faster steps on 2 cores, docs/performance.md). The encoder runs once per request and
        # must not spin: each session has its own threads, and spinning encoder threads would
        # take the cores from the first dozen steps (measured: 6 ms instead of 2).
        enc_opts, step_opts = options(False), options(spinning)
        self._sessions: dict[str, ort.InferenceSession] = {}    # one session per graph file
        try:
            self.encoder = ort.InferenceSession(str(self.model_dir / encoder_file), enc_opts,
                                                providers=providers)
            self.session = self._open_step(step_file, step_opts, providers)
        except Exception as e:  # onnxruntime raises its own exception types for bad files
            raise ModelLoadError(f"{self.model_dir}: cannot load the ONNX graphs ({type(e).__name__}: "
                                 f"{str(e).splitlines()[0] if str(e) else ''})") from None
        self.supports_content = False
        self.content_session = self.steered_session = None
        if cocon and (not check_weights or (self.model_dir / COCON_WEIGHTS).is_file()):
            # without cocon.safetensors the folder has no content steering (how it is turned off)
            self._open_content_path(cocon, providers, enc_opts, step_opts, check_weights)
        self.n_layer, self.n_head, self.d_model = cfg["n_layer"], cfg["n_head"], cfg["d_model"]
        self.n_kind = int(cfg.get("n_kind") or 0)
        self.dk = self.d_model // self.n_head
        self._no_content = ContentKeys.none(self.n_head, self.dk) if self.plain_steered else None
        self.V = len(vocab)
        self.max_len = int(cfg.get("max_len", info.get("max_len", 512)))
        self.name = f"onnxruntime-{device} ({variant})"
        self.cache_block = 32
        self._enc_out = [o.name for o in self.encoder.get_outputs()]
        self._mem_names = ["tmpl", "mem_bias"] + [n for i in range(self.n_layer)
                                                  for n in (f"mem_k{i}", f"mem_v{i}")]
        # the template channels the encoder takes (a model from before the kind channel lacks it)
        self._enc_in = [i.name for i in self.encoder.get_inputs()]
        if not set(self._enc_in) <= {*CHANNELS, "given"} or "given" not in self._enc_in:
            raise ModelLoadError(f"{self.model_dir}: the ONNX encoder's inputs ({', '.join(self._enc_in)}) are "
                                 f"not template channels this app knows; run `songwriter export-onnx "
                                 f"{self.model_dir}` again")
        step_inputs = {i.name for i in self.session.get_inputs()}
        want = {"prev", "position", *self._mem_names, *(f"cache_{kv}{i}" for i in range(self.n_layer)
                                                         for kv in "kv")}
        if step_inputs != (want | set(STEERING_INPUTS) if self.plain_steered else want) \
                or self._enc_out != self._mem_names:
            raise ModelLoadError(f"{self.model_dir}: the ONNX graphs' inputs are not the ones this app "
                                 f"reads; run `songwriter export-onnx {self.model_dir}` again")
        if self.steered_session is not None and (
                {i.name for i in self.steered_session.get_inputs()} != want | set(STEERING_INPUTS)
                or [i.name for i in self.content_session.get_inputs()] != list(CONTENT_INPUTS)):
            raise ModelLoadError(f"{self.model_dir}: the content-steering graphs' inputs are not the ones "
                                 f"this app reads; run `songwriter export-onnx {self.model_dir}` again")

    def _open_content_path(self, cocon: dict, providers: list[str], enc_opts, step_opts, check_block: bool) -> None:
        """The content graph and the steered step of the loaded variant (fp32 when the int8 one
        failed its check at export, or whichever of the two the folder has). Graphs made from
        another block than the folder's cocon.safetensors are refused, as stale weights are."""
        redo = f"run `songwriter export-onnx {self.model_dir}` again"
        if check_block and cocon.get("block_sha256") != file_sha256(self.model_dir / COCON_WEIGHTS):
            raise ModelLoadError(f"{self.model_dir}: the content-steering ONNX graphs were exported from another "
                                 f"block than {COCON_WEIGHTS} (it was retrained or replaced); {redo}, or "
                                 f"use --backend torch")
        files = cocon.get("files", {})
        want = self.variant
        if want == "int8" and cocon.get("int8_check", {}).get("int8_ok") is False:
            want = "fp32"
        have = [v for v in (want, "fp32" if want == "int8" else "int8")
                if files.get(v) and (self.model_dir / files[v]).is_file()]
        # the content graph of the step's variant (int8: its embedding table and MatMuls in int8)
        content = [files[k] for k in (("content_int8", "content") if have and have[0] == "int8" else ("content",))
                   if files.get(k) and (self.model_dir / files[k]).is_file()]
        if not content or not have:
            raise ModelLoadError(f"{self.model_dir}: onnx.json names content-steering graphs that are not "
                                 f"there; {redo}")
        try:
            self.content_session = ort.InferenceSession(str(self.model_dir / content[0]), enc_opts,
                                                        providers=providers)
            self.steered_session = self._open_step(files[have[0]], step_opts, providers)
        except Exception as e:  # onnxruntime raises its own exception types for bad files
            raise ModelLoadError(f"{self.model_dir}: cannot load the content-steering graphs ({type(e).__name__}: "
                                 f"{str(e).splitlines()[0] if str(e) else ''})") from None
        self.steered_variant, self.content_file = have[0], content[0]
        # the content graph's fixed width: content_len + 1 positions
        self.content_len = int(self.content_session.get_inputs()[0].shape[1]) - 1
        self.supports_content = True

    def _open_step(self, name: str, options, providers) -> ort.InferenceSession:
        """A step graph's session, opened once (plain requests and content may share the steered step)."""
        if name not in self._sessions:
            self._sessions[name] = ort.InferenceSession(str(self.model_dir / name), options, providers=providers)
        return self._sessions[name]

    @classmethod
    def from_dir(cls, path: str | Path, variant: str = "auto", device: str = "auto",
                 **kw) -> tuple["OnnxBackend", Vocab, dict]:
        be = cls(path, variant, device, **kw)
        return be, be.vocab, be.manifest

    # ------------------------------------------------------------------------------------------
    def steered(self, content: list[str], strengths: list[float], vocab: Vocab,
                scopes: list[np.ndarray | None] | None = None):
        """This backend with the request's contents steering every row (``SteeredOnnxBackend``),
        or itself without the content path or when no content has a character in the vocabulary.
        ``scopes[c]``: None, or the positions (bool, over the template) whose queries see
        content c (a line's content; ``engine.content.scope_mask``)."""
        if not self.supports_content or not content:
            return self
        keys = self.content_keys(content, strengths, vocab, scopes)
        return self if keys is None else SteeredOnnxBackend(self, keys)

    def content_keys(self, content: list[str], strengths: list[float], vocab: Vocab,
                     scopes: list[np.ndarray | None] | None = None) -> ContentKeys | None:
        """Contents and their strengths (tau) -> the block's keys/values side by side, as
        engine/cocon.make_steering computes them; None when no content is in the vocabulary."""
        layouts, tau, kept = [], [], []
        for c, (text, strength) in enumerate(zip(content, strengths)):
            lay = content_layout(text, vocab, self.content_len)
            if lay is not None:
                layouts.append(lay)
                tau.append(float(strength))
                kept.append(scopes[c] if scopes else None)
        if not layouts:
            return None
        b = content_batch(layouts, vocab, length=self.content_len)
        kc, vc = self.content_session.run(None, {k: b[k] for k in CONTENT_INPUTS})     # (N, H, L, dk)
        ci, ji, bias, filled = key_slots(b["keep"], [0] * len(layouts), tau, 1)
        # kc[ci, :, ji] is (1, C, H, dk): the advanced indices come first
        k, v = (np.ascontiguousarray(a[ci, :, ji].transpose(0, 2, 1, 3), dtype=np.float32) for a in (kc, vc))
        return ContentKeys(k, v, bias[:, None, None, :], scope_mask(ci[0], filled[0], kept))

    def encode(self, arrays: dict[str, np.ndarray]) -> list[np.ndarray]:
        """Template arrays (B, M) (or (M,) for one row) -> the encoder's outputs."""
        feed = {}
        for k in self._enc_in:
            a = np.ascontiguousarray(arrays[k], dtype=np.int64)
            if k == "kind":
                a = E.kinds_known_to(a, self.n_kind)   # a register newer than the model: its parent kind
            feed[k] = a[None] if a.ndim == 1 else a
        return self.encoder.run(None, feed)

    def start(self, arrays: dict[str, np.ndarray], n: int, memory: list[np.ndarray] | None = None,
              steering: ContentKeys | None = None) -> _State:
        """Memory for ``n`` rows: one template (arrays of shape (T,)) shared by all rows, or one
        per row (arrays of shape (n, T)). ``memory``: encoder outputs already computed.
        ``steering``: the contents every row is steered by (``steered`` passes them)."""
        mem = memory if memory is not None else self.encode(arrays)
        if mem[0].shape[0] not in (1, n):
            raise ValueError(f"{mem[0].shape[0]} template rows for {n} decoding rows")
        T = int(mem[0].shape[1])
        return self._bind(mem, n, T, steering)

    def _bind(self, mem: list[np.ndarray], n: int, T: int, steering: ContentKeys | None = None) -> _State:
        s = _State()
        s.n, s.T = n, T
        s.mem = mem
        s.prev = np.zeros(n, dtype=np.int64)
        s.pos = np.zeros((), dtype=np.int64)
        if steering is None and self.plain_steered:
            steering = self._no_content       # plain rows through the steered step, no content key
        s.session = self.session if steering is None or steering is self._no_content else self.steered_session
        s.steering, s.block_k, s.cbias = steering, None, None
        s.binding = s.session.io_binding()
        s.keep = {}
        self._bind_input(s, "prev", s.prev)
        self._bind_input(s, "position", s.pos)
        for name, arr in zip(self._mem_names, mem):
            self._bind_input(s, name, np.ascontiguousarray(arr))
        if steering is not None:
            self._bind_input(s, "content_k", steering.k)
            self._bind_input(s, "content_v", steering.v)
            # scoped contents: the bias changes with the position, in this request's own buffer
            s.cbias = steering.bias if steering.mask is None else steering.bias.copy()
            self._bind_input(s, "content_bias", s.cbias)
        s.cap, s.caches = 0, []
        self._grow(s, min(T, self.cache_block))
        return s

    def _bind_input(self, s: _State, name: str, arr: np.ndarray) -> None:
        v = ort.OrtValue.ortvalue_from_numpy(arr)   # shares the numpy buffer on CPU
        s.keep[name] = (arr, v)
        s.binding.bind_ortvalue_input(name, v)

    def _grow(self, s: _State, cap: int) -> None:
        """Caches hold ``cap`` positions: a step reads the whole buffer (later slots masked), so
        it grows in blocks as decoding goes on rather than being the template's length at once."""
        old = s.caches
        s.caches = []
        for i in range(self.n_layer):
            k = np.zeros((s.n, self.n_head, cap, self.dk), np.float32)
            v = np.zeros((s.n, self.n_head, cap, self.dk), np.float32)
            if old:
                k[:, :, :s.cap] = old[i][0]
                v[:, :, :s.cap] = old[i][1]
            self._bind_input(s, f"cache_k{i}", k)
            self._bind_input(s, f"cache_v{i}", v)
            s.caches.append((k, v))
        if s.steering is not None:     # the block's sequence keys, grown with the others
            k = np.zeros((s.n, self.n_head, cap, self.dk), np.float32)
            if s.block_k is not None:
                k[:, :, :s.cap] = s.block_k
            self._bind_input(s, "cache_block_k", k)
            s.block_k = k
        s.cap = cap

    def step(self, state: _State, prev: np.ndarray, position: int) -> np.ndarray:
        if not 0 <= position < state.T:
            raise IndexError(f"position {position} outside the template's {state.T} positions")
        if position >= state.cap:
            self._grow(state, min(state.T, max(position + 1, state.cap + self.cache_block)))
        state.prev[:] = prev
        state.pos[...] = position
        if state.steering is not None and state.steering.mask is not None:
            m = state.steering.mask
            state.cbias[0, 0, 0] = state.steering.bias[0, 0, 0] + m[min(position, len(m) - 1)]
        logp = np.empty((state.n, self.V), dtype=np.float32)
        new = np.empty((state.n, self.n_layer, 2, self.n_head, self.dk), dtype=np.float32)
        b = state.binding
        b.bind_output("logp", "cpu", 0, np.float32, [state.n, self.V], logp.ctypes.data)
        b.bind_output("new_kv", "cpu", 0, np.float32, [state.n, 2 * self.n_layer * self.d_model],
                      new.ctypes.data)
        block_k = None
        if state.block_k is not None:
            block_k = np.empty((state.n, self.n_head, self.dk), dtype=np.float32)
            b.bind_output("new_block_k", "cpu", 0, np.float32, [state.n, self.d_model], block_k.ctypes.data)
        state.keep["outputs"] = (logp, new, block_k)   # the binding points at them until the next step
        state.session.run_with_iobinding(b)
        for i, (k, v) in enumerate(state.caches):
            k[:, :, position, :] = new[:, i, 0]
            v[:, :, position, :] = new[:, i, 1]
        if block_k is not None:
            state.block_k[:, :, position, :] = block_k
        return logp

    def select(self, state: _State, rows: np.ndarray) -> _State:
        """Keep only some rows (e.g. after dropping candidates), or as many rows as before, each
        going on from ``rows[r]`` (the English decoder's drafts of a line), in place: only the
        positions written so far are copied, and nothing is bound again."""
        rows = np.asarray(rows, dtype=np.int64)
        if len(rows) == state.n:
            upto = min(int(state.pos) + 1, state.cap)
            for arr in [a for kv in state.caches for a in kv] + ([state.block_k] if state.block_k is not None else []):
                arr[:, :, :upto] = arr[rows, :, :upto]
            if state.mem[0].shape[0] != 1:
                for name in self._mem_names:
                    arr = state.keep[name][0]
                    arr[:] = arr[rows]
            state.prev[:] = state.prev[rows]
            return state
        mem = state.mem if state.mem[0].shape[0] == 1 else [m[rows] for m in state.mem]
        s = self._bind(mem, len(rows), state.T, state.steering)
        if state.cap > s.cap:
            self._grow(s, state.cap)
        s.prev[:] = state.prev[rows]
        for (k, v), (k0, v0) in zip(s.caches, state.caches):
            k[:] = k0[rows]
            v[:] = v0[rows]
        if s.block_k is not None:
            s.block_k[:] = state.block_k[rows]
        return s

    def score(self, arrays: dict[str, np.ndarray], targets: np.ndarray, bos: int,
              steering: ContentKeys | None = None) -> np.ndarray:
        """Teacher-forced log-probs of ``targets`` (B, T) under template arrays (B, T) each
        (rows padded with fmt 0 after their end), stepping through the positions."""
        targets = np.asarray(targets, dtype=np.int64)
        B, T = targets.shape
        state = self.start(arrays, B, steering=steering)
        prev = np.full(B, bos, dtype=np.int64)
        out = np.zeros((B, T), dtype=np.float32)
        for p in range(T):
            lp = self.step(state, prev, p)
            out[:, p] = lp[np.arange(B), targets[:, p]]
            prev = targets[:, p]
        return out


class SteeredOnnxBackend:
    """An OnnxBackend whose rows are steered by one request's contents: the same interface, its
    states stepping through the steered step graph. Made per request by ``OnnxBackend.steered``
    (the torch backend's SteeredBackend, without torch); the decoder does not know the difference."""

    def __init__(self, backend: OnnxBackend, keys: ContentKeys):
        self.backend, self.keys = backend, keys
        self.name, self.max_len, self.supports_content = backend.name, backend.max_len, True

    def start(self, arrays: dict[str, np.ndarray], n: int, memory: list[np.ndarray] | None = None) -> _State:
        return self.backend.start(arrays, n, memory, steering=self.keys)

    def step(self, state: _State, prev: np.ndarray, position: int) -> np.ndarray:
        return self.backend.step(state, prev, position)

    def select(self, state: _State, rows: np.ndarray) -> _State:
        return self.backend.select(state, rows)

    def score(self, arrays: dict[str, np.ndarray], targets: np.ndarray, bos: int) -> np.ndarray:
        return self.backend.score(arrays, targets, bos, steering=self.keys)


"""Model directory I/O and the torch decoding backend.

A model directory holds::

    model.safetensors   weights (fp16 when shipped; loaded as fp32)
    config.json         ModelConfig
    vocab.json          the vocabulary, with its sha256
    manifest.json       format version, vocab hash, corpus hash, training facts, metrics

Loading checks that every file is there, the vocabulary hash matches the manifest, the weight keys
are exactly the model's and every shape fits; anything else is a ModelLoadError saying which.

The backend interface (also what the onnxruntime backend implements):
``start(arrays, n) -> state`` encodes the template memory once for n rows and
``step(state, prev_tokens, position) -> log-probs (n, V)`` advances every row by one position.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import torch

from songwriter.engine.errors import ModelLoadError
from songwriter.engine.model import FIELDS, ModelConfig, SongNet
from songwriter.engine.model_folder import CONFIG, MANIFEST, TORCH_FILES, VOCAB, WEIGHTS, require
from songwriter.engine.vocab import Vocab, load_checked

FORMAT_VERSION = 1


def save_model_dir(model: SongNet, vocab: Vocab, out: str | Path, manifest: dict | None = None,
                   dtype: torch.dtype = torch.float16) -> Path:
    from safetensors.torch import save_file

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    state = {k: v.detach().to("cpu", dtype).contiguous() for k, v in model.state_dict().items()}
    save_file(state, str(out / WEIGHTS), metadata={"format_version": str(FORMAT_VERSION)})
    (out / CONFIG).write_text(json.dumps(model.cfg.to_dict(), indent=1), encoding="utf-8")
    vocab.save(out / VOCAB)
    m = dict(manifest or {})
    m.update({"format_version": FORMAT_VERSION, "vocab_sha256": vocab.sha256, "vocab_size": len(vocab),
              "params": model.num_params(), "dtype": str(dtype).replace("torch.", ""),
              "languages": m.get("languages", ["zh"])})
    (out / MANIFEST).write_text(json.dumps(m, ensure_ascii=False, indent=1), encoding="utf-8")
    return out


def read_model_dir(path: str | Path) -> tuple[ModelConfig, Vocab, dict, dict]:
    """(config, vocab, manifest, fp32 state dict) after every check; ModelLoadError otherwise."""
    path = require(path, TORCH_FILES)
    from songwriter.engine.api import read_manifest
    from songwriter.validate import parse_json

    manifest = read_manifest(path)
    try:
        raw = (path / CONFIG).read_bytes()[:10_000_001]
        cfg = ModelConfig.from_dict(parse_json(raw, str(path / CONFIG), 10_000_000, ModelLoadError))
    except (ValueError, TypeError, AttributeError, OSError) as e:   # a field of the config
        raise ModelLoadError(f"{path}: config.json is not valid: {e}") from None
    if manifest.get("format_version") != FORMAT_VERSION:
        raise ModelLoadError(f"{path}: model format {manifest.get('format_version')!r}, this app reads "
                             f"{FORMAT_VERSION}")
    vocab = load_checked(path, manifest)
    if cfg.vocab_size != len(vocab):
        raise ModelLoadError(f"{path}: config says {cfg.vocab_size} tokens, vocab.json has {len(vocab)}")
    try:
        from safetensors.torch import load_file

        state = load_file(str(path / WEIGHTS))
    except Exception as e:  # safetensors raises several types for a damaged file
        raise ModelLoadError(f"{path}: {WEIGHTS} cannot be read ({type(e).__name__}: {e})") from None
    return cfg, vocab, manifest, {k: v.float() for k, v in state.items()}


def load_weights_checked(module: "torch.nn.Module", state: dict, where: str, what: str = "the model") -> None:
    """Load ``state`` into ``module`` after checking it: the same names, the same shapes, every
    value finite; a ModelLoadError saying what does not fit otherwise."""
    want = module.state_dict()
    missing = sorted(set(want) - set(state))
    unexpected = sorted(set(state) - set(want))
    if missing or unexpected:
        parts = []
        if missing:
            parts.append(f"missing {len(missing)} ({', '.join(missing[:4])}{', …' if len(missing) > 4 else ''})")
        if unexpected:
            parts.append(f"unexpected {len(unexpected)} ({', '.join(unexpected[:4])}"
                         f"{', …' if len(unexpected) > 4 else ''})")
        raise ModelLoadError(f"{where}: the weights do not fit {what}: " + "; ".join(parts))
    for k, v in state.items():
        if tuple(v.shape) != tuple(want[k].shape):
            raise ModelLoadError(f"{where}: weight {k} has shape {tuple(v.shape)}, {what} wants "
                                 f"{tuple(want[k].shape)}")
        if not torch.isfinite(v).all():
            raise ModelLoadError(f"{where}: weight {k} holds NaN or infinity")
    module.load_state_dict(state, strict=True)


def build_model(cfg: ModelConfig, state: dict, where: str = "") -> SongNet:
    model = SongNet(cfg)
    load_weights_checked(model, state, where)
    model.eval()
    return model


def pick_device(name: str = "auto") -> torch.device:
    if name in ("auto", "torch", ""):
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    return torch.device(name)


class TorchBackend:
    """Decoding steps with a KV cache on one device."""

    def __init__(self, model: SongNet, device: torch.device | None = None, cocon=None):
        self.device = device or pick_device()
        self.model = model.to(self.device).eval()
        self.name = f"torch-{self.device.type}"
        # the content-steering block (engine/cocon.py) when the folder has one
        self.cocon = cocon.to(self.device).eval() if cocon is not None else None
        self.supports_content = self.cocon is not None

    @classmethod
    def from_dir(cls, path: str | Path, device: str = "auto") -> tuple["TorchBackend", Vocab, dict]:
        from songwriter.engine.cocon import load_block

        cfg, vocab, manifest, state = read_model_dir(path)
        model = build_model(cfg, state, str(path))
        block = load_block(path, cfg)   # refused when trained on another base
        return cls(model, pick_device(device), block), vocab, manifest

    def steered(self, content: list[str], strengths: list[float], vocab: Vocab,
                scopes: list[np.ndarray | None] | None = None):
        """This backend with the request's contents steering every row (``SteeredBackend``), or
        itself when it has no block or no content has a character in the vocabulary.
        ``scopes[c]``: None, or the positions (bool, over the template) whose queries see
        content c (a line's content; ``engine.content.scope_mask``)."""
        if self.cocon is None or not content:
            return self
        from songwriter.engine.cocon import make_steering

        steering = make_steering(self.model, self.cocon, vocab, content, strengths, scopes)
        return self if steering is None else SteeredBackend(self, steering)

    @property
    def max_len(self) -> int:
        return self.model.cfg.max_len

    @torch.inference_mode()
    def start(self, arrays: dict[str, np.ndarray], n: int) -> dict:
        """arrays: template channels (T,) incl. ``given``; memory for n identical rows."""
        t = {k: torch.as_tensor(arrays[k], device=self.device)[None].expand(n, -1)
             for k in (*FIELDS, "given")}
        mem_kv, mem_bias = self.model.encode_memory(t)
        return {"t": t, "mem": mem_kv, "mem_bias": mem_bias, "caches": [{} for _ in self.model.blocks]}

    @torch.inference_mode()
    def step(self, state: dict, prev: np.ndarray, position: int) -> np.ndarray:
        prev_t = torch.as_tensor(prev, device=self.device, dtype=torch.long)
        t_now = {k: state["t"][k][:, position] for k in FIELDS}
        steering = state.get("steering")
        hook = None if steering is None else (lambda i, x: steering.step_hook(i, x, position))
        logits = self.model.step(prev_t, t_now, position, state["mem"], state["mem_bias"], state["caches"],
                                 hook=hook)
        return torch.log_softmax(logits.float(), dim=-1).cpu().numpy()

    @torch.inference_mode()
    def select(self, state: dict, rows: np.ndarray) -> dict:
        """Keep only some rows (e.g. after dropping candidates)."""
        idx = torch.as_tensor(rows, device=self.device, dtype=torch.long)
        out = {"t": {k: v[idx] for k, v in state["t"].items()},
               "mem": [(k[idx], v[idx]) for k, v in state["mem"]], "mem_bias": state["mem_bias"][idx],
               "caches": [{kk: vv[idx] for kk, vv in c.items()} for c in state["caches"]]}
        if state.get("steering") is not None:
            out["steering"] = state["steering"].select(idx)
        return out

    @torch.inference_mode()
    def score(self, arrays: dict[str, np.ndarray], targets: np.ndarray, bos: int) -> np.ndarray:
        """Teacher-forced log-probs of ``targets`` (B, T) under template arrays (B, T) each."""
        t = {k: torch.as_tensor(arrays[k], device=self.device) for k in (*FIELDS, "given")}
        tg = torch.as_tensor(targets, device=self.device, dtype=torch.long)
        inputs = torch.cat([torch.full_like(tg[:, :1], bos), tg[:, :-1]], dim=1)
        logp = torch.log_softmax(self.model(inputs, t).float(), dim=-1)
        return logp.gather(-1, tg[..., None])[..., 0].cpu().numpy()


class SteeredBackend:
    """A TorchBackend whose rows are steered by one request's contents (engine/cocon.py): the
    same interface, the block run after layer k at every step. Made per request by
    ``TorchBackend.steered``; the decoder does not know the difference."""

    def __init__(self, backend: TorchBackend, steering):
        self.backend, self.steering = backend, steering
        self.name, self.max_len, self.supports_content = backend.name, backend.max_len, True

    def start(self, arrays: dict[str, np.ndarray], n: int) -> dict:
        state = self.backend.start(arrays, n)
        state["steering"] = self.steering.fresh()   # a fresh cache per request
        return state

    def step(self, state: dict, prev: np.ndarray, position: int) -> np.ndarray:
        return self.backend.step(state, prev, position)

    def select(self, state: dict, rows: np.ndarray) -> dict:
        return self.backend.select(state, rows)

    @torch.inference_mode()
    def score(self, arrays: dict[str, np.ndarray], targets: np.ndarray, bos: int) -> np.ndarray:
        """Teacher-forced log-probs of ``targets`` with the contents steering (as ``TorchBackend.score``)."""
        dev = self.backend.device
        t = {k: torch.as_tensor(arrays[k], device=dev) for k in (*FIELDS, "given")}
        tg = torch.as_tensor(targets, device=dev, dtype=torch.long)
        inputs = torch.cat([torch.full_like(tg[:, :1], bos), tg[:, :-1]], dim=1)
        logp = torch.log_softmax(self.backend.model(inputs, t, hook=self.steering.hook).float(), dim=-1)
        return logp.gather(-1, tg[..., None])[..., 0].cpu().numpy()

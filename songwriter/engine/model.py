"""The SongNet-style template-conditioned decoder (one readable file; torch only here).

Shapes: B batch, T target positions, M memory positions (= T for one template), D model width,
H heads, V vocabulary.

    template embedding  E(fmt) + E(bpos) + E(line) + E(tone) + E(label) + E(group)
                        + E(kind)  (models with ``n_kind``; zero at start)               (B, T, D)
    memory              LN(template + tok(given) + pos)  computed once per request         (B, M, D)
    decoder input       tok(previous token) + template embedding of the TARGET position + pos
    each layer (pre-LN) x = x + SelfAttn(LN x)     causal, with a KV cache at decode
                        x = x + CrossAttn(LN x, memory)   no mask: the whole form is visible
                        x = x + FFN(LN x)
    logits              LN(x) @ tok.weight^T  (tied)                                       (B, T, V)
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

import torch
import torch.nn as nn
import torch.nn.functional as F

from songwriter.engine import encoding as E

# The template channels callers pass (``kind`` is ignored by models made before it existed).
FIELDS = E.CHANNELS


def model_channels(cfg: "ModelConfig") -> tuple[str, ...]:
    """The template channels this model reads (its ONNX encoder's inputs, with ``given``)."""
    return FIELDS if cfg.n_kind else tuple(k for k in FIELDS if k != "kind")


@dataclass
class ModelConfig:
    vocab_size: int
    n_layer: int = 6
    n_head: int = 6
    d_model: int = 384
    d_ff: int = 0            # 0 -> 4 * d_model
    max_len: int = 512
    dropout: float = 0.1
    n_fmt: int = E.N_FMT
    n_bpos: int = E.MAX_BPOS
    n_line: int = E.MAX_LINE
    n_tone: int = 3
    n_label: int = E.MAX_LABEL
    n_group: int = E.N_GROUPS
    n_kind: int = 0          # 0: no kind channel (models before it); new models E.N_KINDS
    supports_content: bool = False
    extra: dict = field(default_factory=dict)

    def __post_init__(self):
        if not self.d_ff:
            self.d_ff = 4 * self.d_model
        if self.d_model % self.n_head:
            raise ValueError("d_model must be a multiple of n_head")

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> "ModelConfig":
        known = {k: v for k, v in d.items() if k in cls.__dataclass_fields__}
        return cls(**known)


# "matmul" (the default) or "sdpa": the CPU attention kernel; bench/train_step.py sets "sdpa" to
# time the step as it was
CPU_ATTENTION = "matmul"


def attend(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, bias: torch.Tensor | None = None,
           causal: bool = False, dropout: float = 0.0) -> torch.Tensor:
    """softmax(q k^T / sqrt(dk) + bias) v over (B, H, T, dk) heads; ``bias`` is additive (0 or -inf),
    broadcast to (B, H, T, S). ``causal`` masks later keys.

    On a CPU without dropout this is a plain matmul-softmax-matmul: for this model's sequences
    (30-320 positions) it trains 2-4x faster than the CPU flash kernel (docs/performance.md,
    "Training step"). Elsewhere the fused kernel is used."""
    if q.device.type != "cpu" or dropout or CPU_ATTENTION != "matmul":
        mask = None if bias is None else bias > float("-inf")
        return F.scaled_dot_product_attention(q, k, v, attn_mask=mask, is_causal=causal, dropout_p=dropout)
    # scores and softmax in fp32 (or the inputs' wider type), the products in the inputs' type
    scores = torch.matmul(q * (q.shape[-1] ** -0.5), k.transpose(-1, -2))
    scores = scores.to(torch.promote_types(scores.dtype, torch.float32))                # (B, H, T, S)
    if causal:
        T, S = scores.shape[-2:]
        scores = scores + causal_bias(T, S, scores.device)
    if bias is not None:
        scores = scores + bias
    return torch.matmul(torch.softmax(scores, dim=-1).to(v.dtype), v)


_CAUSAL: dict[tuple, torch.Tensor] = {}


def causal_bias(T: int, S: int, device) -> torch.Tensor:
    """(T, S) additive mask: query i (the last T of S positions) sees keys up to S - T + i.
    Cached per shape, so a training step allocates none."""
    key = (T, S, str(device))
    if key not in _CAUSAL:
        if len(_CAUSAL) > 64:
            _CAUSAL.clear()
        _CAUSAL[key] = torch.full((T, S), float("-inf"), device=device).triu(S - T + 1)
    return _CAUSAL[key]


def padding_bias(keep: torch.Tensor) -> torch.Tensor:
    """(B, S) bool of keys to attend to -> (B, 1, 1, S) additive bias (0 or -inf)."""
    return torch.zeros(keep.shape, device=keep.device).masked_fill(~keep, float("-inf"))[:, None, None, :]


class Attention(nn.Module):
    def __init__(self, cfg: ModelConfig, cross: bool):
        super().__init__()
        self.h, self.dk = cfg.n_head, cfg.d_model // cfg.n_head
        self.cross = cross
        self.q = nn.Linear(cfg.d_model, cfg.d_model)
        self.kv = nn.Linear(cfg.d_model, 2 * cfg.d_model)
        self.o = nn.Linear(cfg.d_model, cfg.d_model)
        self.drop = cfg.dropout

    def split(self, x: torch.Tensor) -> torch.Tensor:  # (B, T, D) -> (B, H, T, dk)
        B, T, _ = x.shape
        return x.view(B, T, self.h, self.dk).transpose(1, 2)

    def project_kv(self, src: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        k, v = self.kv(src).chunk(2, dim=-1)
        return self.split(k), self.split(v)

    def forward(self, x, kv: tuple[torch.Tensor, torch.Tensor], bias=None, causal=False):
        B, T, D = x.shape
        q = self.split(self.q(x))
        k, v = kv
        y = attend(q, k, v, bias, causal, self.drop if self.training else 0.0)
        return self.o(y.transpose(1, 2).reshape(B, T, D))


class Block(nn.Module):
    def __init__(self, cfg: ModelConfig):
        super().__init__()
        self.ln1, self.ln2, self.ln3 = (nn.LayerNorm(cfg.d_model) for _ in range(3))
        self.self_attn = Attention(cfg, cross=False)
        self.cross_attn = Attention(cfg, cross=True)
        self.ff = nn.Sequential(nn.Linear(cfg.d_model, cfg.d_ff), nn.GELU(),
                                nn.Linear(cfg.d_ff, cfg.d_model), nn.Dropout(cfg.dropout))
        self.drop = nn.Dropout(cfg.dropout)

    def forward(self, x, mem_kv, mem_bias, cache: dict | None = None):
        """x: (B, T, D). With ``cache`` (decode), keys/values of earlier steps are appended."""
        h = self.ln1(x)
        k, v = self.self_attn.project_kv(h)
        if cache is not None:
            if "k" in cache:
                k = torch.cat([cache["k"], k], dim=2)
                v = torch.cat([cache["v"], v], dim=2)
            cache["k"], cache["v"] = k, v
            causal = x.shape[1] > 1 and k.shape[2] == x.shape[1]
        else:
            causal = True
        x = x + self.drop(self.self_attn(h, (k, v), causal=causal))
        x = x + self.drop(self.cross_attn(self.ln2(x), mem_kv, bias=mem_bias))
        x = x + self.ff(self.ln3(x))
        return x


class SongNet(nn.Module):
    def __init__(self, cfg: ModelConfig):
        super().__init__()
        self.cfg = cfg
        D = cfg.d_model
        self.tok = nn.Embedding(cfg.vocab_size, D)
        self.pos = nn.Embedding(cfg.max_len, D)
        self.fmt = nn.Embedding(cfg.n_fmt, D)
        self.bpos = nn.Embedding(cfg.n_bpos, D)
        self.line = nn.Embedding(cfg.n_line, D)
        self.tone = nn.Embedding(cfg.n_tone, D)
        self.label = nn.Embedding(cfg.n_label, D)
        self.group = nn.Embedding(cfg.n_group, D)
        self.kind = nn.Embedding(cfg.n_kind, D) if cfg.n_kind else None
        self.mem_ln = nn.LayerNorm(D)
        self.drop = nn.Dropout(cfg.dropout)
        self.blocks = nn.ModuleList(Block(cfg) for _ in range(cfg.n_layer))
        self.ln_f = nn.LayerNorm(D)
        self.apply(self._init)
        for name, p in self.named_parameters():
            if name.endswith("o.weight") or name.endswith("ff.2.weight"):
                nn.init.normal_(p, std=0.02 / math.sqrt(2 * cfg.n_layer))
        if self.kind is not None:
            # zero: a model warm-started from one without the channel begins by computing the same
            nn.init.zeros_(self.kind.weight)

    @staticmethod
    def _init(m):
        if isinstance(m, nn.Linear):
            nn.init.normal_(m.weight, std=0.02)
            nn.init.zeros_(m.bias)
        elif isinstance(m, nn.Embedding):
            nn.init.normal_(m.weight, std=0.02)

    def num_params(self) -> int:
        return sum(p.numel() for p in self.parameters())

    def template_embedding(self, t: dict[str, torch.Tensor]) -> torch.Tensor:
        x = (self.fmt(t["fmt"]) + self.bpos(t["bpos"]) + self.line(t["line"]) + self.tone(t["tone"])
             + self.label(t["label"]) + self.group(t["group"]))
        if self.kind is None:
            return x
        kind = t["kind"]
        if E.predates_registers(self.cfg.n_kind):     # it reads the newer registers as their parent kind
            kind = torch.where(kind >= self.cfg.n_kind,
                               torch.as_tensor(E.KIND_FALLBACK, device=kind.device)[kind.clamp(max=E.N_KINDS - 1)], kind)
        return x + self.kind(kind)

    def encode_memory(self, t: dict[str, torch.Tensor]):
        """Template arrays (B, M) -> per-layer cross-attention keys/values and the padding bias
        (B, 1, 1, M): 0 where the memory holds a position, -inf at padding."""
        B, M = t["fmt"].shape
        pos = torch.arange(M, device=t["fmt"].device)
        mem = self.mem_ln(self.template_embedding(t) + self.tok(t["given"]) + self.pos(pos))
        mem = self.drop(mem)
        return [blk.cross_attn.project_kv(mem) for blk in self.blocks], padding_bias(t["fmt"] != E.F_PAD)

    def features(self, inputs: torch.Tensor, t: dict[str, torch.Tensor], hook=None) -> torch.Tensor:
        """The final hidden states (B, T, D), before the tied output projection. ``hook(i, x)``,
        when given, is called after layer i and returns the hidden states the next layer reads
        (the content-steering block, engine/cocon.py, sits there; without it nothing changes)."""
        mem_kv, mem_bias = self.encode_memory(t)
        B, T = inputs.shape
        pos = torch.arange(T, device=inputs.device)
        x = self.drop(self.tok(inputs) + self.template_embedding(t) + self.pos(pos))
        for i, (blk, kv) in enumerate(zip(self.blocks, mem_kv)):
            x = blk(x, kv, mem_bias)
            if hook is not None:
                x = hook(i, x)
        return self.ln_f(x)

    def forward(self, inputs: torch.Tensor, t: dict[str, torch.Tensor], logits: bool = True,
                hook=None) -> torch.Tensor:
        """Training/scoring: inputs (B, T) previous tokens; t the template arrays (B, T) -> logits
        (B, T, V), or with ``logits=False`` the final hidden states (B, T, D) for a loss that
        applies the tied projection itself (train/step.py; through forward, so DDP sees it)."""
        h = self.features(inputs, t, hook)
        return h @ self.tok.weight.T if logits else h

    def step(self, prev: torch.Tensor, t_now: dict[str, torch.Tensor], position: int,
             mem_kv, mem_bias, caches: list[dict], hook=None) -> torch.Tensor:
        """Decode one position for every row: prev (B,) previous tokens; t_now (B,) template
        fields of the position to predict. Returns logits (B, V); ``caches`` grow by one.
        ``hook(i, x)``: as in ``features``, for the one new position (B, 1, D)."""
        pos = torch.full_like(prev, position)
        x = self.tok(prev) + self.template_embedding(t_now) + self.pos(pos)
        x = x[:, None, :]
        for i, (blk, kv, cache) in enumerate(zip(self.blocks, mem_kv, caches)):
            x = blk(x, kv, mem_bias, cache)
            if hook is not None:
                x = hook(i, x)
        return (self.ln_f(x) @ self.tok.weight.T)[:, 0]

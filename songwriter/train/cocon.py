"""Train the content-steering block (engine/cocon.py) on a frozen base model (resumable).

    python -m songwriter.train train-cocon --base models/zh --out runs/cocon-zh --minutes 90 --install models/zh

Self-supervised from the corpus (runs/corpus/zh: pieces.jsonl + split.json, training pieces only).
Each example is a piece (or a window of whole lines of it) with the base training's infilling,
tone, rhyme and kind masks (train/dataset.py), so the block learns to steer under every template
feature, plus content drawn from the same piece:

- keywords (35 %): 1-3 words of 1-2 characters of the piece, the rarer characters more often
  (weight: log of the corpus frequency ratio), each its own content (several contents at once);
  with --keyword-words, two-character keywords only where the planner's word list has them;
- lines (40 %): one or two consecutive lines of the piece, marks included;
- a phrase (25 %): 2-8 consecutive characters of one line.
(--shares KEYWORDS,LINES sets the mix.)

Losses (CoCon's, all weight 1 by default; each logged):

- self: the piece's NLL with its content, under the same-token mask for lines and phrases (the
  query that predicts position p does not see the content key holding p's own token, so the block
  learns their subject rather than to copy them in place); a keyword stays visible to its own
  position (it is there to be written; --mask-keywords masks it too, CoCon's rule);
- null: the NLL with no content. The block is the base exactly there (engine/cocon.py), so this
  is the frozen base's loss, logged as the line the self loss should fall below; it has no
  gradient;
- cycle (from --cycle-start): the content of piece A steers the form of piece B (the next piece
  in the batch); the result, as soft tokens (the block's probabilities at B's first lines times
  the token embeddings, characters only), is laid out as a content and must bring back A. The
  transfer is one teacher-forced pass over B (a parallel stand-in for sampling, so the cycle
  costs two passes, not one per position); gradients flow through the soft tokens;
- adv (from --adv-start): a small convolutional discriminator on the lower layers' states tells
  B's real first lines from the soft tokens written on B's form; the block is trained to fool
  it (non-saturating), the discriminator is updated every --disc-every steps.

``<out>/cocon-ckpt.pt`` is written every --ckpt-minutes and on SIGTERM/SIGINT (block, discriminator,
optimizers, sampler and RNG state; tensors and plain data only), and running the same command
resumes. The block's files (cocon.safetensors, cocon.json with the base's sha256) go to <out>,
and with --install DIR into the model folder DIR, whose model.safetensors must be the base.
"""

from __future__ import annotations

import json
import math
import signal
import sys
import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from songwriter.engine import encoding as E
from songwriter.engine.cocon import (
    CoConBlock, CoConConfig, content_batch, encode_content, gather_rows, load_block, same_token_bias,
    save_block,
)
from songwriter.engine.model_folder import WEIGHTS, file_sha256
from songwriter.train import corpus as C
from songwriter.train.dataset import MaskConfig, PieceStore, Sampler, collate, make_example
from songwriter.train.step import TiedCrossEntropy, to_tensors
from songwriter.train.trainer import checkpoint_safe

CKPT = "cocon-ckpt.pt"
DEFAULT_WEIGHTS = {"ci": 0.25, "shi": 0.45, "qu": 0.05, "modern": 0.15, "poem": 0.10}


@dataclass
class CoConTrainConfig:
    base: str = "models/zh"
    out: str = "runs/cocon-zh"
    corpus: str = str(C.DEFAULT_OUT)
    layer: int = 0                 # 0: after about a third of the base's layers (engine.cocon.default_layer)
    content_len: int = 64          # content positions per training content
    cycle_len: int = 48            # soft-token positions of the cycle's transfer (whole lines of B)
    batch_tokens: int = 4096
    lr: float = 3e-4
    min_lr_ratio: float = 0.1
    warmup: int = 100
    total_steps: int = 3000
    weight_decay: float = 0.01
    grad_clip: float = 1.0
    w_self: float = 1.0
    w_cycle: float = 1.0
    w_adv: float = 1.0
    cycle_start: int = 300         # CoCon starts cycle and adversarial losses after 2,000 of 31k steps
    adv_start: int = 300
    disc_every: int = 5
    disc_lr: float = 1e-4
    p_keywords: float = 0.35
    p_lines: float = 0.40          # the rest: a phrase
    mask_keywords: bool = False    # keywords under the same-token mask too (CoCon's rule for its continuations)
    keyword_words: str = ""        # a plan.json: two-character keywords only where its word list has them
    minutes: float = 0.0
    ckpt_minutes: float = 5.0
    log_every: int = 20
    eval_every: int = 250
    dev_pieces: int = 64
    seed: int = 1234
    precision: str = "auto"        # auto | bf16 | fp32
    init: str = "base"             # base: q, k and the content's k/v start as the base's layer-k attention
    init_block: str = ""           # a model folder whose block (trained on an earlier base) is the start
    threads: int = 0
    limit_pieces: int = 0          # for tests: only this many training pieces
    weights: dict = field(default_factory=lambda: dict(DEFAULT_WEIGHTS))


def lr_at(step: int, cfg: CoConTrainConfig) -> float:
    if step < cfg.warmup:
        return cfg.lr * (step + 1) / cfg.warmup
    frac = min(1.0, (step - cfg.warmup) / max(1, cfg.total_steps - cfg.warmup))
    return cfg.lr * (cfg.min_lr_ratio + (1 - cfg.min_lr_ratio) * 0.5 * (1 + math.cos(math.pi * frac)))


# ---------------------------------------------------------------------------------------------
# Content drawn from a piece

def _one_line(ids: list[int], src: list[int], vocab) -> dict[str, np.ndarray]:
    n = len(ids) + 1
    return {"tok": np.asarray(ids + [vocab.eol], dtype=np.int64),
            "fmt": np.asarray([E.F_CHAR] * (len(ids) - 1) + [E.F_RHYME, E.F_EOL], dtype=np.int64),
            "bpos": np.arange(n - 1, -1, -1, dtype=np.int64), "line": np.zeros(n, dtype=np.int64),
            "src": np.asarray(src + [-1], dtype=np.int64)}


def draw_contents(p: dict[str, np.ndarray], vocab, rng: np.random.Generator, rarity: np.ndarray,
                  cfg: CoConTrainConfig, words: set[tuple[int, int]] | None = None) -> list[dict[str, np.ndarray]]:
    """Contents for one piece (its arrays from PieceStore.piece): layouts with ``src``, the
    position in the piece each content token came from. ``words``: the two-character keywords
    allowed (token-id pairs), or None for any two adjacent characters."""
    tok, fmt = p["tok"], p["fmt"]
    is_char = (fmt == E.F_CHAR) | (fmt == E.F_RHYME)
    starts = np.nonzero(p["lstart"])[0].tolist() + [len(tok)]
    lines = [(a, b) for a, b in zip(starts[:-1], starts[1:]) if is_char[a:b].any()]
    r = rng.random()
    chars = np.nonzero(is_char)[0]
    if r < cfg.p_keywords and len(chars):
        # words of 1-2 characters, rarer characters more often, each its own content
        spans = [(int(c), 2) for c in chars if c + 1 < len(tok) and is_char[c + 1]
                 and (words is None or (int(tok[c]), int(tok[c + 1])) in words)] + [(int(c), 1) for c in chars]
        score = np.asarray([rarity[tok[a:a + n]].mean() for a, n in spans]) + 1e-3
        want = int(rng.integers(1, 4))
        order = rng.choice(len(spans), size=min(len(spans), want * 4), replace=False, p=score / score.sum())
        out, used = [], set()
        for i in order:
            a, n = spans[int(i)]
            if used & set(range(a, a + n)):
                continue
            used |= set(range(a, a + n))
            # a keyword is there to be used: unless asked, it is visible to its own position
            src = list(range(a, a + n)) if cfg.mask_keywords else [-1] * n
            out.append(_one_line(tok[a:a + n].tolist(), src, vocab))
            if len(out) == want:
                break
        return out
    if r < cfg.p_keywords + cfg.p_lines and lines:
        i = int(rng.integers(len(lines)))
        a, b = lines[i]
        if i + 1 < len(lines) and rng.random() < 0.5 and lines[i + 1][1] - a <= cfg.content_len:
            b = lines[i + 1][1]
        b = min(b, a + cfg.content_len)
        return [{"tok": tok[a:b].astype(np.int64), "fmt": fmt[a:b].astype(np.int64),
                 "bpos": p["bpos"][a:b].astype(np.int64), "line": (p["line"][a:b] - p["line"][a]).astype(np.int64),
                 "src": np.arange(a, b, dtype=np.int64)}]
    # a phrase of one line
    a, b = lines[int(rng.integers(len(lines)))] if lines else (0, len(tok))
    cs = [int(c) for c in range(a, b) if is_char[c]]
    if not cs:
        return []
    n = int(rng.integers(min(2, len(cs)), min(8, len(cs)) + 1))
    s = int(rng.integers(0, len(cs) - n + 1))
    sel = cs[s:s + n]
    return [_one_line(tok[sel].tolist(), sel, vocab)]


class ContentSampler(Sampler):
    """The base trainer's batches (train/dataset.Sampler: mix weights, length buckets, masks),
    each example with contents from its own piece."""

    def __init__(self, store: PieceStore, weights: dict, tokens: int, seed: int, cfg: CoConTrainConfig,
                 rarity: np.ndarray, words: set[tuple[int, int]] | None = None):
        super().__init__(store, weights, tokens, seed, MaskConfig())
        self.cfg, self.rarity, self.words = cfg, rarity, words

    def next(self):
        if not self.queue:
            self._refill()
        ids = self.queue.pop()
        pieces = [self.store.piece(i, self.rng) for i in ids]
        vocab = self.store.vocab
        ex = [make_example(p, vocab, self.rng, self.mc) for p in pieces]
        contents = [draw_contents(p, vocab, self.rng, self.rarity, self.cfg, self.words) for p in pieces]
        return collate(ex, vocab.pad), contents


@torch.no_grad()
def start_from_base(block: CoConBlock, base) -> None:
    """Start the block's scoring where the base's next layer scores its own context: its layer
    norms, query and key projections from that layer's self-attention (and its FFN's first layer
    and norm), the content's keys and values from the same attention's k/v. The output projection
    and the FFN's last layer stay zero, so the block still writes nothing at step 0; what changes is
    that a query's attention over [content ; sequence] is already the base's, peaked on the context
    it finds useful, instead of near-uniform (docs/cocon.md, "First training")."""
    nxt = base.blocks[block.cfg.layer]
    D = block.cfg.d_model
    kv = nxt.self_attn.kv
    for dst in (block.ln, block.ln_c):
        dst.load_state_dict(nxt.ln1.state_dict())
    block.q.load_state_dict(nxt.self_attn.q.state_dict())
    block.k.weight.copy_(kv.weight[:D])
    block.k.bias.copy_(kv.bias[:D])
    block.kv_c.load_state_dict(kv.state_dict())
    block.ln_f.load_state_dict(nxt.ln3.state_dict())
    block.ff[0].load_state_dict(nxt.ff[0].state_dict())


def word_pairs(plan_path: str | Path, vocab) -> set[tuple[int, int]]:
    """The two-character words of a planner statistics file (songwriter/plan), as token-id pairs."""
    from songwriter.plan import load_stats

    pairs = set()
    for w in load_stats(plan_path).words:
        if len(w) == 2:
            a, b = vocab.id(w[0]), vocab.id(w[1])
            if vocab.unk not in (a, b):
                pairs.add((a, b))
    return pairs


def rarity_table(store: PieceStore) -> np.ndarray:
    """log(total / count) per token id over the training pieces (0 for specials and marks)."""
    vocab = store.vocab
    counts = np.bincount(store.cols["tok"].astype(np.int64), minlength=len(vocab)).astype(float)
    out = np.log(counts.sum() / np.maximum(counts, 1.0))
    out[:vocab.first_char] = 0.0
    return out


# ---------------------------------------------------------------------------------------------
# The discriminator and the losses

class Discriminator(nn.Module):
    """Real text or soft-token text? Two 1-D convolutions over the lower layers' states, a mean
    over the content's positions, one logit."""

    def __init__(self, d_model: int, width: int = 128):
        super().__init__()
        self.ln = nn.LayerNorm(d_model, elementwise_affine=False)
        self.c1 = nn.Conv1d(d_model, width, 3, padding=1)
        self.c2 = nn.Conv1d(width, width, 3, padding=1)
        self.out = nn.Linear(width, 1)

    def forward(self, x: torch.Tensor, keep: torch.Tensor) -> torch.Tensor:
        m = keep[..., None].to(x.dtype)
        z = (self.ln(x) * m).transpose(1, 2)
        z = F.gelu(self.c2(F.gelu(self.c1(z)))).transpose(1, 2)
        return self.out((z * m).sum(1) / m.sum(1).clamp_min(1.0))[:, 0]


def _nll(h: torch.Tensor, weight: torch.Tensor, targets: torch.Tensor, valid: torch.Tensor, dtype) -> torch.Tensor:
    at = torch.nonzero(valid.reshape(-1)).squeeze(1)
    hh = h.reshape(-1, h.shape[-1]).index_select(0, at)
    return TiedCrossEntropy.apply(hh, weight, targets.reshape(-1).index_select(0, at), 0.0, dtype or hh.dtype)


def _content_tensors(contents: list[list[dict]], vocab, device):
    layouts, owner, src = [], [], []
    for r, cs in enumerate(contents):
        for c in cs:
            layouts.append(c)
            owner.append(r)
            src.append(c["src"])
    if not layouts:
        return None
    b = content_batch(layouts, vocab)
    t = {k: torch.as_tensor(b[k], device=device) for k in (*E.CHANNELS, "given")}
    return torch.as_tensor(b["inputs"], device=device), t, torch.as_tensor(b["keep"]), owner, src


def _first_lines(fmt: np.ndarray, cap: int) -> int:
    """Positions of the whole lines at the start of a piece that fit ``cap`` (at least one line's
    start, when the first line is longer)."""
    ends = np.nonzero(fmt[:cap] == E.F_EOL)[0]
    return int(ends[-1]) + 1 if len(ends) else min(cap, int((fmt != E.F_PAD).sum()))


class CoConLosses:
    """The losses of one batch, given the frozen base, the block and the discriminator."""

    def __init__(self, base, block: CoConBlock, disc: Discriminator, vocab, cfg: CoConTrainConfig, device, amp):
        self.base, self.block, self.disc, self.vocab, self.cfg = base, block, disc, vocab, cfg
        self.device, self.amp = device, amp
        self.k = block.cfg.layer
        self.char_ok = torch.zeros(len(vocab), dtype=torch.bool, device=device)
        self.char_ok[vocab.first_char:] = True
        self.char_ok[vocab.unk] = False

    def _hook(self, ckv, cbias, extra=None):
        k = self.k
        return lambda i, x: self.block(x, ckv, cbias, extra_bias=extra) if i == k - 1 else x

    def __call__(self, batch: dict, contents: list[list[dict]], step: int, null: bool = False,
                 cycle: bool = True, adv: bool = True, same_token: bool = True) -> dict:
        base, block, vocab, dev = self.base, self.block, self.vocab, self.device
        W = base.tok.weight
        inputs, targets, t = to_tensors(batch, dev)
        B, T = inputs.shape
        valid = t["fmt"] != E.F_PAD
        out: dict[str, torch.Tensor] = {}
        ct = _content_tensors(contents, vocab, dev)
        with torch.autocast(dev.type, dtype=self.amp, enabled=self.amp is not None):
            if null or ct is None:
                with torch.no_grad():
                    out["null"] = _nll(base(inputs, t, logits=False), W, targets, valid, self.amp)
            if ct is None:
                return out
            c_inputs, c_t, keep, owner, src = ct
            with torch.no_grad():
                states = encode_content(base, self.k, base.tok(c_inputs), c_t)
            keys, cbias, where = gather_rows(states, keep, owner, [0.0] * len(owner), B, src)
            ckv = block.content_kv(keys)
            extra = same_token_bias(where, T) if same_token else None
            h = base(inputs, t, logits=False, hook=self._hook(ckv, cbias, extra))
            out["self"] = _nll(h, W, targets, valid, self.amp)
            if not (cycle or adv) or B < 2:
                return out
            # transfer: row r's content written on the form of row r+1 (teacher-forced, soft tokens)
            perm = torch.roll(torch.arange(B, device=dev), -1)
            tB = {k: v[perm] for k, v in t.items()}
            inB, tgB = inputs[perm], targets[perm]
            fmtB = tB["fmt"].cpu().numpy()
            lens = [_first_lines(fmtB[r], self.cfg.cycle_len) for r in range(B)]
            Lc = max(lens)
            h1 = base(inB, tB, logits=False, hook=self._hook(ckv, cbias))[:, :Lc]
            logits = (h1 @ W.t()).float()
            is_char = (tB["fmt"][:, :Lc] == E.F_CHAR) | (tB["fmt"][:, :Lc] == E.F_RHYME)
            probs = torch.softmax(logits.masked_fill(~self.char_ok, float("-inf")), dim=-1)
            soft = probs.to(W.dtype) @ W                                              # (B, Lc, D)
            emb = torch.where(is_char[..., None], soft.to(h1.dtype), base.tok(tgB[:, :Lc]).to(h1.dtype))
            y_t = self._layout_of(tB, tgB, lens, Lc)
            emb_in = torch.cat([base.tok(torch.full_like(tgB[:, :1], vocab.bos)).to(emb.dtype), emb], dim=1)
            y_states = encode_content(base, self.k, emb_in, y_t)                      # (B, Lc, D)
            y_keep = torch.arange(Lc, device=dev)[None, :] < torch.as_tensor(lens, device=dev)[:, None]
            if cycle:
                y_bias = torch.zeros(y_keep.shape, device=dev).masked_fill(~y_keep, float("-inf"))[:, None, None]
                h2 = base(inputs, t, logits=False, hook=self._hook(block.content_kv(y_states), y_bias))
                out["cycle"] = _nll(h2, W, targets, valid, self.amp)
            if adv:
                with torch.no_grad():
                    real_in = torch.cat([torch.full_like(tgB[:, :1], vocab.bos), tgB[:, :Lc]], dim=1)
                    real = encode_content(base, self.k, base.tok(real_in), y_t)
                fake_logit = self.disc(y_states.float(), y_keep)
                out["adv"] = F.binary_cross_entropy_with_logits(fake_logit, torch.ones_like(fake_logit))
                out["_real"], out["_fake"], out["_keep"] = real.float(), y_states.detach().float(), y_keep
        return out

    def _layout_of(self, tB: dict, tgB: torch.Tensor, lens: list[int], Lc: int) -> dict:
        """The form of B's first lines as a content (content_batch's layout, built on tensors)."""
        vocab, dev = self.vocab, self.device
        B = tgB.shape[0]
        y = {k: torch.zeros((B, Lc + 1), dtype=torch.long, device=dev) for k in (*E.CHANNELS, "given")}
        y["given"][:] = vocab.pad
        for r, n in enumerate(lens):
            fmt = tB["fmt"][r, :n]
            y["fmt"][r, :n] = fmt
            y["fmt"][r, n] = E.F_EOS
            y["bpos"][r, :n] = tB["bpos"][r, :n]
            y["line"][r, :n] = tB["line"][r, :n]
            y["line"][r, n] = min(int(tB["line"][r, n - 1]) + 1, E.MAX_LINE - 1) if n else 0
            ch = (fmt == E.F_CHAR) | (fmt == E.F_RHYME)
            y["given"][r, :n] = torch.where(ch, torch.full_like(fmt, vocab.fill), tgB[r, :n])
            y["given"][r, n] = vocab.eos
        return y

    def disc_loss(self, out: dict) -> torch.Tensor:
        real = self.disc(out["_real"], out["_keep"])
        fake = self.disc(out["_fake"], out["_keep"])
        return (F.binary_cross_entropy_with_logits(real, torch.ones_like(real))
                + F.binary_cross_entropy_with_logits(fake, torch.zeros_like(fake)))


# ---------------------------------------------------------------------------------------------
# The run

def _load_base(path: Path):
    from songwriter.engine.torch_backend import build_model, read_model_dir

    mcfg, vocab, manifest, state = read_model_dir(path)
    model = build_model(mcfg, state, str(path))
    for p in model.parameters():
        p.requires_grad_(False)
    return model.eval(), vocab, manifest, file_sha256(path / WEIGHTS)


def _dev_set(dev_pieces: list[dict], vocab, cfg: CoConTrainConfig, rarity: np.ndarray):
    """A fixed dev set: held-out pieces with fixed masks and contents (drawn in the default shares
    whatever --shares trains on, so that dev figures of runs compare)."""
    store = PieceStore(dev_pieces, vocab, 320)
    rng = np.random.default_rng(0)
    dev_cfg = replace(cfg, p_keywords=CoConTrainConfig.p_keywords, p_lines=CoConTrainConfig.p_lines)
    items = []
    for i in range(len(store)):
        p = store.piece(i)
        items.append((make_example(p, vocab, rng, train=False), draw_contents(p, vocab, rng, rarity, dev_cfg)))
    return items


@torch.no_grad()
def dev_losses(losses: CoConLosses, items, batch: int = 16) -> dict:
    """Dev NLL per token with content (same-token mask on: what the rest of the piece and the
    content's neighbours give) and without (the base)."""
    tot = {"self": 0.0, "null": 0.0}
    n = 0
    for a in range(0, len(items), batch):
        chunk = items[a:a + batch]
        b = collate([e for e, _ in chunk], losses.vocab.pad)
        out = losses(b, [c for _, c in chunk], 0, null=True, cycle=False, adv=False)
        w = int((b["fmt"] != E.F_PAD).sum())
        for k in tot:
            tot[k] += float(out.get(k, out["null"])) * w
        n += w
    return {k: v / max(1, n) for k, v in tot.items()}


def train_cocon(cfg: CoConTrainConfig, install: str | None = None, log=print) -> Path:
    from songwriter.train.trainer import bf16_supported_cpu, load_ckpt

    if cfg.threads:
        torch.set_num_threads(cfg.threads)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    out = Path(cfg.out)
    out.mkdir(parents=True, exist_ok=True)
    ckpt_path = out / CKPT

    def say(msg):
        log(msg)
        with open(out / "train.txt", "a", encoding="utf-8") as f:
            f.write(time.strftime("%H:%M:%S ") + msg + "\n")

    base, vocab, manifest, base_sha = _load_base(Path(cfg.base))
    base.to(device)
    resume = load_ckpt(ckpt_path) if ckpt_path.exists() else None
    if resume is not None and resume["base_sha256"] != base_sha:
        raise SystemExit(f"{ckpt_path} trains a block for another base model (sha256 "
                         f"{resume['base_sha256'][:12]}…) than {cfg.base} ({base_sha[:12]}…); use a new --out")
    warm = None
    if resume is not None:
        bcfg = CoConConfig.from_dict(resume["block_config"])
    elif cfg.init_block:
        warm = load_block(cfg.init_block, base.cfg, any_base=True)
        if warm is None:
            raise SystemExit(f"--init-block {cfg.init_block}: that folder has no content-steering block")
        bcfg = replace(warm.cfg)
    else:
        bcfg = CoConConfig.for_base(base.cfg, cfg.layer or None, max(cfg.content_len, 128))
    bcfg.base_sha256 = base_sha
    torch.manual_seed(cfg.seed)
    block = CoConBlock(bcfg).to(device)
    if warm is not None:
        block.load_state_dict(warm.state_dict())
        say(f"the block starts from {cfg.init_block}'s (trained on base sha256 {warm.cfg.base_sha256[:12]}…)")
    elif resume is None and cfg.init == "base":
        start_from_base(block, base)
    disc = Discriminator(bcfg.d_model).to(device)
    say(f"base {cfg.base} ({base.cfg.n_layer}x{base.cfg.d_model}, sha256 {base_sha[:12]}…); block after layer "
        f"{bcfg.layer}: {sum(p.numel() for p in block.parameters()) / 1e6:.2f}M parameters")
    split = C.load_split(Path(cfg.corpus))
    dev_ids = set(split["dev"])
    held = dev_ids | set(split["test"])
    train_p, dev_p = [], []
    for p in C.load_pieces(Path(cfg.corpus)):
        if p["id"] in held:
            if p["id"] in dev_ids and len(dev_p) < cfg.dev_pieces and C.mix_group(p) in ("ci", "shi", "poem"):
                dev_p.append(p)
            continue
        train_p.append(p)
    if cfg.limit_pieces:
        train_p = train_p[:cfg.limit_pieces]
    store = PieceStore(train_p, vocab, 320)
    rarity = rarity_table(store)
    weights = {k: v for k, v in cfg.weights.items() if (store.mix == k).any() or (store.kinds == k).any()}
    words = word_pairs(cfg.keyword_words, vocab) if cfg.keyword_words else None
    if words is not None:
        say(f"two-character keywords: the {len(words):,} words of {cfg.keyword_words}")
    sampler = ContentSampler(store, weights, cfg.batch_tokens, cfg.seed, cfg, rarity, words)
    dev_items = _dev_set(dev_p, vocab, cfg, rarity) if dev_p else []
    say(f"{len(store)} training pieces ({store.offsets[-1]:,} tokens), {len(dev_items)} dev pieces")
    opt = torch.optim.AdamW(block.parameters(), lr=cfg.lr, betas=(0.9, 0.98), weight_decay=cfg.weight_decay)
    dopt = torch.optim.AdamW(disc.parameters(), lr=cfg.disc_lr, betas=(0.5, 0.9))
    step, extra = 0, {"tokens": 0, "seconds": 0.0}
    if resume is not None:
        block.load_state_dict(resume["block"])
        disc.load_state_dict(resume["disc"])
        opt.load_state_dict(resume["opt"])
        dopt.load_state_dict(resume["dopt"])
        sampler.load_state(resume["sampler"])
        torch.set_rng_state(resume["torch_rng"])
        step, extra = resume["step"], resume["extra"]
        say(f"resuming from step {step}")
    if cfg.precision == "auto":
        prec = "bf16" if device.type == "cuda" or bf16_supported_cpu() else "fp32"
    else:
        prec = cfg.precision
    amp = torch.bfloat16 if prec == "bf16" else None
    losses = CoConLosses(base, block, disc, vocab, cfg, device, amp)
    stop = {"flag": False}

    def on_signal(signum, frame):
        stop["flag"] = True

    old = {s: signal.signal(s, on_signal) for s in (signal.SIGTERM, signal.SIGINT)}

    def checkpoint():
        state = {"block": block.state_dict(), "disc": disc.state_dict(), "opt": opt.state_dict(),
                 "dopt": dopt.state_dict(), "step": step, "sampler": checkpoint_safe(sampler.state()),
                 "torch_rng": torch.get_rng_state(), "train_config": asdict(cfg),
                 "block_config": bcfg.to_dict(), "base_sha256": base_sha, "vocab_sha256": vocab.sha256,
                 "extra": checkpoint_safe(extra)}
        tmp = ckpt_path.with_suffix(".tmp")
        torch.save(state, tmp)
        tmp.replace(ckpt_path)

    t_start = last_ckpt = time.time()
    win = {"t0": time.time(), "tokens": 0, "n": 0, "sums": {}}
    block.train()
    try:
        while step < cfg.total_steps and not stop["flag"]:
            lr = lr_at(step, cfg)
            for g in opt.param_groups:
                g["lr"] = lr
            batch, contents = sampler.next()
            logging = (step + 1) % cfg.log_every == 0
            # a loss of weight 0 is not computed (the cycle and adversarial passes triple a step)
            res = losses(batch, contents, step, null=True, cycle=cfg.w_cycle > 0 and step >= cfg.cycle_start,
                         adv=cfg.w_adv > 0 and step >= cfg.adv_start)
            total = cfg.w_self * res["self"] if "self" in res else None
            if "cycle" in res:
                total = total + cfg.w_cycle * res["cycle"]
            if "adv" in res:
                total = total + cfg.w_adv * res["adv"]
            if total is not None:
                opt.zero_grad(set_to_none=True)
                total.backward()
                if cfg.grad_clip:
                    torch.nn.utils.clip_grad_norm_(block.parameters(), cfg.grad_clip)
                opt.step()
            if "_real" in res and step % cfg.disc_every == 0:
                d = losses.disc_loss(res)
                dopt.zero_grad(set_to_none=True)
                d.backward()
                dopt.step()
                res["disc"] = d.detach()
            step += 1
            ntok = int((batch["fmt"] != E.F_PAD).sum())
            win["tokens"] += ntok
            win["n"] += 1
            for k, v in res.items():
                if not k.startswith("_"):
                    s, c = win["sums"].get(k, (0.0, 0))
                    win["sums"][k] = (s + float(v.detach()), c + 1)
            if logging or step == cfg.total_steps:
                dt = time.time() - win["t0"]
                rec = {"step": step, "lr": lr, "tok_s": round(win["tokens"] / max(dt, 1e-9)),
                       **{k: round(s / c, 4) for k, (s, c) in sorted(win["sums"].items())},
                       "time": time.strftime("%H:%M:%S")}
                extra["tokens"] += win["tokens"]
                extra["seconds"] += dt
                say(json.dumps(rec))
                with open(out / "log.jsonl", "a") as f:
                    f.write(json.dumps(rec) + "\n")
                win = {"t0": time.time(), "tokens": 0, "n": 0, "sums": {}}
            if dev_items and cfg.eval_every and (step % cfg.eval_every == 0 or step == cfg.total_steps):
                t_eval = time.time()
                block.eval()
                dev = dev_losses(losses, dev_items)
                block.train()
                extra["dev"] = dev
                rec = {"step": step, "dev": dev, "time": time.strftime("%H:%M:%S")}
                say(json.dumps(rec))
                with open(out / "log.jsonl", "a") as f:
                    f.write(json.dumps(rec) + "\n")
                win["t0"] += time.time() - t_eval
            if cfg.minutes and time.time() - t_start > cfg.minutes * 60:
                stop["flag"] = True
            if time.time() - last_ckpt > cfg.ckpt_minutes * 60:
                checkpoint()
                last_ckpt = time.time()
    finally:
        for s, h in old.items():
            signal.signal(s, h)
    checkpoint()
    say(f"checkpoint at step {step} -> {ckpt_path}")
    block.eval()
    bcfg.extra = {"train_steps": step, "train_tokens": extra["tokens"], "train_seconds": round(extra["seconds"]),
                  "base": str(cfg.base), "base_version": manifest.get("version", ""), "dev": extra.get("dev"),
                  "train_config": asdict(cfg)}
    save_block(block, out)
    say(f"block -> {out}")
    if install:
        path = install_block(out, Path(install))
        say(f"installed -> {path}")
    return out


def install_block(src: Path, model_dir: Path) -> Path:
    """Copy a trained block (cocon.safetensors, cocon.json) into a model folder, only when the
    folder's model.safetensors is the base it was trained on."""
    import shutil

    from songwriter.engine.model_folder import COCON_CONFIG, COCON_WEIGHTS

    info = json.loads((src / COCON_CONFIG).read_text(encoding="utf-8"))
    have = file_sha256(model_dir / WEIGHTS)
    if info.get("base_sha256") != have:
        raise SystemExit(f"{src}'s block was trained on another base (sha256 {str(info.get('base_sha256'))[:12]}…) "
                         f"than {model_dir}/{WEIGHTS} ({have[:12]}…); train it again with --base {model_dir}")
    for name in (COCON_WEIGHTS, COCON_CONFIG):
        tmp = model_dir / (name + ".tmp")
        shutil.copyfile(src / name, tmp)
        tmp.replace(model_dir / name)
    return model_dir


def run(args) -> int:
    try:
        w = [float(x) for x in args.weights.split(",")]
        if len(w) != 3:
            raise ValueError
    except ValueError:
        print(f"error: --weights wants three numbers SELF,CYCLE,ADV, not {args.weights!r}", file=sys.stderr)
        return 2
    cfg = CoConTrainConfig(base=args.base, out=args.out, corpus=args.corpus, layer=args.layer,
                           total_steps=args.steps, minutes=args.minutes, batch_tokens=args.batch_tokens,
                           lr=args.lr, warmup=args.warmup, cycle_start=args.cycle_start, adv_start=args.adv_start,
                           disc_every=args.disc_every, w_self=w[0], w_cycle=w[1], w_adv=w[2],
                           log_every=args.log_every, eval_every=args.eval_every, dev_pieces=args.dev_pieces,
                           ckpt_minutes=args.ckpt_minutes, precision=args.precision, threads=args.threads,
                           seed=args.seed, limit_pieces=args.limit_pieces, init=args.init,
                           init_block=args.init_block or "",
                           mask_keywords=args.mask_keywords, keyword_words=args.keyword_words or "")
    if args.shares:
        try:
            cfg.p_keywords, cfg.p_lines = (float(x) for x in args.shares.split(","))
            if not (cfg.p_keywords >= 0 and cfg.p_lines >= 0 and cfg.p_keywords + cfg.p_lines <= 1):
                raise ValueError
        except ValueError:
            print(f"error: --shares wants two shares KEYWORDS,LINES from 0 to 1 whose sum is at most 1, "
                  f"not {args.shares!r}", file=sys.stderr)
            return 2
    from songwriter.train.trainer import setup_problem

    problem = setup_problem(cfg, args.mix)
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    from songwriter.engine.errors import ModelLoadError

    try:
        train_cocon(cfg, args.install, log=lambda m: print(m, flush=True))
    except ModelLoadError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0

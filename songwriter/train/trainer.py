"""Train the template-conditioned model (resumable; data-parallel under torchrun with gloo).

    python -m songwriter.train train --out runs/zh --layers 6 --d-model 320 --minutes 90

Every ``--ckpt-minutes`` the model, optimizer, step, sampler and RNG states go to
``<out>/ckpt.pt`` (written to a temporary file, then renamed); running the same command again
resumes from it. ``<out>/log.jsonl`` gets training loss, speed and dev perplexity.
``--export DIR`` writes the shipped model (fp16 safetensors + config + vocab + manifest).
"""

from __future__ import annotations

import json
import math
import os
import pickle
import signal
import sys
import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from songwriter.engine import encoding as E
from songwriter.engine import model_folder as MF
from songwriter.engine.model import ModelConfig, SongNet
from songwriter.engine.torch_backend import save_model_dir
from songwriter.engine.vocab import Vocab
from songwriter.train import corpus as C
from songwriter.train.args import parse_mix
from songwriter.train.dataset import PieceStore, Sampler, collate, make_example
from songwriter.train.prefetch import batch_feed
from songwriter.train.step import FILL_ID, fused_loss, keep_freed_memory, reference_loss, to_tensors

DEFAULT_WEIGHTS = {"ci": 0.25, "shi": 0.55, "qu": 0.07, "modern": 0.13}
DATA_EN = ("English Gutenberg Poetry (Project Gutenberg texts, public domain; GutenTag TEI via "
           "tnhaider/english-gutenberg-poetry), Christ in Song (1908 texts, public domain; "
           "TinasheMzondiwa/cis-hymnals, Apache-2.0); CMUdict via pronouncing for syllables, stress and rhyme")


@dataclass
class TrainConfig:
    corpus: str = str(C.DEFAULT_OUT)
    out: str = "runs/zh"
    n_layer: int = 6
    n_head: int = 5
    d_model: int = 320
    max_len: int = 512
    train_len: int = 320
    dropout: float = 0.1
    batch_tokens: int = 4096
    lr: float = 1e-3
    min_lr_ratio: float = 0.1
    warmup: int = 200
    total_steps: int = 20000
    weight_decay: float = 0.05
    label_smoothing: float = 0.0
    grad_clip: float = 1.0
    ckpt_minutes: float = 5.0
    log_every: int = 20
    eval_every: int = 500
    dev_pieces: int = 300
    minutes: float = 0.0          # stop (and checkpoint) after this much wall-clock; 0 = no limit
    time_schedule: bool = False   # cosine over the wall-clock budget (--minutes) instead of steps
    seed: int = 1234
    precision: str = "auto"        # auto | bf16 | fp32
    step: str = "fused"            # fused (train/step.py) | reference (the step as it was, to compare)
    loss_on: str = "all"           # all | hidden: the positions the loss counts (step.loss_positions)
    vocab_min_count: int = 3
    weights: dict = field(default_factory=lambda: dict(DEFAULT_WEIGHTS))
    threads: int = 0
    limit_pieces: int = 0          # for tests: use only this many training pieces
    init_from: str | None = None   # a new run starts from this model folder (weights + vocabulary)
    grow_layers: int = 0           # with init_from: the model grown to this many layers (train/grow.py)
    lang: str = "zh"               # zh | en: which corpus layout, vocabulary and channels
    vocab_size: int = 0            # English: at most this many tokens (0: dataset_en's default)


def _is_dist() -> bool:
    return int(os.environ.get("WORLD_SIZE", "1")) > 1


def _rank() -> int:
    return int(os.environ.get("RANK", "0"))


def lr_at(step: int, cfg: TrainConfig) -> float:
    if step < cfg.warmup:
        return cfg.lr * (step + 1) / cfg.warmup
    frac = min(1.0, (step - cfg.warmup) / max(1, cfg.total_steps - cfg.warmup))
    return cfg.lr * (cfg.min_lr_ratio + (1 - cfg.min_lr_ratio) * 0.5 * (1 + math.cos(math.pi * frac)))


def bf16_supported_cpu() -> bool:
    try:
        flags = Path("/proc/cpuinfo").read_text()
    except OSError:
        return False
    return "avx512_bf16" in flags or "amx_bf16" in flags


def setup_problem(cfg, mix: str | None, lang: str = "zh") -> str | None:
    """What stops a training command before it reads anything (train, train-cocon), or None: a
    bad --mix (else its shares go to ``cfg.weights``), no corpus, a precision this CPU lacks."""
    if mix:
        try:
            cfg.weights = parse_mix(mix, lang)
        except ValueError as e:
            return str(e)
    if not (Path(cfg.corpus) / "pieces.jsonl").exists():
        return f"no corpus at {cfg.corpus}; run build-corpus first"
    if getattr(cfg, "grow_layers", 0) and not cfg.init_from:
        return "--grow-layers grows a trained model: name it with --init-from"
    return unsupported_precision(cfg.precision)


def unsupported_precision(precision: str) -> str | None:
    """Why ``--precision`` cannot be used here, or None. bf16 on a CPU without bf16 instructions
    (an AVX2-only host: no avx512_bf16, no AMX) runs its products on a scalar path: measured on
    such a host (AMD EPYC Zen 3), a 512x320 @ 320x16000 product took 440 ms instead of ~5."""
    if precision != "bf16" or torch.cuda.is_available() or bf16_supported_cpu():
        return None
    return ("--precision bf16: this CPU has no bf16 instructions (neither avx512_bf16 nor amx_bf16), "
            "so bf16 products would run on a scalar path, about a hundred times slower than fp32; "
            "use --precision auto (it measures) or fp32")


def measure_precision(model, sampler, device, steps: int = 3) -> dict[str, float]:
    """Tokens/s of forward+backward for fp32 and bf16 autocast on a few real batches."""
    out = {}
    batches = [sampler.next() for _ in range(steps + 1)]
    opts = [("fp32", None)]
    if device.type == "cuda" or bf16_supported_cpu():
        opts.append(("bf16", torch.bfloat16))
    for name, dt in opts:
        model.zero_grad(set_to_none=True)
        loss, _ = fused_loss(model, batches[0], device, dt)
        loss.backward()
        t0, toks = time.perf_counter(), 0
        for b in batches[1:]:
            loss, n = fused_loss(model, b, device, dt)
            loss.backward()
            toks += n
        out[name] = toks / (time.perf_counter() - t0)
        model.zero_grad(set_to_none=True)
    return out


def build_vocab(corpus_dir: Path, split: dict, min_count: int) -> Vocab:
    held = set(split["dev"]) | set(split["test"])
    return Vocab.build(("".join(p["lines"]) for p in C.load_pieces(corpus_dir) if p["id"] not in held),
                       min_count=min_count)


def _load_vocab(path: Path):
    """A run's or model's vocab.json, Chinese or English (engine.vocab_en.load_vocab)."""
    from songwriter.engine.vocab_en import load_vocab

    return load_vocab(path)


def _is_en(vocab) -> bool:
    return getattr(vocab, "language", "zh") == "en"


def _en_kinds() -> int:
    from songwriter.engine.encoding_en import N_KINDS_EN

    return N_KINDS_EN


def _store(pieces, vocab, max_len, log=None, cache_dir: Path | None = None):
    """The piece store of the vocabulary's language; with ``cache_dir``, read from there when the
    same pieces were laid out before (``layout_cache``), else laid out and kept there."""
    if _is_en(vocab):
        from songwriter.train.dataset_en import EnglishPieceStore

        cls, make = EnglishPieceStore, lambda: EnglishPieceStore(pieces, vocab, max_len, log=log)
    else:
        cls, make = PieceStore, lambda: PieceStore(pieces, vocab, max_len)
    if cache_dir is None:
        return make()
    from songwriter.train.layout_cache import cached_store

    return cached_store(cls, make, pieces, vocab, max_len, cache_dir, log)


def _pick_dev(dev: list[dict], n: int, vocab) -> dict[str, list[dict]]:
    if _is_en(vocab):
        from songwriter.train.dataset_en import pick_dev_en

        return pick_dev_en(dev, n)
    return pick_dev(dev, n)


def pick_dev(dev: list[dict], n: int) -> dict[str, list[dict]]:
    """The dev pieces the trainer reports on: n ci, n/2 shi and n modern, the same every run, and
    the held-out modern poems where the corpus has them."""
    rng = np.random.default_rng(0)
    pick = lambda xs, k: [xs[i] for i in sorted(rng.permutation(len(xs))[:k])]  # noqa: E731
    by_kind = {k: [p for p in dev if C.report_group(p) == k] for k in ("ci", "shi", "modern", "poem")}
    out = {"ci": pick(by_kind["ci"], n), "shi": pick(by_kind["shi"], n // 2), "modern": pick(by_kind["modern"], n)}
    if by_kind["poem"]:
        out["poem"] = pick(by_kind["poem"], n)
    return out


def load_stores(cfg: TrainConfig, vocab: Vocab, split: dict, log=print):
    held_dev, held_test = set(split["dev"]), set(split["test"])
    train, dev = [], []
    for p in C.load_pieces(Path(cfg.corpus)):
        if p["id"] in held_test:
            continue
        (dev if p["id"] in held_dev else train).append(p)
    if cfg.limit_pieces:
        train = train[:cfg.limit_pieces]
    t0 = time.time()
    store = _store(train, vocab, cfg.train_len, log, cache_dir=Path(cfg.corpus) / "layouts")
    log(f"tokenised {len(store)} training pieces ({store.offsets[-1]:,} tokens) in {time.time() - t0:.0f}s")
    dev_stores = {k: _store(v, vocab, cfg.max_len) for k, v in _pick_dev(dev, cfg.dev_pieces, vocab).items() if v}
    return store, dev_stores


def dev_figures(model_path: Path, corpus: Path, n: int = 300) -> dict:
    """Dev NLL per kind (the trainer's own dev sets) of a model folder or a run's checkpoint."""
    from songwriter.engine.torch_backend import build_model, read_model_dir

    if model_path.is_dir():
        mcfg, vocab, _, state = read_model_dir(model_path)
    else:
        ckpt = load_ckpt(model_path)
        mcfg, state = ModelConfig.from_dict(ckpt["model_config"]), ckpt["model"]
        vocab = _load_vocab(model_path.parent / MF.VOCAB)
    model = build_model(mcfg, state, str(model_path))
    held = set(C.load_split(corpus)["dev"])
    dev = [p for p in C.load_pieces(corpus) if p["id"] in held]
    amp = torch.bfloat16 if bf16_supported_cpu() else None
    return {k: evaluate_store(model, _store(v, vocab, mcfg.max_len), torch.device("cpu"), amp)
            for k, v in _pick_dev(dev, n, vocab).items() if v}


@torch.no_grad()
def evaluate_store(model, store: PieceStore, device, autocast_dtype=None, batch: int = 16) -> dict:
    """Token-weighted NLL (nats) over all positions, over the hidden ones (``hidden_nll``: what
    the decoder chooses, the positions ``--loss-on hidden`` trains) and over character (word
    start) positions only."""
    model.eval()
    rng = np.random.default_rng(0)
    tot = tot_n = ch = ch_n = hid = hid_n = 0.0
    for a in range(0, len(store), batch):
        ex = [make_example(store.piece(i), store.vocab, rng, train=False) for i in range(a, min(a + batch, len(store)))]
        b = collate(ex, store.vocab.pad)
        inputs, targets, t = to_tensors(b, device)
        with torch.autocast(device.type, dtype=autocast_dtype, enabled=autocast_dtype is not None):
            logits = model(inputs, t)
        nll = F.cross_entropy(logits.float().transpose(1, 2), targets, reduction="none")
        valid = t["fmt"] != 0
        # word positions: an English word's further syllables (target <fill>) are not counted
        chars = ((t["fmt"] == 1) | (t["fmt"] == 2)) & (targets != store.vocab.fill)
        hidden = valid & (t["given"] == FILL_ID)
        tot += float(nll[valid].sum())
        tot_n += int(valid.sum())
        hid += float(nll[hidden].sum())
        hid_n += int(hidden.sum())
        ch += float(nll[chars].sum())
        ch_n += int(chars.sum())
    model.train()
    return {"nll": tot / max(1, tot_n), "ppl": math.exp(tot / max(1, tot_n)), "hidden_nll": hid / max(1, hid_n),
            "char_nll": ch / max(1, ch_n), "char_ppl": math.exp(ch / max(1, ch_n))}


def _read_init(model_dir: Path, vocab_file: Path):
    """A shipped model folder as a starting point: its vocabulary becomes the run's."""
    from songwriter.engine.torch_backend import read_model_dir

    mcfg, vocab, manifest, state = read_model_dir(model_dir)
    if vocab_file.exists() and _load_vocab(vocab_file).sha256 != vocab.sha256:
        raise SystemExit(f"{vocab_file} differs from {model_dir}'s vocabulary; use a new --out folder")
    vocab_file.parent.mkdir(parents=True, exist_ok=True)
    vocab.save(vocab_file)
    return mcfg, vocab, manifest, state


ARCH_KEYS = ("n_layer", "n_head", "d_model", "max_len")


def checkpoint_safe(x):
    """numpy arrays and scalars -> Python lists and numbers (recursively), so that a checkpoint
    holds only what ``torch.load(weights_only=True)`` reads."""
    if isinstance(x, dict):
        return {k: checkpoint_safe(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [checkpoint_safe(v) for v in x]
    if isinstance(x, np.ndarray):
        return x.tolist()
    if isinstance(x, np.generic):
        return x.item()
    return x


def load_ckpt(path: Path) -> dict:
    """A checkpoint, read with ``weights_only=True`` (tensors, dicts, lists, numbers, strings only)."""
    try:
        return torch.load(path, map_location="cpu", weights_only=True)
    except pickle.UnpicklingError as e:
        raise SystemExit(f"{path} holds objects other than tensors and plain data; not loading it "
                         f"(torch.load weights_only=True refused: {str(e).splitlines()[0]})") from None


def _save_ckpt(path: Path, model, opt, step, sampler, cfg, vocab, extra) -> None:
    raw = model.module if hasattr(model, "module") else model
    state = {"model": raw.state_dict(), "opt": opt.state_dict(), "step": step,
             "sampler": checkpoint_safe(sampler.state()), "torch_rng": torch.get_rng_state(), "train_config": asdict(cfg),
             "model_config": raw.cfg.to_dict(), "vocab_sha256": vocab.sha256, "extra": checkpoint_safe(extra)}
    tmp = path.with_suffix(".tmp")
    torch.save(state, tmp)
    os.replace(tmp, path)


def train(cfg: TrainConfig, log=print) -> Path:
    dist = _is_dist()
    if dist:
        import torch.distributed as tdist

        tdist.init_process_group("gloo")
    rank = _rank()
    world = int(os.environ.get("WORLD_SIZE", "1"))
    if cfg.threads:
        torch.set_num_threads(cfg.threads)
    keep_freed_memory()
    device = torch.device("cuda", int(os.environ.get("LOCAL_RANK", "0"))) if torch.cuda.is_available() else torch.device("cpu")
    out = Path(cfg.out)
    out.mkdir(parents=True, exist_ok=True)
    ckpt_path = out / "ckpt.pt"
    split = C.load_split(Path(cfg.corpus))
    stats_file = Path(cfg.corpus) / "stats.json"
    corpus_hash = json.loads(stats_file.read_text())["corpus_sha256"] if stats_file.exists() else ""

    def say(msg):
        if rank == 0:
            log(msg)
            with open(out / "train.txt", "a", encoding="utf-8") as f:
                f.write(time.strftime("%H:%M:%S ") + msg + "\n")

    resume = load_ckpt(ckpt_path) if ckpt_path.exists() else None
    vocab_file = out / MF.VOCAB          # a run folder holds it as a model folder does
    init = None
    if resume is None and cfg.init_from:
        init = _read_init(Path(cfg.init_from), vocab_file)
    if vocab_file.exists():
        vocab = _load_vocab(vocab_file)
    elif cfg.lang == "en":
        from songwriter.train.dataset_en import DEFAULT_VOCAB_SIZE, build_vocab_en

        vocab = build_vocab_en(Path(cfg.corpus), split, cfg.vocab_min_count, cfg.vocab_size or DEFAULT_VOCAB_SIZE)
        if rank == 0:
            vocab.save(vocab_file)
    else:
        vocab = build_vocab(Path(cfg.corpus), split, cfg.vocab_min_count)
        if rank == 0:
            vocab.save(vocab_file)
    if resume is not None:
        if resume["vocab_sha256"] != vocab.sha256:
            raise SystemExit(f"{ckpt_path} was trained with another vocabulary than {vocab_file}")
        mcfg = ModelConfig.from_dict(resume["model_config"])
        mcfg.dropout = cfg.dropout   # a training choice, not part of the architecture
        say(f"resuming from step {resume['step']} (dropout {cfg.dropout}, schedule {cfg.total_steps} steps)")
    elif init is not None:
        mcfg = init[0]
        mcfg.dropout = cfg.dropout
        if not mcfg.n_kind:
            # a model from before the kind channel gains it (zero: it starts computing the same)
            mcfg.n_kind = E.N_KINDS
            say(f"adding the kind channel ({E.N_KINDS} kinds) to {cfg.init_from}'s model")
        elif _is_en(vocab) and mcfg.n_kind < _en_kinds():
            from songwriter.engine import encoding_en as EN
            from songwriter.train.grow import grow_kinds

            new = [k for k, i in EN.EN_KIND_IDS.items() if i >= mcfg.n_kind]
            say(f"adding the kinds {', '.join(new)} to {cfg.init_from}'s model, each starting as the kind nearest to it")
            init = (*init[:3], grow_kinds(init[3], EN.N_KINDS_EN, EN.EN_KIND_FALLBACK))
            mcfg.n_kind = EN.N_KINDS_EN
        elif not _is_en(vocab) and E.predates_registers(mcfg.n_kind):
            from songwriter.train.grow import grow_kinds

            new = [k for k, i in E.KIND_IDS.items() if i >= mcfg.n_kind]
            say(f"adding the kinds {', '.join(new)} to {cfg.init_from}'s model, each starting as the kind it was part of")
            init = (*init[:3], grow_kinds(init[3], E.N_KINDS, E.KIND_FALLBACK))
            mcfg.n_kind = E.N_KINDS
        if cfg.grow_layers and cfg.grow_layers != mcfg.n_layer:
            from songwriter.train.grow import grow_state, layer_plan

            try:
                grown = grow_state(init[3], mcfg.n_layer, cfg.grow_layers)
            except ValueError as e:
                raise SystemExit(f"--grow-layers {cfg.grow_layers}: {e}") from None
            plan = " ".join("new" if src is None else str(src) for src in layer_plan(mcfg.n_layer, cfg.grow_layers))
            say(f"growing {cfg.init_from}'s {mcfg.n_layer} layers to {cfg.grow_layers} (layers: {plan}; "
                f"each new one a copy of the layer below, writing nothing at step 0)")
            init = (*init[:3], grown)
            mcfg.n_layer = cfg.grow_layers
        say(f"starting from {cfg.init_from} ({mcfg.n_layer}x{mcfg.d_model}, version "
            f"{init[2].get('version', '?')}); fresh optimizer, schedule {cfg.total_steps} steps")
    elif _is_en(vocab):
        from songwriter.engine import encoding_en as EN

        mcfg = ModelConfig(vocab_size=len(vocab), n_layer=cfg.n_layer, n_head=cfg.n_head, d_model=cfg.d_model,
                           max_len=cfg.max_len, dropout=cfg.dropout, n_group=EN.N_GROUPS_EN, n_kind=EN.N_KINDS_EN)
    else:
        mcfg = ModelConfig(vocab_size=len(vocab), n_layer=cfg.n_layer, n_head=cfg.n_head,
                           d_model=cfg.d_model, max_len=cfg.max_len, dropout=cfg.dropout, n_kind=E.N_KINDS)
    # a resumed or warm-started run trains the architecture of its checkpoint / starting model:
    # the recorded train config says so, not the command line's (default) sizes
    arch = {k: getattr(mcfg, k) for k in ARCH_KEYS}
    if any(getattr(cfg, k) != v for k, v in arch.items()):
        say("architecture from " + ("the checkpoint" if resume is not None else str(cfg.init_from)) + ": "
            + ", ".join(f"{k} {v}" for k, v in arch.items()) + " (the size options do not apply)")
        cfg = replace(cfg, **arch)
    if _is_en(vocab) and cfg.weights == DEFAULT_WEIGHTS:
        from songwriter.train.dataset_en import DEFAULT_WEIGHTS as EN_WEIGHTS

        cfg = replace(cfg, weights=dict(EN_WEIGHTS))
    torch.manual_seed(cfg.seed)
    model = SongNet(mcfg).to(device)
    say(f"model: {model.num_params() / 1e6:.2f}M parameters, {mcfg.n_layer}x{mcfg.d_model}, vocab {len(vocab)}")
    store, dev_stores = load_stores(cfg, vocab, split, say)
    sampler = Sampler(store, cfg.weights, cfg.batch_tokens, seed=cfg.seed + 1000 * rank)
    decay = [p for n, p in model.named_parameters() if p.dim() >= 2 and "tok" not in n.split(".")[0]]
    no_decay = [p for n, p in model.named_parameters() if not (p.dim() >= 2 and "tok" not in n.split(".")[0])]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": cfg.weight_decay},
                             {"params": no_decay, "weight_decay": 0.0}], lr=cfg.lr, betas=(0.9, 0.98),
                            eps=1e-8)
    step = 0
    extra = {"tokens": 0, "seconds": 0.0, "precision": None}
    if init is not None:
        missing, unexpected = model.load_state_dict(init[3], strict=False)
        if unexpected or set(missing) - {"kind.weight"}:
            raise SystemExit(f"{cfg.init_from}: its weights do not fit the model (missing {missing}, "
                             f"unexpected {unexpected})")
        extra["init_from"] = {"model": str(cfg.init_from), "version": init[2].get("version"),
                              "steps": init[2].get("train_steps", 0), "tokens": init[2].get("train_tokens", 0), "seconds": init[2].get("train_seconds", 0)}
    if resume is not None:
        model.load_state_dict(resume["model"])
        opt.load_state_dict(resume["opt"])
        step = resume["step"]
        if rank == 0 or not dist:
            sampler.load_state(resume["sampler"])
        torch.set_rng_state(resume["torch_rng"])
        extra = resume.get("extra", extra)
    if cfg.precision == "auto":
        speeds = measure_precision(model, sampler, device)
        prec = max(speeds, key=speeds.get)
        say("precision: " + ", ".join(f"{k} {v:,.0f} tok/s" for k, v in speeds.items()) + f" -> {prec}")
    else:
        prec = cfg.precision
    amp = torch.bfloat16 if prec == "bf16" else None
    if cfg.step == "reference":
        from songwriter.engine import model as model_module

        model_module.CPU_ATTENTION = "sdpa"
        say("step: reference (fused attention kernel, full logits), to compare with the fused step")
    loss_of = reference_loss if cfg.step == "reference" else fused_loss
    extra["precision"] = prec
    if cfg.loss_on != "all":
        say(f"loss on {cfg.loss_on} positions only (step.loss_positions)")
    raw = model
    if dist:
        model = torch.nn.parallel.DistributedDataParallel(model)
    stop = {"flag": False}

    def on_signal(signum, frame):
        stop["flag"] = True

    if rank == 0:
        signal.signal(signal.SIGTERM, on_signal)
        signal.signal(signal.SIGINT, on_signal)
    t_start = time.time()
    last_ckpt = time.time()
    f0 = 0.0
    if cfg.time_schedule and cfg.minutes:
        # continue the cosine from the learning rate the step schedule has reached, down to the
        # floor when the time budget ends (throughput on a shared machine is not predictable)
        c = lr_at(step, cfg) / cfg.lr
        x = min(1.0, max(-1.0, 2 * (c - cfg.min_lr_ratio) / (1 - cfg.min_lr_ratio) - 1))
        f0 = math.acos(x) / math.pi if step >= cfg.warmup else 0.0
        top = cfg.lr if step < cfg.warmup else c * cfg.lr
        warm = f"warm-up over steps {step}-{cfg.warmup}, then " if step < cfg.warmup else ""
        say(f"time schedule: {warm}cosine from {top:.2e} to {cfg.min_lr_ratio * cfg.lr:.2e} over {cfg.minutes} min")

    def current_lr() -> float:
        if not (cfg.time_schedule and cfg.minutes) or step < cfg.warmup:
            return lr_at(step, cfg)
        frac = min(1.0, f0 + (1 - f0) * (time.time() - t_start) / (cfg.minutes * 60))
        return cfg.lr * (cfg.min_lr_ratio + (1 - cfg.min_lr_ratio) * 0.5 * (1 + math.cos(math.pi * frac)))
    # batches from background processes on a GPU (train/prefetch.py): the same batches in the
    # same order; its state() is the sampler's after the last batch taken, which is what we save
    feed = batch_feed(sampler, device.type, say)
    win_tokens, win_t0, win_loss, win_n = 0, time.time(), 0.0, 0
    model.train()
    while step < cfg.total_steps or (cfg.time_schedule and cfg.minutes):
        lr_now = current_lr()
        for g in opt.param_groups:
            g["lr"] = lr_now
        batch = feed.next()
        loss, ntok = loss_of(model, batch, device, amp, cfg.label_smoothing, cfg.loss_on)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        if cfg.grad_clip:
            torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.grad_clip)
        opt.step()
        step += 1
        win_tokens += ntok * world
        win_loss += float(loss.detach())
        win_n += 1
        if step % cfg.log_every == 0:
            dt = time.time() - win_t0
            rec = {"step": step, "loss": win_loss / win_n, "lr": lr_now, "tok_s": win_tokens / dt,
                   "tokens": extra["tokens"] + win_tokens, "time": time.strftime("%H:%M:%S")}
            extra["tokens"] += win_tokens
            extra["seconds"] += dt
            say(json.dumps(rec))
            if rank == 0:
                with open(out / "log.jsonl", "a") as f:
                    f.write(json.dumps(rec) + "\n")
            win_tokens, win_t0, win_loss, win_n = 0, time.time(), 0.0, 0
        over = cfg.minutes and (time.time() - t_start) > cfg.minutes * 60
        ending = bool(stop["flag"] or over) or (step >= cfg.total_steps and not (cfg.time_schedule and cfg.minutes))
        # dev figures every eval_every steps and where a leg ends, so every leg's result is on record
        if cfg.eval_every and (step % cfg.eval_every == 0 or ending) and rank == 0:
            t_eval = time.time()
            res = {k: evaluate_store(raw, s, device, amp) for k, s in dev_stores.items()}
            rec = {"step": step, "tokens": extra["tokens"] + win_tokens, "dev": res, "time": time.strftime("%H:%M:%S")}
            say(json.dumps(rec))
            with open(out / "log.jsonl", "a") as f:
                f.write(json.dumps(rec) + "\n")
            win_t0 += time.time() - t_eval   # the window's speed and seconds leave the evaluation out
        if dist:
            import torch.distributed as tdist

            flag = torch.tensor([1 if (stop["flag"] or over) else 0])
            tdist.all_reduce(flag)
            stop_now = bool(flag.item())
        else:
            stop_now = stop["flag"] or bool(over)
        done = step >= cfg.total_steps and not (cfg.time_schedule and cfg.minutes)
        if rank == 0 and (time.time() - last_ckpt > cfg.ckpt_minutes * 60 or stop_now or done):
            extra["corpus_sha256"] = corpus_hash
            # the steps since the last log line count too (the window itself goes on to the next log)
            ck_extra = dict(extra, tokens=extra["tokens"] + win_tokens,
                            seconds=extra["seconds"] + (time.time() - win_t0))
            _save_ckpt(ckpt_path, model, opt, step, feed, cfg, vocab, ck_extra)
            last_ckpt = time.time()
            say(f"checkpoint at step {step} -> {ckpt_path}")
        if stop_now or done:
            break
    if feed is not sampler:
        feed.close()
    if dist:
        import torch.distributed as tdist

        tdist.barrier()
        tdist.destroy_process_group()
    return ckpt_path


def export(ckpt: str | Path, model_dir: str | Path, metrics: dict | None = None,
           dtype: torch.dtype = torch.float16) -> Path:
    """Checkpoint -> shipped model directory (weights in ``dtype``, config, vocab, manifest)."""
    ckpt = Path(ckpt)
    state = load_ckpt(ckpt)
    vocab = _load_vocab(ckpt.parent / MF.VOCAB)
    if vocab.sha256 != state["vocab_sha256"]:
        raise SystemExit(f"{ckpt.parent / MF.VOCAB} does not match the checkpoint's vocabulary")
    model = SongNet(ModelConfig.from_dict(state["model_config"]))
    model.load_state_dict(state["model"])
    # the architecture trained is the model's (checkpoints of warm-started runs written before the
    # trainer recorded it say the command line's default sizes)
    train_config = dict(state["train_config"], **{k: state["model_config"][k] for k in ARCH_KEYS})
    ex = state.get("extra", {})
    prior = ex.get("init_from") or {}   # a warm-started run counts what its starting model had seen
    steps = int(prior.get("steps", 0)) + state["step"]
    manifest = {
        "name": "songwriter-" + ("en" if _is_en(vocab) else "zh"), "version": f"0.1.{steps}",
        "languages": ["en" if _is_en(vocab) else "zh"],
        "architecture": "SongNet-style template-conditioned decoder (pre-LN), see docs/engine.md",
        "corpus_sha256": ex.get("corpus_sha256", ""), "train_steps": steps,
        "train_tokens": ex.get("tokens", 0) + prior.get("tokens", 0),
        "train_seconds": round(ex.get("seconds", 0.0) + prior.get("seconds", 0)),
        "init_from": prior or None,
        "precision": ex.get("precision"), "train_config": train_config,
        "data": DATA_EN if _is_en(vocab) else
                "chinese-poetry 2.0.1 (MIT): Tang/Song shi, Song ci, Yuan qu; modern Chinese: Common "
                "Voice zh-CN (CC0), Tatoeba (CC-BY 2.0 FR, Tatoeba and contributors), public-domain "
                "modern literature, public-domain modern poems (华语现代诗歌语料库, poets who died before "
                "1976), CUV 1919, KdConv (Apache-2.0)",
        "metrics": metrics or {},
    }
    return save_model_dir(model, vocab, model_dir, manifest, dtype)


def run(args) -> int:
    if args.export:
        ckpt = Path(args.out) / "ckpt.pt"
        if not ckpt.exists():
            print(f"error: no checkpoint at {ckpt}", file=sys.stderr)
            return 2
        print(export(ckpt, args.export))
        return 0
    cfg = TrainConfig(corpus=args.corpus, out=args.out, n_layer=args.layers, n_head=args.heads,
                      d_model=args.d_model, batch_tokens=args.batch_tokens, lr=args.lr, warmup=args.warmup,
                      total_steps=args.steps, minutes=args.minutes, ckpt_minutes=args.ckpt_minutes,
                      eval_every=args.eval_every, log_every=args.log_every, dev_pieces=args.dev_pieces, precision=args.precision,
                      label_smoothing=args.label_smoothing, dropout=args.dropout, seed=args.seed, step=args.step,
                      loss_on=getattr(args, "loss_on", "all"),
                      threads=args.threads, limit_pieces=args.limit_pieces,
                      time_schedule=args.time_schedule, init_from=args.init_from,
                      grow_layers=getattr(args, "grow_layers", 0),
                      lang=getattr(args, "lang", "zh"), vocab_size=getattr(args, "vocab_size", 0))
    if cfg.lang == "en":
        from songwriter.train import corpus_en
        from songwriter.train.args import DEFAULT_CORPUS

        if Path(cfg.corpus) == DEFAULT_CORPUS:
            cfg.corpus = str(corpus_en.DEFAULT_OUT)
        if cfg.out == "runs/zh":
            cfg.out = "runs/en"
    problem = setup_problem(cfg, args.mix, cfg.lang)
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    train(cfg, log=lambda m: print(m, flush=True))
    return 0


def run_dev_figures(args) -> int:
    corpus = Path(args.corpus)
    if not (corpus / "split.json").exists():
        print(f"error: no corpus at {corpus}; run build-corpus first", file=sys.stderr)
        return 2
    rows = {}
    for m in args.models:
        path = Path(m)
        if not path.exists():
            print(f"error: no model folder or checkpoint at {path}", file=sys.stderr)
            return 2
        rows[m] = dev_figures(path, corpus, args.pieces)
        print(m + ": " + ", ".join(f"{k} NLL {v['nll']:.4f} char NLL {v['char_nll']:.4f}" for k, v in rows[m].items()),
              flush=True)
    if args.out:
        Path(args.out).write_text(json.dumps(rows, indent=1))
    return 0

"""A tiny English model trained in seconds on a few public-domain poems (tests/data/en_poems.txt),
for tests. Its verse is poor; the decoder's constraints (syllables, stress, rhyme, locks) hold
whatever the weights, which is what the tests check.

    from helpers.tiny_model_en import make_tiny_model_en
    model_dir = make_tiny_model_en(tmp_path)
"""

from __future__ import annotations

from pathlib import Path

DATA = Path(__file__).resolve().parents[1] / "data"


def en_pieces() -> list[dict]:
    """The fixture's poems as corpus pieces (kind poem)."""
    text = (DATA / "en_poems.txt").read_text(encoding="utf-8")
    body = [ln for ln in text.splitlines() if not ln.startswith("#")]
    pieces, cur = [], []
    for ln in body + ["=="]:
        if ln.strip() == "==":
            if cur:
                pieces.append({"id": f"en:{len(pieces)}", "kind": "poem", "lines": cur})
            cur = []
        elif ln.strip():
            cur.append(ln.strip())
    return pieces


def extra_words() -> list[str]:
    text = (DATA / "en_words.txt").read_text(encoding="utf-8")
    return [ln for ln in text.splitlines() if ln.strip() and not ln.startswith("#")]


def tiny_vocab():
    from songwriter.engine.vocab_en import EnglishVocab

    lines = [ln for p in en_pieces() for ln in p["lines"]] + extra_words()
    return EnglishVocab.build(lines, min_count=1)


def make_tiny_model_en(out: str | Path, steps: int = 30, seed: int = 0) -> Path:
    import torch

    from songwriter.engine import encoding_en as EN
    from songwriter.engine.model import ModelConfig, SongNet
    from songwriter.engine.torch_backend import save_model_dir
    from songwriter.train.dataset import Sampler
    from songwriter.train.dataset_en import EnglishPieceStore
    from songwriter.train.step import fused_loss

    torch.manual_seed(seed)
    vocab = tiny_vocab()
    store = EnglishPieceStore(en_pieces(), vocab, max_len=128)
    sampler = Sampler(store, {"poem": 1.0}, tokens=512, seed=seed)
    model = SongNet(ModelConfig(vocab_size=len(vocab), n_layer=2, n_head=2, d_model=32, max_len=320,
                                dropout=0.0, n_group=EN.N_GROUPS_EN, n_kind=EN.N_KINDS_EN))
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
    device = torch.device("cpu")
    model.train()
    loss = None
    for _ in range(steps):
        loss, _ = fused_loss(model, sampler.next(), device)
        opt.zero_grad()
        loss.backward()
        opt.step()
    model.eval()
    return save_model_dir(model, vocab, Path(out) / "tiny-en",
                          {"name": "tiny-test-model-en", "version": "0", "languages": ["en"],
                           "final_loss": float(loss.detach()) if loss is not None else 0.0})

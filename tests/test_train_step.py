"""The CPU training step computes what the library functions compute: the fused tied projection
and cross-entropy (values and gradients, label smoothing, pad positions left out) and the
matmul-softmax attention (against the fused kernel, causal, padded and cached)."""

import pytest

torch = pytest.importorskip("torch")

from songwriter.engine import encoding as E  # noqa: E402
from songwriter.engine import model as M  # noqa: E402
from songwriter.train.step import TiedCrossEntropy, fused_loss, reference_loss  # noqa: E402


@pytest.mark.parametrize("label_smoothing", [0.0, 0.1])
@pytest.mark.parametrize("chunk", [7, 64, 1000])
def test_fused_loss_and_gradients_equal_the_library_cross_entropy(label_smoothing, chunk):
    torch.manual_seed(0)
    h = torch.randn(130, 16, dtype=torch.float64, requires_grad=True)
    w = torch.randn(90, 16, dtype=torch.float64, requires_grad=True)
    t = torch.randint(0, 90, (130,))
    ref = torch.nn.functional.cross_entropy(h @ w.t(), t, label_smoothing=label_smoothing)
    want = torch.autograd.grad(ref, (h, w))
    got = TiedCrossEntropy.apply(h, w, t, label_smoothing, torch.float64, chunk)
    grads = torch.autograd.grad(got * 3.0, (h, w))     # an outer factor reaches both gradients
    assert float(got) == pytest.approx(float(ref), rel=1e-6)
    for g, r in zip(grads, want):
        assert g.dtype == r.dtype
        assert torch.allclose(g, 3.0 * r, atol=1e-6)


def tiny_batch(vocab_size=60, rows=3, length=11):
    torch.manual_seed(1)
    batch = {k: torch.zeros(rows, length, dtype=torch.long) for k in (*M.FIELDS, "given", "inputs", "targets")}
    batch["inputs"] = torch.randint(5, vocab_size, (rows, length))
    batch["targets"] = torch.randint(5, vocab_size, (rows, length))
    batch["fmt"][:] = E.F_CHAR
    batch["fmt"][1, 7:] = E.F_PAD           # shorter rows end in padding
    batch["fmt"][2, 4:] = E.F_PAD
    batch["bpos"] = torch.randint(0, 5, (rows, length))
    return {k: v.numpy() for k, v in batch.items()}


def tiny_model(vocab_size=60):
    torch.manual_seed(2)
    return M.SongNet(M.ModelConfig(vocab_size=vocab_size, n_layer=2, n_head=2, d_model=32, max_len=64,
                                   dropout=0.0, n_kind=E.N_KINDS)).double()


def test_fused_step_equals_the_reference_step_on_a_padded_batch():
    batch, device = tiny_batch(), torch.device("cpu")
    model = tiny_model()
    ref, n_ref = reference_loss(model, batch, device)
    want = torch.autograd.grad(ref, list(model.parameters()))
    got, n = fused_loss(model, batch, device)
    grads = torch.autograd.grad(got, list(model.parameters()))
    assert n == n_ref == 11 + 7 + 4           # pad positions are not targets
    # the reference casts its logits to fp32: agreement to fp32's precision
    assert float(got) == pytest.approx(float(ref), rel=1e-6)
    for g, r in zip(grads, want):
        assert torch.allclose(g, r, rtol=1e-4, atol=1e-7)


def test_loss_on_hidden_counts_only_the_positions_the_template_leaves_open():
    from songwriter.train.step import FILL_ID

    batch, device = tiny_batch(), torch.device("cpu")
    batch["given"][:] = FILL_ID
    batch["given"][0, :3] = batch["targets"][0, :3]     # a given word: its target is copied at decode time
    batch["fmt"][0, 5] = E.F_PUNCT                      # a mark: the template's own
    batch["given"][0, 5] = batch["targets"][0, 5]
    model = tiny_model()
    got, n = fused_loss(model, batch, device, loss_on="hidden")
    ref, n_ref = reference_loss(model, batch, device, loss_on="hidden")
    assert n == n_ref == 11 + 7 + 4                     # what the step processed, pad left out
    # the loss of the hidden positions alone: the library cross-entropy with the rest ignored
    logits = model(*[torch.as_tensor(batch[k]) for k in ("inputs",)], {k: torch.as_tensor(batch[k])
                                                                       for k in (*M.FIELDS, "given")})
    tg = torch.as_tensor(batch["targets"]).clone()
    tg[torch.as_tensor(batch["fmt"]) == E.F_PAD] = -100
    tg[0, :3] = -100
    tg[0, 5] = -100
    want = torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), tg.reshape(-1), ignore_index=-100)
    assert float(got) == pytest.approx(float(want), rel=1e-6)
    assert float(ref) == pytest.approx(float(want), rel=1e-6)
    assert abs(float(fused_loss(model, batch, device)[0]) - float(want)) > 1e-5    # "all" counts them
    with pytest.raises(ValueError, match="loss_on"):
        fused_loss(model, batch, device, loss_on="marks")


def test_matmul_attention_equals_the_fused_kernel():
    batch, device = tiny_batch(), torch.device("cpu")
    model = tiny_model()
    from songwriter.train.step import to_tensors

    inputs, _, t = to_tensors(batch, device)
    try:
        M.CPU_ATTENTION = "sdpa"
        want = model(inputs, t)
    finally:
        M.CPU_ATTENTION = "matmul"
    got = model(inputs, t)
    keep = t["fmt"] != E.F_PAD
    assert torch.allclose(got[keep], want[keep], atol=1e-9)


def test_cached_decoding_matches_the_whole_sequence():
    """Step-by-step decoding with the KV cache (one query against all earlier keys) gives the
    logits the causal whole-sequence pass gives."""
    batch, device = tiny_batch(), torch.device("cpu")
    model = tiny_model().eval()
    from songwriter.train.step import to_tensors

    inputs, _, t = to_tensors(batch, device)
    whole = model(inputs, t)
    with torch.no_grad():
        mem_kv, mem_bias = model.encode_memory(t)
        caches = [{} for _ in model.blocks]
        for p in range(inputs.shape[1]):
            logits = model.step(inputs[:, p], {k: t[k][:, p] for k in M.FIELDS}, p, mem_kv, mem_bias, caches)
            assert torch.allclose(logits[0], whole[0, p], atol=1e-9)

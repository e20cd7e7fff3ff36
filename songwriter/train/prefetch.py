"""Batches made in background processes, in the order the sampler would make them.

    feed = BatchPrefetcher(sampler, workers=3)   # after sampler.load_state(...), if resuming
    batch = feed.next()                          # the same batches as sampler.next(), in order
    ckpt["sampler"] = feed.state()               # resumes after the last batch *taken*
    feed.close()

One planner process owns a copy of the sampler (forked: the piece store is shared copy-on-write)
and draws every batch's random choices in order (``Sampler.plan_next``: the cheap part); batch k's
plan goes to maker k mod N, which builds its arrays (``dataset.make_batch``); ``next`` takes the
results from the makers in turn, so the order is fixed. With ``workers=0`` (or a sampler whose
``next`` is its own, e.g. the CoCon trainer's) the planner makes whole batches itself.

English batches are not drawn as plans (``Sampler.plans``: an English example's random draws
depend on its words), and one process makes them at about 1 M target tokens a CPU second, less
than a GPU takes. So with ``workers`` N > 0 an English sampler is copied into N makers that draw
*independent* streams: maker i reseeds its copy from a seed the feed draws from the sampler's
generator when it starts, and starts with an empty queue. Those batches are not the loop's, and a
resume does not give exactly the batches not trained on: ``state()`` is the sampler's state after
that seed was drawn, so a resumed feed draws a new seed and new streams (never the same batches
again).

The processes run ahead of the trainer, so the sampler's state they have reached is not the one
to checkpoint: every batch travels with the sampler's state right after it was drawn, and
``state()`` is the state after the last batch ``next`` returned (before any, the sampler's state
when the feed started). Resuming from it gives exactly the batches that were not trained on.

The children leave the trainer's process group, so a SIGTERM or SIGINT sent to the group (by
``timeout``, a terminal) reaches only the trainer, which checkpoints; they end with it (daemons,
``close``), and by themselves when their parent is gone.
"""

from __future__ import annotations

import copy
import multiprocessing as mp
import os
import queue
import signal
import traceback

import numpy as np

from songwriter.train.dataset import Sampler, make_batch

DEPTH = 2     # batches waiting in each queue


def _detach(parent: int) -> None:
    # out of the trainer's process group: a SIGTERM or Ctrl-C sent to the group (``timeout``, a
    # terminal) reaches the trainer, which checkpoints and then ends these; the trainer's own
    # handlers (inherited through fork) are put back to the defaults
    os.setpgrp()
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _put(q, item, parent: int) -> bool:
    """Put, waiting while the queue is full; False once the parent is gone."""
    while True:
        try:
            q.put(item, timeout=1.0)
            return True
        except queue.Full:
            if os.getppid() != parent:
                return False


def _get(q, parent: int):
    while True:
        try:
            return q.get(timeout=1.0)
        except queue.Empty:
            if os.getppid() != parent:
                return None


def _plan_loop(sampler: Sampler, outs: list, planned: bool, parent: int) -> None:
    _detach(parent)
    k = 0
    try:
        while True:
            payload = ("plan", sampler.plan_next()) if planned else ("batch", sampler.next())
            if not _put(outs[k % len(outs)], (payload, copy.deepcopy(sampler.state())), parent):
                return
            k += 1
    except Exception:   # noqa: BLE001 - reported to the trainer, which raises it
        _put(outs[k % len(outs)], (("error", traceback.format_exc()), None), parent)


def _draw_loop(sampler: Sampler, seed: list[int], outq, parent: int) -> None:
    """An independent stream of whole batches from a reseeded copy of the sampler."""
    _detach(parent)
    sampler.rng = np.random.default_rng(seed)
    sampler.queue = []
    try:
        while True:
            if not _put(outq, (("batch", sampler.next()), None), parent):
                return
    except Exception:   # noqa: BLE001 - reported to the trainer, which raises it
        _put(outq, (("error", traceback.format_exc()), None), parent)


def _make_loop(store, inq, outq, parent: int) -> None:
    _detach(parent)
    while True:
        item = _get(inq, parent)
        if item is None:
            return
        (what, payload), state = item
        try:
            if what == "plan":
                what, payload = "batch", make_batch(store, payload)
        except Exception:   # noqa: BLE001
            what, payload = "error", traceback.format_exc()
        if not _put(outq, ((what, payload), state), parent):
            return


class BatchPrefetcher:
    """``next()`` and ``state()`` as the sampler's, from background processes (module doc)."""

    def __init__(self, sampler: Sampler, workers: int = 2, depth: int = DEPTH):
        ctx = mp.get_context("fork")
        parent = os.getpid()
        planned = sampler.plans() and workers > 0
        self.independent = workers > 0 and not planned and type(sampler).next is Sampler.next
        self.workers = workers if planned or self.independent else 0
        self._procs = []
        if self.independent:
            base = int(sampler.rng.integers(2 ** 62))     # moves the saved state on: a resume draws anew
            self._state = copy.deepcopy(sampler.state())
            self._outs = [ctx.Queue(depth) for _ in range(workers)]
            self._procs = [ctx.Process(target=_draw_loop, args=(sampler, [base, i], self._outs[i], parent), daemon=True,
                                       name=f"batch-maker-{i}") for i in range(workers)]
            for p in self._procs:
                p.start()
            self._k = 0
            return
        self._state = copy.deepcopy(sampler.state())
        if planned:
            ins = [ctx.Queue(depth) for _ in range(workers)]
            self._outs = [ctx.Queue(depth) for _ in range(workers)]
            for i in range(workers):
                self._procs.append(ctx.Process(target=_make_loop, args=(sampler.store, ins[i], self._outs[i], parent),
                                               daemon=True, name=f"batch-maker-{i}"))
        else:
            ins = self._outs = [ctx.Queue(depth)]
        self._procs.insert(0, ctx.Process(target=_plan_loop, args=(sampler, ins, planned, parent), daemon=True,
                                          name="batch-planner"))
        for p in self._procs:
            p.start()
        self._k = 0

    def next(self):
        q = self._outs[self._k % len(self._outs)]
        while True:
            try:
                (what, payload), state = q.get(timeout=5.0)
                break
            except queue.Empty:
                dead = [p.name for p in self._procs if not p.is_alive()]
                if dead:
                    raise RuntimeError(f"batch prefetch: {', '.join(dead)} ended") from None
        if what == "error":
            raise RuntimeError("batch prefetch failed in a worker:\n" + payload)
        self._k += 1
        if state is not None:
            self._state = state
        return payload

    def state(self) -> dict:
        return self._state

    def worker_pids(self) -> list[int]:
        return [p.pid for p in self._procs]

    def close(self) -> None:
        for p in self._procs:
            if p.is_alive():
                p.terminate()
        for p in self._procs:
            p.join(timeout=5)
        self._procs = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def batch_workers(device_type: str) -> int:
    """How many processes make batches beside the trainer: ``SONGWRITER_BATCH_WORKERS`` if set
    (-1: none, batches made in the training loop as before; 0: one planner that also makes them;
    N: a planner and N makers), else 2 makers on a GPU (where enough cores are) and none on a
    CPU (its cores train: measured in docs/device-training.md)."""
    env = os.environ.get("SONGWRITER_BATCH_WORKERS", "").strip()
    if env:
        return int(env)
    if device_type != "cuda":
        return -1
    return max(0, min(2, (os.cpu_count() or 1) - 2))


def batch_feed(sampler: Sampler, device_type: str, log=print):
    """The sampler itself, or a BatchPrefetcher over it (``batch_workers``)."""
    n = batch_workers(device_type)
    if n < 0:
        return sampler
    feed = BatchPrefetcher(sampler, workers=n)
    if feed.independent:
        log(f"batches made in background processes: {feed.workers} makers drawing independent streams")
    else:
        log(f"batches made in background processes: a planner and {feed.workers} makers")
    return feed

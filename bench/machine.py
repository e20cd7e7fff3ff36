"""What a benchmark needs to say about the machine it ran on: the CPU, its matrix instructions,
and how busy the rest of the machine was while it ran."""

from __future__ import annotations

import os
import platform


def cpu_busy() -> tuple[float, float, float]:
    """(all CPUs' busy seconds, this process's CPU seconds, seconds stolen by the hypervisor)."""
    try:
        with open("/proc/stat") as f:
            vals = [int(x) for x in f.readline().split()[1:]]
    except OSError:
        vals = [0] * 8
    idle, steal = vals[3] + vals[4], vals[7]
    hz = os.sysconf("SC_CLK_TCK")
    t = os.times()
    return ((sum(vals[:7]) - idle) / hz, t.user + t.system + t.children_user + t.children_system,
            steal / hz)


def cpu_info() -> dict:
    """The CPU's model name, core count and the matrix-relevant instruction sets it reports."""
    name, flags = platform.processor() or platform.machine(), set()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key.strip() == "model name":
                    name = value.strip()
                elif key.strip() == "flags":
                    flags = set(value.split())
                    break
    except OSError:
        pass
    return {"model": name, "cores": os.cpu_count(),
            "amx": sorted(f for f in flags if f.startswith("amx")),
            "avx512_bf16": "avx512_bf16" in flags, "avx512f": "avx512f" in flags, "avx2": "avx2" in flags}


class LoadMeter:
    """Cores used by other processes and stolen by the hypervisor between start and stop."""

    def __init__(self):
        import time

        self._time = time.perf_counter
        self.busy0, self.own0, self.steal0 = cpu_busy()
        self.t0 = self._time()

    def stop(self) -> dict:
        busy, own, steal = cpu_busy()
        wall = self._time() - self.t0
        return {"other_load_cores": max(0.0, (busy - self.busy0) - (own - self.own0)) / wall,
                "steal_cores": (steal - self.steal0) / wall, "wall_s": wall}

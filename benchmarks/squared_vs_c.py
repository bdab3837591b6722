"""`squared` in the kit vs the same rules in plain C (gcc -O2), one core, same process.

    python benchmarks/squared_vs_c.py [--envs 64 1024 4096] [--repeats 7]

Prints agent-steps/s of both and the ratio kit/C (the C loop is the "physical
limit" yardstick of DESIGN.md) per batch size. The kit is timed through
``BatchedEnv.step`` (Python, the one compiled call, episode info), C through a
ctypes call. Two clocks: wall time, and the CPU time of this thread
(``time.thread_time``), which leaves out the time the OS gave other processes,
so its ratio holds on a shared machine; on an idle one the two agree. Needs gcc.
"""

from __future__ import annotations

import argparse
import ctypes
import os
import statistics
import subprocess
import tempfile
import time

import numpy as np

import sparring

C_SOURCE = r"""
#include <stdint.h>
#include <string.h>
typedef struct { uint64_t rng; int32_t tick, row, col, target; float ep_return; } Env;
static inline uint64_t next(Env* e) {
    uint64_t x = e->rng; x ^= x >> 12; x ^= x << 25; x ^= x >> 27; e->rng = x;
    return x * 0x2545F4914F6CDD1DULL;
}
static void reset(Env* e, int n) {
    e->tick = 0; e->row = n / 2; e->col = n / 2; e->ep_return = 0.0f;
    int centre = e->row * n + e->col;
    int t = (int)((next(e) >> 11) % (uint64_t)(n * n - 1));
    e->target = t >= centre ? t + 1 : t;
}
static void observe(Env* e, uint8_t* obs, int n) {
    memset(obs, 0, n * n);
    obs[e->target] = 2;
    if (e->row >= 0 && e->row < n && e->col >= 0 && e->col < n) obs[e->row * n + e->col] = 1;
}
void init(Env* envs, int num, int n) {
    for (int i = 0; i < num; i++) { envs[i].rng = 0x9E3779B97F4A7C15ULL * (i + 1); reset(&envs[i], n); }
}
void step(Env* envs, int num, int n, const int32_t* act, float* rew, uint8_t* term, uint8_t* obs) {
    for (int i = 0; i < num; i++) {
        Env* e = &envs[i];
        rew[i] = 0.0f; term[i] = 0;
        e->tick += 1;
        int m = act[i];
        if (m == 1) e->row += 1; else if (m == 2) e->row -= 1;
        else if (m == 3) e->col -= 1; else if (m == 4) e->col += 1;
        if (e->row < 0 || e->row >= n || e->col < 0 || e->col >= n || e->tick > 3 * n) { rew[i] = -1.0f; term[i] = 1; }
        else if (e->row * n + e->col == e->target) { rew[i] = 1.0f; term[i] = 1; }
        e->ep_return += rew[i];
        if (term[i]) reset(e, n);
        observe(e, obs + (size_t)i * n * n, n);
    }
}
"""


def build_c(folder: str) -> ctypes.CDLL:
    """Compile the C reference with gcc -O2 and load it."""
    src, lib = os.path.join(folder, "squared.c"), os.path.join(folder, "squared.so")
    with open(src, "w") as fh:
        fh.write(C_SOURCE)
    subprocess.run(["gcc", "-O2", "-shared", "-fPIC", "-o", lib, src], check=True)
    return ctypes.CDLL(lib)


def rate(step, rows: int, calls: int) -> tuple[float, float]:
    """Agent-steps/s of ``calls`` calls of ``step(k)``: by wall time, and by this thread's CPU time."""
    wall, cpu = time.perf_counter(), time.thread_time()
    for k in range(calls):
        step(k)
    return rows * calls / (time.perf_counter() - wall), rows * calls / (time.thread_time() - cpu)


def compare(n: int, repeats: int, steps: int) -> None:
    """Measure and print the kit against C at ``n`` envs, ``steps`` agent-steps per repeat."""
    size, calls = 11, max(200, steps // n)
    acts = [np.ascontiguousarray(a, np.int32) for a in np.random.default_rng(0).integers(0, 5, (16, n, 1))]
    env = sparring.make("squared", num_envs=n)
    env.step(acts[0])
    with tempfile.TemporaryDirectory() as folder:
        lib = build_c(folder)
        envs = ctypes.create_string_buffer(32 * n)
        rew, term, obs = np.zeros(n, np.float32), np.zeros(n, np.uint8), np.zeros(n * size * size, np.uint8)
        lib.init(envs, n, size)
        ptr = ctypes.c_void_p
        c_acts = [a.ctypes.data_as(ptr) for a in acts]
        c_args = (rew.ctypes.data_as(ptr), term.ctypes.data_as(ptr), obs.ctypes.data_as(ptr))

        def c_step(k):
            lib.step(envs, n, size, c_acts[k % 16], *c_args)

        def kit_step(k):
            env.step(acts[k % 16])

        kit, c = [], []
        for _ in range(repeats):  # interleaved so load changes hit both alike
            kit.append(rate(kit_step, n, calls))
            c.append(rate(c_step, n, calls))
    print(f"squared, {n} envs, one core, median of {repeats} interleaved repeats of {calls} calls")
    for k, clock in enumerate(("wall time", "CPU time")):
        k_med, c_med = statistics.median(r[k] for r in kit), statistics.median(r[k] for r in c)
        print(
            f"  {clock:9}: kit (BatchedEnv.step) {k_med / 1e6:6.2f} M agent-steps/s, "
            f"C (gcc -O2, ctypes) {c_med / 1e6:6.2f} M: ratio kit/C {k_med / c_med:.2f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--envs", type=int, nargs="+", default=[64, 1024, 4096])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--steps", type=int, default=3_000_000, help="agent-steps per repeat and side")
    args = parser.parse_args()
    for n in args.envs:
        compare(n, args.repeats, args.steps)


if __name__ == "__main__":
    main()

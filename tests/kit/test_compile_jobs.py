"""The step typed in a second process on a cold cache: the functions it calls compile there and this process loads
them instead of compiling them (waiting for one the other process is compiling), compiles the step itself, steps to
the same bytes, starts nothing on a warm cache, and compiles everything itself when the other process fails."""

import os
import pathlib
import signal
import subprocess
import sys
import threading
import time
import types

import numpy as np
from numba import types as nbtypes

from sparring.kit import compile_jobs, helper, kernel
from sparring.kit.codegen import compile_batch
from tests.kit import toys

ROOT = pathlib.Path(__file__).resolve().parents[2]

PROBE = """
import hashlib, subprocess, sys
import numpy as np
from sparring.kit import compile_jobs
from sparring.kit.batch import BatchedEnv, compiled
from sparring.kit.compile_jobs import StepJob, await_job, step_in_background
from tests.kit import toys

compile_jobs.MIN_STEP_FUNCTIONS = 0  # the toy's step calls no compiled function, so it would get no job

module = compiled(toys.Walk, np.float32)
if sys.argv[1] == "job":  # compiled() started the job when the switch allows one
    job = step_in_background(module, toys.Walk, np.float32)
    started = job is not None and type(job.process).__name__  # Forked here (one Python thread), else Popen
else:  # a job whose process fails before compiling anything
    await_job(module.batch_step, StepJob(subprocess.Popen([sys.executable, "-c", "raise SystemExit(1)"])))
    started = True
env = BatchedEnv(toys.Walk, num_envs=8, seed=3)
rng = np.random.default_rng(0)
for _ in range(30):
    env.step(rng.integers(0, 3, size=(env.rows, 1)).astype(np.int32))
# sum_chunks: a function the step calls, which the job compiles; first_bad: one it leaves to this process
every = [module.batch_step.stats, module.sum_chunks.stats, module.first_bad.stats]
digest = hashlib.sha256(env.records.tobytes() + env.obs.tobytes() + env.rewards.tobytes()).hexdigest()
counts = [sum(stats.cache_misses.values()) for stats in every] + [sum(stats.cache_hits.values()) for stats in every]
print(started or False, *counts, digest)
"""


def probe(cache: pathlib.Path, how: str = "job", jobs: str = "1") -> tuple[str, tuple[int, ...], str]:
    """(the job's process kind, or "False" when none started; (compiles here of the step, sum_chunks and first_bad,
    then their cache loads); digest of the batch after 30 steps), in a fresh process."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache), "PYTHONPATH": str(ROOT), compile_jobs.SWITCH: jobs}
    out = subprocess.run([sys.executable, "-c", PROBE, how], env=env, capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr[-2000:]
    started, *counts, digest = out.stdout.split()
    return started, tuple(int(c) for c in counts), digest


def test_a_cold_step_loads_what_the_other_process_compiled_and_a_warm_one_starts_nothing(tmp_path):
    alone = probe(tmp_path / "alone", jobs="0")
    assert alone[:2] == ("False", (1, 1, 1, 0, 0, 0))  # switched off: this process compiled all three
    cold = probe(tmp_path / "cache")
    assert cold[:2] == ("Forked", (1, 0, 1, 0, 1, 0))  # the forked child compiled sum_chunks, the rest compiled here
    assert cold[2] == alone[2]
    warm = probe(tmp_path / "cache")
    assert warm == ("False", (0, 0, 0, 1, 0, 0), alone[2])  # the step from the cache, its callees linked into it


def test_a_failed_job_leaves_the_step_to_this_process(tmp_path):
    # switched off, so that BatchedEnv starts no job of its own: the probe's failing one is the only one
    started, counts, digest = probe(tmp_path / "cache", how="failing job", jobs="0")
    assert (started, counts) == ("True", (1, 1, 1, 0, 0, 0))
    assert digest == probe(tmp_path / "alone", jobs="0")[2]


def test_nothing_starts_when_switched_off_busy_or_the_cache_is_not_writable(monkeypatch):
    monkeypatch.setenv(compile_jobs.SWITCH, "0")
    assert compile_jobs.step_in_background(compile_batch(toys.Walk), toys.Walk, np.float32) is None
    monkeypatch.delenv(compile_jobs.SWITCH)
    monkeypatch.setattr(compile_jobs, "spare_core", lambda: False)
    monkeypatch.setattr(compile_jobs, "is_cached", lambda dispatcher, sig: False)
    assert compile_jobs.step_in_background(compile_batch(toys.Walk), toys.Walk, np.float32) is None
    monkeypatch.setenv(compile_jobs.SWITCH, "1")
    monkeypatch.setattr(compile_jobs.os, "access", lambda path, mode: False)
    module = compile_batch(toys.Walk)
    assert compile_jobs.step_in_background(module, toys.Walk, np.float32) is None
    assert module.step_job is None and not isinstance(module.batch_step._cache, compile_jobs._AwaitJob)


def test_a_class_another_process_cannot_import_gets_no_job():
    class Local(toys.Walk):
        name = "toy_local_walk"

    assert compile_jobs.importable_name(toys.Walk) == ("tests.kit.toys", "Walk")
    assert compile_jobs.importable_name(Local) is None


def test_the_step_signature_is_what_a_batch_passes():
    header, actions = compile_jobs.step_signature(toys.Walk)
    assert str(header) == "array(int64, 1d, C)" and str(actions) == "array(int32, 2d, C)"


def test_the_command_line_names_its_arguments(capsys):
    assert compile_jobs.main(["tests.kit.toys"]) == 2
    assert "usage: python -m sparring.kit.compile_jobs MODULE QUALNAME OBS_DTYPE" in capsys.readouterr().err


def test_a_spare_core_is_two_cpus_and_a_load_below_them_less_a_half(monkeypatch):
    monkeypatch.setattr(compile_jobs, "usable_cpus", lambda: 2)
    monkeypatch.setattr(compile_jobs.os, "getloadavg", lambda: (1.2, 0.0, 0.0))
    assert compile_jobs.spare_core()
    monkeypatch.setattr(compile_jobs.os, "getloadavg", lambda: (1.6, 0.0, 0.0))
    assert not compile_jobs.spare_core()
    monkeypatch.setattr(compile_jobs, "usable_cpus", lambda: 1)
    monkeypatch.setattr(compile_jobs.os, "getloadavg", lambda: (0.0, 0.0, 0.0))
    assert not compile_jobs.spare_core()


@helper
def _deep(s):
    s.pos += 1


@kernel
def _middle(s):
    _deep(s)


@kernel
def _reaching_step(s, cfg, act, rew, term, trunc):
    _middle(s)
    if act[0, 0] == 0:
        toys.walk_reset(s, cfg)  # through a module: walk_reset, and rand_int it calls, count too


def test_step_functions_counts_the_compiled_functions_the_step_reaches_without_compiling():
    class Reaching:
        step = _reaching_step

    assert compile_jobs.step_functions(toys.Walk) == 0
    assert compile_jobs.step_functions(Reaching) == 5  # _middle, _deep, toys.walk_reset, rand_int, rand_u64
    assert not _deep.overloads and not _reaching_step.overloads


def test_a_step_that_reaches_few_compiled_functions_gets_no_job(monkeypatch):
    # the second process's start and imports cost more than such a step's own compile
    monkeypatch.setenv(compile_jobs.SWITCH, "1")
    monkeypatch.setattr(compile_jobs, "is_cached", lambda dispatcher, sig: False)
    module = compile_batch(toys.Walk)
    assert compile_jobs.step_in_background(module, toys.Walk, np.float32) is None
    assert module.step_job is None and not isinstance(module.batch_step._cache, compile_jobs._AwaitJob)


def test_a_forked_child_reports_its_exit_code_and_is_killed_when_it_outlives_the_wait():
    pid = os.fork()
    if pid == 0:
        os._exit(3)
    assert compile_jobs.Forked(pid).wait() == 3
    pid = os.fork()
    if pid == 0:
        time.sleep(60)
        os._exit(0)
    job = compile_jobs.StepJob(compile_jobs.Forked(pid))
    assert job.wait(timeout=0.2) is False
    assert job.process.returncode == -signal.SIGKILL


def test_no_fork_beside_a_second_python_thread():
    release = threading.Event()
    other = threading.Thread(target=release.wait)
    other.start()
    try:
        assert compile_jobs.fork_compile(compile_batch(toys.Walk).batch_step, ()) is None
    finally:
        release.set()
        other.join()


class _Cache:
    """A cache whose entry appears at its ``ready``-th lookup."""

    def __init__(self, ready: int):
        self.lookups, self.ready = 0, ready

    def load_overload(self, sig, target_context):
        self.lookups += 1
        return "entry" if self.lookups >= self.ready else None


class _Job:
    markers = "a folder"

    def __init__(self, compiling: bool):
        self.is_compiling = compiling

    def compiling(self, dispatcher, sig):
        return self.is_compiling

    def wait(self, timeout):
        self.is_compiling, self.waited = False, timeout  # killed: it compiles nothing any more
        return False


def test_a_lookup_waits_for_what_the_job_is_compiling_and_only_for_that():
    waiting = types.SimpleNamespace(_cache=_Cache(ready=4))
    assert compile_jobs._AwaitEntry(waiting, _Job(compiling=True)).load_overload((), None) == "entry"
    assert waiting._cache.lookups == 4  # looked again until the job had saved it
    alone = types.SimpleNamespace(_cache=_Cache(ready=4))
    assert compile_jobs._AwaitEntry(alone, _Job(compiling=False)).load_overload((), None) is None
    assert alone._cache.lookups == 1  # not the job's: compiled here at once


def test_a_job_stuck_on_a_function_is_killed_after_the_wait(monkeypatch):
    monkeypatch.setattr(compile_jobs, "WAIT_SECONDS", 0.0)
    stuck, job = types.SimpleNamespace(_cache=_Cache(ready=10**9)), _Job(compiling=True)
    assert compile_jobs._AwaitEntry(stuck, job).load_overload((), None) is None  # compiled here instead
    assert job.waited == 0 and stuck._cache.lookups == 1


def test_the_job_is_compiling_what_it_marked_while_it_runs(tmp_path):
    pid = os.fork()
    if pid == 0:
        time.sleep(60)
        os._exit(0)
    markers = tmp_path / "markers"
    markers.mkdir()
    job = compile_jobs.StepJob(compile_jobs.Forked(pid), str(markers))
    listener = compile_jobs.MarkCompiles(str(markers))
    listener.on_start(types.SimpleNamespace(data={"dispatcher": _deep, "args": (nbtypes.int64,)}))
    assert job.compiling(_deep, (nbtypes.int64,))
    assert not job.compiling(_deep, (nbtypes.float64,)) and not job.compiling(_middle, (nbtypes.int64,))
    job.process.kill()
    assert job.wait() is False
    assert not job.compiling(_deep, (nbtypes.int64,)) and not markers.exists()  # ended: its markers are gone

"""Type an env's step in a second process while this one compiles its reset: a cold first step sooner.

From an empty cache, the first step waits for two compiles, one after the other: ``batch_reset``
(the reset and observe kernels with their helpers; the first ``BatchedEnv`` needs it) and
``batch_step`` (the step kernel with its helpers, reset and observe inlined again; the first
step needs it). Each compiled function is a unit of its own in Numba's on-disk cache, and typing a
function compiles every function it calls (:mod:`sparring.kit.type_only`), so
:func:`step_in_background` starts a process that types ``batch_step``: the step's helpers (and
``first_bad``, ``sum_chunks``) compile there into the cache while this process compiles the reset's.
That process is a child forked from this one (:func:`fork_compile`: it has the imports already), or,
where this process cannot fork safely (a second Python thread, or no ``os.fork``), a new interpreter
that imports the env's class by module and name (``python -m sparring.kit.compile_jobs``). It types
the step kernel first (the generated step calls it before reset and observe), so it compiles the
step's own helpers while this process compiles the reset's, and it loads the reset's helpers from
the cache once this process has saved them.

A forked child leaves a marker file for each function it starts compiling (:class:`MarkCompiles`),
and this process waits for those: a cache lookup of a function the step reaches that misses while
the child is compiling that function for those argument types looks again until the child has
saved it (:class:`_AwaitEntry`), so a helper that reset and step share compiles once, and this
process compiles ``batch_step`` itself (typing, LLVM, machine code) as soon as reset is done,
waiting only for helpers the child has not finished. The step's own compile thus moves from the
child, which has more to do, to this process, which had idled after reset (gauntlet: the child
compiles the step's helpers, this process the reset's and then the step). With a new interpreter
(no markers) the first step waits for that process to end, then compiles ``batch_step`` with its
helpers loaded from the cache. If the process failed, or was killed after :data:`WAIT_SECONDS`,
this process compiles what is missing itself. Either way the compiled code is the same, so results
are the same bytes.

Nothing starts when the cache already holds the step (a warm start is unchanged), when Numba does
not cache the step or its cache folder is not writable, when the step reaches fewer than
:data:`MIN_STEP_FUNCTIONS` compiled functions (kernels and helpers, :func:`step_functions`: the
second process costs more than such a step's own compile; squared, whose step calls none, took
5.5 s to its first step with a new interpreter as the second process against 3.5 s without),
when the env's class cannot be imported by its module and name and this process cannot fork (a
class defined in ``__main__`` or in a function), or when ``SPARRING_COMPILE_JOBS=0``. By default
(the variable unset) it also needs a core to spare: two usable CPUs or more and a load average
(last minute) below the CPUs less a half. On the 2-core build machine under a load of 7 the
second process made the cold first step 1-12% slower (it competes for the same cores);
``SPARRING_COMPILE_JOBS=1`` starts it whatever the load. Two processes that save different
entries of one function's cache index at the same moment may keep only one of them (Numba's cache
has that race for any two processes); the lost entry compiles again later (one this process waits for compiles
here once the child has ended).
"""

from __future__ import annotations

import atexit
import hashlib
import importlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import types
import warnings

import numpy as np
from numba import njit, typeof
from numba.core import caching, event, sigutils
from numba.core.dispatcher import Dispatcher

from sparring.kit.codegen import HEADER, compile_batch, first_bad_action, sum_chunks
from sparring.kit.type_only import type_only

WAIT_SECONDS = 600.0  # the longest wait for the step's process before compiling the step here
MIN_STEP_FUNCTIONS = 8  # compiled functions the step must reach for a second process to pay (gauntlet's reaches 35)
LAST_WAIT_SECONDS = 5.0  # the longest wait for the job once this process has compiled the step (then killed)
POLL_SECONDS = 0.02  # how often this process looks for a function the job is compiling
SWITCH = "SPARRING_COMPILE_JOBS"  # "0": never start a compile process; "1": whatever the load; unset: a core to spare


def step_signature(env_cls: type) -> tuple:
    """Numba argument types of the generated ``batch_step``: the header (int64 [len(HEADER)]) and the actions
    (int32 [rows, heads], C order), as :class:`~sparring.kit.batch.BatchedEnv` passes them."""
    header = np.zeros(len(HEADER), np.int64)
    actions = np.zeros((int(env_cls.num_agents), len(env_cls.actions.sizes)), np.int32)
    return typeof(header), typeof(actions)


def _codes(code: types.CodeType):
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _codes(const)


def step_dispatchers(env_cls: type) -> list:
    """The Numba dispatchers (kernels and helpers) ``env_cls.step`` reaches: those named by its code and theirs,
    looked up in their modules' globals (``helper(s)`` or ``module.helper(s)``), found without compiling anything."""
    seen, todo = {}, [env_cls.step]
    while todo:
        fn = todo.pop().py_func
        found = fn.__globals__
        for code in _codes(fn.__code__):
            for name in code.co_names:
                value = found.get(name)
                candidates = (
                    [getattr(value, n, None) for n in code.co_names] if isinstance(value, types.ModuleType) else [value]
                )
                for candidate in candidates:
                    if isinstance(candidate, Dispatcher) and id(candidate) not in seen:
                        seen[id(candidate)] = candidate
                        todo.append(candidate)
    return list(seen.values())


def step_functions(env_cls: type) -> int:
    """How many compiled functions (kernels and helpers) ``env_cls.step`` reaches (:func:`step_dispatchers`): a
    measure of the step's compile work beyond the kit's template, found without compiling anything."""
    return len(step_dispatchers(env_cls))


def usable_cpus() -> int:
    """CPUs this process may run on."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def spare_core() -> bool:
    """Whether a second process would likely get a core of its own: two usable CPUs or more, and a load average
    over the last minute below their number less a half."""
    cpus = usable_cpus()
    return cpus >= 2 and os.getloadavg()[0] < cpus - 0.5


def is_cached(dispatcher, sig: tuple) -> bool:
    """Whether ``dispatcher``'s on-disk cache holds an entry for argument types ``sig`` (stamped by the current
    source), without loading it."""
    cache = dispatcher._cache
    if isinstance(cache, caching.NullCache):
        return False
    return cache._index_key(sig, dispatcher.targetctx.codegen()) in cache._cache_file._load_index()


def importable_name(env_cls: type) -> tuple[str, str] | None:
    """``(module, qualname)`` by which another process imports ``env_cls``, or None when it cannot."""
    module, name = env_cls.__module__, env_cls.__qualname__
    loaded = sys.modules.get(module)
    if module == "__main__" or "<locals>" in name or getattr(loaded, "__spec__", None) is None:
        return None
    return module, name


def marker_name(dispatcher, sig) -> str:
    """The file name that says "the job is compiling ``dispatcher`` for argument types ``sig``"."""
    args, _ = sigutils.normalize_signature(sig)
    fn = dispatcher.py_func
    return hashlib.sha1(f"{fn.__module__}.{fn.__qualname__}{tuple(args)}".encode()).hexdigest()


class MarkCompiles(event.Listener):
    """In the job: a file in ``folder`` for each function it starts compiling (after its cache lookup missed), so
    that the waiting process waits for that function instead of compiling it too (:class:`_AwaitEntry`)."""

    def __init__(self, folder: str):
        self.folder = folder

    def on_start(self, ev):
        """Leave the marker."""
        data = ev.data or {}
        if "dispatcher" in data:
            open(os.path.join(self.folder, marker_name(data["dispatcher"], data["args"])), "w").close()

    def on_end(self, ev):
        """Nothing: the cache entry, once saved, says it is done."""


class Forked:
    """A child made by :func:`os.fork`, with the part of :class:`subprocess.Popen` that :class:`StepJob` uses."""

    def __init__(self, pid: int):
        self.pid, self.returncode = pid, None

    def wait(self, timeout: float | None = None) -> int:
        """Its exit code once it has ended; :class:`subprocess.TimeoutExpired` after ``timeout`` seconds."""
        end = None if timeout is None else time.monotonic() + timeout
        while self.returncode is None:
            pid, status = os.waitpid(self.pid, 0 if end is None else os.WNOHANG)
            if pid:
                self.returncode = os.waitstatus_to_exitcode(status)
            elif time.monotonic() >= end:
                raise subprocess.TimeoutExpired(f"compile job {self.pid}", timeout)
            else:
                time.sleep(0.01)
        return self.returncode

    def poll(self) -> int | None:
        """Its exit code once it has ended, else None (without waiting)."""
        try:
            return self.wait(0)
        except subprocess.TimeoutExpired:
            return None

    def kill(self) -> None:
        """End it now."""
        if self.returncode is None:
            os.kill(self.pid, signal.SIGKILL)


@njit(no_cfunc_wrapper=True)
def _first_bad_stand_in(actions, sizes):
    """What the forked child types in place of the step's ``first_bad`` (the same argument and result types): the
    step calls it first, so the child would compile it before the helpers, the longer of the two processes' work;
    this process compiles it instead, when it starts the step after reset, while the child compiles helpers."""
    return -1


def fork_compile(dispatcher, sig: tuple, markers: str | None = None, stand_ins: dict | None = None) -> Forked | None:
    """Type ``dispatcher`` for ``sig`` in a forked child, which compiles every function it calls into Numba's cache
    (:func:`~sparring.kit.type_only.type_only`), or None where this process cannot
    fork safely (no ``os.fork``, or a second Python thread). The child has this process's imports and Numba's state
    already, so it starts compiling at once, where a new interpreter first spends about a second importing.

    Safe with one Python thread: the child runs only this thread, and it only compiles. Native threads that idle
    in a pool (OpenBLAS starts one when NumPy is imported) are not copied and the child never calls into them,
    so Python's warning about forking a process with threads (3.12+) is silenced here. With ``markers`` (a
    folder) the child leaves a file there for each function it starts compiling (:class:`MarkCompiles`); in the
    child, ``stand_ins`` (name: function) replace those globals of ``dispatcher``'s function, so that it types them
    without compiling the functions they replace (which this process then compiles itself)."""
    if not hasattr(os, "fork") or threading.active_count() > 1:
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        pid = os.fork()
    if pid == 0:  # the child: compile, then leave without running the parent's exit handlers
        code = 1
        try:
            quiet = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(quiet, fd)
            if markers is not None:
                event.register("numba:compile", MarkCompiles(markers))
            dispatcher.py_func.__globals__.update(stand_ins or {})
            type_only(dispatcher, sig)
            code = 0
        finally:
            os._exit(code)
    return Forked(pid)


class StepJob:
    """The process typing an env's ``batch_step`` (its callees compile into Numba's cache), with the folder of its
    markers or None; :meth:`wait` until it ends."""

    def __init__(self, process: subprocess.Popen, markers: str | None = None):
        self.process, self.markers = process, markers
        if markers is not None:
            atexit.register(self._forget_markers)  # when this process never looks again

    def wait(self, timeout: float = WAIT_SECONDS) -> bool:
        """Wait for the process to end (kill it after ``timeout`` seconds); True when it typed the step to the end."""
        try:
            return self.process.wait(timeout) == 0
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            return False
        finally:
            self._forget_markers()

    def ended(self) -> bool:
        """Whether the process has ended (without waiting)."""
        if self.process.poll() is None:
            return False
        self._forget_markers()
        return True

    def compiling(self, dispatcher, sig) -> bool:
        """Whether the process has started compiling ``dispatcher`` for ``sig`` (it left a marker) and runs on."""
        if self.markers is None or not os.path.exists(os.path.join(self.markers, marker_name(dispatcher, sig))):
            return False
        return not self.ended()

    def _forget_markers(self) -> None:
        if self.markers is not None:
            shutil.rmtree(self.markers, ignore_errors=True)
            self.markers = None


class _AwaitJob:
    """Stands in for the step's Numba cache until its first lookup. A job that leaves markers (a forked child) only
    types the step, so this process compiles the step itself at once, waiting for each function the job is
    compiling (:class:`_AwaitEntry`); for a job without markers the lookup waits for the job to end first."""

    def __init__(self, dispatcher, job: StepJob):
        self._dispatcher, self._cache, self._job = dispatcher, dispatcher._cache, job

    def load_overload(self, sig, target_context):
        if self._job.markers is None:
            self._dispatcher._cache = self._cache  # later lookups go straight to the cache
            self._job.wait()
        return self._cache.load_overload(sig, target_context)

    def save_overload(self, sig, data):
        """Save the step this process compiled, then end the job: by now it is only finishing the step's typing
        (ended here, it counts in this process's resource use of its children)."""
        self._dispatcher._cache = self._cache
        self._cache.save_overload(sig, data)
        self._job.wait(LAST_WAIT_SECONDS)

    def __getattr__(self, name):
        return getattr(self._cache, name)


class _AwaitEntry:
    """Stands in for the Numba cache of a function the step reaches while ``job`` runs: a lookup that misses while
    the job is compiling that function for those argument types waits for the job to save it, then loads it."""

    def __init__(self, dispatcher, job: StepJob):
        self._dispatcher, self._cache, self._job = dispatcher, dispatcher._cache, job

    def load_overload(self, sig, target_context):
        end = time.monotonic() + WAIT_SECONDS
        while True:
            loaded = self._cache.load_overload(sig, target_context)
            if loaded is None and time.monotonic() > end:
                self._job.wait(0)  # a job stuck on one function: kill it, then compile here
            if loaded is not None or not self._job.compiling(self._dispatcher, sig):
                if self._job.markers is None:  # the job has ended: later lookups go straight to the cache
                    self._dispatcher._cache = self._cache
                return loaded
            time.sleep(POLL_SECONDS)

    def __getattr__(self, name):
        return getattr(self._cache, name)


def await_entries(dispatchers, job: StepJob) -> None:
    """Make lookups in the caches of ``dispatchers`` wait for what ``job`` is compiling (:class:`_AwaitEntry`)."""
    for dispatcher in dispatchers:
        if isinstance(dispatcher._cache, caching.FunctionCache):
            dispatcher._cache = _AwaitEntry(dispatcher, job)


def await_job(dispatcher, job: StepJob) -> None:
    """Make ``dispatcher``'s next cache lookup wait for ``job`` before it reads the cache."""
    dispatcher._cache = _AwaitJob(dispatcher, job)


def step_in_background(module, env_cls: type, obs_dtype) -> StepJob | None:
    """Start typing ``module.batch_step`` (``module`` from :func:`~sparring.kit.codegen.compile_batch` for
    ``env_cls`` and observations of ``obs_dtype``) in another process when the cache lacks it, which compiles the
    functions it calls into the cache; this process loads them from there (see the module docstring). Returns the
    job, or None when nothing started; a module gets at most one job."""
    if hasattr(module, "step_job"):
        return module.step_job
    module.step_job = None
    dispatcher, name = module.batch_step, importable_name(env_cls)
    cache = dispatcher._cache
    if (
        os.environ.get(SWITCH) == "0"
        or (os.environ.get(SWITCH) != "1" and not spare_core())
        or step_functions(env_cls) < MIN_STEP_FUNCTIONS
        or isinstance(cache, caching.NullCache)
        or not os.access(cache._cache_path, os.W_OK)
        or is_cached(dispatcher, step_signature(env_cls))
    ):
        return None
    markers = tempfile.mkdtemp(prefix="sparring-compiling-")
    process = fork_compile(dispatcher, step_signature(env_cls), markers, {"first_bad": _first_bad_stand_in})
    if process is None:
        shutil.rmtree(markers)
        markers = None
        if name is None:
            return None
        paths = os.pathsep.join(p for p in sys.path if p)
        argv = [sys.executable, "-m", __name__, *name, np.dtype(obs_dtype).str]
        process = subprocess.Popen(
            argv,
            env={**os.environ, SWITCH: "0", "PYTHONPATH": paths},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    module.step_job = StepJob(process, markers)
    await_job(dispatcher, module.step_job)
    await_entries([module.first_bad, first_bad_action, sum_chunks, *step_dispatchers(env_cls)], module.step_job)
    return module.step_job


def compile_step(env_cls: type, obs_dtype) -> None:
    """Type ``batch_step`` of ``env_cls`` for observations of ``obs_dtype``: every function it calls compiles (or
    loads) into Numba's cache; the step itself is left to the process that waits for this one."""
    type_only(compile_batch(env_cls, obs_dtype).batch_step, step_signature(env_cls))


def main(argv: list[str]) -> int:
    """``python -m sparring.kit.compile_jobs MODULE QUALNAME OBS_DTYPE``: compile that env's step."""
    if len(argv) != 3:
        print("usage: python -m sparring.kit.compile_jobs MODULE QUALNAME OBS_DTYPE (e.g. '<f4')", file=sys.stderr)
        return 2
    module, qualname, obs_dtype = argv
    env_cls = importlib.import_module(module)
    for part in qualname.split("."):
        env_cls = getattr(env_cls, part)
    compile_step(env_cls, np.dtype(obs_dtype))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

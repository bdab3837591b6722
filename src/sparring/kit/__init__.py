"""The env kit: declare mechanics, get batching, snapshots, adapters and checks."""

from sparring.kit.batch import BatchedEnv
from sparring.kit.registry import get, make, names, register
from sparring.kit.rng import rand_float, rand_int, rand_u64
from sparring.kit.spec import Env, Heads, NoConfig, Obs, choice, helper, kernel, knob

__all__ = [
    "BatchedEnv",
    "Env",
    "Heads",
    "NoConfig",
    "Obs",
    "choice",
    "get",
    "helper",
    "kernel",
    "knob",
    "make",
    "names",
    "rand_float",
    "rand_int",
    "rand_u64",
    "register",
]

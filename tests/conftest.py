"""Settings for the whole suite."""

import os

# A cold cache would start a second process to compile each new env's step (sparring.kit.compile_jobs); the
# suite builds dozens of toy envs, so it compiles in-process, and tests/kit/test_compile_jobs.py turns it on.
os.environ.setdefault("SPARRING_COMPILE_JOBS", "0")

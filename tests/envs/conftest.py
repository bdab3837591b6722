"""The env tests check the scripted ladders with the measurement helpers of ``benchmarks/ladders.py``."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

"""The benchmark's figures are produced, and its allocation count per env-step is exact for envs that allocate."""

from sparring.kit.bench import allocations, bench, format_allocations, format_bench, startup
from tests.kit import toys
from tests.kit.check import allocating


def test_bench_reports_every_size_snapshot_cost_and_allocations():
    result = bench("squared", sizes=(1, 64), repeats=2, seconds=0.02, compile_times=False)
    assert [r["num_envs"] for r in result["throughput"]] == [1, 64]
    assert all(0 < r["min"] <= r["median"] <= r["max"] for r in result["throughput"])
    assert result["snapshot"]["restore_us"] > 0
    assert result["allocations"]["step_per_env"] == 0
    text = format_bench(result)
    assert "agent-steps/s" in text and "step     0.00 per env-step" in text and "remedy" not in text


def test_warm_start_uses_the_cache():
    times = startup("squared", {}, num_envs=8)
    assert 0 < times["warm_s"] < times["cold_s"]


def test_an_env_that_allocates_per_step_is_counted_per_env_step_and_per_call():
    clean = allocations(toys.Walk, num_envs=16, steps=50)
    found = allocations(allocating.StepAllocates, num_envs=16, steps=50)
    assert found["step_per_env"] == 1.0 and clean["step_per_env"] == 0.0
    assert found["step_per_call"] == clean["step_per_call"] > 0
    assert found["kernels"][next(k for k in found["kernels"] if "scratch_step" in k)] == 1.0
    lines = format_allocations(found)
    assert "step     1.00 per env-step" in lines[1]
    assert "scratch_step" in lines[4] and "preallocate" in lines[5]

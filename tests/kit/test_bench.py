"""The benchmark's figures are produced and the step path allocates nothing per env."""

from sparring.kit.bench import bench, format_bench, startup


def test_bench_reports_every_size_and_snapshot_cost():
    result = bench("squared", sizes=(1, 64), repeats=2, seconds=0.02, compile_times=False)
    assert [r["num_envs"] for r in result["throughput"]] == [1, 64]
    assert all(0 < r["min"] <= r["median"] <= r["max"] for r in result["throughput"])
    assert result["snapshot"]["restore_us"] > 0
    assert "agent-steps/s" in format_bench(result)


def test_warm_start_uses_the_cache_and_steps_do_not_allocate_per_env():
    small = startup("squared", {}, num_envs=8)
    large = startup("squared", {}, num_envs=1024)
    assert small["warm_s"] < small["cold_s"]
    # Numba's only allocations are the per-call wrappers of array arguments, the same for any num_envs.
    assert small["allocs_per_1000_steps"] == large["allocs_per_1000_steps"]

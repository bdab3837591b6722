"""Joining a Ray cluster, or starting a local instance whose traffic stays on this machine.

A local instance is started on the loopback address: Ray itself turns ``127.0.0.1`` into the
machine's network-interface address unless its single-machine mode is on
(``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0``, read when ``ray`` is first imported), so this module sets
that before Ray is imported and checks where the node registered. A cluster's nodes get their
addresses from ``ray start --node-ip-address ADDR`` on each machine.
"""

from __future__ import annotations

import os

SINGLE_MACHINE = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"  # Ray's switch: "0" keeps a local instance on 127.0.0.1


def init_ray(address: str = "", min_cpus: int = 1) -> None:
    """Connect to the Ray cluster at ``address``, or start a local instance on 127.0.0.1 with at least
    ``min_cpus`` CPUs (nothing to do when this process is connected already)."""
    if not address:
        os.environ.setdefault(SINGLE_MACHINE, "0")  # before the first `import ray`, which reads it
    import ray

    if ray.is_initialized():
        return
    if address:
        ray.init(address=address, log_to_driver=False)
    else:  # workers inherit this environment, NUMBA_CACHE_DIR included, so they load compiled kernels warm
        ray.init(
            num_cpus=max(min_cpus, os.cpu_count() or 1),
            include_dashboard=False,
            log_to_driver=False,
            _node_ip_address="127.0.0.1",
        )


def node_addresses() -> list[str]:
    """The address every live node of the connected Ray cluster registered under."""
    import ray

    return sorted({node["NodeManagerAddress"] for node in ray.nodes() if node["Alive"]})


"""Joining a Ray cluster, or starting a local instance whose traffic stays on this machine.

A local instance is started on the loopback address: Ray itself turns ``127.0.0.1`` into the
machine's network-interface address unless its single-machine mode is on
(``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0``, which Ray reads into ``ray_constants`` when it is first
imported), so :func:`init_ray` sets the variable for the processes Ray starts and, where ``ray`` was
imported already, the constant it was read into (:func:`node_addresses` says where the nodes registered).
A cluster's nodes get their addresses from ``ray start --node-ip-address ADDR`` on each machine.
"""

from __future__ import annotations

import logging
import os

from sparring.kit.net import CONNECT_SECONDS, check_reachable

SINGLE_MACHINE = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"  # Ray's switch: "0" keeps a local instance on 127.0.0.1


def init_ray(address: str = "", min_cpus: int = 1) -> None:
    """Connect to the Ray cluster at ``address``, or start a local instance on 127.0.0.1 with at least
    ``min_cpus`` CPUs (nothing to do when this process is connected already)."""
    import ray

    if ray.is_initialized():
        return
    if not address:
        on_this_machine()
    if address:
        ray.init(address=address, log_to_driver=False, logging_level=logging.WARNING)
    else:  # workers inherit this environment, NUMBA_CACHE_DIR included, so they load compiled kernels warm
        ray.init(
            address="local",  # a new instance, never a cluster some `ray start` left in /tmp/ray
            num_cpus=max(min_cpus, os.cpu_count() or 1),
            include_dashboard=False,
            log_to_driver=False,
            logging_level=logging.WARNING,
            _node_ip_address="127.0.0.1",
        )


def check_ray_address(address: str, seconds: float = CONNECT_SECONDS) -> None:
    """Fail within ``seconds`` (one line, naming the address) when no Ray cluster accepts connections at
    ``address`` ("" or "auto": a local Ray, not checked); Ray itself would wait for ever."""
    if address and address != "auto":
        check_reachable(address, "Ray cluster (--ray-address)", seconds, default_port=6379)


def on_this_machine() -> None:
    """Make the Ray nodes this process starts (a local instance, or ``ray.cluster_utils.Cluster``'s nodes) register
    on 127.0.0.1, unless ``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER`` says otherwise."""
    os.environ.setdefault(SINGLE_MACHINE, "0")  # read by the first `import ray`, in Ray's workers too
    if os.environ[SINGLE_MACHINE] == "0":
        from ray._private import ray_constants  # no public switch; Ray 2.60 reads this constant when it starts a node

        ray_constants.ENABLE_RAY_CLUSTER = False


def node_addresses() -> list[str]:
    """The address every live node of the connected Ray cluster registered under."""
    import ray

    return sorted({node["NodeManagerAddress"] for node in ray.nodes() if node["Alive"]})

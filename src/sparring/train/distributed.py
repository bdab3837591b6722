"""Data-parallel PPO's collective steps, all through ``torch.distributed`` (gloo on CPU, NCCL on GPU).

K ranks each hold the same policy and a shard of every minibatch (the samples of their own envs).
:class:`DataParallel` is what :func:`sparring.train.ppo.ppo_update` asks of the group, so that K ranks
compute the update of one: each rank's loss is the mean over its shard, the gradients are averaged
by one ``all_reduce`` per minibatch (shards are the same size, so the average of the shards' means is
the minibatch's mean), then every rank clips the same averaged gradient and takes the same optimizer
step: the ranks end each update with identical weights.

Advantages are normalised per minibatch with the whole minibatch's mean and
standard deviation, the sums of every minibatch of the update reduced in one call. The process group
itself is set up the way Ray Train's ``TorchConfig`` does it: rank 0's node address and a free port
there, ``tcp://`` initialisation.

Why not torch's ``DistributedDataParallel``: it overlaps its bucketed all-reduces with the backward
pass, which pays for large models; on the default policies (29 K parameters for duel, 68 K for gauntlet) its hooks cost
more than they hide. Measured (``benchmarks/ray_vs_inprocess.py speed``, two runs of each, 2 CPU
workers against in-process): duel 0.848x and 0.861x with the one flat all-reduce, 0.790x and 0.785x
with DDP; gauntlet 0.886x and 0.905x against 0.896x and 0.921x.
"""

from __future__ import annotations

import os
import socket
import time
from datetime import timedelta

import torch
import torch.distributed as dist
from torch import nn

LOOPBACK = ("127.0.0.1", "localhost", "::1")


def free_port(host: str) -> int:
    """A TCP port free on ``host`` now (the OS picks it), for rank 0's rendezvous."""
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def init_group(host: str, port: int, rank: int, world: int, backend: str = "gloo", timeout_s: float = 300.0) -> None:
    """Join the process group of ``world`` ranks whose rank 0 listens at ``host:port``.

    On a loopback ``host`` (every rank on this machine) gloo is told to use the loopback interface,
    so the group's traffic never leaves the machine.
    """
    if backend == "gloo" and host in LOOPBACK:
        os.environ["GLOO_SOCKET_IFNAME"] = "lo"
    url = f"tcp://[{host}]:{port}" if ":" in host else f"tcp://{host}:{port}"
    dist.init_process_group(backend, init_method=url, rank=rank, world_size=world, timeout=timedelta(seconds=timeout_s))


class DataParallel:
    """This rank's view of the group: its shard size, the collective steps of an update, and their time.

    ``comm_s`` adds up the seconds spent in collectives since the last :meth:`drain_comm_s`.
    """

    def __init__(self):
        self.world = dist.get_world_size()
        # NCCL reduces tensors on this rank's GPU only (the update's loss sums live on the CPU)
        nccl = dist.get_backend() == "nccl"
        self.device = torch.device("cuda", torch.cuda.current_device()) if nccl else torch.device("cpu")
        self.comm_s = 0.0

    def shard(self, size: int) -> int:
        """This rank's share of a minibatch of ``size`` samples (at least 1)."""
        return max(1, size // self.world)

    def _all_reduce(self, tensor: torch.Tensor) -> torch.Tensor:
        """The sum of ``tensor`` over the ranks (on ``tensor``'s device)."""
        start = time.perf_counter()
        on = tensor.to(self.device)
        dist.all_reduce(on)
        self.comm_s += time.perf_counter() - start
        return on.to(tensor.device)

    def minibatch_moments(self, adv: torch.Tensor, epochs: list[list[torch.Tensor]], pick) -> list[torch.Tensor]:
        """Mean and std [minibatches, 2] of the advantages of each whole minibatch (every rank's shard of it), for
        each epoch's index sets, in one ``all_reduce``.

        ``pick(adv, idx)`` gathers a shard's advantages. The std is the unbiased one, as ``Tensor.std``.
        """
        index_sets = [idx for epoch in epochs for idx in epoch]
        sums = torch.zeros((len(index_sets), 3), dtype=torch.float64, device=adv.device)
        for i, idx in enumerate(index_sets):
            x = pick(adv, idx).double()
            sums[i, 0], sums[i, 1], sums[i, 2] = x.numel(), x.sum(), (x * x).sum()
        n, total, squares = self._all_reduce(sums).unbind(1)
        mean = total / n
        var = (squares - n * mean * mean) / (n - 1).clamp(min=1)
        moments = torch.stack([mean, var.clamp(min=0).sqrt()], 1).float()
        return list(moments.split([len(epoch) for epoch in epochs]))

    def average_gradients(self, params: list[nn.Parameter]) -> None:
        """Replace every parameter's gradient by its mean over the ranks (one ``all_reduce`` of all of them)."""
        grads = [p.grad if p.grad is not None else torch.zeros_like(p) for p in params]
        flat = self._all_reduce(torch.cat([g.reshape(-1) for g in grads]))
        flat /= self.world
        offset = 0
        for p, g in zip(params, grads):
            n = g.numel()
            p.grad = flat[offset : offset + n].view_as(g).clone()
            offset += n

    def total(self, values: torch.Tensor) -> torch.Tensor:
        """The element-wise sum of ``values`` over the ranks (``values`` itself is left as it is)."""
        return self._all_reduce(values.clone())

    def drain_comm_s(self) -> float:
        """Seconds spent in collectives since the last call."""
        seconds, self.comm_s = self.comm_s, 0.0
        return seconds

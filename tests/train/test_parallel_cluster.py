"""Data-parallel training over a two-node Ray cluster on this machine: the workers span both nodes, and a worker
killed mid-run costs a restart from the last checkpoint, not the run."""

import csv

import psutil
import pytest

ray = pytest.importorskip("ray", reason="data-parallel training needs the [ray] extra")

from ray.cluster_utils import Cluster  # noqa: E402

from sparring.kit.progress import Progress  # noqa: E402
from sparring.train.checkpoint import read_resume_meta  # noqa: E402
from sparring.kit.remote import WorkerLost  # noqa: E402
from sparring.train.ray_cluster import node_addresses, on_this_machine  # noqa: E402
from sparring.train.run import train  # noqa: E402


@pytest.fixture(scope="module")
def two_nodes():
    """Two Ray nodes of one CPU each on this machine's loopback address (the session's local instance, if any,
    is shut down first; the next module that needs one starts it again)."""
    ray.shutdown()
    on_this_machine()
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
    cluster.add_node(num_cpus=1)
    cluster.wait_for_nodes()
    ray.init(address=cluster.address)
    yield cluster
    ray.shutdown()
    cluster.shutdown()


SETTINGS = {
    "vec": "ray",
    "workers": 2,
    "num_envs": 64,
    "horizon": 16,
    "minibatch_size": 256,
    "eval_episodes": 0,
    "checkpoint_s": 0,
}


class KillOneWorker(Progress):
    """A silent progress that notes each worker's node at the first update and ``ray.kill``s rank 1 at update
    ``at``; it keeps the statuses the run reports."""

    def __init__(self, at: int):
        super().__init__("", mode="off")
        self.at, self.updates, self.statuses, self.nodes = at, 0, [], set()

    def update(self, *args, **kwargs):
        self.updates += 1
        workers = sorted(n for n in ray.util.list_named_actors() if n.startswith("sparring-duel-"))
        if self.updates == 1:
            self.nodes = {ray.get(ray.get_actor(n).describe.remote())["node"] for n in workers}
        if self.updates == self.at:
            ray.kill(ray.get_actor(next(n for n in workers if n.endswith("rank1"))))
        return super().update(*args, **kwargs)

    def status(self, text: str) -> None:
        self.statuses.append(text)
        super().status(text)


def test_training_spans_two_nodes_and_goes_on_after_a_worker_is_killed(two_nodes, tmp_path):
    local = {a.address for addrs in psutil.net_if_addrs().values() for a in addrs}
    assert len(ray.nodes()) == 2 and set(node_addresses()) <= local and node_addresses() == ["127.0.0.1"]
    progress = KillOneWorker(at=3)
    run = train("duel", {**SETTINGS, "steps": 8 * 1024}, runs_dir=str(tmp_path), progress=progress)
    assert len(progress.nodes) == 2  # one worker on each node
    assert any("died" in s and "restart 1/3 from the last checkpoint" in s for s in progress.statuses)
    with open(f"{run}/metrics.csv") as fh:
        steps = [int(float(row["train/step"])) for row in csv.DictReader(fh)]
    assert steps == [1024 * i for i in range(1, 9)]  # what was logged after the checkpoint was dropped, then redone
    assert open(f"{run}/checkpoints/latest").read() == "step-000000008192"


def test_without_restarts_a_lost_worker_stops_the_run_in_one_line_with_its_checkpoint_intact(two_nodes, tmp_path):
    with pytest.raises(WorkerLost, match="after 0 restarts.*checkpoint is intact: sparring train --resume") as lost:
        train(
            "duel",
            {**SETTINGS, "steps": 8 * 1024, "worker_restarts": 0},
            runs_dir=str(tmp_path),
            progress=KillOneWorker(at=2),
        )
    assert "\n" not in str(lost.value)
    run = str(lost.value).rsplit(" ", 1)[1]
    # killed as iteration 2 is shown; ray.kill acts asynchronously, so that iteration's checkpoint may still land
    assert read_resume_meta(run)["step"] in (1024, 2048)

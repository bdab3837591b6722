"""One matchup of the judge: two brains seated per env in one batch, played with
:func:`~sparring.evaluate.episodes.play_episodes`, each finished episode traced back to its env (and so to who
sat where)."""

from __future__ import annotations

import contextlib

import numpy as np

from sparring.evaluate.episodes import play_episodes
from sparring.kit.progress import silent
from sparring.lm.specs import make_brain


def batch_size(num_envs: int, episodes: int, arrangements: int) -> int:
    """Envs for ``episodes`` episodes, at most ``num_envs``, a multiple of ``arrangements`` when there are enough:
    env ``e`` seats the brains by arrangement ``e % arrangements``, so every arrangement gets the same number of
    episodes (one more for some when ``episodes`` is not a multiple of the envs)."""
    n = min(num_envs, episodes)
    return n - n % arrangements if n >= arrangements else n


class Finished:
    """A tracker for :func:`play_episodes`: the env of every finished episode, in the order the episodes are
    returned; each finish also moves ``progress`` (a :class:`~sparring.kit.progress.Progress` over the whole
    judge) to ``done_before`` plus the episodes finished here, with ``label`` naming the matchup."""

    def __init__(self, env, progress=None, done_before: int = 0, label: str = ""):
        self.env, self.progress, self.done_before, self.label = env, progress or silent(), done_before, label
        self._envs: list[np.ndarray] = []
        self.count = 0

    def start(self, idx) -> None:
        """Envs ``idx`` begin an episode (nothing to note here; subclasses tally)."""

    def observe(self) -> None:
        """After each step (nothing to note here; subclasses tally)."""

    def finish(self, idx) -> None:
        """Envs ``idx`` ended an episode, before their reset."""
        self._envs.append(np.asarray(idx, np.int64).copy())
        self.count += len(idx)
        self.progress.update(self.done_before + self.count, {"matchup": self.label})

    def envs(self) -> np.ndarray:
        """The env of each finished episode, in order."""
        return np.concatenate(self._envs) if self._envs else np.zeros(0, np.int64)


class Tallied(Finished):
    """:class:`Finished` that also keeps, per finished episode, each seat's success and whether it still acts at
    the end (by the env's text face, or :meth:`Env.outcome <sparring.kit.spec.Env.outcome>` without one), and
    runs the env's own tally (``env_cls.tally``, a :class:`~sparring.kit.tally.SeatTally`) beside them."""

    def __init__(self, env, progress=None, done_before: int = 0, label: str = ""):
        from sparring.kit.tally import SeatTally
        from sparring.kit.text import TextFace, face

        super().__init__(env, progress, done_before, label)
        self.tally = (getattr(env.env_cls, "tally", None) or SeatTally)(env)
        self.face = face(env.env_cls) or TextFace
        self._seats: dict[str, list[np.ndarray]] = {"success": [], "standing": []}

    def start(self, idx) -> None:
        """Envs ``idx`` begin an episode: the env's tally starts counting them."""
        self.tally.start(idx)

    def observe(self) -> None:
        """After each step: the env's tally counts."""
        self.tally.observe()

    def finish(self, idx) -> None:
        """Envs ``idx`` ended an episode: each seat's success and standing, and the env's tally, kept."""
        env, cls, n = self.env, self.env.env_cls, self.env.num_agents
        recs = env.records[np.asarray(idx, np.int64)]
        self._seats["success"].append(
            np.array([[self.face.success(cls, s, env.config, a) for a in range(n)] for s in recs], np.int64)
        )
        self._seats["standing"].append(
            np.array([[self.face.acting(s, env.config, a) for a in range(n)] for s in recs], np.int64)
        )
        self.tally.finish(idx)
        super().finish(idx)

    def arrays(self) -> dict[str, np.ndarray]:
        """The env tally's arrays, plus ``success`` and ``standing`` ([episodes, seats], 0 or 1)."""
        n = self.env.num_agents
        own = {k: np.concatenate(v) if v else np.zeros((0, n), np.int64) for k, v in self._seats.items()}
        return {**self.tally.arrays(), **own}


def play_pair(
    env,
    specs: tuple[str, str],
    first: np.ndarray,
    episodes: int,
    tracker,
    seed: int,
    greedy: bool,
    model_options: dict | None = None,
):
    """Play ``episodes`` episodes of brain ``specs[0]`` in the seats where ``first`` ([num_envs, num_agents]
    bool) is True and ``specs[1]`` in the others; returns (play_episodes rows, env of each row).

    Each brain is made from its spec by :func:`sparring.lm.specs.make_brain` (a player, or a text brain where
    the env has a text face; ``seed`` and ``seed + 1`` seed their dice; ``model_options``: its keywords for
    local models); ``env`` must be built with
    ``autoreset=False`` and with every seat played from outside.
    """
    rows = np.arange(env.rows).reshape(env.num_envs, env.num_agents)
    seated = [
        (make_brain(specs[0], env, seed, greedy, **(model_options or {})), rows[first]),
        (make_brain(specs[1], env, seed + 1, greedy, **(model_options or {})), rows[~first]),
    ]
    data = play_episodes(env, [(p, r) for p, r in seated if len(r)], episodes, tracker=tracker)
    return data, tracker.envs()


@contextlib.contextmanager
def keep_finished(results: list, total: int, progress, what: str):
    """Ctrl-C inside ends the judge's loop with the ``results`` finished so far standing (the progress display
    says how many of ``total`` ``what``); with none finished yet it goes on up."""
    try:
        yield
    except KeyboardInterrupt:
        if not results:
            raise
        progress.print(f"judge: interrupted; the {len(results)} finished {what} of {total} are reported")

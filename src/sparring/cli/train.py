"""``sparring train`` (then the final evaluation of the run), ``sweep`` and ``ablate``."""

from __future__ import annotations

import argparse
import json
import os

from sparring.cli.overrides import override_groups
from sparring.cli.seats import add_seat_args
from sparring.cli.values import (
    STEPS_MAX,
    count,
    input_file,
    inside,
    input_path,
    name,
    number,
    output,
    output_folder,
    seed,
    text,
)

MINUTES_MAX = 10**7
"""Longest budget in minutes (19 years)."""


def cmd_train(args, extra) -> int:
    """Train PPO on an env (or resume a run), then evaluate the run unless ``--train.eval_episodes 0``."""
    from sparring.kit.files import check_output
    from sparring.kit.progress import Progress
    from sparring.players.opponents import parse_seats

    groups = override_groups(extra, {"env", "train"})
    budget = _budget(args, groups.get("train", {}))
    if args.ray_address is not None:
        budget.update(vec="ray", ray_address=args.ray_address)
    if budget.get("ray_address"):
        _check_ray(budget["ray_address"])
    if args.archive is not None:
        budget["archive_fraction"] = args.archive
    if args.resume is not None and (args.seat or args.opponent):
        raise ValueError("--resume RUN keeps the run's seats and opponent; drop --seat and --opponent")
    if args.env is None and args.resume is None:
        raise ValueError("train needs an env name, or --resume RUN")
    check_output(args.resume or args.runs, "--resume" if args.resume else "--runs", folder=True)
    with Progress(f"train {args.env or args.resume}") as progress:
        progress.status("loading torch")
        from sparring.train.run import train

        run_dir = train(
            args.env,
            budget,
            groups.get("env", {}),
            args.opponent,
            resume=args.resume,
            runs_dir=args.runs,
            progress=progress,
            seats=parse_seats(args.seat),
        )
    final_eval(run_dir)
    return 0


def final_eval(run_dir: str) -> None:
    """Evaluate a finished run as its config.json says (``train.eval_episodes``, against the run's opponent):
    write ``eval.json`` into the run folder and print the report and the run folder."""
    from sparring.evaluate.episodes import format_report
    from sparring.evaluate.play import evaluate_checkpoint
    from sparring.kit.files import check_keys, read_json
    from sparring.kit.progress import Progress

    path = os.path.join(run_dir, "config.json")
    config = read_json(path, "run config")
    check_keys(config, {"env": str, "train": dict, "opponent": (str, type(None))}, path, "run config.json")
    episodes = config["train"].get("eval_episodes", 0)
    if episodes <= 0:
        return
    with Progress(f"eval {config['env']}") as progress:
        report = evaluate_checkpoint(
            config["env"], run_dir, config["opponent"], episodes=episodes, seats=config.get("seats"), progress=progress
        )
    with open(os.path.join(run_dir, "eval.json"), "w") as fh:
        json.dump(report, fh, indent=1)
    print(format_report(config["env"], report) + f"\nrun folder: {run_dir}", flush=True)


def cmd_sweep(args, extra) -> int:
    """Run (or resume) a sweep in ``<sweeps>/<name>``; print the results table and the files written."""
    import optuna

    from sparring.kit import registry
    from sparring.kit.files import check_output
    from sparring.sweep.report import results_table, write_report
    from sparring.sweep.settings import SweepSettings, prepare
    from sparring.sweep.space import load_space

    groups = override_groups(extra, {"env", "train"})
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    space = load_space(registry.get(args.env), args.space)
    folder = os.path.join(args.sweeps, args.name or args.env)
    inside(args.sweeps, args.name or args.env, "--name")
    check_output(folder, "--sweeps", folder=True)
    if args.ray_address and args.backend != "ray":
        raise ValueError("--ray-address is for --backend ray; add --backend ray or drop it")
    if args.backend == "ray":
        _check_ray(args.ray_address or "")
    settings = SweepSettings(
        args.env,
        space,
        folder,
        args.trials,
        _budget(args, groups.get("train", {})),
        groups.get("env", {}),
        args.opponent,
        args.metric,
        args.episodes,
        args.rungs,
        args.seed,
    )
    prepare(settings)
    print(f"sweep of {args.env} in {folder} ({args.backend} backend, {args.trials} trials, {args.metric})", flush=True)
    if args.backend == "ray":
        from sparring.sweep.ray_tune import run_ray

        study = run_ray(settings, args.ray_address or "")
    else:
        from sparring.kit.progress import Progress
        from sparring.sweep.local import run_local

        def show(study, trial):
            value = "-" if trial.value is None else f"{trial.value:.4g}"
            print(f"trial {trial.number}: {trial.state.name.lower()} {args.metric}={value} {trial.params}", flush=True)

        with Progress(f"sweep {args.env}") as progress:
            study = run_local(settings, on_trial=show, progress=progress)
    paths = write_report(study, folder, args.metric)
    print(results_table(study, args.metric))
    print("\n".join(f"{name}: {path}" for name, path in paths.items()))
    return 0


def cmd_ablate(args, extra) -> int:
    """Train each value of one knob over K seeds; print means, intervals and the verdicts."""
    from sparring.kit.atomic import atomic_file
    from sparring.kit.files import check_output
    from sparring.kit.progress import Progress
    from sparring.sweep.ablate import ablate

    groups = override_groups(extra, {"env", "train"})
    if args.out:
        check_output(args.out, "--out", overwrite=args.force)
    with Progress(f"ablate {args.env}") as progress:
        result = ablate(
            args.env,
            args.knob,
            args.seeds,
            _budget(args, groups.get("train", {})),
            groups.get("env", {}),
            args.opponent,
            args.metric,
            args.test,
            args.episodes,
            args.first_seed,
            progress=progress,
        )
    print(result.to_json() if args.json else result.table())
    if args.out:
        with atomic_file(args.out) as fh:
            fh.write(result.to_json())
    return 0


def _check_ray(address: str) -> None:
    """No Ray cluster at ``address``: one line within the connect deadline (Ray would wait for ever)."""
    from sparring.train.ray_cluster import check_ray_address

    check_ray_address(address)


def _budget(args, train: dict) -> dict:
    """``--train.KEY`` overrides with ``--minutes`` and ``--steps`` folded in."""
    if args.minutes is not None:
        train["minutes"] = args.minutes
    if args.steps is not None:
        train["steps"] = args.steps
    return train


def add_commands(sub: argparse._SubParsersAction) -> None:
    """Register ``train``, ``sweep`` and ``ablate``."""
    p = sub.add_parser("train", help="PPO with a live dashboard, checkpoints, plots (--train.KEY VALUE overrides)")
    p.add_argument("env", nargs="?", help="env name (optional with --resume)")
    p.add_argument("--minutes", type=number(0, MINUTES_MAX), help="training budget in minutes")
    p.add_argument("--steps", type=count(0, STEPS_MAX), help="training budget in learner agent-steps")
    add_seat_args(p, seed=None, opponent="the env's opponent knob value, one of its scripted policies, or 'self'")
    p.add_argument(
        "--resume",
        metavar="RUN",
        type=input_path("run folder or checkpoint folder"),
        help="continue a run folder (or checkpoint) where it stopped",
    )
    p.add_argument(
        "--runs",
        default="runs",
        type=output_folder("folder of run folders", exists_ok=True),
        help="folder for new run folders",
    )
    p.add_argument(
        "--ray-address",
        type=text("a Ray address, e.g. 127.0.0.1:6379"),
        help="train data-parallel on this Ray cluster: --train.workers K workers (same as --train.vec ray "
        "--train.ray_address ADDR)",
    )
    p.add_argument(
        "--archive",
        type=number(0, 1, above=True),
        nargs="?",
        const=0.25,
        metavar="F",
        help="Go-Explore: restart a fraction F (default 0.25) of ended episodes from archive cells "
        "(same as --train.archive_fraction F)",
    )
    p.set_defaults(fn=cmd_train)
    p = sub.add_parser(
        "sweep",
        help="Optuna (or Ray Tune) over the env's [sweep] search space; resumes, "
        "writes a table and plots (--train.KEY/--env.KEY fix the rest)",
    )
    p.add_argument("env")
    p.add_argument("--trials", type=count(1, 10**6), default=20, help="finished trials the sweep should hold")
    _trial_args(p)
    p.add_argument("--rungs", type=count(1, 1000), default=4, help="scorings per trial; all but the last can prune it")
    p.add_argument("--seed", type=seed(), default=0, help="training seed of every trial, and the sampler's seed")
    p.add_argument(
        "--space",
        metavar="FILE",
        type=input_file("TOML file"),
        help="a TOML file whose [sweep] table replaces the env's",
    )
    p.add_argument(
        "--name",
        type=name("a sweep folder name"),
        help="sweep folder name under --sweeps (default: the env); rerun to resume",
    )
    p.add_argument(
        "--sweeps",
        default="sweeps",
        type=output_folder("folder of sweep folders", exists_ok=True),
        help="folder holding sweep folders",
    )
    p.add_argument(
        "--backend",
        choices=("local", "ray"),
        default="local",
        help="local: Optuna TPE + median pruning in SQLite; ray: Ray Tune with OptunaSearch + ASHA",
    )
    p.add_argument(
        "--ray-address",
        type=text("a Ray address, e.g. 127.0.0.1:6379"),
        help="Ray cluster address for --backend ray (default: a local Ray)",
    )
    p.set_defaults(fn=cmd_sweep)
    p = sub.add_parser(
        "ablate",
        help="one knob's values over K seeds each: mean, bootstrap 95%% CI, Holm-corrected test against the base",
    )
    p.add_argument("env")
    p.add_argument("--knob", required=True, metavar="KEY=A,B[,C]", help="e.g. train.lr=3e-4,1e-3 or env.size=9,11")
    p.add_argument("--seeds", type=count(1, 1000), default=5, help="trainings per value")
    p.add_argument("--first-seed", type=seed(), default=0, help="the seed of the first training of each value")
    p.add_argument("--test", choices=("welch", "mannwhitney"), default="welch")
    p.add_argument("--json", action="store_true")
    p.add_argument("--out", metavar="FILE.json", type=output("JSON file to write"), help="also write the result here")
    p.add_argument("--force", action="store_true", help="overwrite --out if it exists")
    _trial_args(p)
    p.set_defaults(fn=cmd_ablate)


def _trial_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--steps", type=count(0, STEPS_MAX), help="training budget per trial, in learner agent-steps")
    p.add_argument("--minutes", type=number(0, MINUTES_MAX), help="training budget per trial, in minutes")
    p.add_argument(
        "--metric",
        default="win_rate",
        help="score: win_rate, episode_return, episode_length or one of the env's metrics",
    )
    p.add_argument("--episodes", type=count(1, 10**7), default=256, help="evaluation episodes per score")
    p.add_argument("--opponent", help="as for sparring train")

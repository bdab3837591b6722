"""The ``sweep`` and ``ablate`` commands and ``bench --compare`` (registered by ``sparring.cli``)."""

from __future__ import annotations

import json
import os
import sys


def _budget(args, train: dict) -> dict:
    if args.steps is not None:
        train["steps"] = args.steps
    if args.minutes is not None:
        train["minutes"] = args.minutes
    return train


def cmd_sweep(args, groups: dict) -> int:
    """Run (or resume) a sweep in ``<sweeps>/<name>``; print the results table and the files written."""
    import optuna

    from sparring.kit import registry
    from sparring.sweep.report import results_table, write_report
    from sparring.sweep.settings import SweepSettings, prepare
    from sparring.sweep.space import load_space

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    space = load_space(registry.get(args.env), args.space)
    folder = os.path.join(args.sweeps, args.name or args.env)
    settings = SweepSettings(args.env, space, folder, args.trials, _budget(args, groups.get("train", {})),
                             groups.get("env", {}), args.opponent, args.metric, args.episodes, args.rungs, args.seed)
    prepare(settings)
    print(f"sweep of {args.env} in {folder} ({args.backend} backend, {args.trials} trials, {args.metric})", flush=True)
    if args.backend == "ray":
        from sparring.sweep.ray_tune import run_ray

        study = run_ray(settings, args.ray_address or "")
    else:
        from sparring.sweep.local import run_local

        def show(study, trial):
            value = "-" if trial.value is None else f"{trial.value:.4g}"
            print(f"trial {trial.number}: {trial.state.name.lower()} {args.metric}={value} {trial.params}", flush=True)

        study = run_local(settings, on_trial=show)
    paths = write_report(study, folder, args.metric)
    print(results_table(study, args.metric))
    print("\n".join(f"{name}: {path}" for name, path in paths.items()))
    return 0


def cmd_ablate(args, groups: dict) -> int:
    """Train each value of one knob over K seeds; print means, intervals and the verdicts."""
    from sparring.record.store import atomic_output
    from sparring.sweep.ablate import ablate

    def show(label, seed, value):
        print(f"{args.knob.partition('=')[0]}={label} seed {seed}: {args.metric}={value:.4g}", file=sys.stderr,
              flush=True)

    result = ablate(args.env, args.knob, args.seeds, _budget(args, groups.get("train", {})), groups.get("env", {}),
                    args.opponent, args.metric, args.test, args.episodes, args.first_seed, progress=show)
    print(result.to_json() if args.json else result.table())
    if args.out:
        with atomic_output(args.out, ".json") as tmp, open(tmp, "w") as fh:
            fh.write(result.to_json())
    return 0


def cmd_bench_compare(args) -> int:
    """``sparring bench ENV --compare A B``."""
    from sparring.sweep.compare import compare, format_compare

    result = compare(args.env, args.compare[0], args.compare[1], repeats=args.repeats, seconds=args.seconds)
    print(json.dumps(result, indent=1) if args.json else format_compare(result))
    return 0


def add_commands(sub, groups) -> None:
    """Add ``sweep`` and ``ablate`` to the subparsers ``sub``; ``groups(extra, allowed)`` parses overrides."""
    p = sub.add_parser("sweep", help="Optuna (or Ray Tune) over the env's [sweep] search space; resumes, "
                                     "writes a table and plots (--train.KEY/--env.KEY fix the rest)")
    p.add_argument("env")
    p.add_argument("--trials", type=int, default=20, help="finished trials the sweep should hold")
    _trial_args(p)
    p.add_argument("--rungs", type=int, default=4, help="scorings per trial; all but the last can prune it")
    p.add_argument("--seed", type=int, default=0, help="training seed of every trial, and the sampler's seed")
    p.add_argument("--space", metavar="FILE", help="a TOML file whose [sweep] table replaces the env's")
    p.add_argument("--name", help="sweep folder name under --sweeps (default: the env); rerun to resume")
    p.add_argument("--sweeps", default="sweeps", help="folder holding sweep folders")
    p.add_argument("--backend", choices=("local", "ray"), default="local",
                   help="local: Optuna TPE + median pruning in SQLite; ray: Ray Tune with OptunaSearch + ASHA")
    p.add_argument("--ray-address", help="Ray cluster address for --backend ray (default: a local Ray)")
    p.set_defaults(fn=lambda args, extra: cmd_sweep(args, groups(extra, {"env", "train"})))
    p = sub.add_parser("ablate", help="one knob's values over K seeds each: mean, bootstrap 95%% CI, "
                                      "Holm-corrected test against the base")
    p.add_argument("env")
    p.add_argument("--knob", required=True, metavar="KEY=A,B[,C]", help="e.g. train.lr=3e-4,1e-3 or env.size=9,11")
    p.add_argument("--seeds", type=int, default=5, help="trainings per value")
    p.add_argument("--first-seed", type=int, default=0)
    p.add_argument("--test", choices=("welch", "mannwhitney"), default="welch")
    p.add_argument("--json", action="store_true")
    p.add_argument("--out", metavar="FILE.json", help="also write the result here")
    _trial_args(p)
    p.set_defaults(fn=lambda args, extra: cmd_ablate(args, groups(extra, {"env", "train"})))


def _trial_args(p) -> None:
    p.add_argument("--steps", type=int, help="training budget per trial, in learner agent-steps")
    p.add_argument("--minutes", type=float, help="training budget per trial, in minutes")
    p.add_argument("--metric", default="win_rate",
                   help="score: win_rate, episode_return, episode_length or one of the env's metrics")
    p.add_argument("--episodes", type=int, default=256, help="evaluation episodes per score")
    p.add_argument("--opponent", help="as for sparring train")

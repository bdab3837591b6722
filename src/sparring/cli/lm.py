"""``sparring serve``, ``build-lm``, ``distill``, ``grpo``, and the ``--brain`` games of ``sparring play``.

``distill``, ``grpo`` and text brains take any env with a text face (:mod:`sparring.kit.text`); an env
without one gets one line naming what to declare.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import sys

from sparring.cli.overrides import env_overrides
import sparring.cli.values as values
from sparring.cli.values import count
from sparring.lm.play_defaults import AUTO
from sparring.lm.prompts import PROMPTS

TEXT_LIMIT = 1 << 30
"""Largest --text file build-lm reads, in bytes."""
ENVS = "an env with a text face (`sparring list`: town, duel, serpent, ...)"
MODEL_SPECS = "a model folder (save_pretrained layout, with a chat template), a .gguf file, or smollm2 (`make smollm2`)"


def _spoken(name: str) -> str:
    """``name`` if it is a registered env with a text face; a one-line error naming what to declare otherwise."""
    from sparring.kit import registry
    from sparring.kit.text import require_face

    require_face(registry.get(name))
    return name


def cmd_serve(args, extra) -> int:
    """Serve a local model folder as an OpenAI-compatible API until interrupted."""
    from sparring.lm.server import LOOPBACK, ServeLimits, serve

    if extra:
        raise ValueError(f"unexpected argument(s) {extra}; usage: sparring serve --model DIR [--host H] [--port P]")
    check_host(args.host, args.port)  # before the warning: a host that cannot be used is one line
    if args.host not in LOOPBACK and not args.api_key:
        print(
            f"sparring serve: warning: listening on {args.host} without --api-key; anyone who can reach this "
            "address can use the model",
            file=sys.stderr,
        )
    limits = ServeLimits(
        max_request_bytes=args.max_request_bytes,
        max_tokens=args.max_tokens,
        max_prompt_tokens=args.max_prompt_tokens,
        max_batch=args.max_batch,
        max_prompt_chars=args.max_prompt_chars,
        request_timeout=args.request_timeout,
    )
    serve(args.model, args.host, args.port, args.api_key, args.name, limits, args.threads)
    return 0


def cmd_build_lm(args, extra) -> int:
    """Train a tokenizer on a text file's lines and save an untrained small Llama-style model folder."""
    from sparring.kit.files import DamagedFile, check_output, read_text
    from sparring.lm.distill import check_model_memory
    from sparring.lm.model import ModelSize, build_small_model

    if extra:
        raise ValueError(f"unexpected argument(s) {extra}; usage: sparring build-lm --text FILE --out DIR")
    if os.path.exists(args.out):
        raise ValueError(f"--out {args.out!r} exists; choose a new folder for the model")
    check_output(args.out, "--out", folder=True)
    size = ModelSize(
        hidden=args.hidden, layers=args.layers, heads=args.heads, intermediate=args.intermediate, context=args.context
    )
    check_model_memory(size, args.vocab, "--hidden, --layers, --intermediate or --vocab")
    try:
        lines = read_text(args.text, "text file", TEXT_LIMIT, "give --text a UTF-8 text file").splitlines()
    except DamagedFile as exc:
        raise ValueError(f"--text: {exc}") from None
    if not any(line.strip() for line in lines):
        raise ValueError(f"--text {args.text!r} has no line of text; give a UTF-8 file with a training line per line")
    try:
        out = build_small_model(lines, args.out, size, vocab_size=args.vocab, seed=args.seed)
    except FileExistsError as exc:
        raise ValueError(str(exc)) from None
    print(f"saved a small model folder to {out}")
    return 0


def cmd_distill(args, extra) -> int:
    """Distil a teacher brain into a new small model folder."""
    from sparring.kit.memory import gib
    from sparring.kit.progress import Progress
    from sparring.lm.distill import DistillConfig, distill

    cfg = _config(DistillConfig, args)
    _check_goal(args.env, cfg.goal)
    try:
        with Progress(f"distill {args.env}") as progress:
            report = distill(args.out, cfg, _spoken(args.env), progress=progress, **env_overrides(extra))
    except FileExistsError as exc:
        raise ValueError(str(exc)) from None
    measured = report["accuracy_decisions"]
    rate = f"{measured['decisions']} decisions at {measured['decisions_per_s']:.1f}/s" if measured else "no decision"
    print(
        f"saved {args.out}: {report['parameters']} parameters; held-out action accuracy "
        f"{report['held_out_accuracy']:.3f} over {report['held_out_turns']} turns "
        f"(train {report['train_accuracy']:.3f}, {rate}); {report['seconds']:.0f} s, peak resident memory "
        f"{gib(report['peak_memory']) if report['peak_memory'] else 'unknown'}"
    )
    return 0


def cmd_grpo(args, extra) -> int:
    """Run or resume GRPO; the progress display on stderr, the final line on stdout."""
    from sparring.kit.progress import Progress
    from sparring.lm.grpo import GRPOConfig, Run, grpo

    env_config = env_overrides(extra)
    cfg = _config(GRPOConfig, args)
    _check_goal(args.env, cfg.goal)
    _connect_workers(cfg.workers, args.ray_address)
    with Progress(f"grpo {args.env}") as progress:
        history = grpo(args.out, args.model, cfg, args.resume, _spoken(args.env), progress, **env_config)
    run = Run(args.out)
    last = history[-1] if history else {}
    print(json.dumps({"out": run.out, "iterations": len(history), "last": last, "plot": run.plot}))
    return 0


def _connect_workers(workers: int, address: str | None) -> None:
    """``--workers K`` > 1 plays on Ray: connect to ``--ray-address`` (within its deadline) or start a local Ray
    on 127.0.0.1 here, since lm/ does not reach into train/ for the connection."""
    if workers == 1:
        if address:
            raise ValueError("--ray-address is for --workers K > 1; add --workers or drop it")
        return
    from sparring.train.ray_cluster import check_ray_address, init_ray

    check_ray_address(address or "")
    init_ray(address or "", workers)


def _check_goal(env: str, goal: str) -> None:
    """``--goal`` is "any" or one of the env's face's goals (checked before any work), naming the flag."""
    from sparring.kit import registry
    from sparring.kit.text import check_goal

    try:
        check_goal(registry.get(_spoken(env)).text, goal)
    except ValueError as exc:
        raise ValueError(f"--goal: {exc}") from None


def check_host(host: str, port: int) -> None:
    """``--host`` is an address this machine can listen on by name (resolved now, before anything is printed)."""
    import socket

    try:
        socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except (OSError, UnicodeError) as exc:
        raise ValueError(
            f"--host {host!r} is not an address to listen on ({exc}); give an IP address or a host name"
        ) from None


def play_brains(args, env_config: dict) -> int:
    """``sparring play ENV --brain ...``: play an env with a brain per seat, record it, print each seat's
    success and the brains' fallbacks."""
    from sparring.kit.progress import Progress
    from sparring.lm.play import play_brains as play

    set_threads(args)
    with Progress(f"play {args.env}") as progress:
        report = play(
            args.brain,
            args.episodes,
            args.seed,
            args.record,
            args.env,
            num_envs=args.num_envs,
            progress=progress,
            **model_options(args),
            **env_config,
        )
    print(report.text())
    return 0


def set_threads(args) -> None:
    """``--threads N``: torch's CPU threads for the local models a command plays (unset: torch's default)."""
    if args.threads is not None:
        import torch

        torch.set_num_threads(args.threads)


def model_options(args) -> dict:
    """The local models' options of :func:`add_model_args`, as keywords of :func:`sparring.lm.specs.make_brain`."""
    return {"temperature": args.temperature, "prompt": args.prompt, "dtype": args.dtype}


def add_model_args(p: argparse.ArgumentParser, when: str = "") -> None:
    """How local models (``local:SPEC`` brains) play: --temperature, --threads, --prompt, --dtype; each help
    starts with ``when`` (e.g. "with --brain: ")."""
    p.add_argument(
        "--temperature",
        type=values.number(0, 1e3),
        default=1.0,
        help=f"{when}local models sample their lines at this temperature (default 1, as GRPO trains them; 0: the "
        "most likely line)",
    )
    p.add_argument("--threads", type=values.threads(), help=f"{when}torch CPU threads (default: torch's)")
    p.add_argument(
        "--prompt",
        choices=PROMPTS,
        help=f"{when}how local models get their turns: full (the view and the legal lines listed) or compact "
        "(fewer words; a walk in progress goes on undecided); default: the one the model was trained with, "
        "else full (zero-shot, a pretrained model plays worse in compact)",
    )
    p.add_argument(
        "--dtype",
        choices=(AUTO, "float32", "bfloat16"),
        default=AUTO,
        help=f"{when}local models' weights in this type; auto (default): bfloat16 for a model sparring did not "
        "train on a CPU with bf16 units (1.5 to 3 times float32's speed, the same lines), else float32",
    )


def add_brain_args(p: argparse.ArgumentParser) -> None:
    """The brain options of ``sparring play``."""
    p.add_argument(
        "--brain",
        action="append",
        metavar="SPEC",
        help="a brain per seat in order, the last repeating: scripted[:NAME[:P]], random, checkpoint:PATH, "
        "openai:URL:MODEL (key from $OPENAI_API_KEY), local:DIR, local:FILE.gguf, smollm2 (after `make smollm2`); "
        "the last four are text brains, for envs with a text face",
    )
    p.add_argument("--episodes", type=count(1), default=1, help="with --brain: episodes to play")
    p.add_argument("--num-envs", type=count(1, 1 << 20), default=4, help="with --brain: episodes played at once")
    add_model_args(p, "with --brain: ")
    p.add_argument(
        "--record",
        metavar="DIR",
        type=values.output_folder("folder for the recording"),
        help="with --brain: record the episodes to DIR/ENV.parquet (a new file) in a new or empty folder",
    )
    p.add_argument(
        "--force",
        action="store_true",
        help="with --record: write into a folder that is not empty (an existing DIR/ENV.parquet is never replaced)",
    )


def add_commands(sub: argparse._SubParsersAction) -> None:
    """Register ``serve``, ``build-lm``, ``distill`` and ``grpo``."""
    _add_serve(sub.add_parser("serve", help="serve a local model folder as an OpenAI-compatible /v1/chat/completions"))
    _add_build_lm(
        sub.add_parser("build-lm", help="train a BPE tokenizer on text lines and save a small untrained Llama model")
    )
    # their flags come from config dataclasses of modules that import torch: added when the command is parsed
    p = sub.add_parser(
        "distill", help="record a teacher's turns and fine-tune a new small model on them", arguments=_add_distill
    )
    p.set_defaults(fn=cmd_distill)
    p = sub.add_parser(
        "grpo", help="GRPO of a model folder as an env's seat 0 on the in-game outcome", arguments=_add_grpo
    )
    p.set_defaults(fn=cmd_grpo)


def _add_serve(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--model",
        required=True,
        type=values.model(),
        help=f"the model: {MODEL_SPECS}",
    )
    p.add_argument("--host", default="127.0.0.1", type=values.host(), help="address to listen on (default loopback)")
    p.add_argument("--port", type=values.port(), default=8000)
    p.add_argument("--api-key", help="require 'Authorization: Bearer KEY' on every request")
    p.add_argument("--name", help="model id clients ask for (default: the folder's name)")
    p.add_argument("--max-tokens", type=count(1), default=256, help="cap on tokens per answer")
    p.add_argument("--max-prompt-tokens", type=count(1), help="longest prompt accepted (default: the model's context)")
    p.add_argument("--max-request-bytes", type=count(1, 1 << 40), default=1 << 20, help="largest request body")
    p.add_argument("--max-batch", type=count(1), default=16, help="most waiting requests answered in one batch")
    p.add_argument(
        "--max-prompt-chars",
        type=count(1),
        help="longest prompt in characters, refused before tokenizing "
        "(default: the prompt token cap times the vocabulary's longest token)",
    )
    p.add_argument(
        "--request-timeout",
        type=values.number(0, 1e6, above=True),
        default=10.0,
        help="seconds a client has to send a whole "
        "request, headers and body (408 and the connection closed after; default 10)",
    )
    p.add_argument(
        "--threads", type=values.threads(), help="torch CPU threads (default: torch's; 1 is fastest on a busy machine)"
    )
    p.set_defaults(fn=cmd_serve)


# build-lm, distill and grpo refuse an existing --out themselves (naming it): their type checks it can be written
def _add_build_lm(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--text", required=True, type=values.input_file("UTF-8 text file"), help="UTF-8 text file, one line per line"
    )
    p.add_argument(
        "--out", required=True, type=values.output_folder("new model folder", exists_ok=True), help="new model folder"
    )
    p.add_argument("--vocab", type=count(1), default=2048)
    p.add_argument("--hidden", type=count(1), default=256)
    p.add_argument("--layers", type=count(1), default=4)
    p.add_argument("--heads", type=count(1), default=4)
    p.add_argument("--intermediate", type=count(1), default=688)
    p.add_argument("--context", type=count(1), default=1024)
    p.add_argument("--seed", type=values.seed(), default=0)
    p.set_defaults(fn=cmd_build_lm)


def _add_distill(p: argparse.ArgumentParser) -> None:
    from sparring.lm.distill import DistillConfig

    p.add_argument("env", help=ENVS)
    p.add_argument(
        "--out", required=True, type=values.output_folder("new model folder", exists_ok=True), help="new model folder"
    )
    _config_args(p, DistillConfig(), skip={"teacher", "base"})
    p.add_argument(
        "--base",
        type=values.model(),
        help=f"a pretrained model to fine-tune: {MODEL_SPECS} (default: build a small model from the teacher's text)",
    )
    p.add_argument(
        "--teacher",
        default=None,
        type=values.text("a brain spec"),
        help="brain spec, e.g. scripted:planner:0.3 (default: the env's best scripted player with noise 0.3)",
    )


def _add_grpo(p: argparse.ArgumentParser) -> None:
    from sparring.lm.grpo import GRPOConfig

    p.add_argument("env", help=ENVS)
    p.add_argument(
        "--model",
        type=values.model(),
        help=f"the base model: {MODEL_SPECS} (not needed with --resume)",
    )
    p.add_argument(
        "--out",
        required=True,
        type=values.output_folder("run folder", exists_ok=True),
        help="run folder: model/, metrics.jsonl, success.png, state",
    )
    p.add_argument("--resume", action="store_true", help="continue the run in --out where it stopped")
    _config_args(p, GRPOConfig(), skip={"learners"})
    p.add_argument(
        "--learners",
        type=_characters,
        default=GRPOConfig().learners,
        help="learning seats, comma-separated (e.g. 0,1), each its own copy of the model (default 0)",
    )
    p.add_argument(
        "--ray-address",
        type=values.text("a Ray address, e.g. 127.0.0.1:6379"),
        help="play --workers K > 1 on this Ray cluster (default: a local Ray on 127.0.0.1)",
    )


def _characters(text: str) -> list[int]:
    """``--learners``: comma-separated seat indices."""
    try:
        return [int(c) for c in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"want comma-separated seat indices, e.g. 0,1; got {text!r}") from None


_characters.kind = "text"  # what the fuzz harness gives it: text that is no list of seats


def _config_args(p: argparse.ArgumentParser, defaults, skip=frozenset()) -> None:
    """A ``--field-name`` flag per field of the config dataclass ``defaults``, with its default (a bool field is a
    switch; an empty text default stays unset, see :func:`_config`); a field's range or choices (its metadata,
    see :func:`sparring.lm.distill.ranged`) are the flag's type, so a bad value is refused naming the flag."""
    for f in dataclasses.fields(defaults):
        if f.name in skip:
            continue
        value, flag = getattr(defaults, f.name), f"--{f.name.replace('_', '-')}"
        if isinstance(value, bool):
            p.add_argument(flag, dest=f.name, action="store_true", help=f"(default {value})")
            continue
        shown = value if value not in ("", None) else "unset"
        default = value if value != "" else None
        if "choices" in f.metadata:
            p.add_argument(flag, dest=f.name, choices=f.metadata["choices"], default=default, help=f"(default {shown})")
            continue
        p.add_argument(flag, dest=f.name, type=_field_type(f), default=default, help=f"(default {shown})")


def _field_type(f: dataclasses.Field):
    """The flag type of a config field: its range as a number type, else non-empty printable text."""
    low, high = f.metadata.get("range", (None, None))
    if str(f.type).startswith("int"):
        return values.integer(-values.INT_MAX - 1 if low is None else low, values.INT_MAX if high is None else high)
    if str(f.type).startswith("float"):
        return values.number(-math.inf if low is None else low, math.inf if high is None else high)
    return values.text(f"a non-empty {f.name.replace('_', ' ')}")


def _config(cls, args):
    """The config dataclass ``cls`` from the parsed flags (an unset text flag is the field's default)."""
    fields = {f.name: getattr(args, f.name) for f in dataclasses.fields(cls)}
    return cls(**{k: v for k, v in fields.items() if v is not None})

"""The ``serve`` and ``build-lm`` subcommands of ``sparring`` (registered by :func:`add_commands`)."""

from __future__ import annotations

import argparse
import sys


def cmd_serve(args, extra) -> int:
    """Serve a local model folder as an OpenAI-compatible API until interrupted."""
    from sparring.lm.server import LOOPBACK, ServeLimits, serve

    if extra:
        raise ValueError(f"unexpected argument(s) {extra}; usage: sparring serve --model DIR [--host H] [--port P]")
    if not 0 <= args.port <= 65535:
        raise ValueError(f"--port must be in [0, 65535], got {args.port}")
    if args.host not in LOOPBACK and not args.api_key:
        print(f"sparring serve: warning: listening on {args.host} without --api-key; anyone who can reach this "
              "address can use the model", file=sys.stderr)
    limits = ServeLimits(max_request_bytes=args.max_request_bytes, max_tokens=args.max_tokens,
                         max_prompt_tokens=args.max_prompt_tokens, max_batch=args.max_batch)
    if args.threads is not None and args.threads < 1:
        raise ValueError(f"--threads must be >= 1, got {args.threads}")
    serve(args.model, args.host, args.port, args.api_key, args.name, limits, args.threads)
    return 0


def cmd_build_lm(args, extra) -> int:
    """Train a tokenizer on a text file's lines and save an untrained small Llama-style model folder."""
    from sparring.lm.model import ModelSize, build_small_model

    if extra:
        raise ValueError(f"unexpected argument(s) {extra}; usage: sparring build-lm --text FILE --out DIR")
    try:
        with open(args.text, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"cannot read --text {args.text!r} as UTF-8 text: {exc}") from None
    size = ModelSize(hidden=args.hidden, layers=args.layers, heads=args.heads, intermediate=args.intermediate,
                     context=args.context)
    try:
        out = build_small_model(lines, args.out, size, vocab_size=args.vocab, seed=args.seed)
    except FileExistsError as exc:
        raise ValueError(str(exc)) from None
    print(f"saved a small model folder to {out}")
    return 0


def add_commands(sub: argparse._SubParsersAction) -> None:
    """Register ``serve`` and ``build-lm`` on the ``sparring`` subparsers."""
    p = sub.add_parser("serve", help="serve a local model folder as an OpenAI-compatible /v1/chat/completions")
    p.add_argument("--model", required=True, help="a model folder (save_pretrained layout, with a chat template)")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default loopback)")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--api-key", help="require 'Authorization: Bearer KEY' on every request")
    p.add_argument("--name", help="model id clients ask for (default: the folder's name)")
    p.add_argument("--max-tokens", type=int, default=256, help="cap on tokens per answer")
    p.add_argument("--max-prompt-tokens", type=int, help="longest prompt accepted (default: the model's context)")
    p.add_argument("--max-request-bytes", type=int, default=1 << 20, help="largest request body")
    p.add_argument("--max-batch", type=int, default=16, help="most waiting requests answered in one batch")
    p.add_argument("--threads", type=int, help="torch CPU threads (default: torch's; 1 is fastest on a busy machine)")
    p.set_defaults(fn=cmd_serve)
    p = sub.add_parser("build-lm", help="train a BPE tokenizer on text lines and save a small untrained Llama model")
    p.add_argument("--text", required=True, help="UTF-8 text file, one training line per line")
    p.add_argument("--out", required=True, help="new model folder")
    p.add_argument("--vocab", type=int, default=2048)
    p.add_argument("--hidden", type=int, default=256)
    p.add_argument("--layers", type=int, default=4)
    p.add_argument("--heads", type=int, default=4)
    p.add_argument("--intermediate", type=int, default=688)
    p.add_argument("--context", type=int, default=1024)
    p.add_argument("--seed", type=int, default=0)
    p.set_defaults(fn=cmd_build_lm)

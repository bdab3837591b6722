"""Override groups on the command line: ``--env.size 15 --train.lr=3e-4`` beside a command's own flags."""

from __future__ import annotations


def _is_override(arg: str) -> bool:
    return arg.startswith("--") and "." in arg.partition("=")[0]


def pull_overrides(argv: list[str]) -> tuple[list[str], list[str]]:
    """Split ``argv`` into (the command's own arguments, the ``--GROUP.KEY [VALUE]`` override tokens).

    Taken out before argparse sees the rest, so an optional positional (``train [env]``)
    never swallows an override's value.
    """
    rest, overrides = [], []
    i = 0
    while i < len(argv):
        arg = argv[i]
        if _is_override(arg):
            takes_value = "=" not in arg and i + 1 < len(argv)
            overrides.extend(argv[i : i + 1 + takes_value])
            i += 1 + takes_value
        else:
            rest.append(arg)
            i += 1
    return rest, overrides


def split_overrides(extra: list[str]) -> dict[str, dict[str, str]]:
    """``--env.size 15 --train.lr=3e-4`` -> {"env": {"size": "15"}, "train": {"lr": "3e-4"}}."""
    out: dict[str, dict[str, str]] = {}
    i = 0
    while i < len(extra):
        arg = extra[i]
        if not _is_override(arg):
            raise ValueError(f"unexpected argument {arg!r}; overrides look like --env.KEY VALUE")
        key, eq, value = arg[2:].partition("=")
        if not eq:
            if i + 1 >= len(extra):
                raise ValueError(f"{arg} needs a value")
            value = extra[i + 1]
            i += 1
        section, _, name = key.partition(".")
        out.setdefault(section, {})[name] = value
        i += 1
    return out


def override_groups(extra: list[str], allowed: set[str]) -> dict[str, dict[str, str]]:
    """The override groups of ``extra``; a ValueError names any group outside ``allowed``."""
    groups = split_overrides(extra)
    unknown = sorted(set(groups) - allowed)
    if unknown:
        takes = ", ".join(f"--{group}.KEY VALUE" for group in sorted(allowed))
        raise ValueError(f"unknown override group(s) {unknown}; this command takes {takes}")
    return groups


def env_overrides(extra: list[str]) -> dict[str, str]:
    """The ``--env.KEY VALUE`` overrides of a command that takes no other group."""
    return override_groups(extra, {"env"}).get("env", {})

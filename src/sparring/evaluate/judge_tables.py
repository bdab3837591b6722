"""The judge's report as text: the brains numbered, the cross-play matrix, per-pair or per-pairing figures with
their 95% intervals, and the ratings table."""

from __future__ import annotations

from sparring.evaluate.ratings import format_ratings
from sparring.kit import registry
from sparring.kit.tally import SeatTally


def format_judge(report: dict) -> str:
    """The whole report of :func:`~sparring.evaluate.judge.judge` as text (an interrupted one says so first)."""
    text = _round_robin(report) if report["kind"] == "round_robin" else _crowd(report)
    if report.get("interrupted"):
        done = len(report["pairs" if report["kind"] == "round_robin" else "pairings"])
        text = f"interrupted: only the {done} finished pairs below were played (-: not played)\n" + text
    return text


def _cell(rate: dict | None) -> str:
    if rate is None:
        return "-"
    return f"{rate['rate']:.3f} [{rate['ci95'][0]:.2f},{rate['ci95'][1]:.2f}]"


def _mean(figure: dict, digits: int = 2) -> str:
    return f"{figure['mean']:.{digits}f} [{figure['ci95'][0]:.{digits}f},{figure['ci95'][1]:.{digits}f}]"


def _legend(names: list[str]) -> list[str]:
    return [f"  [{k}] {name}" for k, name in enumerate(names, 1)]


def _matrix(rows: list[str], cols: list[str], cells: list[list[dict | None]]) -> list[str]:
    """Rows labelled [k], columns [k] by the numbering of ``rows + cols`` without repeats."""
    number = {name: k for k, name in enumerate(dict.fromkeys([*rows, *cols]), 1)}
    width = 19
    lines = ["       " + "".join(f"{f'[{number[c]}]':>{width}}" for c in cols)]
    for name, row in zip(rows, cells):
        lines.append(f"  {f'[{number[name]}]':<5}" + "".join(f"{_cell(cell):>{width}}" for cell in row))
    return lines


def _round_robin(report: dict) -> str:
    brains = report["brains"]
    number = {name: k for k, name in enumerate(brains, 1)}
    lines = [
        f"{report['env']}: round robin of {len(brains)} brains, {report['episodes_per_pair']} games per pair "
        f"(each brain half of them in each seat), seed {report['seed']}",
        *_legend(brains),
        "cross-play: win rate of the row brain against the column brain, 95% Wilson interval",
        *_matrix(brains, brains, report["matrix"]),
        "games per pair: wins of each, no winner (draws: both seats drawn; both lost: e.g. the tick limit)",
    ]
    for pair in report["pairs"]:
        lines.append(
            f"  [{number[pair['a']]}] vs [{number[pair['b']]}]: {pair['a_wins']:>5} - {pair['b_wins']:<5} "
            f"draws {pair['draws']:<4} both lost {pair['both_lost']:<4} of {pair['games']}"
        )
    lines += ["ratings (openskill Plackett-Luce from every game, draws as draws; ranked by mu - 3 sigma)"]
    return "\n".join(lines + [format_ratings(report["ratings"])])


def _crowd(report: dict) -> str:
    focal, backgrounds = report["focal"], report["backgrounds"]
    names = list(dict.fromkeys([*focal, *backgrounds]))
    number = {name: k for k, name in enumerate(names, 1)}
    k, n = report["focal_characters"], report["characters"]
    counts = [key for key in report["pairings"][0]["focal"] if key not in ("goal_rate", "survival")]
    tally = getattr(registry.get(report["env"]), "tally", None) or SeatTally
    lines = [
        f"{report['env']}: the focal brain plays {k} of {n} characters (a block rotating with the town), a "
        f"background brain the other {n - k}; {report['episodes_per_pairing']} towns per pairing, "
        f"seed {report['seed']}",
        *_legend(names),
        "cross-play: goal rate of the focal characters (row brain) among the background (column brain), "
        "95% Wilson interval",
        *_matrix(focal, backgrounds, report["matrix"]),
        "per pairing, per character (rates: Wilson; means: bootstrap over towns, 95%)",
        f"  {'focal':<6} {'among':<6} {'who':<11} {'goal rate':>19} {'survival':>19}"
        + "".join(f" {_short(key):>17}" for key in counts),
    ]
    for p in report["pairings"]:
        pair = (f"[{number[p['focal_brain']]}]", f"[{number[p['background_brain']]}]")
        for who, label in (("focal", pair), ("background", ("", ""))):
            g = p[who]
            lines.append(
                f"  {label[0]:<6} {label[1]:<6} {who:<11} {_cell(g['goal_rate']):>19} {_cell(g['survival']):>19}"
                + "".join(f" {_mean(g[key]):>17}" for key in counts)
            )
        wide = [key for key in tally.per_episode if key in p]
        if wide:
            said = [(*tally.labels.get(k, (_short(k), 3)), k) for k in wide]
            lines.append(
                f"  {'':<6} {'':<6} {tally.episode:<11} " + ", ".join(f"{w} {_mean(p[k], d)}" for w, d, k in said)
            )
    lines += [
        "ratings (openskill Plackett-Luce; each town as paired games of a focal and a background character, "
        "won by the one who completed its goal when the other did not; ranked by mu - 3 sigma)",
        format_ratings(report["ratings"]),
    ]
    if all("emergence" in p for p in report["pairings"]):
        lines.append(registry.get(report["env"]).format_emergence(report, number))
    return "\n".join(lines)


def _short(key: str) -> str:
    """A report key as a column head: ``trades_per_character`` -> ``trades``, ``coin_gini`` -> ``coin gini``."""
    return key.removesuffix("_per_character").replace("_", " ")

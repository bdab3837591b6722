"""The emergence figures of a town judge report as text: specialization, work shares, the trade network, prices
over time and each character's goal rate, one block per question and a line per pairing."""

from __future__ import annotations

from sparring.envs.town.world import GOAL_NAMES, GOOD_NAMES, SKILL_NAMES

GROUPS = ("focal", "background")


def _mean(figure: dict | None, digits: int = 2, sign: str = "") -> str:
    if figure is None:
        return "-"
    low, high = figure["ci95"]
    return f"{figure['mean']:{sign}.{digits}f} [{low:{sign}.{digits}f},{high:{sign}.{digits}f}]"


def _rate(figure: dict | None) -> str:
    if figure is None or figure["rate"] is None:
        return "-"
    return f"{figure['rate']:.3f} [{figure['ci95'][0]:.2f},{figure['ci95'][1]:.2f}]"


def _shares(shares: dict) -> str:
    if not shares["acts"]:
        return "no work"
    return "/".join(f"{shares[s]:.2f}" for s in SKILL_NAMES)


def format_emergence(report: dict, number: dict) -> str:
    """The emergence blocks of a town judge ``report`` made with emergence; ``number`` numbers the brains."""
    pairings = report["pairings"]
    tag = {id(p): f"[{number[p['focal_brain']]}]    [{number[p['background_brain']]}]".ljust(13) for p in pairings}
    lines = [
        "emergence: means over towns with 95% bootstrap intervals, rates with 95% Wilson intervals",
        "specialization: work entropy of a character (0: one skill, 1: all three equally; over those who worked); "
        "division of labour I(character; skill) / H(skill) per town, and the same with the town's work shuffled "
        "among its characters",
        f"  {'focal  among':<13} {'entropy focal':>18} {'entropy background':>19} {'division':>18} {'shuffled':>18} "
        "towns with a division (work at two skills or more)",
    ]
    for p in pairings:
        em = p["emergence"]
        work, dol = em["work"], em["division_of_labour"]
        lines.append(
            f"  {tag[id(p)]} {_mean(work.get('focal', {}).get('entropy')):>18} "
            f"{_mean(work.get('background', {}).get('entropy')):>19} {_mean(dol['mean']):>18} "
            f"{_mean(dol['shuffled']):>18} {dol['towns']:>6} of {em['towns']}"
        )
    lines.append(f"work shares ({'/'.join(SKILL_NAMES)}): by group and by goal")
    for p in pairings:
        em = p["emergence"]
        groups = "  ".join(f"{g} {_shares(w['shares'])}" for g, w in em["work"].items())
        goals = "  ".join(f"{g} {_shares(em['work_by_goal'][g])}" for g in GOAL_NAMES)
        lines.append(f"  {tag[id(p)]} {groups}  |  {goals}")
    lines += [
        "trade network: trades per town from seller to buyer group (f: focal, b: background); gifts and talk per town",
        f"  {'focal  among':<13} {'all':>17} {'f->f':>17} {'f->b':>17} {'b->f':>17} {'b->b':>17} {'gifts':>17} "
        f"{'talk':>19}",
    ]
    for p in pairings:
        em = p["emergence"]
        net = em["trade_network"]
        flows = [
            net["between_groups"].get(f"{a}->{b}") for a in ("focal", "background") for b in ("focal", "background")
        ]
        cells = [_mean(net["per_town"], 1), *(_mean(f, 1) for f in flows), _mean(em["gifts_per_town"], 1)]
        lines.append(f"  {tag[id(p)]} " + " ".join(f"{c:>17}" for c in cells) + f" {_mean(em['talk_per_town'], 1):>19}")
    lines.append("the largest trade flows by role (group and goal): seller role -> buyer role, trades per town")
    for p in pairings:
        net = p["emergence"]["trade_network"]
        flows = [
            (value, f"{net['roles'][a]} -> {net['roles'][b]} {value:.2f}")
            for a, row in enumerate(net["roles_per_town"])
            for b, value in enumerate(row)
            if value > 0
        ]
        lines.append(f"  {tag[id(p)]} " + ";  ".join(text for _, text in sorted(flows, reverse=True)[:3]))
    lines.append(
        "prices: mean price of a trade per good, per day, and its trend in coins per day (least squares, 95% CI); "
        "what the market pays and charges"
    )
    for p in pairings:
        prices = p["emergence"]["prices"]
        for good in GOOD_NAMES:
            g = prices[good]
            if not g["trades"]:
                lines.append(f"  {tag[id(p)]} {good:<6} no trades")
                continue
            days = ", ".join(f"day {d['day']} {d['mean']:.2f}" for d in g["days"])
            trend = _mean({"mean": g["trend"]["per_day"], "ci95": g["trend"]["ci95"]}, 2, "+") if g["trend"] else "-"
            lines.append(
                f"  {tag[id(p)]} {good:<6} {g['trades']:>6} trades  {_mean(g['mean'])}  {days}  trend {trend}  "
                f"(market {g['market_pays']}/{g['market_charges']})"
            )
    lines.append("goal rate per character: when played by the focal brain | by the background brain")
    for p in pairings:
        for c in p["emergence"]["characters"]:
            lines.append(
                f"  {tag[id(p)]} {c['name']:<6} {_rate(c.get('focal', {}).get('goal_rate')):>19} | "
                f"{_rate(c.get('background', {}).get('goal_rate')):>19}"
            )
    return "\n".join(lines)

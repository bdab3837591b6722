"""Envs for the recorder's tests: the kit's toy walk and pair, plus a walk that speaks text and draws bars."""

import sparring
from tests.kit import toys
from tests.kit.toys import LENGTH


class TextWalk(toys.Walk):
    """The toy walk with every slow path: ANSI text, description, and a drawing with each shape type."""

    name = "toy_text_walk"

    @staticmethod
    def render_ansi(s, cfg):
        return "".join("@" if i == s["pos"] else "G" if i == s["goal"] else "." for i in range(LENGTH + 1))

    @staticmethod
    def describe(s, cfg, agent=0):
        return f"You stand on tile {s['pos']}; the goal is tile {s['goal']}."

    @staticmethod
    def draw(s, cfg):
        return [
            {"type": "rect", "x": 0, "y": 0, "w": LENGTH + 1, "h": 2, "fill": "#202020"},
            {"type": "line", "x1": 0, "y1": 1, "x2": LENGTH + 1, "y2": 1, "stroke": "#888888"},
            {"type": "rect", "x": int(s["goal"]), "y": 0, "w": 1, "h": 1, "fill": "#dc3c3c"},
            {"type": "circle", "x": int(s["pos"]) + 0.5, "y": 0.5, "r": 0.4, "fill": "#3ca0e6"},
            {
                "type": "bar",
                "x": 0,
                "y": 1.2,
                "w": LENGTH + 1,
                "h": 0.6,
                "value": int(s["pos"]),
                "max": LENGTH,
                "label": "pos",
            },
            {"type": "text", "x": 0.1, "y": 2.2, "text": f"tick {int(s['tick'])}", "size": 0.4},
        ]


class AnsiWalk(toys.Walk):
    """The toy walk with ANSI text but no drawing: the viewer's text fallback."""

    name = "toy_ansi_walk"
    render_ansi = staticmethod(TextWalk.render_ansi)


for env_cls in (toys.Walk, toys.Pair, toys.PairVsIdle, TextWalk, AnsiWalk):
    sparring.register(env_cls.name, env_cls)

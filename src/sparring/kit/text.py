"""An env's text face: what a seat sees in words, its legal actions as lines, and answers parsed back to actions.

An env gets one by declaring ``text = MyFace`` where ``MyFace`` subclasses
:class:`TextFace` and writes two plain-Python functions over one record:
``describe(s, cfg, agent)`` (the seat's view in words, the same facts as its
structured observation) and ``lines(s, cfg, agent)`` (its legal actions, each a
:class:`Line`: the full action, one value per head, and short words). Everything
else has a default: :meth:`TextFace.parse` maps a free-text answer to a line
(exactly, by its label, by the words of exactly one line inside the answer, then
the closest words) and reports an answer it cannot map instead of guessing;
:meth:`TextFace.line_of` names the line that stands for any allowed action (a
scripted teacher's, for distillation). Optional hooks give language-model
training what it needs without knowing the env: ``acting`` (whether a seat
decides now), ``success`` (the per-seat figure reported with intervals),
``progress`` (the opt-in GRPO shaping, in [0, 1]), ``brief`` and ``continues`` (the
compact prompt of small local models: fewer words, fewer decisions), ``goals``/``set_goal`` (a goal
a seat can be given), ``configure`` (the env config under which the learning
seats act from outside and the rest are played by the env where it can).

With a face, brains, choice scoring, distillation, GRPO, ``judge`` and the servers
work for the env (:mod:`sparring.lm`); ``sparring check`` checks the face.
"""

from __future__ import annotations

import dataclasses
import difflib
import re
from typing import ClassVar

import numpy as np

FUZZY_CUTOFF = 0.75  # difflib ratio below which a guess is reported as unparseable
WIN = 0  # Env.outcome's code for a win


@dataclasses.dataclass(frozen=True)
class Line:
    """One legal action of a seat in words: ``action`` (one value per head), ``words``, and the ``label`` the
    prompt shows before them (``"<label>: <words>"``; by default its position in the list)."""

    action: tuple[int, ...]
    words: str
    label: str = ""

    def text(self, index: int) -> str:
        """The line as a prompt lists it."""
        return f"{self.label or index}: {self.words}"


@dataclasses.dataclass(frozen=True)
class Parsed:
    """The outcome of :meth:`TextFace.parse`: ``index`` (into the legal lines) is None when ``how`` is
    "unparseable"."""

    index: int | None
    action: tuple[int, ...] | None
    how: str  # "exact", "id", "contained", "fuzzy" or "unparseable"
    detail: str


class TextFace:
    """Base class of an env's text face; subclass it, write :meth:`describe` and :meth:`lines`, and declare
    ``text = YourFace`` on the env (see the module docstring)."""

    goals: ClassVar[tuple[str, ...]] = ()
    """Goal names a seat can be given by :meth:`set_goal` (none by default: ``--goal`` must be "any")."""
    instructions: ClassVar[str] = ""
    """One sentence on what the game is about (the OpenEnv server's description of the env)."""

    @staticmethod
    def describe(s, cfg, agent: int) -> str:
        """What seat ``agent`` sees in record ``s``, in words."""
        raise NotImplementedError

    @classmethod
    def brief(cls, s, cfg, agent: int) -> str:
        """The seat's view in fewer words, for the compact prompt of small local models (same facts, fewer
        tokens): :meth:`describe` by default."""
        return cls.describe(s, cfg, agent)

    @staticmethod
    def lines(s, cfg, agent: int) -> list[Line]:
        """Seat ``agent``'s legal actions, each allowed by the env's mask; never empty while the seat acts."""
        raise NotImplementedError

    @classmethod
    def parse(cls, answer, s, cfg, agent: int) -> Parsed:
        """Map a free-text answer to one of the seat's legal lines, or report it unparseable (never a guess)."""
        return parse_line(answer, cls.lines(s, cfg, agent))

    @classmethod
    def line_of(cls, s, cfg, agent: int, action) -> int:
        """The index of the legal line that stands for ``action`` (one value per head): the line equal to it, else
        the first line that agrees with it on the most heads (a face whose lines set one head each lists the
        heads in the order their intent matters most)."""
        action = tuple(int(v) for v in np.atleast_1d(action))
        lines = cls.lines(s, cfg, agent)
        agree = [sum(a == b for a, b in zip(line.action, action)) for line in lines]
        return int(np.argmax(agree))

    @staticmethod
    def continues(s, cfg, agent: int, action) -> bool:
        """Whether seat ``agent``'s previous ``action`` (one value per head) goes on now without a new decision,
        in the compact prompt (town: a walk on the road); False by default: every turn is decided."""
        return False

    @staticmethod
    def acting(s, cfg, agent: int) -> bool:
        """Whether seat ``agent`` decides now (town: a fainted character does not); True by default."""
        return True

    @classmethod
    def success(cls, env_cls, s, cfg, agent: int) -> bool:
        """The seat's success in a finished episode (reported with intervals, GRPO's "success"): by default a
        win by :meth:`Env.outcome <sparring.kit.spec.Env.outcome>` from its return and the episode metrics."""
        returns = np.asarray([s["ep_return"][agent]], np.float64)
        metrics = np.asarray(s["metrics"], np.float64)[None, : max(1, len(env_cls.metrics))]
        return bool(env_cls.outcome(agent, returns, metrics)[0] == WIN)

    @staticmethod
    def progress(s, cfg, agent: int) -> float:
        """How far the seat is towards success now, in [0, 1] (the opt-in shaping of GRPO); 0 by default."""
        return 0.0

    @classmethod
    def seat_names(cls, env_cls) -> tuple[str, ...]:
        """A name per seat for reports (town: the characters' names); the env's seat names by default."""
        return tuple(env_cls.seats)

    @classmethod
    def goal_of(cls, s, agent: int) -> str:
        """The name of seat ``agent``'s goal in record ``s`` (envs with :attr:`goals`)."""
        raise ValueError("this env's seats take no goal")

    @classmethod
    def set_goal(cls, records: np.ndarray, agent: int, goal: str) -> None:
        """Give seat ``agent`` of every record (in place) the goal named ``goal`` (one of :attr:`goals`)."""
        raise ValueError(f"this env's seats take no goal; --goal must be 'any', got {goal!r}")

    @staticmethod
    def configure(env_cls, config: dict, learners: list[int]) -> dict:
        """The env config under which ``learners`` act from outside (the env plays what else it can): by default
        ``config`` itself."""
        return dict(config)


class HeadsFace(TextFace):
    """A text face for multi-head envs whose value 0 of every head is "do nothing": one line per allowed non-zero
    value of one head (the other heads 0), after a first line "wait" (all heads 0).

    Declare ``head_order`` (the heads in the order their lines are listed: the one whose intent matters most
    first, since :meth:`TextFace.line_of` prefers the first of equally close lines), write :meth:`mask_row`
    (the seat's flat action mask now, e.g. with the env's own mask helper) and :meth:`words` (a value's words,
    or None to leave it out); :meth:`extra_lines` adds lines that set several heads at once.
    """

    head_order: ClassVar[tuple[int, ...]] = ()
    sizes: ClassVar[tuple[int, ...]] = ()
    """The env's head sizes (``Heads.sizes``)."""

    @staticmethod
    def mask_row(s, cfg, agent: int) -> np.ndarray:
        """Seat ``agent``'s flat action mask in record ``s``."""
        raise NotImplementedError

    @staticmethod
    def words(s, cfg, agent: int, head: int, value: int) -> str | None:
        """The words of ``value`` of ``head`` (not 0), or None to leave it out of the lines."""
        raise NotImplementedError

    @staticmethod
    def extra_lines(s, cfg, agent: int, mask: np.ndarray) -> list[Line]:
        """Lines that set several heads at once, listed after the one-head lines (``mask``: :meth:`mask_row`'s);
        none by default."""
        return []

    @classmethod
    def lines(cls, s, cfg, agent: int) -> list[Line]:
        """ "wait", then every allowed non-zero value of each head in :attr:`head_order` that has words."""
        mask = np.asarray(cls.mask_row(s, cfg, agent), bool)
        starts = np.concatenate([[0], np.cumsum(cls.sizes)[:-1]]).astype(int)
        out = [Line((0,) * len(cls.sizes), "wait")]
        for head in cls.head_order:
            for value in range(1, cls.sizes[head]):
                said = cls.words(s, cfg, agent, head, value) if mask[starts[head] + value] else None
                if said:
                    action = [0] * len(cls.sizes)
                    action[head] = value
                    out.append(Line(tuple(action), said))
        return out + cls.extra_lines(s, cfg, agent, mask)


def face(env_cls) -> type[TextFace] | None:
    """The env's text face, or None when it declares none."""
    text = getattr(env_cls, "text", None)
    return text if isinstance(text, type) and issubclass(text, TextFace) else None


def require_face(env_cls) -> type[TextFace]:
    """The env's text face; a one-line error naming what to declare when it has none."""
    text = face(env_cls)
    if text is None:
        raise ValueError(
            f"env {env_cls.name!r} has no text face: declare `text = ...` on it, a subclass of "
            "sparring.kit.text.TextFace with describe() and lines() (see docs/text_face.md)"
        )
    return text


def check_goal(text: type[TextFace], goal: str) -> None:
    """A one-line error unless ``goal`` is "any" or one of the face's goals."""
    if goal != "any" and goal not in text.goals:
        raise ValueError(f"goal must be one of {['any', *text.goals]}, got {goal!r}")


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"[^a-z0-9' ]", " ", text.lower())).strip()


def parse_line(answer, lines: list[Line]) -> Parsed:
    """Map ``answer`` to one of ``lines``: exactly (a listed line, its words or its label), then tolerantly (the
    words of exactly one line inside the answer, then the closest words); unparseable otherwise."""
    listing = "\n".join(line.text(i) for i, line in enumerate(lines))
    if not isinstance(answer, str):
        return Parsed(None, None, "unparseable", f"the answer must be text, got {type(answer).__name__}")
    normed = [_norm(line.words) for line in lines]
    labels = {str(line.label or i): i for i, line in enumerate(lines)}
    exact = {**{_norm(line.text(i)): i for i, line in enumerate(lines)}, **{w: i for i, w in enumerate(normed)}}
    found = lambda i, how: Parsed(i, lines[i].action, how, lines[i].words)  # noqa: E731
    text = _norm(answer)
    if text in exact:
        return found(exact[text], "exact")
    number = re.fullmatch(r"\s*(?:action\s*)?(\d+)\s*[.:)]?.*", answer.strip().lower())
    if number and not _norm(answer[number.end(1) :]).strip():
        if number.group(1) in labels:
            return found(labels[number.group(1)], "id")
        return Parsed(None, None, "unparseable", f"action {number.group(1)} is not legal now; legal: {list(labels)}")
    inside = [i for i, w in enumerate(normed) if w and re.search(rf"\b{re.escape(w)}\b", text)]
    # "give 1 wood to Ben" contains no other line's words, but "talk to Ben or talk to Cora" names two
    inside = [i for i in inside if not any(j != i and normed[i] in normed[j] for j in inside)]
    if len(inside) == 1:
        return found(inside[0], "contained")
    close = difflib.get_close_matches(text, normed, n=2, cutoff=FUZZY_CUTOFF)
    if close and (
        len(close) == 1
        or difflib.SequenceMatcher(None, text, close[0]).ratio() > difflib.SequenceMatcher(None, text, close[1]).ratio()
    ):
        return found(normed.index(close[0]), "fuzzy")
    reason = f"it names {len(inside)} legal actions at once" if len(inside) > 1 else "it matches no legal action"
    return Parsed(None, None, "unparseable", f"{reason}; answer with one id or line of:\n{listing}")

"""Every sparring env as a Gymnasium id, ``sparring/NAME-v0``, registered without importing Gymnasium.

After ``import sparring``::

    gymnasium.make("sparring/squared-v0", size=7)       # GymEnv: seat, others, render_mode, env config keys
    gymnasium.make_vec("sparring/duel-v0", num_envs=8)  # GymVectorEnv: num_envs games, seed, env config keys

Why a hook: ``import sparring`` must stay light (``sparring --help`` starts in well under half a
second), and importing Gymnasium alone takes about 0.2 s. Gymnasium 1.x has no plugin entry points
(its registry is a dict that packages fill when they are imported). So :func:`install` registers
at once when Gymnasium is already imported; otherwise it puts a one-shot finder at the front of
``sys.meta_path`` that lets ``import gymnasium`` run as usual and registers the envs as soon as
Gymnasium's package has finished loading. Until then the finder costs one string comparison per
import; then it removes itself. (``wrapt`` has post-import hooks, but would be a run-time
dependency for these few lines.)

Which envs: every name :func:`sparring.kit.registry.names` knows when Gymnasium is imported
(sparring's own, those registered with :func:`sparring.register` before, and other packages'
``sparring.envs`` entry points). An env registered after Gymnasium was imported needs
:func:`register_with_gymnasium` called once more (it registers the names Gymnasium lacks).
"""

from __future__ import annotations

import sys
import warnings

NAMESPACE = "sparring"
VERSION = 0
_ENTRY = "sparring.kit.gym_adapter:GymEnv"
_VECTOR_ENTRY = "sparring.kit.gym_adapter:GymVectorEnv"


def gym_id(name: str) -> str:
    """The Gymnasium id of the sparring env ``name``: ``sparring/NAME-v0``."""
    return f"{NAMESPACE}/{name}-v{VERSION}"


def register_with_gymnasium() -> list[str]:
    """Register every sparring env Gymnasium does not know yet; returns the ids registered (imports Gymnasium)."""
    import gymnasium

    from sparring.kit.registry import names

    added = []
    for name in names():
        env_id = gym_id(name)
        if env_id in gymnasium.registry:
            continue
        try:
            gymnasium.register(env_id, entry_point=_ENTRY, vector_entry_point=_VECTOR_ENTRY, kwargs={"env": name})
        except gymnasium.error.Error as exc:  # a sparring name Gymnasium's ids cannot hold (letters, digits, _ . - :)
            warnings.warn(f"sparring env {name!r} is not registered with Gymnasium: {exc}", stacklevel=2)
        else:
            added.append(env_id)
    return added


class _AfterGymnasium:
    """A meta path finder (without ``importlib.abc`` or ``importlib.util``, whose imports cost 10-30 ms): finds
    ``gymnasium`` through the other finders, and registers sparring's envs once its package has loaded."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname != "gymnasium":
            return None
        sys.meta_path.remove(self)  # one shot, and the lookup below must not come back here
        spec = next(filter(None, (_find(finder, fullname, path, target) for finder in list(sys.meta_path))), None)
        if spec is None or spec.loader is None:
            return spec
        exec_module = spec.loader.exec_module

        def exec_then_register(module):
            exec_module(module)
            _register_quietly()

        spec.loader.exec_module = exec_then_register
        return spec


def _find(finder, fullname, path, target):
    find_spec = getattr(finder, "find_spec", None)
    return find_spec(fullname, path, target) if find_spec is not None else None


def _register_quietly() -> None:
    """Registration must never break ``import gymnasium``: a failure (a bad env name) becomes a warning."""
    try:
        register_with_gymnasium()
    except Exception as exc:  # any failure here would otherwise fail the user's import
        warnings.warn(f"sparring could not register its envs with Gymnasium: {type(exc).__name__}: {exc}", stacklevel=2)


def install() -> None:
    """Register the envs with Gymnasium now if it is imported, else when it is (see the module's docstring)."""
    if "gymnasium" in sys.modules:
        _register_quietly()
    elif not any(isinstance(finder, _AfterGymnasium) for finder in sys.meta_path):
        sys.meta_path.insert(0, _AfterGymnasium())


install()  # importing this module is installing the hook: ``sparring/__init__`` does, after registering its envs

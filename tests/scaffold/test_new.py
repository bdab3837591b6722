"""`sparring new`: names, where files go inside and outside a checkout, and refusing to overwrite."""

import pytest

from sparring.cli import main
from sparring.scaffold.new import class_name, find_checkout, new_env

CHECKOUT_INIT = (
    'from sparring.kit import register\n\nregister("squared", "x:Y")\nregister("duel", "x:Z")\n\n__all__ = []\n'
)


@pytest.fixture
def checkout(tmp_path):
    """A minimal sparring checkout: pyproject naming the project, src/sparring/envs, an __init__ with registrations."""
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "sparring"\n')
    (tmp_path / "src" / "sparring" / "envs").mkdir(parents=True)
    (tmp_path / "src" / "sparring" / "__init__.py").write_text(CHECKOUT_INIT)
    (tmp_path / "docs").mkdir()
    return tmp_path


def test_class_names_are_camel_case():
    assert class_name("coin_rush") == "CoinRush" and class_name("maze2") == "Maze2"


def test_inside_a_checkout_the_env_becomes_a_registered_builtin(checkout):
    made = new_env("maze", agents=3, where=checkout / "docs")  # any folder inside the checkout
    assert made.mode == "repo" and find_checkout(checkout / "docs") == checkout
    env_py = (checkout / "src" / "sparring" / "envs" / "maze" / "env.py").read_text()
    assert "AGENTS = 3" in env_py and "class Maze(Env):" in env_py and 'name = "maze"' in env_py
    assert (checkout / "src" / "sparring" / "envs" / "maze" / "defaults.toml").exists()
    assert 'check("maze")' in (checkout / "tests" / "envs" / "maze" / "test_env.py").read_text()
    lines = (checkout / "src" / "sparring" / "__init__.py").read_text().splitlines()
    assert lines[4] == 'register("maze", "sparring.envs.maze.env:Maze")'  # right after the last register line
    assert lines[-1] == "__all__ = []"


def test_outside_a_checkout_the_env_is_a_package_with_an_entry_point(tmp_path):
    made = new_env("grid_rush", where=tmp_path)
    assert made.mode == "standalone" and made.next_steps[0] == f"pip install -e {tmp_path / 'grid_rush'}"
    pyproject = (tmp_path / "grid_rush" / "pyproject.toml").read_text()
    assert '[project.entry-points."sparring.envs"]\ngrid_rush = "grid_rush.env:GridRush"' in pyproject
    assert (tmp_path / "grid_rush" / "src" / "grid_rush" / "env.py").exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temp folder left behind


def test_standalone_flag_wins_inside_a_checkout(checkout):
    assert new_env("maze", where=checkout, standalone=True).mode == "standalone"
    assert (checkout / "maze" / "pyproject.toml").exists()
    assert not (checkout / "src" / "sparring" / "envs" / "maze").exists()


@pytest.mark.parametrize(
    "name, message",
    [
        ("Maze", "not valid"),
        ("2maze", "not valid"),
        ("my-maze", "not valid"),
        ("class", "not valid"),
        ("squared", "already registered"),
        ("json", "already an importable Python module"),
    ],
)
def test_bad_names_are_refused_with_what_is_valid(tmp_path, name, message):
    with pytest.raises(ValueError, match=message):
        new_env(name, where=tmp_path)


def test_existing_folders_are_never_overwritten(tmp_path, capsys):
    (tmp_path / "maze").mkdir()
    assert main(["new", "maze", "--dir", str(tmp_path)]) == 2
    assert "already exists" in capsys.readouterr().err
    assert main(["new", "maze", "--agents", "0", "--dir", str(tmp_path)]) == 2
    assert "argument --agents: must be an integer in [1, 16]" in capsys.readouterr().err


def test_big_teams_get_a_coin_each(tmp_path):
    new_env("crowd", agents=16, where=tmp_path)
    env_py = (tmp_path / "crowd" / "src" / "crowd" / "env.py").read_text()
    assert "AGENTS = 16" in env_py and "COINS = 16" in env_py


def test_written_folders_and_the_edited_init_keep_ordinary_permissions(checkout):
    init = checkout / "src" / "sparring" / "__init__.py"
    init.chmod(0o644)
    new_env("maze", where=checkout)
    assert init.stat().st_mode & 0o777 == 0o644
    (checkout / "ordinary").mkdir()  # what the umask gives any new folder
    assert (checkout / "src" / "sparring" / "envs" / "maze").stat().st_mode == (checkout / "ordinary").stat().st_mode


def test_a_checkout_without_registrations_is_refused_before_writing(checkout):
    (checkout / "src" / "sparring" / "__init__.py").write_text('"""no registrations here"""\n')
    with pytest.raises(ValueError, match="has no register"):
        new_env("maze", where=checkout)
    assert not (checkout / "src" / "sparring" / "envs" / "maze").exists()

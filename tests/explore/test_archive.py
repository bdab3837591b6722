"""The archive: best record per cell, thin-cell selection, and its files."""

import json
import os

import numpy as np
import pytest

import sparring
from sparring.envs.serpent.env import Serpent
from sparring.explore.archive import Archive
from sparring.explore.cells import decode
from sparring.kit.files import DamagedFile


def serpent_records(n=4):
    """``n`` serpent records in ``n`` different cells (player hp in different quarters)."""
    records = sparring.make("serpent", num_envs=n, seed=3).snapshot()
    records["hp"] = [99, 70, 40, 10][:n]
    return records


def test_cell_keys_decode_into_the_declared_fields():
    records = serpent_records()
    fields = decode(Serpent.cell_keys(records), len(Serpent.cell_fields))
    assert fields[:, 2].tolist() == [3, 2, 1, 0]  # hp quarters
    assert (fields[:, 1] == records["phase"]).all() and (fields[:, 0] == 0).all()


def test_insert_keeps_the_best_record_and_counts_visits():
    archive = Archive(Serpent)
    records = serpent_records(2)
    assert archive.insert(records, [0.0, 0.0]) == 2
    later = records[:1].copy()
    later["tick"] = 50
    assert archive.insert(later, [0.5]) == 0  # same cell, higher score: replaces
    shorter = records[:1].copy()
    shorter["tick"] = 20
    assert archive.insert(np.concatenate([shorter, later]), [0.5, 0.5]) == 0  # tie: the shorter one wins
    first, second = (archive.index[int(k)] for k in Serpent.cell_keys(records))
    assert archive.visits[first] == 4 and archive.visits[second] == 1
    assert archive.length[first] == 20 and archive.score[first] == 0.5
    assert archive.records[first].tobytes() == shorter[0].tobytes()
    worse = records[:1].copy()
    worse["tick"] = 5
    archive.insert(worse, [0.1])  # lower score: kept out, whatever its length
    assert archive.length[first] == 20 and archive.visits[first] == 5


def test_selection_favours_thin_cells():
    archive = Archive(Serpent)
    archive.insert(serpent_records(2), [0.0, 0.0])
    archive.visits[:] = [5000, 2]
    archive.chosen[:] = [800, 1]
    archive.restarts[:] = [400, 0]
    archive.successes[:] = [400, 0]
    expected = [1 / np.sqrt(801) + 1 / np.sqrt(5001), 1 / np.sqrt(2) + 1 / np.sqrt(3) + 1.0]
    assert np.allclose(archive.weights(), expected)
    cells = archive.select(4000, np.random.default_rng(0))
    share = np.mean(cells == 1)
    assert share > 0.9  # the thin cell gets nearly all draws
    assert archive.chosen.tolist() == [800 + int(np.sum(cells == 0)), 1 + int(np.sum(cells == 1))]
    archive.record_outcomes([0, 1, 1], [True, False, True])
    assert archive.restarts.tolist() == [401, 2] and archive.success_rate()[1] == 0.5


def test_frontier_bias_favours_the_deepest_cells():
    from sparring.envs.serpent.world import DEALT

    records = serpent_records(3)
    records["metrics"][:, DEALT] = [0, 36 * 4, 36 * 5]  # progress fields 0, 4 and 5
    archive = Archive(Serpent)
    archive.insert(records, [0.0, 0.0, 0.0])
    plain = archive.weights()
    assert np.allclose(archive.weights(2.0), plain * np.exp(2.0 * np.array([-5.0, -1.0, 0.0])))
    cells = archive.select(3000, np.random.default_rng(0), frontier=2.0)
    shares = np.bincount(cells, minlength=3) / len(cells)
    assert shares[0] < 0.01 and 0.08 < shares[1] < 0.18 and shares[2] > 0.8
    with pytest.raises(ValueError, match="frontier bias must be >= 0"):
        archive.select(1, np.random.default_rng(0), frontier=-1.0)


def test_save_load_round_trip_and_clear_errors(tmp_path):
    archive = Archive(Serpent, (1, 1, 4))
    states = np.arange(16, dtype=np.float32).reshape(4, 1, 1, 4)
    archive.insert(serpent_records(), [0.1, 0.2, 0.3, 0.4], states)
    archive.record_outcomes([2], [True])
    archive.save(str(tmp_path), {"note": "x"})
    assert sorted(os.listdir(tmp_path)) == ["archive.json", "archive.npz"]  # no temp files left
    loaded, extra = Archive.load(str(tmp_path), Serpent)
    assert extra == {"note": "x"} and loaded.index == archive.index
    assert loaded.records.tobytes() == archive.records.tobytes()
    for name in ("keys", "score", "length", "states", "visits", "chosen", "restarts", "successes"):
        assert np.array_equal(getattr(loaded, name), getattr(archive, name)), name

    with pytest.raises(ValueError, match="built for env 'serpent', not 'duel'"):
        Archive.load(str(tmp_path), sparring.kit.registry.get("duel"))
    meta = json.load(open(tmp_path / "archive.json"))
    stale = {**meta, "cells": 3, "checksum": "sha256:" + "0" * 64}  # an older save's copy: other arrays
    json.dump(stale, open(tmp_path / "archive.json", "w"))  # as a save killed between the files
    assert Archive.load(str(tmp_path), Serpent)[0].index == archive.index  # the npz holds its own metadata
    json.dump({**meta, "cells": 3}, open(tmp_path / "archive.json", "w"))  # the same arrays, another count: edited
    with pytest.raises(DamagedFile, match="archive.json: says cells=3 where archive.npz's own metadata says"):
        Archive.load(str(tmp_path), Serpent)
    with pytest.raises(ValueError, match="no archive in"):
        Archive.load(str(tmp_path / "nowhere"), Serpent)


def _as_format_1(folder, **changes):
    """Rewrite the archive in ``folder`` as format 1 wrote it (metadata only in archive.json), with ``changes``."""
    with np.load(folder / "archive.npz") as data:
        arrays = {name: data[name] for name in data.files if name != "meta"}
    np.savez(folder / "archive.npz", **arrays)
    meta = json.load(open(folder / "archive.json"))
    meta = {k: v for k, v in meta.items() if k != "checksum"}
    json.dump({**meta, "format": 1, **changes}, open(folder / "archive.json", "w"))


def test_an_archive_of_format_1_loads_and_its_metadata_is_checked(tmp_path):
    archive = Archive(Serpent)
    archive.insert(serpent_records(), [0.1, 0.2, 0.3, 0.4])
    archive.save(str(tmp_path))
    _as_format_1(tmp_path)
    assert Archive.load(str(tmp_path), Serpent)[0].index == archive.index
    archive.save(str(tmp_path))
    _as_format_1(tmp_path, fields=["wave"])
    with pytest.raises(ValueError, match="now declares"):
        Archive.load(str(tmp_path), Serpent)
    archive.save(str(tmp_path))
    _as_format_1(tmp_path, cells=3)
    with pytest.raises(ValueError, match="save was interrupted"):
        Archive.load(str(tmp_path), Serpent)


def test_an_env_without_cells_is_refused_by_name():
    with pytest.raises(ValueError, match="env 'duel' has no Go-Explore cells"):
        Archive(sparring.kit.registry.get("duel"))

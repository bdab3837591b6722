"""The fast default of a playing local model: bfloat16 where the CPU has its units and sparring did not train
the model; float32 with its reason said once elsewhere."""

from __future__ import annotations

import json

import pytest

from sparring.lm import play_defaults
from sparring.lm.play_defaults import AUTO, bf16_units, playing_dtype


@pytest.mark.parametrize(
    "line, found",
    [
        ("flags\t\t: fpu vme avx512f avx512_bf16 amx_tile amx_bf16\n", "amx_bf16"),
        ("flags\t\t: fpu vme avx2 avx512f avx512_bf16\n", "avx512_bf16"),
        ("Features\t: fp asimd sve bf16 i8mm\n", "bf16"),
        ("flags\t\t: fpu vme avx2 fma\n", None),
        ("model name\t: a bf16 in the name is no flag\n", None),
    ],
)
def test_bf16_units_read_the_cpu_flags(tmp_path, line, found):
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text("processor\t: 0\n" + line)
    assert bf16_units(str(cpuinfo)) == found
    assert bf16_units(str(tmp_path / "missing")) is None


def test_auto_is_bfloat16_for_a_pretrained_model_on_a_cpu_with_bf16_units(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(play_defaults, "bf16_units", lambda: "avx512_bf16")
    assert playing_dtype(AUTO, str(tmp_path)) == "bfloat16"
    (tmp_path / "sparring.json").write_text(json.dumps({"prompt": "compact"}))
    assert playing_dtype(AUTO, str(tmp_path)) == "float32"  # a model sparring trained plays as it was trained
    assert playing_dtype(AUTO, str(tmp_path / "model.gguf")) == "float32"  # a file's folder holds its record
    assert playing_dtype("bfloat16", str(tmp_path)) == "bfloat16" and playing_dtype(None, str(tmp_path)) is None
    assert capsys.readouterr().err == ""


def test_without_bf16_units_auto_is_float32_and_says_why_once(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(play_defaults, "bf16_units", lambda: None)
    monkeypatch.setattr(play_defaults, "_said", set())
    assert [playing_dtype(AUTO, str(tmp_path)) for _ in range(3)] == ["float32"] * 3
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "float32: this CPU has no bfloat16 units" in err and "--dtype bfloat16" in err

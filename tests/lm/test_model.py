"""The small model: tokenizer, Llama config, saved folder, loading and generation."""

import os

import pytest

from sparring.lm.local import LocalModel
from sparring.lm.model import EOS, SPECIAL_TOKENS, ModelSize, build_model, save_model_folder, train_tokenizer
from tests.lm.conftest import LINES, TINY


def test_tokenizer_round_trips_any_text_and_keeps_special_tokens_whole():
    tok = train_tokenizer(LINES, vocab_size=300)
    for text in ("go to the farm", "Zoë paid 3 coins — ünseen ✓ text"):
        assert tok.decode(tok(text, add_special_tokens=False)["input_ids"]) == text
    for special in SPECIAL_TOKENS:
        assert len(tok(special, add_special_tokens=False)["input_ids"]) == 1
    # merges were learned from the lines: a trained phrase is cheaper than its bytes
    assert len(tok("go to the farm", add_special_tokens=False)["input_ids"]) < len("go to the farm") / 2


def test_chat_template_formats_turns_and_the_generation_prompt():
    tok = train_tokenizer(LINES, vocab_size=300)
    text = tok.apply_chat_template(
        [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hi"}],
        tokenize=False,
        add_generation_prompt=True,
    )
    assert text == "<|bos|><|system|>be brief<|end|><|user|>hi<|end|><|assistant|>"


def test_default_size_is_a_few_million_parameters():
    model = build_model(train_tokenizer(LINES, vocab_size=2048))
    params = sum(p.numel() for p in model.parameters())
    assert 1_000_000 < params < 10_000_000
    assert model.config.model_type == "llama"


def test_bad_sizes_and_vocabularies_are_refused_by_name():
    with pytest.raises(ValueError, match=r"hidden \(30\) must be a multiple of heads \(4\)"):
        ModelSize(hidden=30, heads=4)
    with pytest.raises(ValueError, match="layers must be >= 1"):
        ModelSize(layers=0)
    with pytest.raises(ValueError, match="vocab_size must be >= 263"):
        train_tokenizer(LINES, vocab_size=100)
    with pytest.raises(ValueError, match="at least one non-empty text line"):
        train_tokenizer(["", "  "])


def test_saved_folder_loads_and_generates_within_limits(tiny_folder, tiny_model, tmp_path):
    assert {"config.json", "model.safetensors", "tokenizer.json"} <= set(os.listdir(tiny_folder))
    assert tiny_model.context == TINY.context and tiny_model.tokenizer.eos_token == EOS
    convs = [[{"role": "user", "content": "go to the farm"}], [{"role": "user", "content": "wait"}]]
    first = tiny_model.chat(convs, max_new_tokens=5)
    assert [c.completion_tokens <= 5 for c in first] == [True, True]
    assert all(c.finish_reason in ("stop", "length") and c.prompt_tokens > 3 for c in first)
    assert tiny_model.chat(convs, max_new_tokens=5) == first  # greedy is deterministic
    with pytest.raises(ValueError, match="exceeds the model's context of 96 tokens"):
        tiny_model.chat([[{"role": "user", "content": "farm " * 200}]], max_new_tokens=5)
    with pytest.raises(FileExistsError, match="exists"):
        save_model_folder(tiny_model.model, tiny_model.tokenizer, tiny_folder)
    with pytest.raises(ValueError, match="not a model folder"):
        LocalModel(str(tmp_path))

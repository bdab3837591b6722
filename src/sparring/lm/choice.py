"""Constrained decoding: a causal LM picks one of a few legal lines by scoring each line's log-likelihood.

Free generation can answer anything; a game turn has a short list of legal
answers. :class:`LineScorer` scores every candidate line (its tokens and the
end-of-turn token) after one prompt in a single packed forward pass: the
prompt once, then the candidates as a token trie (:func:`line_trie`: a prefix
several lines share, such as "offer 1 bread to Ben for", is read once), each
token attending to the prompt and to its own line's earlier tokens only, its
positions restarting where the prompt ends. The policy over the
legal lines is ``softmax(scores / temperature)``: fast, differentiable (GRPO
trains it) and never unparseable.

The chat template's head (the tokens before the user's text: the system prompt
and the template's markers) is the same in every prompt: it is read once per
forward pass and its keys and values are shared by every row (``share_prefix``);
without gradients they are kept between calls while the weights stay the same.
A prompt with a single legal line is not scored at all, and :func:`choose_lines`
scores a prompt repeated with the same lines (copies of one state) once.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from sparring.lm.decisions import COUNT
from sparring.lm.prompts import PROMPTS, SYSTEMS


@dataclasses.dataclass
class Packed:
    """A batch of prompts with their candidate lines, laid out for one forward pass."""

    input_ids: object  # LongTensor [B, T]
    position_ids: object  # LongTensor [B, T]
    mask: object  # BoolTensor [B, 1, T, T]: True where a query may attend a key
    source: tuple  # (batch index, position) whose next-token logits predict each candidate token
    target: object  # LongTensor [N]: the candidates' tokens, each shared prefix once (a trie's nodes)
    owner: object  # LongTensor [M]: which candidate (flat over the batch) each of ``node``'s tokens counts for
    node: object  # LongTensor [M]: the scored token (an index into ``target``) of each ``owner`` entry
    counts: list[int]  # candidates per prompt
    prefix: int  # tokens of the shared head every prompt starts with (read from the head's keys and values)


class LineScorer:
    """Log-likelihoods of candidate lines after chat prompts, from a causal LM and its tokenizer.

    ``model`` is a causal LM (with ``tokenizer``) or a :class:`~sparring.lm.local.LocalModel`
    (its model and tokenizer). ``prompt`` (one of :data:`~sparring.lm.prompts.PROMPTS`)
    is how the scorer's users put turns to the model (default: a LocalModel's recorded
    one, else "full"); it picks the system prompt unless ``system`` is given.
    ``share_prefix`` reads the chat template's head once per pass instead of once per
    prompt (scores equal within float tolerance); False is the plain packed pass.
    """

    def __init__(
        self, model, tokenizer=None, system: str | None = None, share_prefix: bool = True, prompt: str | None = None
    ):
        import torch

        from sparring.lm.model_spec import context_of

        prompt = prompt or getattr(model, "prompt", None) or "full"
        if prompt not in PROMPTS:
            raise ValueError(f"prompt must be one of {PROMPTS}, got {prompt!r}")
        self.prompt = prompt
        system = SYSTEMS[prompt] if system is None else system
        if tokenizer is None:
            if not hasattr(model, "tokenizer"):
                raise ValueError("LineScorer needs a tokenizer with a model (or a LocalModel, which has one)")
            model, tokenizer = model.model, model.tokenizer
        self._torch = torch
        self.model, self.tokenizer, self.system = model, tokenizer, system
        self.context = context_of(model)
        self._eos = tokenizer.eos_token_id
        self._line_cache: dict[str, list[int]] = {}
        self.share_prefix = bool(share_prefix)
        self._head_ids: list[int] | None = None
        self._head_kv = None  # (fingerprint of the weights, [(keys, values) per layer]) kept between calls

    def prompt_ids(self, text: str) -> list[int]:
        """Token ids of the chat prompt (system, user ``text``) that the answer follows."""
        messages = ([{"role": "system", "content": self.system}] if self.system else []) + [
            {"role": "user", "content": text}
        ]
        formatted = self.tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
        return self.tokenizer(formatted, add_special_tokens=False)["input_ids"]

    def line_ids(self, line: str) -> list[int]:
        """Token ids of an answer ``line`` followed by the end-of-turn token (cached: lines repeat)."""
        ids = self._line_cache.get(line)
        if ids is None:
            ids = self.tokenizer(line, add_special_tokens=False)["input_ids"] + [self._eos]
            if len(self._line_cache) < 100_000:
                self._line_cache[line] = ids
        return ids

    def fits(self, prompt: list[int], lines: list[list[int]]) -> bool:
        """Whether the prompt and its longest candidate fit the model's context."""
        return len(prompt) + max(len(c) for c in lines) <= self.context

    def head(self) -> list[int]:
        """Token ids that every chat prompt of this scorer starts with (the system prompt and template markers)."""
        if self._head_ids is None:
            probes = [self.prompt_ids(t) for t in ("a", "Z", "0", " ", "\n", "<", "?")]
            n = 0
            while all(len(p) > n for p in probes) and len({p[n] for p in probes}) == 1:
                n += 1
            self._head_ids = probes[0][: max(n - 1, 0)]  # the last shared token may merge with some text
        return self._head_ids

    def pack(
        self, prompts: list[list[int]], candidates: list[list[list[int]]], share_prefix: bool | None = None
    ) -> Packed:
        """Lay out prompts and their candidates (token ids, end token included) for :meth:`scores_packed`.

        With ``share_prefix`` (default: the scorer's) and every prompt starting with
        :meth:`head`, the head is left out of the rows: :meth:`scores_packed` reads
        it once and every row attends to its keys and values.
        """
        torch = self._torch
        if len(prompts) != len(candidates) or any(not c for c in candidates):
            raise ValueError("need one non-empty candidate list per prompt")
        h = 0
        if self.share_prefix if share_prefix is None else share_prefix:
            head = self.head()
            if head and all(len(p) > len(head) and p[: len(head)] == head for p in prompts):
                h = len(head)
        tries = [line_trie(cands) for cands in candidates]
        lengths = [len(p) - h + len(trie.tokens) for p, trie in zip(prompts, tries)]
        b, t = len(prompts), max(lengths)
        ids = np.zeros((b, t), np.int64)
        pos = np.zeros((b, t), np.int64)
        allowed = np.zeros((b, t, t), np.bool_)  # query, key
        src_b, src_p, target, owner, node = [], [], [], [], []
        flat = 0
        for i, (p, trie) in enumerate(zip(prompts, tries)):
            n, m = len(p) - h, len(trie.tokens)
            ids[i, :n], pos[i, :n] = p[h:], np.arange(h, len(p))
            ids[i, n : n + m], pos[i, n : n + m] = trie.tokens, len(p) + trie.depth
            allowed[i, :, :n] = True  # every token sees the prompt (causality is applied below)
            allowed[i, n : n + m, n : n + m] = trie.ancestors  # a line's token sees its own line only
            allowed[i, np.arange(n + m, t), np.arange(n + m, t)] = True  # padding sees itself: no empty softmax
            src_b += [i] * m
            src_p += [n - 1 if q < 0 else n + q for q in trie.parent]
            target += trie.tokens
            for k, path in enumerate(trie.paths):
                owner += [flat + k] * len(path)
                node += [len(target) - m + q for q in path]
            flat += len(trie.paths)
        mask = torch.from_numpy(allowed) & torch.ones(t, t, dtype=torch.bool).tril()
        if h:  # every query also attends to the whole head
            mask = torch.cat([torch.ones(b, t, h, dtype=torch.bool), mask], 2)
        return Packed(
            torch.from_numpy(ids),
            torch.from_numpy(pos),
            mask[:, None],
            (torch.tensor(src_b), torch.tensor(src_p)),
            torch.tensor(target),
            torch.tensor(owner),
            torch.tensor(node, dtype=torch.long),
            [len(c) for c in candidates],
            h,
        )

    def scores_packed(self, packed: Packed):
        """Summed log-probabilities of every candidate, one tensor per prompt (differentiable under grad)."""
        torch = self._torch
        body = self._body()
        extra = {"use_cache": False}  # nothing reads a cache of the rows (and recomputed layers warn of one)
        if packed.prefix:
            cache = self._head_cache(body, packed.prefix, len(packed.counts))
            extra = {_cache_kwarg(body): cache, "use_cache": True}
        hidden = body(
            input_ids=packed.input_ids, attention_mask=packed.mask, position_ids=packed.position_ids, **extra
        ).last_hidden_state
        head = self.model.get_output_embeddings()  # lm_head, embed_out, ...: whatever the architecture calls it
        logits = head(hidden[packed.source[0], packed.source[1]])  # only where a candidate is read
        cap = getattr(self.model.config, "final_logit_softcapping", None)
        if cap:  # Gemma 2/3 squash their logits in the model's forward: so must we
            logits = torch.tanh(logits / cap) * cap
        token_lp = torch.log_softmax(logits.float(), -1).gather(1, packed.target[:, None])[:, 0]
        total = torch.zeros(sum(packed.counts), dtype=token_lp.dtype).index_add(0, packed.owner, token_lp[packed.node])
        return list(torch.split(total, packed.counts))

    def _body(self):
        return self.model.get_decoder() if hasattr(self.model, "get_decoder") else self.model.model

    def _fingerprint(self):
        """What the head's keys and values depend on: the weights (storage, in-place version) and adapter state."""
        weights = tuple((p.data_ptr(), p._version) for p in self.model.parameters())
        adapters = tuple(
            (m._disable_adapters, str(getattr(m, "active_adapters", "")))
            for m in self.model.modules()
            if hasattr(m, "_disable_adapters")
        )
        inference = self._torch.is_inference_mode_enabled()
        return hash((id(self.model), self.model.training, inference, weights, adapters))

    def _head_cache(self, body, h: int, rows: int):
        """A fresh cache holding the head's keys and values for ``rows`` rows (computed, or kept from before)."""
        from transformers import DynamicCache

        torch = self._torch
        keep = not torch.is_grad_enabled()  # under gradients the head is part of the graph: read it every pass
        key = self._fingerprint() if keep else None
        if keep and self._head_kv is not None and self._head_kv[0] == key:
            kv = self._head_kv[1]
        else:
            head = torch.tensor([self.head()[:h]])
            out = body(input_ids=head, position_ids=torch.arange(h)[None], use_cache=True)
            cache = getattr(out, "cache", None) or out.past_key_values
            kv = [(layer.keys, layer.values) for layer in cache.layers]
            self._head_kv = (key, kv) if keep else None
        return DynamicCache(ddp_cache_data=[(k.expand(rows, -1, -1, -1), v.expand(rows, -1, -1, -1)) for k, v in kv])

    def forget(self) -> None:
        """Drop the kept keys and values of the head (they are also dropped whenever the weights change)."""
        self._head_kv = None

    def scores(self, prompts: list[list[int]], candidates: list[list[list[int]]], max_tokens: int = 2048):
        """:meth:`pack` then :meth:`scores_packed`, in passes of similar lengths (one tensor per prompt, in order).

        Prompts are sorted by packed length and cut into passes of at most
        ``max_tokens`` padded tokens (at least one prompt each): a long prompt
        does not pad a whole batch to its length.
        """
        sizes = [len(p) + sum(len(c) for c in cands) for p, cands in zip(prompts, candidates)]
        order = sorted(range(len(prompts)), key=sizes.__getitem__)
        out = [None] * len(prompts)
        start = 0
        while start < len(order):
            end = start + 1
            while end < len(order) and (end + 1 - start) * sizes[order[end]] <= max_tokens:
                end += 1
            chunk = order[start:end]
            scored = self.scores_packed(self.pack([prompts[i] for i in chunk], [candidates[i] for i in chunk]))
            for i, s in zip(chunk, scored):
                out[i] = s
            start = end
        return out


@dataclasses.dataclass
class LineTrie:
    """A prompt's candidate lines as a token trie: a prefix shared by several lines is one set of nodes.

    ``tokens[q]`` is node q's token, ``parent[q]`` its parent node (-1: it follows the
    prompt), ``depth[q]`` its distance from the prompt (0 for the first token of a
    line), ``ancestors[q, r]`` whether node r is q or one of its ancestors, and
    ``paths[k]`` the nodes of candidate k in order.
    """

    tokens: list[int]
    parent: list[int]
    depth: np.ndarray
    ancestors: np.ndarray
    paths: list[list[int]]


def line_trie(candidates: list[list[int]]) -> LineTrie:
    """The token trie of one prompt's candidates (a candidate is its token ids, end token included)."""
    tokens, parent, depth, paths = [], [], [], []
    children: dict[tuple[int, int], int] = {}  # (parent node, token) -> node
    for cand in candidates:
        at, path = -1, []
        for tok in cand:
            key = (at, tok)
            if key not in children:
                children[key] = len(tokens)
                tokens.append(tok)
                parent.append(at)
                depth.append(0 if at < 0 else depth[at] + 1)
            at = children[key]
            path.append(at)
        paths.append(path)
    m = len(tokens)
    ancestors = np.eye(m, dtype=np.bool_)
    for q in range(m):  # parents come before their children: each row extends its parent's
        if parent[q] >= 0:
            ancestors[q] |= ancestors[parent[q]]
    return LineTrie(tokens, parent, np.asarray(depth, np.int64), ancestors, paths)


def _cache_kwarg(body) -> str:
    """The decoder's name for its key/value cache argument: ``cache`` (transformers >= 5.2x) or ``past_key_values``."""
    import inspect

    return "cache" if "cache" in inspect.signature(body.forward).parameters else "past_key_values"


def choose(scores, temperature: float, rng: np.random.Generator) -> tuple[int, float]:
    """Index drawn from ``softmax(scores / temperature)`` (argmax when 0) and its log-probability there."""
    s = np.asarray(scores, np.float64)
    if temperature <= 0:
        k = int(np.argmax(s))
        return k, 0.0
    z = s / temperature
    logp = z - z.max() - np.log(np.exp(z - z.max()).sum())
    k = int(rng.choice(len(s), p=np.exp(logp) / np.exp(logp).sum()))
    return k, float(logp[k])


@dataclasses.dataclass
class Choices:
    """What :meth:`LineScorer.choose` picked: per prompt the line index (-1 when the prompt did not fit the
    context), its log-probability under the sampling policy, and the prompt and line tokens read."""

    index: list[int]
    logp: list[float]
    prompts: list[list[int]]
    lines: list[list[list[int]]]
    tokens: int


def choose_lines(
    scorer: LineScorer,
    texts: list[str],
    lines: list[list[str]],
    temperature: float,
    rng: np.random.Generator,
    batch_size: int = 16,
) -> Choices:
    """For each prompt ``texts[i]``, one of ``lines[i]`` drawn from the scorer's policy (greedy at temperature 0).

    A prompt with a single legal line is not scored, and a prompt repeated with the
    same lines (copies of one state in a GRPO group) is scored once; every prompt
    still draws from ``rng`` in the same order. ``tokens`` counts the prompt and
    line tokens that were scored. Every prompt is a model decision of :data:`sparring.lm.decisions.COUNT`.
    """
    torch = scorer._torch
    prompts = [scorer.prompt_ids(t) for t in texts]
    cands = [[scorer.line_ids(line) for line in ls] for ls in lines]
    index, logp, tokens = [-1] * len(texts), [0.0] * len(texts), 0
    size = [len(p) + sum(len(c) for c in cs) for p, cs in zip(prompts, cands)]
    # similar lengths share a forward pass: less padding
    fits = sorted((i for i in range(len(texts)) if scorer.fits(prompts[i], cands[i])), key=size.__getitem__)
    first: dict[tuple, int] = {}  # (prompt, lines) -> the first prompt that has them
    for i in fits:
        if len(cands[i]) > 1:  # a single legal line needs no forward pass
            first.setdefault((tuple(prompts[i]), tuple(map(tuple, cands[i]))), i)
    unique = list(first.values())
    scores = {}
    with torch.inference_mode():
        for start in range(0, len(unique), batch_size):
            chunk = unique[start : start + batch_size]
            scores.update(zip(chunk, scorer.scores([prompts[i] for i in chunk], [cands[i] for i in chunk])))
            tokens += sum(size[i] for i in chunk)
            COUNT.add(len(chunk), len(chunk))  # the progress line moves while a long batch is scored
    COUNT.add(len(texts) - len(unique), len(texts) - len(unique))  # decided without a pass of their own
    for i in fits:  # in order, each drawing from rng as before (a single line draws its certain 0)
        key = (tuple(prompts[i]), tuple(map(tuple, cands[i])))
        s = scores[first[key]].numpy() if key in first else np.zeros(1)
        index[i], logp[i] = choose(s, temperature, rng)
    return Choices(index, logp, prompts, cands, tokens)

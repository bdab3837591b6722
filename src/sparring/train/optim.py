"""Optimisers: Adam for everything, or Muon for the hidden matrix weights and Adam for the rest."""

from __future__ import annotations

import torch
from torch import nn


class Optimizers:
    """Several torch optimisers driven as one (step, zero_grad, learning rate, state)."""

    def __init__(self, parts: list[torch.optim.Optimizer]):
        self.parts = parts

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Clear every part's gradients."""
        for opt in self.parts:
            opt.zero_grad(set_to_none=set_to_none)

    def step(self) -> None:
        """Step every part."""
        for opt in self.parts:
            opt.step()

    def set_lr(self, lr: float) -> None:
        """Set the learning rate of every parameter group."""
        for opt in self.parts:
            for group in opt.param_groups:
                group["lr"] = lr

    def state_dict(self) -> dict:
        """Every part's state, keyed by position."""
        return {"parts": [opt.state_dict() for opt in self.parts]}

    def load_state_dict(self, state: dict) -> None:
        """Restore what :meth:`state_dict` returned."""
        if len(state["parts"]) != len(self.parts):
            raise ValueError(
                f"optimizer state has {len(state['parts'])} parts, this optimizer {len(self.parts)}: "
                "was the checkpoint trained with another --train.optimizer?"
            )
        for opt, part in zip(self.parts, state["parts"]):
            opt.load_state_dict(part)


def _adam(params: list, lr: float) -> torch.optim.Adam:
    """Adam with eps 1e-5 (as CleanRL); fused (one kernel for every parameter, about 6% of a gauntlet update here)
    where every parameter is on a CPU or CUDA device."""
    fused = all(p.device.type in ("cpu", "cuda") for p in params) or None
    return torch.optim.Adam(params, lr=lr, eps=1e-5, fused=fused)


def make_optimizer(policy: nn.Module, name: str, lr: float) -> Optimizers:
    """Adam (eps 1e-5, as CleanRL), or Muon on 2-D weights of the encoder and core plus Adam elsewhere."""
    if name == "adam":
        return Optimizers([_adam(list(policy.parameters()), lr)])
    if name != "muon":
        raise ValueError(f"optimizer {name!r} is not one of ['adam', 'muon']")
    if not hasattr(torch.optim, "Muon"):
        raise ValueError(
            f"optimizer 'muon' needs torch.optim.Muon (torch >= 2.9), this is torch {torch.__version__}; "
            "valid here: adam"
        )
    matrices, rest = [], []
    for pname, p in policy.named_parameters():
        hidden = pname.startswith(("encoder.", "core."))
        (matrices if hidden and p.ndim == 2 else rest).append(p)
    # match_rms_adamw scales Muon's update so the same learning rate suits both parts
    muon = torch.optim.Muon(matrices, lr=lr, weight_decay=0.0, adjust_lr_fn="match_rms_adamw")
    return Optimizers([muon, _adam(rest, lr)])

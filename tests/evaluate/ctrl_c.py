"""Ctrl-C in the middle of a judge, simulated."""


def stop_at_call(monkeypatch, module, n: int) -> None:
    """``module.play_pair`` raises KeyboardInterrupt (Ctrl-C) at its ``n``-th call."""
    real, calls = module.play_pair, []

    def play_pair(*args, **kwargs):
        calls.append(1)
        if len(calls) == n:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(module, "play_pair", play_pair)

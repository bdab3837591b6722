"""The request body of ``POST /v1/chat/completions`` (the part of OpenAI's schema this server honours)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator


class TextPart(BaseModel):
    """One part of a message given as a list of parts; only text parts are understood."""

    type: Literal["text"]
    text: str


class Message(BaseModel):
    """A chat message: a role and its content (a string, or a list of text parts)."""

    role: Literal["system", "user", "assistant"]
    content: str | list[TextPart]

    def text(self) -> str:
        """The content as one string."""
        return self.content if isinstance(self.content, str) else "".join(p.text for p in self.content)


class ChatRequest(BaseModel):
    """A chat completion request; fields OpenAI defines that do not matter here are ignored."""

    model_config = ConfigDict(extra="ignore")

    model: str
    messages: list[Message] = Field(min_length=1)
    max_tokens: int | None = Field(None, ge=1)
    max_completion_tokens: int | None = Field(None, ge=1)
    temperature: float = Field(1.0, ge=0.0, le=2.0)
    top_p: float = Field(1.0, gt=0.0, le=1.0)
    n: int = 1
    stream: bool = False
    stop: str | list[str] | None = None
    seed: int | None = None

    @field_validator("n")
    @classmethod
    def _one_choice(cls, n: int) -> int:
        if n != 1:
            raise ValueError(f"this server returns one choice per request; n must be 1, got {n}")
        return n

    @field_validator("stream")
    @classmethod
    def _no_stream(cls, stream: bool) -> bool:
        if stream:
            raise ValueError("streaming is not supported; send stream: false")
        return stream

    @field_validator("stop")
    @classmethod
    def _few_stops(cls, stop):
        if isinstance(stop, list) and len(stop) > 4:
            raise ValueError(f"at most 4 stop sequences, got {len(stop)}")
        return stop

    def plain_messages(self) -> list[dict]:
        """Messages as ``{"role", "content"}`` dicts of strings, for a chat template."""
        return [{"role": m.role, "content": m.text()} for m in self.messages]

    def stop_list(self) -> list[str]:
        """The stop sequences as a list."""
        return [self.stop] if isinstance(self.stop, str) else list(self.stop or [])

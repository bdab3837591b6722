"""The one kind of error a client's bad input raises here: an HTTP status and one line naming what was wrong."""

from __future__ import annotations

from http import HTTPStatus


class RequestError(ValueError):
    """A bad request: ``status`` (a 4xx) and one line; over HTTP the answer is ``{"detail": line}`` with that
    status, over OpenEnv's WebSocket an error frame whose message is ``"<status> <reason>: <line>"``."""

    def __init__(self, status: int, line: str):
        self.status = int(status)
        self.line = " ".join(str(line).split())
        super().__init__(f"{self.status} {HTTPStatus(self.status).phrase}: {self.line}")

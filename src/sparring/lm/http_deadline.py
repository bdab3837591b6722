"""Uvicorn's h11 protocol with a deadline for receiving each request (headers and body).

Uvicorn times out idle keep-alive connections (``timeout_keep_alive``) but not a
client that sends part of a request and stalls: its headers half-written, or a
``Content-Length: 1000`` with 10 bytes of body. Such a connection would hold its
slot, and the handler waiting for the body, for as long as the client likes.
:func:`deadline_protocol` gives each request ``seconds`` to arrive whole, counted
from the connection's opening (first request) or from the first byte of the
request (later requests on a kept-alive connection); past it the server answers
``408`` with an OpenAI-style error body and closes the connection (or just closes
it if an answer was already sent). A handler still reading the body sees the
client as disconnected.

Written here because no library does it: uvicorn's settings (0.54) time out only idle
keep-alive connections, workers and shutdown (``timeout_keep_alive``,
``timeout_worker_healthcheck``, ``timeout_graceful_shutdown``), none a request that is
slow to arrive; a reverse proxy (nginx's ``client_header_timeout``/``client_body_timeout``)
would do it, but ``sparring serve`` runs without one. Retries are the client's side
(:mod:`sparring.lm.openai_brain`, with tenacity).
"""

from __future__ import annotations

import json
import math

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol


def deadline_protocol(seconds: float) -> type[H11Protocol]:
    """An :class:`H11Protocol` subclass (uvicorn's ``http=``) closing requests not received within ``seconds``."""
    if not (isinstance(seconds, (int, float)) and math.isfinite(seconds) and seconds > 0):
        raise ValueError(f"request timeout must be a finite number of seconds > 0, got {seconds!r}")
    body = json.dumps(
        {
            "error": {
                "message": f"the request did not arrive whole (headers and body) within {seconds:g} s; "
                "connection closed",
                "type": "invalid_request_error",
                "code": 408,
            }
        }
    ).encode()
    answer = (
        b"HTTP/1.1 408 Request Timeout\r\ncontent-type: application/json\r\nconnection: close\r\n"
        b"content-length: %d\r\n\r\n%s" % (len(body), body)
    )

    class DeadlineH11Protocol(H11Protocol):
        request_timeout = float(seconds)

        def connection_made(self, transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._deadline = None
            self._arm()

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            self._watch()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._watch()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

        def _watch(self) -> None:
            """Armed while a request is partly received; off once it is whole (or nothing of the next has come), and
            for good once the connection is upgraded to a WebSocket (another protocol owns the transport)."""
            if self.transport.is_closing() or self.transport.get_protocol() is not self:
                return self._disarm()
            state = self.conn.their_state
            if state is h11.SEND_BODY or (state is h11.IDLE and self.conn.trailing_data[0]):
                self._arm()
            else:
                self._disarm()

        def _arm(self) -> None:
            if self._deadline is None:
                self._deadline = self.loop.call_later(self.request_timeout, self._timed_out)

        def _disarm(self) -> None:
            if getattr(self, "_deadline", None) is not None:
                self._deadline.cancel()
                self._deadline = None

        def _timed_out(self) -> None:
            self._deadline = None
            if self.transport.is_closing():
                return
            waiting = self.conn.their_state is h11.IDLE  # headers not (all) received: no handler runs yet
            cycle = self.cycle
            if cycle is not None and not cycle.response_complete and self.conn.their_state is h11.SEND_BODY:
                waiting = not cycle.response_started
                cycle.disconnected = True  # the handler reading the body sees a disconnect; its answer is dropped
                cycle.message_event.set()
            self.logger.info("closing a connection whose request did not arrive within %g s", self.request_timeout)
            if waiting:
                self.transport.write(answer)
            self.transport.close()

    return DeadlineH11Protocol

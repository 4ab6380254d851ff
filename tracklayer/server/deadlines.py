"""Deadlines for receiving a request: a client that does not finish its headers, or its body, in time
is cut off.

uvicorn's HTTP/1.1 protocol bounds the wait *between* requests (``timeout_keep_alive``) and the size
of the headers, but not the time a request takes to arrive: a client that sends its headers a byte
at a time ("slowloris"), opens a connection and sends nothing, or declares a body and never sends
all of it, holds its connection, its buffer and a file descriptor for as long as it likes, and a few
hundred such clients take every connection a process can hold. A reverse proxy bounds this itself
(nginx's ``client_header_timeout`` and ``client_body_timeout``, ``docs/deploy/nginx.conf``); this
protocol does it for a server that faces the network directly.

:class:`RequestDeadlines` is uvicorn's h11 protocol with two timers, followed from h11's view of the
client (``their_state``) after every chunk received and every response sent:

- **headers** (``Settings.header_timeout``): from the connection's start, or from the first byte of
  the next request on a kept-alive connection, to the end of the request's headers;
- **body** (``Settings.body_timeout``): from the end of the headers to the end of the body.

Each is a total, not an idle time, so trickling bytes does not extend it. When one passes, the
client gets ``408 Request Timeout`` (when it has sent a part of a request and no answer has begun)
and the connection is closed; an endpoint still reading the body sees the client disconnect. The
time the application takes to answer is never bounded here, and a websocket is handed to its own
protocol (with its own ping and hello timeouts) as soon as its upgrade request has arrived.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Literal

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

log = logging.getLogger("tracklayer.server")

Phase = Literal["headers", "body"]

_TEXT = b"the request took too long to arrive\n"
TIMEOUT_RESPONSE = (b"HTTP/1.1 408 Request Timeout\r\ncontent-type: text/plain; charset=utf-8\r\n"
                    b"content-length: %d\r\nconnection: close\r\n\r\n%s" % (len(_TEXT), _TEXT))


class RequestDeadlines(H11Protocol):
    """uvicorn's h11 protocol, with a deadline for a request's headers and one for its body (seconds;
    0: none). uvicorn builds one per connection: pass ``functools.partial(RequestDeadlines,
    header_timeout=..., body_timeout=...)`` as its ``http`` option (a partial pickles, so
    ``--workers`` processes get it too)."""

    def __init__(self, *args: Any, header_timeout: float, body_timeout: float, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.limits: dict[Phase, float] = {"headers": header_timeout, "body": body_timeout}
        self.phase: Phase | None = None
        self.timer: asyncio.TimerHandle | None = None
        self.kept_alive = False  # a response was sent: an idle connection is the keep-alive timer's
        self.upgraded = False  # handed to the websocket protocol: nothing more to time here

    # uvicorn's H11Protocol narrows asyncio's BaseTransport to the Transport the loop passes (and says so the
    # same way): this keeps its signature
    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._follow()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._follow()

    def on_response_complete(self) -> None:
        self.kept_alive = True
        super().on_response_complete()  # may go on with a pipelined request
        self._follow()

    def connection_lost(self, exc: Exception | None) -> None:
        self._set(None)
        super().connection_lost(exc)

    def handle_websocket_upgrade(self, event: h11.Request) -> None:
        self.upgraded = True
        self._set(None)
        super().handle_websocket_upgrade(event)

    def _waiting_for(self) -> Phase | None:
        """What of the current request is still to arrive, if any."""
        if self.upgraded or self.transport.is_closing():
            return None
        state = self.conn.their_state
        if state is h11.SEND_BODY:
            return "body"
        if state is h11.IDLE and (not self.kept_alive or self.conn.trailing_data[0]):
            return "headers"  # a new connection, or the first bytes of the next request
        return None  # the request has arrived (the app answers it), or the connection is ending

    def _follow(self) -> None:
        phase = self._waiting_for()
        if phase != self.phase:  # a timer runs from the moment its phase begins, whatever arrives in it
            self._set(phase)

    def _set(self, phase: Phase | None) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        self.phase = phase
        if phase is not None and self.limits[phase] > 0:
            self.timer = self.loop.call_later(self.limits[phase], self._expire, phase)

    def _expire(self, phase: Phase) -> None:
        self.timer = None
        if self.transport.is_closing():
            return
        if phase == "body":  # unless the app has begun to answer (it may answer before reading the body)
            owed = self.cycle is not None and not self.cycle.response_started
        else:  # a client that sent nothing at all is owed nothing
            owed = bool(self.conn.trailing_data[0])
        if owed:
            self.transport.write(TIMEOUT_RESPONSE)
        log.debug("%s closed: its request %s took more than %g s", self.client, phase, self.limits[phase])
        self.transport.close()

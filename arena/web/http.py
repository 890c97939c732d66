"""What the server's HTTP layer adds against hostile visitors: security headers on every answer,
and bounds on slow or piled-up connections that uvicorn does not set by itself.

**Headers.** Every answer, errors included (Starlette's own 404 and 500 too: the headers are
added outside its error handling), carries a Content-Security-Policy that lets a page run only
the site's own scripts (``/static/...``) and the replay viewer's inlined scripts, by hash;
stylesheets likewise (style attributes, which the rating plots' SVG uses, are allowed: they
cannot run code and load nothing but from the site). Nothing may frame a page
(``frame-ancestors 'none'``), nothing is sniffed, no address leaks as a referrer.

**Slow connections.** uvicorn closes an idle kept-alive connection (``timeout_keep_alive``) but
never one whose request head is still arriving: 500 clients sending half a request each hold
500 connections for ever. :class:`GuardedH11Protocol` gives every request head
``header_timeout_s`` from its first byte (from the connection for the first request), closes
a connection whose client already has ``per_address`` open, and closes a connection whose
answer went out before its request body was read (nothing else would end a slow body). The
upload route bounds its own body (``upload_timeout_s``). uvicorn's ``limit_concurrency``
answers 503 past ``max_connections``; ``h11_max_incomplete_event_size`` (16 KiB) bounds a head.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
from collections.abc import Iterable
from typing import Any

import h11
from starlette.applications import Starlette
from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from uvicorn.protocols.http.h11_impl import H11Protocol


def csp(scripts: Iterable[str] = (), styles: Iterable[str] = ()) -> str:
    """The policy: the site's own files, and the inline ``scripts`` and ``styles`` given (their
    exact text, allowed by hash)."""

    def hashes(texts: Iterable[str]) -> str:
        return "".join(
            f" 'sha256-{base64.b64encode(hashlib.sha256(t.encode()).digest()).decode()}'"
            for t in texts
        )

    return (
        f"default-src 'none'; script-src 'self'{hashes(scripts)}; "
        f"style-src 'self'{hashes(styles)}; style-src-attr 'unsafe-inline'; "
        "img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; "
        "frame-ancestors 'none'"
    )


def security_headers(policy: str) -> dict[str, str]:
    return {
        "Content-Security-Policy": policy,
        "X-Frame-Options": "DENY",
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "no-referrer",
        "Cross-Origin-Opener-Policy": "same-origin",
    }


class SecurityHeaders:
    """ASGI middleware: ``headers`` on every HTTP answer."""

    def __init__(self, app: ASGIApp, headers: dict[str, str]) -> None:
        self.app = app
        self.headers = headers

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in self.headers.items():
                    headers[name] = value
            await send(message)

        await self.app(scope, receive, sending)


class Site(Starlette):
    """A Starlette app whose every answer, its error pages included, has ``headers``."""

    def __init__(self, headers: dict[str, str], **kwargs: Any) -> None:
        self.security = headers
        super().__init__(**kwargs)

    def build_middleware_stack(self) -> ASGIApp:
        return SecurityHeaders(super().build_middleware_stack(), self.security)


class GuardedH11Protocol(H11Protocol):
    """uvicorn's HTTP/1.1 protocol with a request-head timeout and a per-address connection
    bound (see the module docstring); :func:`guarded` sets the two numbers."""

    header_timeout_s = 10.0
    per_address = 64

    # uvicorn narrows BaseProtocol.connection_made to an asyncio.Transport the same way
    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        self.head_timer: asyncio.TimerHandle | None = None
        super().connection_made(transport)
        address = self.client[0] if self.client else None
        same = sum(1 for c in self.connections if (peer := getattr(c, "client", None)) and
                   peer[0] == address)  # fmt: skip
        if address is not None and same > self.per_address:
            transport.close()
            return
        self._await_head()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._await_head()

    def on_response_complete(self) -> None:
        if self.conn.their_state not in (h11.DONE, h11.IDLE):  # answered, body still coming
            self.transport.close()
            return
        super().on_response_complete()

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_timer()
        super().connection_lost(exc)

    def _await_head(self) -> None:
        """Time the head being received; stop timing once it is whole."""
        if self.transport.is_closing() or self.conn.their_state is not h11.IDLE:
            self._stop_timer()
        elif self.head_timer is None:
            self.head_timer = self.loop.call_later(self.header_timeout_s, self._head_too_slow)

    def _head_too_slow(self) -> None:
        self.head_timer = None
        if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
            self.transport.close()

    def _stop_timer(self) -> None:
        if self.head_timer is not None:
            self.head_timer.cancel()
            self.head_timer = None


def guarded(header_timeout_s: float, per_address: int) -> type[H11Protocol]:
    """:class:`GuardedH11Protocol` with these bounds, for ``uvicorn.run(http=...)``."""
    return type(
        "GuardedH11Protocol",
        (GuardedH11Protocol,),
        {"header_timeout_s": header_timeout_s, "per_address": per_address},
    )

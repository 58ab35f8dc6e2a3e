"""Who may read the page and the API: a token in the address's path (trial 38c F3, review38 R1; docs/view.md, "Who
may read it").

On a shared host loopback reaches every local account, so a page server with no access control serves the whole root
to each of them, undoing the root's 0700/0400 modes. :class:`TokenGate` (ASGI middleware, inside
:class:`~asz_core.view.guard.HostGuard`) answers a request only when it carries the server's token:

- in its path: ``/t/TOKEN/…`` is answered as ``/…`` (the address the banner prints is
  ``http://127.0.0.1:8787/t/TOKEN/``); the page's script writes every address it asks for or links to under the same
  ``/t/TOKEN`` (``BASE`` in ``static/app.js``), so the shell, its fetches, its links and its preloads each carry it.
  A path reaches only the port it is sent to, where a cookie (the design before review38 R1) was sent by the browser
  to every port of ``127.0.0.1``, so a page another account served on another loopback port received the token. No
  cookie is set or read. Every answer says ``Referrer-Policy: no-referrer``, so no ``Referer`` carries the path
  elsewhere;
- in ``Authorization: Bearer TOKEN`` (a script, ``curl``), on the plain paths (``/api/…``);
- an older address, ``/PATH?token=TOKEN`` (``GET``/``HEAD``), is answered ``303 See Other`` to ``/t/TOKEN/PATH`` with
  the rest of its query.

Any other request is answered ``401`` and nothing of the root: ``{"error", "code": "unauthorized"}`` under ``/api/``, a
line of text elsewhere; ``/static/`` (the page's packaged scripts, nothing of the root) stays open. Tokens are compared
in constant time (:func:`hmac.compare_digest`). :func:`new_token` makes one per run: 32 random bytes, URL-safe base64.
"""

from __future__ import annotations

import hmac
import json
import secrets
from typing import Any
from urllib.parse import parse_qsl, urlencode

__all__ = ["TokenGate", "new_token", "token_address", "UNAUTHORIZED", "OPEN_PREFIXES", "BASE_KEY", "TOKEN_PATH"]

#: Paths answered without the token: the packaged scripts and styles (nothing of the root).
OPEN_PREFIXES = ("/static/",)
#: The first segment of a path holding the token: ``/t/TOKEN/…``.
TOKEN_PATH = "/t/"
#: The scope key under which :class:`TokenGate` passes ``/t/TOKEN`` (the path's prefix it took off) to the application,
#: which writes it before the addresses it puts in a page (:func:`~asz_core.view.app._page`'s preloads).
BASE_KEY = "asz.base"
#: Why a request without the token is refused (the 401's ``error``).
UNAUTHORIZED = ("this server needs its token: open the address its banner printed (listening: http://HOST:PORT/t/TOKEN/), "
                "or send Authorization: Bearer TOKEN")


def new_token() -> str:
    """A fresh token: 32 random bytes, URL-safe base64 (43 characters: letters, digits, ``-`` and ``_``)."""
    return secrets.token_urlsafe(32)


def token_address(token: str) -> str:
    """``/t/TOKEN/``: the path of the page that holds ``token`` (the banner prints it after ``http://HOST:PORT``)."""
    return f"{TOKEN_PATH}{token}/"


class TokenGate:
    """ASGI middleware: ``app`` answered only for requests carrying ``token`` (module doc). ``state`` is ``app``'s."""

    def __init__(self, app: Any, token: str):
        self.app = app
        self.state = getattr(app, "state", None)
        self._want = token.encode()

    def _is(self, value: str | bytes | None) -> bool:
        if value is None:
            return False
        got = value if isinstance(value, bytes) else value.encode("utf-8", "surrogateescape")
        return hmac.compare_digest(got, self._want)

    async def __call__(self, scope, receive, send) -> None:
        path = scope.get("path", "")
        if scope["type"] != "http" or path.startswith(OPEN_PREFIXES):
            return await self.app(scope, receive, send)
        if path.startswith(TOKEN_PATH):
            given, _, rest = path[len(TOKEN_PATH):].partition("/")
            if self._is(given):
                return await self.app(_inner(scope, TOKEN_PATH + given, "/" + rest), receive, send)
            return await _refuse(send, "/" + rest)
        bearer = next((v[7:].strip() for k, v in scope.get("headers") or () if k == b"authorization"
                       and v[:7].lower() == b"bearer "), None)
        if self._is(bearer):
            return await self.app(scope, receive, send)
        pairs = parse_qsl(scope.get("query_string", b"").decode("latin-1"), keep_blank_values=True)
        if scope.get("method") in ("GET", "HEAD") and any(self._is(v) for k, v in pairs if k == "token"):
            rest = urlencode([(k, v) for k, v in pairs if k != "token"])
            sent = scope.get("raw_path") or path.encode("utf-8", "surrogateescape")  # as the client encoded it
            where = TOKEN_PATH.encode() + self._want + sent + (f"?{rest}".encode("latin-1", "replace") if rest else b"")
            return await _answer(send, 303, b"", b"text/plain; charset=utf-8", [(b"location", where)])
        return await _refuse(send, path)


def _inner(scope: dict, base: str, path: str) -> dict:
    """``scope`` as the application sees a request to ``base + path``: its path ``path``, ``base`` under
    :data:`BASE_KEY`."""
    inner = dict(scope, path=path)
    raw = scope.get("raw_path")
    if raw is not None:
        inner["raw_path"] = raw[len(base):] if raw.startswith(base.encode()) else path.encode("utf-8", "surrogateescape")
    inner[BASE_KEY] = base
    return inner


async def _refuse(send, path: str) -> None:
    """The 401 of a request without the token (``path``: the one it asked, less any ``/t/…`` prefix)."""
    if path.startswith("/api/"):
        body = json.dumps({"error": UNAUTHORIZED, "code": "unauthorized"}).encode()
        return await _answer(send, 401, body, b"application/json")
    return await _answer(send, 401, f"401 Unauthorized: {UNAUTHORIZED}\n".encode(), b"text/plain; charset=utf-8")


async def _answer(send, status: int, body: bytes, ctype: bytes, more: list | None = None) -> None:
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", ctype), (b"content-length", str(len(body)).encode()),
                            (b"cache-control", b"no-store"), (b"x-content-type-options", b"nosniff"),
                            (b"referrer-policy", b"no-referrer"), *(more or [])]})
    await send({"type": "http.response.body", "body": body})

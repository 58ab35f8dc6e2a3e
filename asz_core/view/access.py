"""Who may read the page and the API: a token, exchanged for a cookie (trial 38c F3; docs/view.md, "Who may read it").

On a shared host loopback reaches every local account, so a page server with no access control serves the whole root
to each of them, undoing the root's 0700/0400 modes. :class:`TokenGate` (ASGI middleware, inside
:class:`~asz_core.view.guard.HostGuard`) answers a request only when it carries the server's token, as Jupyter does:

- the address the banner prints holds it, ``http://127.0.0.1:8787/?token=TOKEN``: a ``GET`` or ``HEAD`` whose query
  holds ``token=TOKEN`` is answered ``303 See Other`` to the same address without it, setting the cookie
  ``asz-token-PORT=TOKEN; HttpOnly; SameSite=Strict; Path=/`` (PORT the port it was reached on: two servers of one
  machine keep cookies apart; HttpOnly: no script reads it; Strict: no other site's page sends it);
- a request carrying that cookie, or ``Authorization: Bearer TOKEN`` (a script, ``curl``), is answered;
- any other is answered ``401`` and nothing of the root: ``{"error", "code": "unauthorized"}`` under ``/api/``, a
  line of text elsewhere; ``/static/`` (the page's packaged scripts, nothing of the root) stays open.

Tokens are compared in constant time (:func:`hmac.compare_digest`). :func:`new_token` makes one per run: 32 random
bytes, URL-safe base64.
"""

from __future__ import annotations

import hmac
import secrets
from typing import Any
from urllib.parse import parse_qsl, urlencode

__all__ = ["TokenGate", "new_token", "cookie_name", "UNAUTHORIZED", "OPEN_PREFIXES"]

#: Paths answered without the token: the packaged scripts and styles (nothing of the root).
OPEN_PREFIXES = ("/static/",)
#: Why a request without the token is refused (the 401's ``error``).
UNAUTHORIZED = ("this server needs its token: open the address its banner printed (listening: http://HOST:PORT/?token=…), "
                "or send Authorization: Bearer TOKEN")


def new_token() -> str:
    """A fresh token: 32 random bytes, URL-safe base64 (43 characters)."""
    return secrets.token_urlsafe(32)


def cookie_name(port: int | None) -> str:
    """``asz-token-PORT`` (``asz-token`` when the port is not known)."""
    return f"asz-token-{port}" if port else "asz-token"


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
        if scope["type"] != "http" or scope.get("path", "").startswith(OPEN_PREFIXES):
            return await self.app(scope, receive, send)
        server = scope.get("server")
        name = cookie_name(server[1] if server else None).encode()
        cookies: list[bytes] = []
        bearer = None
        for k, v in scope.get("headers") or ():
            if k == b"cookie":
                cookies += [c.strip() for c in v.split(b";")]
            elif k == b"authorization" and v[:7].lower() == b"bearer ":
                bearer = v[7:].strip()
        query = scope.get("query_string", b"").decode("latin-1")
        pairs = parse_qsl(query, keep_blank_values=True)
        given = [v for k, v in pairs if k == "token"]
        if given and scope.get("method") in ("GET", "HEAD") and any(self._is(v) for v in given):
            rest = urlencode([(k, v) for k, v in pairs if k != "token"])
            where = (scope.get("root_path", "") + scope["path"]) + (f"?{rest}" if rest else "")
            cookie = (name + b"=" + self._want + b"; HttpOnly; SameSite=Strict; Path=/")
            return await _answer(send, 303, b"", b"text/plain; charset=utf-8",
                                 [(b"location", where.encode("latin-1", "replace")), (b"set-cookie", cookie)])
        if self._is(bearer) or any(c.partition(b"=")[0] == name and self._is(c.partition(b"=")[2]) for c in cookies):
            return await self.app(scope, receive, send)
        if scope.get("path", "").startswith("/api/"):
            import json

            body = json.dumps({"error": UNAUTHORIZED, "code": "unauthorized"}).encode()
            return await _answer(send, 401, body, b"application/json")
        return await _answer(send, 401, f"401 Unauthorized: {UNAUTHORIZED}\n".encode(), b"text/plain; charset=utf-8")


async def _answer(send, status: int, body: bytes, ctype: bytes, more: list | None = None) -> None:
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", ctype), (b"content-length", str(len(body)).encode()),
                            (b"cache-control", b"no-store"), (b"x-content-type-options", b"nosniff"),
                            (b"referrer-policy", b"no-referrer"), *(more or [])]})
    await send({"type": "http.response.body", "body": body})

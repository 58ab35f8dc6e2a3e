"""What ``asz view`` and ``asz server`` say when the port they were asked to listen on is taken (trial 47d F6: ``asz
view`` said only ``cannot listen on 127.0.0.1:8787: Address already in use``, with no next step).

:func:`next_step` asks the port's ``/api/status`` on loopback (one GET, :data:`PROBE_SECONDS` at most, no proxy). When
an asz page answers, the line names the command serving (its ``mode``, ``view`` or ``server``), the root it reads and
its address, to open instead; when it answers 401 (one started with ``--token``) it says an asz page is there; else
that another program, or an ``asz server``/``asz view``, may be listening. Every case ends with ``--port N``.
"""

from __future__ import annotations

import json

__all__ = ["PROBE_SECONDS", "address", "next_step"]

#: How long the probe waits for the taken port's answer.
PROBE_SECONDS = 2.0


def _loopback(host: str) -> str:
    """The loopback address to probe for ``host``: ::1 for an IPv6 host, else 127.0.0.1."""
    return "::1" if ":" in host else "127.0.0.1"


def address(host: str, port: int) -> str:
    """``HOST:PORT`` as a URL or a Host header writes it: an IPv6 ``host`` in brackets (``[::1]:8787``)."""
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def _status(host: str, port: int) -> tuple[int, dict | None]:
    """``/api/status``'s HTTP status and JSON object at ``host:port`` (loopback); (0, None) when nothing answers."""
    import http.client

    conn = http.client.HTTPConnection(host, port, timeout=PROBE_SECONDS)
    try:
        conn.request("GET", "/api/status", headers={"Host": address(host, port)})
        resp = conn.getresponse()
        body = resp.read(1 << 20)
    except (OSError, http.client.HTTPException):
        return 0, None
    finally:
        conn.close()
    try:
        got = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        got = None
    return resp.status, got if isinstance(got, dict) else None


def next_step(host: str, port: int) -> str:
    """What follows ``cannot listen on HOST:PORT: Address already in use`` (module docstring), starting ``; ``."""
    probe = _loopback(host)
    status, got = _status(probe, port)
    other = "; give --port N to listen on another port"
    where = address(probe, port)
    if status == 200 and got is not None and got.get("product") == "asz":
        mode = got.get("mode") if got.get("mode") in ("view", "server") else "view or server"
        return f"; asz {mode} already serves {got.get('root')} there: open http://{where}/, or give --port N to listen on another port"
    if status == 401 and got is not None and got.get("code") == "unauthorized":
        return f"; an asz view or server started with --token answers there (open its address with the token){other}"
    return f"{other} (an asz server or asz view may already be listening there)"

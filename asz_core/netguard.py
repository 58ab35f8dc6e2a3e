"""Defences shared by the servers asz runs (issue 23; trial 27c F7): timeouts, the open-files limit, a connection cap.

``asz view``/``asz server`` (:mod:`asz_core.view.guard`, on uvicorn) and ``asz receive``
(:mod:`asz_core.export.receive_http`, on threads) take their numbers from here:

- :func:`seconds`: a timeout in seconds from an environment variable (0 < value ≤ 3600), else the default;
- :data:`HEADER_TIMEOUT` (10 s): how long a connection has to send a request's complete headers;
- :data:`IDLE_TIMEOUT` (20 s): how long a kept-alive connection may wait for its next request;
- :func:`raise_open_files`, :func:`accept_batch`, :func:`connection_cap`: the most connections kept open at once
  (16 to 4,096), from the open-files limit, past which the longest-idle ones are closed;
- :func:`host_allowed`, :func:`origin_allowed` and :func:`refusal`: what a web page cannot make a server on this host
  answer (issue 23; trial 34c F2, F6). The ``Host`` a request names must be a loopback name or address, or the address
  the server listens on (a page that rebinds its own name to 127.0.0.1 names its own name: DNS rebinding); an
  ``Origin`` it carries must be the server's own (a cross-site form or fetch carries the page's); and
  :func:`browser_simple` tells a request a browser sends cross-site with no preflight (no ``Content-Type``, or
  ``text/plain``, ``application/x-www-form-urlencoded``, ``multipart/form-data``: the Fetch standard's CORS-safelisted
  types), which ``asz ingest langsmith`` takes only with a header such a request cannot carry.
"""

from __future__ import annotations

import ipaddress

__all__ = ["seconds", "timeout_setting", "HEADER_TIMEOUT", "IDLE_TIMEOUT", "raise_open_files", "accept_batch", "connection_cap",
           "host_allowed", "origin_allowed", "refusal", "browser_simple", "MISDIRECTED", "FOREIGN_ORIGIN"]


def seconds(name: str, default: float) -> float:
    """Seconds from the environment variable ``name`` when it reads as a number in (0, 3600], else ``default``
    (:class:`~asz_core.envsetting.Setting`, whose :meth:`~asz_core.envsetting.Setting.unused` says a value not taken)."""
    return timeout_setting(name, default).value()


def timeout_setting(name: str, default: float, what: str = "the timeout"):
    """The :class:`~asz_core.envsetting.Setting` of a server's seconds ``name``: above 0 up to 3600, else ``default``."""
    from .envsetting import Setting

    return Setting(name, "seconds", default, 0, 3600, what=what)


#: Seconds a connection has to send a request's complete headers (the view's default).
HEADER_TIMEOUT = 10.0
#: Seconds an idle keep-alive connection stays open (the view's default).
IDLE_TIMEOUT = 20.0


def raise_open_files() -> int:
    """Lift the soft limit on open files to the hard one (at most 65,536); return the soft limit in force."""
    try:
        import resource
    except ImportError:  # pragma: no cover - not on POSIX
        return 1024
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = 65536 if hard == resource.RLIM_INFINITY else min(hard, 65536)
    if soft != resource.RLIM_INFINITY and soft < want:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
            soft = want
        except (ValueError, OSError):
            pass
    return 65536 if soft == resource.RLIM_INFINITY else soft


def accept_batch(open_files: int) -> int:
    """How many connections the event loop accepts in one go (the listen backlog): 8 to 128, a sixteenth of the limit."""
    return max(8, min(128, open_files // 16))


def connection_cap(open_files: int) -> int:
    """The most connections kept open at once, 16 to 4,096.

    Half the open-files limit (the rest is for reading files), less three
    accept batches: the loop accepts a whole batch before the first of them is
    counted, and evicted connections close one loop turn later, so the limit
    is never reached and ``accept()`` never fails for want of a descriptor.
    """
    return max(16, min(4096, open_files // 2 - 3 * accept_batch(open_files)))


# --------------------------------------------------------------------------- what a web page cannot make a server answer

_LOOPBACK_NAMES = frozenset(("localhost", "localhost.", "ip6-localhost", "ip6-loopback"))
#: Why a request whose ``Host`` :func:`host_allowed` refuses is answered 421 (Misdirected Request).
MISDIRECTED = "this server answers only to loopback names and the address it listens on"
#: Why a request whose ``Origin`` :func:`origin_allowed` refuses is answered 403 (a web page's request).
FOREIGN_ORIGIN = ("a request from a web page (its Origin {origin} is not this server's own): refused, so that no page "
                  "a browser shows can send to it")
#: The media types a browser sends cross-site with no CORS preflight (Fetch standard, CORS-safelisted request-header).
_SIMPLE_TYPES = frozenset(("application/x-www-form-urlencoded", "multipart/form-data", "text/plain"))


def _split_host(value: str) -> str:
    """The host part of a ``Host`` value (``name``, ``name:port``, ``[v6]:port``), lower-cased; '' when malformed."""
    value = value.strip().lower()
    if value.startswith("["):
        end = value.find("]")
        return value[1:end] if end > 0 and (end + 1 == len(value) or value[end + 1] == ":") else ""
    if value.count(":") > 1:
        return value  # a bare IPv6 address without brackets is not a valid Host, but compare it as one
    return value.split(":", 1)[0]


def host_allowed(value: str | None, listen_host: str, local_addr: str | None = None) -> bool:
    """True when a ``Host`` header value may be answered.

    Allowed: ``localhost``, any loopback IP literal, ``listen_host`` itself,
    and, when the server listens on every address (``0.0.0.0``, ``::``), the
    IP literal of the local address the connection arrived at. A missing or
    malformed value is refused.
    """
    if not value:
        return False
    host = _split_host(value)
    if not host:
        return False
    if host in _LOOPBACK_NAMES or host == listen_host.strip("[]").lower():
        return True
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return False
    if ip.is_loopback:
        return True
    try:
        unspecified = ipaddress.ip_address(listen_host.strip("[]")).is_unspecified
    except ValueError:
        unspecified = False
    return unspecified and local_addr is not None and host == local_addr.lower()


def origin_allowed(origin: str | None, host: str | None) -> bool:
    """True when a request's ``Origin`` (None: absent, as every non-browser client sends it) is absent or is this
    server's own, ``http://`` + the request's ``Host`` (case-insensitive). ``null`` (a sandboxed or privacy-minded
    page) and any other site are refused."""
    if origin is None:
        return True
    return bool(host) and origin.strip().lower() == f"http://{host.strip().lower()}"


def refusal(host: str | None, origin: str | None, listen_host: str, local_addr: str | None = None, *,
            any_host: bool = False) -> tuple[int, str] | None:
    """None when a request may be answered, else ``(status, why)``: 421 and :data:`MISDIRECTED` when its ``Host``
    is not :func:`host_allowed` (``any_host``: not checked, for a receiver a token guards: a page cannot send the
    token), 403 and :data:`FOREIGN_ORIGIN` when its ``Origin`` is not :func:`origin_allowed`. The one check of
    ``asz receive``'s HTTP side and ``asz ingest langsmith`` (trial 34c F2, F6); ``asz view`` checks the Host alone."""
    if not any_host and not host_allowed(host, listen_host, local_addr):
        return 421, MISDIRECTED
    if not origin_allowed(origin, host):
        return 403, FOREIGN_ORIGIN.format(origin=origin)
    return None


def browser_simple(content_type: str | None) -> bool:
    """True when a request with this ``Content-Type`` (None: none sent) is one a browser sends to another site with
    no CORS preflight: none, ``text/plain``, ``application/x-www-form-urlencoded`` or ``multipart/form-data``."""
    if content_type is None:
        return True
    return content_type.split(";", 1)[0].strip().lower() in _SIMPLE_TYPES

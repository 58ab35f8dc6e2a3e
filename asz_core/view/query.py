"""Requests to ``asz view``: the strict query parser, the withheld names of one request, and API refusals.

Spec: seed 004 (Withholding). ``view.hide`` names what is withheld. Unless
``view.hide_override`` is on, any request carrying a ``hide`` parameter is
refused with 400; with it on, ``hide`` replaces ``view.hide`` for that
request. A name that is not a withholdable flag, any other key whose letters
alone spell ``hide`` (``Hide``, ``hide[]``, ``hide[0]``) and a query that does
not parse are refused with 400 on every ``/api/`` route.
"""

from __future__ import annotations

import re
from typing import Iterable, Sequence
from urllib.parse import parse_qsl

from ..sessiondata.model import WITHHOLDABLE

__all__ = ["QueryError", "ApiError", "parse_query", "hide_from_query", "known_params", "NUMBER"]

#: A seq or row as a request may give it: a decimal number of at most 18 digits.
NUMBER = re.compile(r"[0-9]{1,18}")
_BAD_PERCENT = re.compile(rb"%(?![0-9A-Fa-f]{2})")
_LETTERS = re.compile(r"[^A-Za-z]")
_SPACE = " \t\r\n\f\v\u00a0"


class QueryError(ValueError):
    """A refused query string (status 400); the message says why."""


class ApiError(Exception):
    """An API refusal: ``status`` (400, 403, 404, 409, 410 or 503) and ``message`` (the JSON body's ``error``);
    ``more``: further keys of the JSON body (an ambiguous id's ``matches``); ``code``: the body's stable ``code``
    (docs/view.md, Errors; None: the status's own, :data:`STATUS_CODES`); ``headers``: sent with the refusal
    (``Retry-After`` of a ``busy`` 503, :class:`~asz_core.view.at_once.AtOnce`)."""

    def __init__(self, status: int, message: str, more: dict | None = None, code: str | None = None,
                 headers: dict[str, str] | None = None):
        self.status = status
        self.message = message
        self.more = more or {}
        self.code = code
        self.headers = headers or {}
        super().__init__(f"{status}: {message}")


def parse_query(raw: bytes) -> list[tuple[str, str]]:
    """Decode a raw query string into (key, value) pairs, strictly.

    ``raw`` is the bytes after ``?`` (ASGI ``query_string``). Every field must
    be ``key=value`` with a non-empty key (``=`` may have nothing after it), percent escapes must be
    two hex digits and the decoded text UTF-8. Raises :class:`QueryError`
    otherwise, so nothing that does not parse reads as "no parameter"
    (seed 004, Withholding).
    """
    if not raw:
        return []
    if _BAD_PERCENT.search(raw):
        raise QueryError("the query does not parse: a % that is not followed by two hex digits")
    try:
        text = raw.decode("ascii")
    except UnicodeDecodeError:
        raise QueryError("the query does not parse: it holds bytes that are not ASCII") from None
    try:
        pairs = parse_qsl(text, keep_blank_values=True, strict_parsing=True, encoding="utf-8", errors="strict")
    except UnicodeDecodeError:  # said plainly, naming the field (trial 36a F5: Python's codec message was the answer)
        raise QueryError(f"the query does not parse: {_not_utf8(text)} %-encodes bytes that are not UTF-8 text "
                         "(encode the text as UTF-8, then %-encode those bytes)") from None
    except ValueError as exc:
        raise QueryError(f"the query does not parse: {exc}") from None
    if any(not k for k, _ in pairs):
        raise QueryError("the query does not parse: a field with no key")
    return pairs


def _not_utf8(text: str) -> str:
    """The first ``key=value`` field of the query ``text`` whose %-escapes do not decode as UTF-8, quoted as sent (cut
    to 60 characters), for :func:`parse_query`'s refusal."""
    from urllib.parse import unquote_to_bytes

    for field in text.split("&"):
        try:
            unquote_to_bytes(field.replace("+", " ")).decode("utf-8")
        except UnicodeDecodeError:
            return repr(field if len(field) <= 60 else field[:59] + "…")
    return "a field"


def known_params(pairs: Sequence[tuple[str, str]], known: Sequence[str], *, repeat: Sequence[str] = ()) -> dict[str, str]:
    """The query ``pairs`` of one ``/api/`` route as ``{key: value}``: the API's one rule for parameters (trial 26b, F3;
    trial 17b, F12: a parameter a route would ignore is refused, never dropped silently). ``known``: the route's own
    parameters (``hide`` is every route's, read by :func:`hide_from_query`, and never named); a key of ``repeat`` may
    come more than once (its last value is in the dict). Raises :class:`ApiError` 400 ``unknown parameter 'k' (known:
    a, b)`` (``(known: none)`` for a route that takes none) for any other key, ``give k at most once`` for a key
    given twice."""
    got: dict[str, str] = {}
    for k, v in pairs:
        if k == "hide":
            continue
        if k not in known:
            raise ApiError(400, f"unknown parameter {k!r} (known: {', '.join(p for p in known if p != 'hide') or 'none'})",
                           code="unknown_parameter")
        if k in got and k not in repeat:
            raise ApiError(400, f"give {k} at most once", code="repeated_parameter")
        got[k] = v
    return got


def query_window(got: dict[str, str]) -> tuple[object | None, int | None, int | None]:
    """``(zone, since, until)`` of one ``/api/`` route's query ``got`` (:func:`known_params`): ``tz`` an IANA zone name
    (a ``tzinfo``; None when not given: the server's zone), and ``since``/``until`` in unix ms read as ``asz ls`` and
    ``asz usage`` read ``--since``/``--until`` with ``--tz`` (:func:`~asz_core.view.match.parse_time`): a day form
    (``YYYY-MM-DD``, ``today``) or a local time is in ``tz``, else in the server's zone; an instant is itself. One
    reading for ``/api/conversations`` and ``/api/usage``, so a day means the same to both (trial 30b F1:
    ``/api/usage`` read ``since=2026-02-01&tz=America/Los_Angeles`` as the server's day). Raises :class:`ApiError` 400
    for a zone that names none, a time that does not read, or a ``since`` after the ``until``."""
    from .match import TimeError, time_window
    from .zone import zone_of

    zone = None
    if "tz" in got:
        try:
            zone = zone_of(got["tz"])
        except ValueError as exc:
            raise ApiError(400, f"tz: {exc}") from None
    try:
        since, until = time_window(got.get("since", ""), got.get("until", ""), zone, flag="")
    except TimeError as exc:
        raise ApiError(400, str(exc)) from None
    return zone, since, until


def hide_from_query(pairs: Sequence[tuple[str, str]], *, configured: Iterable[str], override: bool) -> tuple[str, ...]:
    """The withheld names for one request (seed 004, Withholding), in WITHHOLDABLE order.

    ``pairs`` come from :func:`parse_query`; ``configured`` is ``view.hide``;
    ``override`` is ``view.hide_override``. With no ``hide`` key the answer is
    ``configured``. Raises :class:`ApiError` 400 for: any other key whose
    letters alone spell ``hide`` in any case (``Hide``, ``hide[]``,
    ``hide[0]``) and a ``hide`` key while the override is off (code
    ``unknown_parameter``); a name that is not a withholdable flag
    (``bad_parameter``; docs/view.md, Errors). Values are comma lists, the key may repeat, spaces
    around names and empty entries are ignored, a repeated name counts once,
    and ``hide=`` withholds nothing.
    """
    asked: list[str] = []
    seen_key = False
    for key, value in pairs:
        if key != "hide":
            if _LETTERS.sub("", key).lower() == "hide":
                raise ApiError(400, f"the key {key!r} is not 'hide'; spell the parameter exactly hide",
                               code="unknown_parameter")
            continue
        seen_key = True
        for name in value.split(","):
            name = name.strip(_SPACE)
            if not name:
                continue
            if name not in WITHHOLDABLE:
                raise ApiError(400, f"{name!r} is not a flag a reader may withhold (known: {', '.join(WITHHOLDABLE)})",
                               code="bad_parameter")
            asked.append(name)
    if not seen_key:
        names = set(configured)
    elif not override:
        raise ApiError(400, "this instance does not take a hide parameter (view.hide_override is off); it withholds what "
                            "view.hide says", code="unknown_parameter")
    else:
        names = set(asked)
    return tuple(n for n in WITHHOLDABLE if n in names)

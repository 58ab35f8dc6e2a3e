"""Conversation and session naming for ``langsmith/1`` (origin-digest §5.4, conformance identity/ownership).

A LangSmith run belongs to a conversation named by its project and a thread
key read from the run's metadata. The session directory name is
``ls-<slug>-<digest>``:

* ``values`` are the scope's values in order (default scope ``[project,
  thread]``); ``project`` is the run's ``session_name``, ``thread`` the first
  of ``thread_keys`` (default ``thread_id``, ``session_id``,
  ``conversation_id``) whose metadata value is a non-empty string, and any
  other scope name is read from the metadata as a string ('' when absent);
* ``digest`` is the first 12 hex characters of the SHA-256 of the values,
  each written as ``<UTF-8 byte length>:<value>`` and concatenated, so two
  different value lists never share a digest by concatenation;
* ``slug`` is the values joined by ``-``, lower-cased, every run of
  characters outside ``[a-z0-9]`` made one ``-``, cut to 48 characters and
  stripped of ``-`` at both ends; an empty slug leaves ``ls-<digest>``.

A run without a thread key is "not supplied": :func:`conversation_values`
returns None and the caller names the session by the trace instead
(:func:`unsupplied_session`), so such runs are never merged.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any, Mapping, Sequence

__all__ = [
    "DEFAULT_THREAD_KEYS",
    "DEFAULT_SCOPE",
    "SLUG_MAX",
    "thread_value",
    "conversation_values",
    "session_name",
    "unsupplied_session",
]

#: Metadata keys read as the thread key, first non-empty string wins (§8.2 ``thread_keys``).
DEFAULT_THREAD_KEYS: tuple[str, ...] = ("thread_id", "session_id", "conversation_id")
#: What names a conversation, in order (§8.2 ``scope``).
DEFAULT_SCOPE: tuple[str, ...] = ("project", "thread")
#: Longest slug kept, in characters.
SLUG_MAX = 48

_NOT_SLUG = re.compile(r"[^a-z0-9]+")


def thread_value(metadata: Mapping[str, Any] | None, keys: Sequence[str] | None = None) -> str:
    """The thread key of a run: the first of ``keys`` whose value in ``metadata`` is a non-empty str, else ''."""
    if not isinstance(metadata, Mapping):
        return ""
    for k in keys or DEFAULT_THREAD_KEYS:
        v = metadata.get(k)
        if isinstance(v, str) and v:
            return v
    return ""


def conversation_values(
    project: str,
    metadata: Mapping[str, Any] | None,
    keys: Sequence[str] | None = None,
    scope: Sequence[str] | None = None,
) -> list[str] | None:
    """The scope values naming a run's conversation, or None when no thread key is supplied.

    ``project`` is the run's ``session_name`` ('' when absent). Scope names
    other than ``project`` and ``thread`` are read from ``metadata`` as
    strings ('' when absent or not a string).
    """
    thread = thread_value(metadata, keys)
    if not thread:
        return None
    md = metadata if isinstance(metadata, Mapping) else {}
    out = []
    for name in scope or DEFAULT_SCOPE:
        if name == "project":
            out.append(project or "")
        elif name == "thread":
            out.append(thread)
        else:
            v = md.get(name)
            out.append(v if isinstance(v, str) else "")
    return out


def session_name(values: Sequence[str]) -> str:
    """``ls-<slug>-<digest>`` for ``values`` (see the module docstring); always a safe directory name."""
    h = hashlib.sha256()
    for v in values:
        b = v.encode("utf-8", "surrogatepass")
        h.update(str(len(b)).encode() + b":" + b)
    digest = h.hexdigest()[:12]
    slug = _NOT_SLUG.sub("-", "-".join(values).lower())[:SLUG_MAX].strip("-")
    return f"ls-{slug}-{digest}" if slug else f"ls-{digest}"


def unsupplied_session(project: str, trace_id: str) -> str:
    """The session of a run whose conversation is not supplied: named by project and trace, never merged."""
    return session_name([project or "", "trace", trace_id])

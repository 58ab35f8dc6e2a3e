"""The ``asz.yaml`` keys of the ``langsmith-ingest`` entry (origin-digest §8.2), declared through ``asz_register_settings``.

::

    adapters:
      - name: langsmith-ingest
        listen: 127.0.0.1:1985            # HOST:PORT of the receiver ([v6]:PORT for IPv6)
        token: ""                         # the x-api-key the receiver requires; "" accepts any key
        thread_keys: [thread_id, session_id, conversation_id]
        scope: [project, thread]          # what names a conversation; must include thread
        provider_bodies: true             # land llm runs' inputs and outputs as provider bodies

Each check raises ValueError with the reason; the configuration error names
the file and ``adapters[i].<key>``.
"""

from __future__ import annotations

import re
from typing import Any, Mapping

from asz_core import Setting

from .naming import DEFAULT_SCOPE, DEFAULT_THREAD_KEYS

__all__ = ["SETTINGS", "DEFAULT_LISTEN", "option"]

#: Where the receiver listens when neither ``--listen`` nor ``listen`` says.
DEFAULT_LISTEN = "127.0.0.1:1985"


def _string(value: Any) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise ValueError(f"expected a string, got {type(value).__name__} {value!r}")
    return value


def _listen(value: Any) -> str:
    text = _string(value)
    if text and not re.fullmatch(r"\[?[^\s\[\]]*\]?:\d{1,5}", text):
        raise ValueError(f"expected HOST:PORT, got {text!r}")
    if text and int(text.rsplit(":", 1)[1]) > 65535:
        raise ValueError(f"the port must be 0..65535, got {text.rsplit(':', 1)[1]}")
    return text


def _strings(value: Any) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"expected a list of strings, got {value!r}")
    return [v for v in value if v]


def _thread_keys(value: Any) -> list[str]:
    keys = _strings(value)
    if not keys:
        raise ValueError("needs at least one metadata key")
    return keys


def _scope(value: Any) -> list[str]:
    keys = _strings(value)
    if "thread" not in keys:
        raise ValueError("must include thread")
    return keys


def _boolean(value: Any) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"expected true or false, got {value!r}")
    return value


#: The keys, in documentation order.
SETTINGS: tuple[Setting, ...] = (
    Setting("listen", "", _listen, "HOST:PORT the receiver binds ('' = 127.0.0.1:1985); [v6]:PORT for IPv6"),
    Setting("token", "", _string, "the x-api-key the receiver requires; '' accepts any key"),
    Setting("thread_keys", list(DEFAULT_THREAD_KEYS), _thread_keys, "run metadata keys that name a thread, tried in order; at least one"),
    Setting("scope", list(DEFAULT_SCOPE), _scope, "what names a conversation, in order (project, thread or a metadata key); must include thread"),
    Setting("provider_bodies", True, _boolean, "land run inputs and outputs as provider bodies"),
)


def option(options: Mapping[str, Any], key: str) -> Any:
    """``options[key]`` (an entry's checked keys), else the declared default of ``key``. Raises KeyError for an undeclared key."""
    if key in options:
        return options[key]
    for s in SETTINGS:
        if s.key == key:
            return s.default
    raise KeyError(key)

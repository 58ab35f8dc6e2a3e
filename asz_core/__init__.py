"""asz: Session Data (sd/1) and the tools around it. This module is the public API.

Adapters (built-in and third-party) import only what is listed in ``__all__``.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

# Public names and the module each lives in. They are imported on first use
# (PEP 562), so ``import asz_core`` stays cheap for the hook fast path.
_LAZY = {
    **dict.fromkeys(("VOCABULARY", "Adapter", "BodyInfo", "Capabilities", "Discovery", "FlagRule", "Setting", "Source", "Term",
                      "build_glossary", "link_outside", "os_error_text"),
                     "asz_core.plugins.adapter"),
    **dict.fromkeys(("SourceEntry", "source_entries"), "asz_core.plugins.sourcedir"),
    **dict.fromkeys(
        (
            "DEFAULT_MAX_DELTA_BYTES", "FILE_KINDS", "FLAGS", "PART_KINDS", "STATES", "WITHHOLDABLE", "Closing", "Dropped",
            "FieldError", "Header", "Part", "RawJSON", "Record", "SDError", "SDReader", "SDWriter", "Usage", "array_elements",
            "check_file", "compact", "object_members", "parse_instant", "read_file", "source_sha", "unknown_part", "value_span",
            "FROM_VALUES", "TRIGGERS", "VocabularyError", "check_vocabulary",
        ),
        "asz_core.sessiondata",
    ),
    "JSONSpanError": "asz_core.sessiondata.jsonbytes",
    "json_loads": ("asz_core.sessiondata.jsonbytes", "loads"),
    "nesting_depth": "asz_core.sessiondata.jsonbytes",
    **dict.fromkeys(("loads_source", "settle_surrogates"), "asz_core.sessiondata.surrogates"),
    # issue 10: provider bodies (seed 000, Provider bodies)
    **dict.fromkeys(("BodyError", "BodyMeta", "MissingReference", "TooLarge"), "asz_core.sessiondata.providerbody"),
    "ProviderSession": ("asz_core.sessiondata.providerbody", "Session"),
}


def __getattr__(name: str) -> Any:
    if name == "hookimpl":
        import pluggy

        value = pluggy.HookimplMarker("asz")
    elif name in _LAZY:
        target = _LAZY[name]
        module, attr = target if isinstance(target, tuple) else (target, name)
        value = getattr(importlib.import_module(module), attr)
    else:
        raise AttributeError(f"module 'asz_core' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


__all__ = [
    "__version__",
    "hookimpl",
    "Adapter",
    "BodyInfo",
    "Setting",
    "Capabilities",
    "Discovery",
    "os_error_text",
    "link_outside",
    "SourceEntry",
    "source_entries",
    "FlagRule",
    "Source",
    "Term",
    "VOCABULARY",
    "build_glossary",
    "DEFAULT_MAX_DELTA_BYTES",
    "FILE_KINDS",
    "FLAGS",
    "PART_KINDS",
    "STATES",
    "FROM_VALUES",
    "TRIGGERS",
    "VocabularyError",
    "check_vocabulary",
    "WITHHOLDABLE",
    "Closing",
    "Dropped",
    "FieldError",
    "Header",
    "Part",
    "RawJSON",
    "Record",
    "SDError",
    "SDReader",
    "SDWriter",
    "Usage",
    "array_elements",
    "check_file",
    "compact",
    "object_members",
    "parse_instant",
    "read_file",
    "source_sha",
    "unknown_part",
    "value_span",
    "JSONSpanError",
    "json_loads",
    "loads_source",
    "settle_surrogates",
    "BodyError",
    "BodyMeta",
    "MissingReference",
    "TooLarge",
    "ProviderSession",
]

"""asz: Session Data (sd/1) and the tools around it. This module is the public API.

Adapters (built-in and third-party) import only what is listed in ``__all__``.
"""

from __future__ import annotations

import pluggy

from .plugins.adapter import VOCABULARY, Adapter, Capabilities, Discovery, FlagRule, Source, Term
from .sessiondata import (
    DEFAULT_MAX_DELTA_BYTES,
    FILE_KINDS,
    FLAGS,
    PART_KINDS,
    STATES,
    WITHHOLDABLE,
    Closing,
    Dropped,
    FieldError,
    Header,
    Part,
    RawJSON,
    Record,
    SDError,
    SDReader,
    SDWriter,
    Usage,
    array_elements,
    check_file,
    compact,
    object_members,
    parse_instant,
    read_file,
    source_sha,
    unknown_part,
    value_span,
)
from .sessiondata.jsonbytes import JSONSpanError, loads as json_loads
from .providerbody import BodyError, BodyMeta, MissingReference, TooLarge, Session as ProviderSession  # issue 10

__version__ = "0.1.0"

#: Marker for hook implementations: ``@hookimpl def asz_register_adapters(): ...``
hookimpl = pluggy.HookimplMarker("asz")

__all__ = [
    "__version__",
    "hookimpl",
    "Adapter",
    "Capabilities",
    "Discovery",
    "FlagRule",
    "Source",
    "Term",
    "VOCABULARY",
    "DEFAULT_MAX_DELTA_BYTES",
    "FILE_KINDS",
    "FLAGS",
    "PART_KINDS",
    "STATES",
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
    "BodyError",
    "BodyMeta",
    "MissingReference",
    "TooLarge",
    "ProviderSession",
]

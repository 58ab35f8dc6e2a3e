"""Session Data, schema sd/1: model, codec, writer, reader and validator (seed 000).

The public names below are imported on first use (PEP 562), so importing one
submodule (``asz_core.sessiondata.times``) does not load the codec, the writer
and the reader with it: ``asz view`` answers before any of them is needed.
"""

from __future__ import annotations

from ..lazyload import lazy_getattr

_LAZY = {
    **dict.fromkeys(("FieldError", "decode_header", "decode_record", "encode_header", "encode_record", "encode_value", "usage_object"), "codec"),
    **dict.fromkeys(("RawJSON", "array_elements", "compact", "member_source", "object_members", "value_span"), "jsonbytes"),
    **dict.fromkeys(("FILE_KINDS", "FLAGS", "KIND_PREFIX", "PART_KINDS", "STATES", "WITHHOLDABLE", "Closing", "Dropped", "Header",
                     "Part", "Record", "Usage", "source_sha", "unknown_part", "MEMBER_PART", "member_part", "is_member_part", "COMPANION_WHAT", "companion_file_name",
                     "companion_path", "CUT_DATA_WHAT", "cut_data_bytes"), "model"),
    **dict.fromkeys(("FileCheck", "SDError", "SDReader", "check_file", "read_file"), "reader"),
    **dict.fromkeys(("format_rfc3339", "format_stamp", "instant_ms", "parse_instant"), "times"),
    **dict.fromkeys(("time_as_written", "untimed", "untimed_at", "untimed_said"), "untimed"),
    **dict.fromkeys(("FROM_VALUES", "TRIGGERS"), "vocabulary"),
    "mcp_split": "mcpname",
    **dict.fromkeys(("BOM", "BOM_WHAT", "BOM_WHY", "BOM_WHY_LINE", "past_bom"), "bom"),
    **dict.fromkeys(("DEFAULT_MAX_DELTA_BYTES", "LandedFile", "SDWriter", "VocabularyError", "check_vocabulary", "encoded_size", "encode_measured",
                     "shrink_record"), "writer"),
}

__all__ = sorted(_LAZY)


__getattr__ = lazy_getattr(__name__, _LAZY)

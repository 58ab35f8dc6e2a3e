"""Session Data, schema sd/1: model, codec, writer, reader and validator (seed 000)."""

from .codec import FieldError, decode_header, decode_record, encode_header, encode_record, encode_value
from .jsonbytes import RawJSON, array_elements, compact, object_members, value_span
from .model import (
    FILE_KINDS,
    FLAGS,
    KIND_PREFIX,
    PART_KINDS,
    STATES,
    WITHHOLDABLE,
    Closing,
    Dropped,
    Header,
    Part,
    Record,
    Usage,
    source_sha,
    unknown_part,
)
from .reader import FileCheck, SDError, SDReader, check_file, read_file
from .times import format_rfc3339, format_stamp, instant_ms, parse_instant
from .vocabulary import FROM_VALUES, TRIGGERS
from .writer import DEFAULT_MAX_DELTA_BYTES, LandedFile, SDWriter, VocabularyError, check_vocabulary, encoded_size, shrink_record

__all__ = [name for name in dir() if not name.startswith("_")]

"""The storage root: layout, cursors, locks and landing (origin-digest §2)."""

from .cursor import AppendCursor, SnapshotCursor, read_cursor, write_cursor
from .layout import DEFAULT_ROOT, LandedName, cursor_path, kind_dir, landed_files, landed_name, parse_landed_name, session_dirs

__all__ = [
    "AppendCursor",
    "SnapshotCursor",
    "read_cursor",
    "write_cursor",
    "DEFAULT_ROOT",
    "LandedName",
    "cursor_path",
    "kind_dir",
    "landed_files",
    "landed_name",
    "parse_landed_name",
    "session_dirs",
]

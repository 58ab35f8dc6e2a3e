"""A real collect pass into a root and the records it landed: helpers of the conformance kit that need no pytest."""

from __future__ import annotations

from pathlib import Path

from ..plugins.adapter import Adapter
from ..sessiondata import SDReader

__all__ = ["collect_once", "landed_records"]


def collect_once(root: Path, adapter: Adapter, source_root: Path, *, max_delta_bytes: int | None = None, jobs: int = 1,
                 stamp_ns: int | None = None):
    """Run one real collect pass of ``adapter`` over ``source_root`` into ``root``; returns the pass counters.

    ``jobs`` processes land sessions at once (``asz collect --jobs``);
    ``stamp_ns`` fixes the pass stamp (ns, UTC) so two passes can be compared
    byte for byte. Raises AssertionError when the pass reports an error or a conflict.
    """
    import io

    from ..collect.collector import CollectOptions, Collector, Report
    from ..sessiondata import DEFAULT_MAX_DELTA_BYTES
    from ..storage.root import collector_lock

    opts = CollectOptions(fsync=False, max_delta_bytes=max_delta_bytes or DEFAULT_MAX_DELTA_BYTES, jobs=jobs, stamp_ns=stamp_ns)
    told = io.StringIO()
    with collector_lock(root, timeout=10.0):
        counters = Collector(root, adapter, source_root, options=opts, report=Report(told)).run_pass()
    if counters.errors or counters.conflicts:
        raise AssertionError(f"collect of {source_root} reported: {counters.summary()}\n{told.getvalue()}")
    return counters


def landed_records(root: Path):
    """Yield ``(path, header, row, record)`` for every landed record of a root, in seq order per session."""
    from ..storage.layout import landed_files, session_dirs

    for sdir in session_dirs(root):
        for _, path in landed_files(sdir):
            r = SDReader(path)
            for row, rec in r:
                yield path, r.header, row, rec

"""A real collect pass into a root and the records it landed: helpers of the conformance kit that need no pytest."""

from __future__ import annotations

from pathlib import Path

from ..plugins.adapter import Adapter
from ..sessiondata import SDReader

__all__ = ["SamplesRoot", "collect_once", "landed_records", "parsed", "views_of"]


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


#: What a check needing the samples parsed says when the parse refused a session (its problems, what it wrote).
PARSE_SAID = "parse of the samples reported: {}\n{}"


def parsed(root: Path) -> tuple[list[str], str]:
    """Parse every session of ``root`` (:func:`asz_core.flow.parse.parse_root`): ``(problems, said)``, the refused
    sessions (``<session>: <why>``) and what the parse wrote to its error stream."""
    import io

    from ..flow.parse import parse_root

    told = io.StringIO()
    return parse_root(root, err=told).problems, told.getvalue()


def views_of(root: Path) -> dict[str, dict]:
    """Each conversation of a parsed ``root`` -> its asz.view document (:func:`asz_core.view.build_view`)."""
    from ..view import build_view, list_conversations

    return {conv: build_view(root, conv) for conv in list_conversations(root)}


class SamplesRoot:
    """One collect pass over a copy of the samples into a storage root, parsed at once (as ``asz collect`` does after
    landing), made once for the checks that only read it (the conformance kit's class-scoped ``samples_root``).

    ``source_root`` is the copy (a folder the caller made), ``root`` the storage root, ``counters`` the pass counters;
    ``parse_problems`` the parse's refused sessions (``<session>: <why>``, :attr:`~asz_core.flow.parse.ParseReport.problems`)
    and ``parse_said`` what it wrote to its error stream. :meth:`views` builds each conversation's asz.view document
    once. Raises AssertionError when the pass reports an error or a conflict (:func:`collect_once`); a pass that lands
    nothing is the caller's to judge (``counters.landed``), and then no parse is run.
    """

    def __init__(self, source_root: Path, root: Path, adapter: Adapter) -> None:
        self.source_root, self.root = source_root, root
        self.counters = collect_once(root, adapter, source_root)
        self.parse_problems, self.parse_said = parsed(root) if self.counters.landed else ([], "")
        self._views: dict[str, dict] | None = None

    def parsed_clean(self) -> None:
        """Raise AssertionError naming the parse's problems and what it said, when it refused any session."""
        assert not self.parse_problems, PARSE_SAID.format(self.parse_problems, self.parse_said)

    def views(self) -> dict[str, dict]:
        """Each conversation of the root -> its asz.view document (:func:`asz_core.view.build_view`), built once."""
        if self._views is None:
            self._views = views_of(self.root)
        return self._views

"""A record made to fit ``max_delta_bytes`` as it lands (seed 000, Too large to land; trial 24b F1): encoded whole
when it fits the room a landed file leaves it, else shrunk, counted and warned of."""

from __future__ import annotations

import attrs

from ..plugins.adapter import Source
from ..sessiondata import Record, encode_measured, format_rfc3339, shrink_record
from ..sessiondata.codec import encode_header, encode_record
from ..sessiondata.slim import slim_of_record
from ..sessiondata.writer import CLOSING_MAX

__all__ = ["CLOSING_MAX", "Fit", "shrunk_warning"]


def _lost_part(i: int, p, whole) -> str:
    """``part N KIND (BYTES bytes, sha256 HEX…)`` of a part taken out, saying what its sha256 covers when that is not its
    text (trial 31b F7: a reader holding the source could not match it): seed 000, Too large to land, gives the part the
    SHA-256 of what was taken out first, its data (compact JSON as landed: Claude Code's ``toolUseResult`` beside a
    tool result) when it had any, and its text as UTF-8 only when it had no data; the part as it was (``whole``) tells
    which, and a part whose text went too gets its text's SHA-256 beside it (what a reader hashes from the source)."""
    from ..sessiondata.codec import encode_value
    from ..sessiondata.writer import text_sha256

    said = f"part {i + 1} {p.k} ({p.bytes:,} bytes{', its text kept' if p.state == 'truncated' else ''}, " \
           f"sha256 {p.sha256 or 'not recorded'}"
    if whole is not None and whole.data is not None and whole.k != "unknown" and p.sha256:
        said += f" of its data: the runtime's structured copy, compact JSON as landed, {len(encode_value(whole.data)):,} bytes"
        try:
            if p.state == "too_large" and whole.text:
                said += f"; its text: {len(whole.text.encode('utf-8')):,} bytes, sha256 {text_sha256(whole.text)} as UTF-8"
        except UnicodeEncodeError:  # a lone surrogate the source escaped: no UTF-8 to hash
            said += "; its text holds a lone surrogate, which has no UTF-8"
    return said + ")"


def shrunk_warning(small: Record, size: int, landed: int, max_delta: int, budget: int, whole: Record | None = None) -> str:
    """What a ``warning:`` says of a record of ``size`` bytes landed as ``small`` (``landed`` bytes) to fit ``budget``
    under ``max_delta`` (``max_delta_bytes``; seed 000, Too large to land; trial 24b F1): its line and where its bytes
    are in the source, each part not kept with its size and sha256 (what a reader can match another copy against),
    that the whole line is kept only by its source, that this record stays cut (landed files are never rewritten:
    collecting again lands nothing of it, ``asz sources --reland`` rebuilds the same cut file) and the setting that
    lands such a record whole when it lands later (a line not landed yet, or the session collected into another
    root while its source is there). ``whole``: the record as it was, which says what each part's sha256 covers
    (:func:`_lost_part`)."""
    was = whole.parts if whole is not None and len(whole.parts) == len(small.parts) else [None] * len(small.parts)
    lost = [_lost_part(i, p, was[i]) for i, p in enumerate(small.parts) if p.state in ("too_large", "truncated")]
    # the file's header and closing line take max_delta - budget, a few bytes more with another landing time
    need = -(-(size + max_delta - budget + 16) // 1024) * 1024
    if small.ord:
        where = f"line {small.ord}"
        source = (f"line {small.ord} (bytes {small.off:,} to {small.off + small.bytes:,}) of this source file"
                  if small.bytes else f"line {small.ord} of this source file")
    else:
        where, source = "the document", "this source file"
    return (f"{where} is {size:,} bytes once landed, more than max_delta_bytes ({max_delta:,}) allows: it landed alone "
            f"as {landed:,} bytes; not kept: {', '.join(lost) or 'nothing'} (the record keeps their size and sha256; "
            f"readers show each in its place with them); the whole of it is in {source} only while that file exists: "
            "copy the file to keep it; this record stays cut in this root (landed files are never rewritten, so "
            "collecting again with a larger budget lands nothing of it, and asz sources --reland rebuilds the same cut "
            "file); set adapters[].collector.max_delta_bytes (or collect --max-delta-bytes) to "
            f"{need:,} or more to land such a record whole when it lands later: a line not landed yet, or this "
            "session collected into a new root while its source file exists (every receiver then stores up to that "
            "at once)")


class Fit:
    """A mixin of :class:`~asz_core.collect.session_pass.SessionPass` (its ``c`` counters, ``report``, ``opts``,
    ``header`` and ``stamp_ns``): a record encoded to fit the room a landed file leaves it."""

    def encode_fit(self, s: Source, rec: Record, budget: int) -> bytes:
        """Encode a record; when it cannot fit ``budget`` (bytes, newline included) encode a shrunk copy instead."""
        enc, size = encode_measured(rec, budget)  # encoded once; a long text is measured a piece at a time
        return enc if enc is not None else self.encode_shrunk(s, rec, budget, size)

    def encode_shrunk(self, s: Source, rec: Record, budget: int, size: int) -> bytes:
        """Encode ``rec`` (``size`` bytes once written, newline included) made smaller to fit ``budget``; count it in
        ``shrunk`` and warn on the report: the source file and line, what was not kept and the setting that keeps it
        (seed 000, Too large to land; the pass still succeeds)."""
        self.c.shrunk += 1
        small = shrink_record(rec, budget, size=size)
        enc = encode_record(small)
        self.report.warning(s.path, shrunk_warning(small, size, len(enc) + 1, self.opts.max_delta_bytes, budget, rec))
        return enc

    def overhead(self, s: Source) -> int:
        hdr = attrs.evolve(self.header(s), seq=10**9, at=format_rfc3339(self.stamp_ns))
        return len(encode_header(hdr)) + 1 + CLOSING_MAX

    def slims_of(self, rec: Record, shrunk: int) -> list[dict | None] | None:
        """``[slim_of_record(rec)]`` (:func:`~asz_core.sessiondata.slim.slim_of_record`) when the pass carries what it
        lands to the index (``after_landing``) and ``rec`` landed whole (``shrunk``: the count of shrunk records before it was encoded;
        a shrunk record's file is read by the index); else None."""
        return [slim_of_record(rec)] if self.opts.after_landing is not None and self.c.shrunk == shrunk else None

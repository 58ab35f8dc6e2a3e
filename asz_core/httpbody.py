"""One reader of an HTTP request's body for the servers asz runs: its framing and its content coding, under one limit
(trial 42a F1; docs/push.md, The receiver's limits).

``asz receive`` answers HTTP/1.1 on :mod:`http.server` (:mod:`asz_core.export.receive_http`), which frames no body:
it reads one with :func:`read_body`. ``asz ingest langsmith`` runs on uvicorn, which frames the body itself: it feeds
what arrives to a :class:`Decoded`. Both so decode and limit a body the same way.

Framing (RFC 9112 §6), :func:`pieces`:

- ``Content-Length``: ASCII digits (several, all equal, count as one); a body over the limit is 413 unread (a number
  of more than 19 digits, leading zeros aside, too);
- ``Transfer-Encoding: chunked``: each chunk's size is counted as it arrives, and a chunk that would take the body
  over the limit is 413 before a byte of it is read; a size line that is no hexadecimal number ended by CRLF, a chunk
  not followed by CRLF, a chunk-size or trailer line over :data:`MAX_LINE` bytes or trailers over :data:`MAX_TRAILERS`
  bytes are 400; the trailers are read and dropped;
- both headers (a request-smuggling shape, RFC 9112 §6.3), chunked not the last transfer coding, or
  ``Transfer-Encoding`` in an HTTP/1.0 request: 400; a transfer coding other than chunked: 501;
- neither header: no body (``b""``).

Content coding (RFC 9110 §8.4), :class:`Decoded`: none or ``identity``, ``gzip`` (``x-gzip``, its alias; OTLP/HTTP
servers must read it) and ``zstd`` when the ``zstandard`` module is importable; any other is 415 before the body is
read. The limit holds for the bytes received and the bytes decoded (a gzip bomb is 413): gzip is decoded as it
arrives, never past the limit; a zstd body is held (at most the limit) and decoded once whole. A body that does not
decode, is cut short or has bytes after its stream is 400.

Every refusal raises :class:`BodyRefused` (``status``, the reason as its text, ``size``: the bytes known when refused);
the caller answers it and closes the connection, as nothing after the refusal was read. A client that leaves before its
body ended raises :class:`BodyCut`. The body of a request refused before it is read, past the bytes kept of it, raises
:class:`BodyLeft`: its rest is not read, and the caller answers and closes the connection too.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator
from typing import BinaryIO, Protocol

__all__ = ["BodyRefused", "BodyCut", "BodyLeft", "Decoded", "coding", "pieces", "read_body", "size_words", "zstd_available",
           "MAX_LINE", "MAX_TRAILERS", "BOTH_FRAMINGS"]

#: The longest chunk-size or trailer line taken, in bytes (CRLF included).
MAX_LINE = 4096
#: The most bytes of trailers taken after the last chunk.
MAX_TRAILERS = 16384
#: Why a request with both ``Transfer-Encoding`` and ``Content-Length`` is refused (RFC 9112 6.3: a request-smuggling
#: shape; the connection is closed after the answer). The page server (uvicorn) refuses it in these words too.
BOTH_FRAMINGS = "both Transfer-Encoding and Content-Length given (RFC 9112 6.3)"
_PIECE = 1 << 16
_HEX = frozenset(b"0123456789abcdefABCDEF")


class BodyRefused(Exception):
    """A body refused: ``status`` (400, 413, 415, 501), the reason (``str(exc)``), ``size`` the bytes known then."""

    def __init__(self, status: int, why: str, size: int = 0):
        super().__init__(why)
        self.status = status
        self.size = size


class BodyCut(Exception):
    """The client ended the connection (or stopped sending) before its request's body ended."""


class BodyLeft(Exception):
    """The body of a request refused before it was read passes the bytes kept of it (:func:`read_body`'s ``hold``):
    ``size`` the bytes read when it passed them; the rest is left unread (no request is read after it)."""

    def __init__(self, hold: int, size: int):
        super().__init__(f"the body passes the {hold} bytes read of it ({size} read)")
        self.size = size


class Headers(Protocol):
    """What is read of a request's headers: :class:`email.message.Message` (http.server) has it."""

    def get_all(self, name: str, failobj=None) -> list[str] | None: ...  # noqa: D102


def zstd_available() -> bool:
    """True when the ``zstandard`` module can be imported (then zstd bodies are read)."""
    try:
        import zstandard  # noqa: F401
    except ImportError:
        return False
    return True


def size_words(n: int, short: bool = False) -> str:
    """``n`` bytes as a limit is said: ``1073741824 (1 GiB)``, ``1048576 (1 MiB)``, or the bare number; ``short``:
    ``1 GiB``, ``1 MiB`` or ``N bytes``."""
    for shift, unit in ((30, "GiB"), (20, "MiB")):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift} {unit}" if short else f"{n} ({n >> shift} {unit})"
    return f"{n} bytes" if short else str(n)


def coding(value: str | None) -> str:
    """The content coding a ``Content-Encoding`` value names: ``identity`` (none given), ``gzip`` or ``zstd``;
    BodyRefused 415 for any other (a list of codings too), or zstd without the ``zstandard`` module."""
    enc = (value or "").strip().lower()
    if enc in ("", "identity"):
        return "identity"
    if enc in ("gzip", "x-gzip"):
        return "gzip"
    if enc == "zstd":
        if not zstd_available():
            raise BodyRefused(415, "zstd bodies are not read here (zstandard is not installed)")
        return "zstd"
    raise BodyRefused(415, f"content encoding {enc!r} is not spoken")


class Decoded:
    """A body decoded as its pieces arrive (:meth:`feed`), whole at :meth:`end`: never more than ``limit`` bytes
    received nor decoded (BodyRefused 413); ``encoding``: the ``Content-Encoding`` value (:func:`coding`, 415)."""

    def __init__(self, encoding: str | None, limit: int):
        self.coding = coding(encoding)
        self.limit = limit
        self.received = 0
        self._out: list[bytes] = []
        self._size = 0
        self._z = zlib.decompressobj(16 + zlib.MAX_WBITS) if self.coding == "gzip" else None

    def _add(self, data: bytes) -> None:
        self._size += len(data)
        if self._size > self.limit:
            raise BodyRefused(413, f"decompressed body is over the limit of {self.limit} bytes", self._size)
        if data:
            self._out.append(data)

    def feed(self, piece: bytes) -> None:
        """Take the next bytes received (BodyRefused 413 past the limit, 400 for gzip that does not decode)."""
        self.received += len(piece)
        if self.received > self.limit:
            raise BodyRefused(413, f"body is over the limit of {self.limit} bytes", self.received)
        if self._z is None:  # identity, or zstd held whole (at most the limit) until end()
            self._out.append(piece)
            self._size += len(piece) if self.coding == "identity" else 0
            return
        data = piece
        while data:
            if self._z.eof:  # the next member: a gzip body is a series of members (RFC 1952 2.2), as gzip -c a b writes
                self._z = zlib.decompressobj(16 + zlib.MAX_WBITS)
            try:
                out = self._z.decompress(data, self.limit + 1 - self._size)
            except zlib.error as exc:  # bytes after a member that start no other member among them
                raise BodyRefused(400, f"gzip body does not decompress: {exc}") from None
            self._add(out)
            if self._z.eof:
                data = self._z.unused_data
                continue
            if not out and self._z.unconsumed_tail == data:  # no progress: cannot happen with max_length >= 1
                raise BodyRefused(400, "gzip body does not decompress")
            data = self._z.unconsumed_tail

    def end(self) -> bytes:
        """The decoded body (BodyRefused 400 when cut short, 413 past the limit). No byte received: ``b""``."""
        if not self.received:
            return b""
        if self._z is not None and not self._z.eof:
            raise BodyRefused(400, "truncated gzip body")
        if self.coding == "zstd":
            return _unzstd(b"".join(self._out), self.limit)
        return b"".join(self._out)


def _unzstd(body: bytes, limit: int) -> bytes:
    """A zstd frame decoded. A frame may state its own content size, which decompress() would trust: it is first read
    as a stream, never past the limit, then, its size known to fit, decoded once more to learn whether it is whole."""
    import zstandard

    try:
        size = 0
        with zstandard.ZstdDecompressor().stream_reader(body) as r:
            while chunk := r.read(min(1 << 20, limit + 1 - size)):
                size += len(chunk)
                if size > limit:
                    raise BodyRefused(413, f"decompressed body is over the limit of {limit} bytes", size)
        d = zstandard.ZstdDecompressor().decompressobj()
        out = d.decompress(body)
    except zstandard.ZstdError as exc:
        raise BodyRefused(400, f"zstd body does not decompress: {exc}") from None
    if not d.eof:
        raise BodyRefused(400, "truncated zstd body")
    if d.unused_data:
        raise BodyRefused(400, f"{len(d.unused_data)} bytes after the zstd frame")
    return out


def _joined(headers: Headers, name: str) -> list[str]:
    """Every comma-separated element of the header ``name`` over all its lines, stripped (empty ones dropped)."""
    return [x.strip() for v in headers.get_all(name) or [] for x in v.split(",") if x.strip()]


def _exactly(rfile: BinaryIO, n: int, piece_size: int = _PIECE) -> Iterator[bytes]:
    while n:
        piece = rfile.read(min(piece_size, n))
        if not piece:
            raise BodyCut()
        n -= len(piece)
        yield piece


def _line(rfile: BinaryIO, what: str) -> bytes:
    """One CRLF-ended line (CRLF taken off): BodyCut at the end of the stream, 400 over MAX_LINE or a bare LF."""
    line = rfile.readline(MAX_LINE + 1)
    if not line.endswith(b"\n"):
        if len(line) > MAX_LINE:
            raise BodyRefused(400, f"a {what} line over {MAX_LINE} bytes")
        raise BodyCut()
    if not line.endswith(b"\r\n"):
        raise BodyRefused(400, f"a {what} line ended by LF without CR")
    return line[:-2]


def _chunked(rfile: BinaryIO, limit: int) -> Iterator[bytes]:
    got = 0
    while True:
        line = _line(rfile, "chunk size")
        digits = line.split(b";", 1)[0].rstrip(b" \t")  # a chunk extension, after ';', is read and dropped
        if not digits or len(digits) > 16 or not set(digits) <= _HEX:
            raise BodyRefused(400, f"chunk size {line[:40]!r} is no hexadecimal number")
        if not (size := int(digits, 16)):
            break
        if got + size > limit:
            raise BodyRefused(413, f"the chunked body passes the {size_words(limit)} a request may hold "
                                   f"(a chunk of {size} bytes after {got})", got + size)
        yield from _exactly(rfile, size)
        got += size
        end = rfile.read(2)
        if len(end) < 2:
            raise BodyCut()
        if end != b"\r\n":
            raise BodyRefused(400, f"a chunk of {size} bytes is not followed by CRLF")
    taken = 0
    while line := _line(rfile, "trailer"):
        taken += len(line) + 2
        if taken > MAX_TRAILERS:
            raise BodyRefused(400, f"trailers over {MAX_TRAILERS} bytes")


def _well_formed(headers: Headers) -> None:
    """400 for a header section :mod:`http.client` did not read whole: a line that is no ``name: value`` (a space
    before the colon: what came after it was left unread) or a value folded over lines (RFC 9112 5.2), where a proxy
    in front could have read a framing header this server did not."""
    if getattr(headers, "defects", None) or (getattr(headers, "get_payload", None) and headers.get_payload()):
        raise BodyRefused(400, "a header line that is no 'name: value'")
    if any("\n" in str(v) or "\r" in str(v) for v in getattr(headers, "values", list)()):
        raise BodyRefused(400, "a header value folded over lines")


def pieces(rfile: BinaryIO, headers: Headers, version: str, limit: int, whole: bool = False) -> Iterator[bytes]:
    """The body's bytes as they arrive, as its headers frame it (module doc): BodyRefused (400, 413, 501) for a body
    that cannot be read or is over ``limit`` bytes, checked before the first byte is read; BodyCut when its client
    left first. ``version``: the request's, ``HTTP/1.1``. ``whole``: a ``Content-Length`` body in one read (one
    buffer of its size, where pieces joined would take two); else 64 KiB pieces, and chunks in pieces of that size."""
    _well_formed(headers)
    codings = [x.lower() for x in _joined(headers, "Transfer-Encoding")]
    lengths = set(_joined(headers, "Content-Length"))
    if headers.get_all("Transfer-Encoding"):
        if lengths:
            raise BodyRefused(400, BOTH_FRAMINGS)
        if version == "HTTP/1.0":
            raise BodyRefused(400, "Transfer-Encoding in an HTTP/1.0 request")
        if not codings or codings[-1] != "chunked":
            raise BodyRefused(400, f"Transfer-Encoding {', '.join(codings)!r} does not end with chunked")
        if len(codings) > 1:
            raise BodyRefused(501, f"Transfer-Encoding {', '.join(codings)!r}: only chunked is read")
        return _chunked(rfile, limit)
    if len(lengths) > 1:
        raise BodyRefused(400, f"Content-Length given {len(lengths)} different values")
    text = lengths.pop() if lengths else "0"
    if not (text.isascii() and text.isdigit()):  # '²' is a digit to str.isdigit, not to int()
        raise BodyRefused(400, "Content-Length must be a whole number of bytes")
    if len(digits := text.lstrip("0")) > 19:  # past any limit, and int() refuses over 4,300 digits (ValueError)
        raise BodyRefused(413, f"the body is a {len(digits)}-digit number of bytes, over the {size_words(limit)} a "
                               "request may hold")
    if (length := int(digits or "0")) > limit:
        raise BodyRefused(413, f"the body is {length} bytes, over the {size_words(limit)} a request may hold", length)
    return _exactly(rfile, length, length if whole else _PIECE)


def read_body(rfile: BinaryIO, headers: Headers, version: str, limit: int, hold: int | None = None) -> bytes:
    """The request's body, framed (:func:`pieces`) and decoded (:class:`Decoded`), both within ``limit`` bytes.

    ``hold``: the body of a request refused before it is read (no token): read while it is at most ``hold`` bytes
    received and given decoded (within ``hold`` bytes), ``b""`` when it does not decode; BodyLeft as soon as it passes
    ``hold`` bytes, the rest unread (an unauthenticated sender no longer makes the receiver read up to ``limit``; the
    caller closes the connection lingering, ``receive_http.linger``). The framing's refusals still raise (BodyRefused,
    BodyCut), as does an unknown coding (415)."""
    dec = Decoded(_joined_value(headers, "Content-Encoding"), limit if hold is None else hold)
    body = pieces(rfile, headers, version, limit, whole=hold is None and dec.coding == "identity")
    if hold is None:
        for piece in body:
            dec.feed(piece)
        return dec.end()
    held: list[bytes] = []
    size = 0
    for piece in body:
        size += len(piece)
        if size > hold:
            raise BodyLeft(hold, size)
        held.append(piece)
    if not held:
        return b""
    try:
        for piece in held:
            dec.feed(piece)
        return dec.end()
    except BodyRefused:
        return b""


def _joined_value(headers: Headers, name: str) -> str | None:
    values = headers.get_all(name)
    return ", ".join(values) if values else None

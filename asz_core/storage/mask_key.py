"""The key a storage root keys its exports' mask digests with (trial 37a F1; docs/verify.md, "A masked export").

A masked export's manifest said, of each mask, the first 12 hex digits of the credential's own SHA-256
(``fingerprint``) and the SHA-256 of each unmasked text it was masked in (``texts_sha256``). Anyone holding the copy
could test guesses of a password a person chose against them offline (the trial's 75 guesses found
``hunter2-Trial37a-Pa55`` behind ``***``). Both are now HMAC-SHA256 under a key only the root holds: 32 random bytes,
64 hex digits in ``<root>/_export/mask.key`` (:data:`MASK_KEY_FILE`, mode ``0600``), made once by the first export
that masks (or ``asz secrets``, whose fingerprints are keyed alike) and never replaced, so a guess can be tested only by someone who holds the root, who holds the unmasked
text already. The manifest names the key by :func:`key_id` (16 hex digits of a SHA-256 over it, which tells nothing
of the key), so the root's holder knows whether its root made the copy.

- :func:`keyed_mark`: a mask's ``fingerprint`` keyed: the first 12 hex digits of HMAC-SHA256(key, ``credential\\0`` +
  the credential's unkeyed fingerprint), the same for every place of one credential in every export of the root;
- :func:`keyed_text`: a ``texts_sha256`` entry keyed: the 64 hex digits of HMAC-SHA256(key, ``text\\0`` + the text's
  SHA-256 in hex).
"""

from __future__ import annotations

import hashlib
import hmac
import os
from pathlib import Path
from typing import Optional

__all__ = ["MASK_KEY_FILE", "made_once", "mask_key", "key_id", "keyed_mark", "keyed_text"]

#: Where a storage root keeps its mask key, relative to the root.
MASK_KEY_FILE = "_export/mask.key"
#: root path -> its key, read or made once per process
_KEYS: dict[str, bytes] = {}


def made_once(path: Path, digits: int, what: str, mode: int = 0o644, make: bool = True) -> str:
    """The ``digits`` lower-case hex digits ``path`` holds, made (random, written once, never replaced: two passes
    making it at once keep the first) when there is none and ``make``; '' when there is none and not ``make``.
    Raises OSError when it can be neither read nor made, or holds something else (naming ``what`` it should be)."""
    try:
        got = path.read_text(encoding="ascii").strip()
    except FileNotFoundError:
        got = ""
    except (UnicodeDecodeError, ValueError):
        got = ""
    if len(got) == digits and all(c in "0123456789abcdef" for c in got):
        return got
    if path.exists():
        raise OSError(f"{path}: not {what} ({digits} hex digits): remove it to have a new one made")
    if not make:
        return ""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    except FileExistsError:
        return made_once(path, digits, what, mode, make)  # another pass made it first
    import secrets

    got = secrets.token_hex(digits // 2)
    try:
        os.write(fd, (got + "\n").encode("ascii"))
        os.fsync(fd)
    finally:
        os.close(fd)
    return got


def mask_key(root: str | os.PathLike, make: bool = True) -> Optional[bytes]:
    """Storage root ``root``'s mask key (32 bytes), made when it has none and ``make`` (an export that masks); None
    when it has none and not ``make`` (``asz verify --export --root`` never writes the root). Raises OSError as
    :func:`made_once`, and when it has none and ``make`` but is a root to be read without a write
    (:func:`~asz_core.storage.frozen.frozen`: none is made there)."""
    at = os.path.abspath(root)
    if at not in _KEYS:
        from .frozen import frozen

        got = made_once(Path(root) / MASK_KEY_FILE, 64, "a mask key", 0o600, make and not frozen(root))
        if not got and make:  # a root to be read without a write (docs/reading.md): none made there
            raise OSError(f"{root} is read-only: no mask key is made in it")
        if not got:
            return None
        _KEYS[at] = bytes.fromhex(got)
    return _KEYS[at]


def key_id(key: bytes) -> str:
    """The name a manifest gives the key its masks were keyed with: 16 hex digits of SHA-256(``asz mask key\\0`` + key)."""
    return hashlib.sha256(b"asz mask key\0" + key).hexdigest()[:16]


def keyed_mark(key: bytes, fingerprint: str) -> str:
    """A credential's unkeyed ``fingerprint`` (12 hex digits of its SHA-256) keyed: 12 hex digits of an HMAC-SHA256."""
    return hmac.new(key, b"credential\0" + fingerprint.encode("ascii"), hashlib.sha256).hexdigest()[:12]


def keyed_text(key: bytes, digest: str) -> str:
    """An unmasked text's SHA-256 (hex) keyed: the 64 hex digits of an HMAC-SHA256."""
    return hmac.new(key, b"text\0" + digest.encode("ascii"), hashlib.sha256).hexdigest()

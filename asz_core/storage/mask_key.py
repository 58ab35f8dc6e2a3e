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

import errno
import hashlib
import hmac
import os
import time
from pathlib import Path
from typing import Optional

__all__ = ["MASK_KEY_FILE", "linked_whole", "made_once", "mask_key", "key_links", "refused_link", "say_unkeyed", "key_id", "keyed_mark", "keyed_text"]

#: Where a storage root keeps its mask key, relative to the root.
MASK_KEY_FILE = "_export/mask.key"
#: How long a key file found empty or short is read again before it is refused (seconds): one an older asz is
#: still writing (it created the file, then wrote it).
SETTLE_S = 2.0
#: root path -> its key, read or made once per process
_KEYS: dict[str, bytes] = {}


def made_once(path: Path, digits: int, what: str, mode: int = 0o644, make: bool = True) -> str:
    """The ``digits`` lower-case hex digits ``path`` holds, made (random, written once, never replaced: two passes
    making it at once keep the first) when there is none and ``make``; '' when there is none and not ``make``.
    The file is written whole under a name of its own (``.PATH.PID.tmp`` beside it) and only then linked to ``path``,
    which fails when another pass linked its own first (then that one is read): no reader ever finds ``path`` empty
    or half written (review37: a second process found the just-created, still empty file and said it was not a key).
    A file found empty or short (an older asz creating it then writing it) is read again for up to
    :data:`SETTLE_S` seconds before it is refused. Raises OSError when it can be neither read nor made, or holds
    something else (naming ``what`` it should be)."""
    waited = 0.0
    while True:
        got = _held(path)
        if len(got) == digits and all(c in "0123456789abcdef" for c in got):
            return got
        if not path.exists():
            break
        if waited >= SETTLE_S or (got and not (len(got) < digits and all(c in "0123456789abcdef" for c in got))):
            raise OSError(f"{path}: not {what} ({digits} hex digits): remove it to have a new one made")
        time.sleep(0.02)  # being written by a pass that creates it first (an older asz): read it again
        waited += 0.02
    if not make:
        return ""
    path.parent.mkdir(parents=True, exist_ok=True)
    import secrets

    got = secrets.token_hex(digits // 2)
    try:
        if not linked_whole(path, (got + "\n").encode("ascii"), mode):
            return made_once(path, digits, what, mode, make)  # another pass made it first: its digits
    except OSError as exc:  # a file system without hard links: created, then written (read again above)
        if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV, errno.EMLINK):
            raise
        return _created(path, got, mode) or made_once(path, digits, what, mode, make)
    return got


def linked_whole(path: Path, data: bytes, mode: int) -> bool:
    """``data`` written whole and synced under a name of its own beside ``path`` (``.NAME.PID.HEX.tmp``, removed
    after), then hard-linked to ``path``, which never replaces a file: True when this call put ``path`` there, False
    when another process linked its own first (``path`` holds theirs). No reader ever finds ``path`` empty or half
    written. Raises OSError as ``os.open``/``os.link`` do (a file system without hard links: the caller's fallback)."""
    import secrets

    tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    try:  # from the open on: a stop raised as it returns still removes the file (session 41)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
        try:
            os.write(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        try:
            os.link(tmp, path)
        except FileExistsError:
            return False
        return True
    finally:
        tmp.unlink(missing_ok=True)


def _created(path: Path, got: str, mode: int) -> str:
    """``got`` written into ``path`` created for it (``O_EXCL``); '' when another pass created it first."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    except FileExistsError:
        return ""
    try:
        os.write(fd, (got + "\n").encode("ascii"))
        os.fsync(fd)
    finally:
        os.close(fd)
    return got


def _held(path: Path) -> str:
    """What ``path`` holds, stripped; '' when it is missing or not ASCII. A symbolic link in its place is never
    followed (:func:`refused_link`)."""
    from ..sessiondata.nolink import LinkRefused, open_nofollow

    try:
        with open_nofollow(path, "the file asz made") as f:
            return f.read().decode("ascii").strip()
    except LinkRefused as exc:
        raise OSError(f"{path} is {exc}") from None
    except (FileNotFoundError, UnicodeDecodeError, ValueError):
        return ""


def refused_link(root: str | os.PathLike, path: Path, what: str) -> None:
    """Raise OSError (``PATH is a symbolic link to TARGET, not WHAT: asz follows no symbolic link inside a storage
    root``) when ``path`` under ``root``, or a folder between them, is a symbolic link: a key in its place that another
    chose is never used (trial 44c F5: a link at ``_export/mask.key`` keyed every manifest's digests by the key it
    named, and verify said nothing). ``asz verify`` names such a link a ``symbolic link`` problem
    (:func:`~asz_core.verify.walk.verify_root`)."""
    from ..sessiondata.nolink import LinkRefused, refuse_link

    try:
        refuse_link(root, path, what)
    except LinkRefused as exc:
        raise OSError(f"{exc.filename} is {exc}") from None


def key_links(root: str | os.PathLike) -> list[tuple[str, str]]:
    """``(path, what)`` of a symbolic link at the mask key's place (``_export/mask.key``, ``the mask key``) or its
    folder's (``_export``, ``the mask key's folder``): what ``asz verify`` names as a ``symbolic link`` problem, and
    :func:`mask_key` refuses; none for a root holding neither."""
    folder = Path(root) / os.path.dirname(MASK_KEY_FILE)
    for path, what in ((folder, "the mask key's folder"), (Path(root) / MASK_KEY_FILE, "the mask key")):
        if path.is_symlink():
            return [(os.fspath(path), what)]
    return []


def mask_key(root: str | os.PathLike, make: bool = True) -> Optional[bytes]:
    """Storage root ``root``'s mask key (32 bytes), made when it has none and ``make`` (an export that masks); None
    when it has none and not ``make`` (``asz verify --export --root`` never writes the root). Raises OSError as
    :func:`made_once`, for a symbolic link at the key's place or its folder's (:func:`refused_link`), and when it
    has none and ``make`` but is a root to be read without a write (:func:`~asz_core.storage.frozen.frozen`: none is
    made there)."""
    at = os.path.abspath(root)
    if at not in _KEYS:
        from .frozen import frozen

        refused_link(root, Path(root) / MASK_KEY_FILE, "the mask key asz made")
        got = made_once(Path(root) / MASK_KEY_FILE, 64, "a mask key", 0o600, make and not frozen(root))
        if not got and make:  # a root to be read without a write (docs/reading.md): none made there
            raise OSError(f"{root} is read-only: no mask key is made in it")
        if not got:
            return None
        _KEYS[at] = bytes.fromhex(got)
    return _KEYS[at]


#: The reasons :func:`say_unkeyed` said in this process (each said once, however many copies an export writes).
_SAID_UNKEYED: set[str] = set()


def say_unkeyed(exc: OSError) -> dict:
    """A masked export's manifest's ``mask_digests`` when the root's key cannot be read nor made (``exc``):
    ``{"mac": "none", "why": "no mask key: …"}``; said on stderr once per reason, however many copies an export
    writes (trial 44c F5: a symbolic link at the key, refused, must not pass in silence): ``asz export: warning: no
    mask key: …; the manifest's masks carry no fingerprint nor texts_sha256``."""
    why = f"no mask key: {exc}"
    if why not in _SAID_UNKEYED:
        _SAID_UNKEYED.add(why)
        import sys

        print(f"asz export: warning: {why}; the manifest's masks carry no fingerprint nor texts_sha256", file=sys.stderr)
    return {"mac": "none", "why": why}


def key_id(key: bytes) -> str:
    """The name a manifest gives the key its masks were keyed with: 16 hex digits of SHA-256(``asz mask key\\0`` + key)."""
    return hashlib.sha256(b"asz mask key\0" + key).hexdigest()[:16]


def keyed_mark(key: bytes, fingerprint: str) -> str:
    """A credential's unkeyed ``fingerprint`` (12 hex digits of its SHA-256) keyed: 12 hex digits of an HMAC-SHA256."""
    return hmac.new(key, b"credential\0" + fingerprint.encode("ascii"), hashlib.sha256).hexdigest()[:12]


def keyed_text(key: bytes, digest: str) -> str:
    """An unmasked text's SHA-256 (hex) keyed: the 64 hex digits of an HMAC-SHA256."""
    return hmac.new(key, b"text\0" + digest.encode("ascii"), hashlib.sha256).hexdigest()

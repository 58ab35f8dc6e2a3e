"""The tokens ``asz receive`` accepts, and the name of each (trial 19, F17 and F20; docs/push.md, ``asz receive``).

A receiver takes its token from ``--token-file PATH`` or ``$ASZ_RECEIVE_TOKEN``
(``--token VALUE`` still works and is warned about: a command line is visible
to every user of the machine). A token file holds either one token (one
line, as ``asz push --token-file`` reads it) or one credential per line,
``NAME TOKEN`` (blank lines and lines starting with ``#`` skipped), so each
instance pushing to a team root can hold a token of its own and the
receiver's sender record (:mod:`asz_core.storage.senders`) names the
credential that sent each file. Never a token in a message.

With ``--own-token`` instead, ``asz receive`` keeps a token of its own in the receiving root,
``ROOT/_received/receive.token`` (:func:`root_token`; trial 38c F1: on a shared host loopback reaches every local
account, so a receiver with no token landed a co-tenant's forged sessions). With none, it takes tokenless requests
(issue 21's contract).

Every file asz reads a credential from (``asz receive --token-file``, ``--own-token``'s ``receive.token``, ``asz push
--token-file``, ``asz ingest langsmith --token-file``) is read by :func:`private_text`: a regular file that group or
others may read is refused, naming the file, its mode and ``chmod 600`` (trial 43a F4: the two ``--token-file`` took a
file of mode 0644 silently, while ``--own-token`` refused it).
"""

from __future__ import annotations

import os
import re
import secrets
import stat
from pathlib import Path

from .settings import check_token

__all__ = ["RECEIVE_TOKEN_ENV", "ROOT_TOKEN", "private_text", "read_token_file", "root_token", "tokens_from_env"]

#: The environment variable ``asz receive`` reads its one token from when no ``--token-file`` is given.
RECEIVE_TOKEN_ENV = "ASZ_RECEIVE_TOKEN"

#: The receiving root's own token file, under the root (made by :func:`root_token`).
ROOT_TOKEN = ("_received", "receive.token")

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@+-]{0,63}$")


def private_text(path: Path, where: str) -> str:
    """The UTF-8 text of the credential file ``path``, read only when no other account may read it: refused when it is
    a regular file with a group or others permission bit (``mode & 0o077``; checked on the file opened, so no rename
    between check and read slips by). A pipe (``--token-file <(pass show team)``) or a device has no such bits to
    trust and is read. Raises ValueError starting ``WHERE: `` and naming the file, never its text: unreadable, not
    UTF-8, or ``mode 0644: other accounts can read the token (chmod 600 PATH)``."""
    try:
        with open(path, "rb") as f:
            st = os.fstat(f.fileno())
            mode = stat.S_IMODE(st.st_mode)
            if stat.S_ISREG(st.st_mode) and mode & 0o077:
                raise ValueError(f"{where}: mode {mode:04o}: other accounts can read the token (chmod 600 {path})")
            return f.read().decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"{where}: {getattr(exc, 'strerror', None) or exc}") from None


def read_token_file(path: Path, where: str = "") -> dict[str, str]:
    """Credential name -> token from ``path`` (:func:`private_text`: refused when others may read it):
    ``{'': TOKEN}`` for a file of one token, ``{NAME: TOKEN, …}`` for one of ``NAME TOKEN`` lines. Raises ValueError
    starting ``WHERE`` (default ``--token-file PATH``), naming the file and line, never a token: unreadable, open to
    other accounts, no token, a name that is not ``[A-Za-z0-9][A-Za-z0-9._@+-]*`` (≤ 64), a line of three fields or
    more, a name or token given twice."""
    where = where or f"--token-file {path}"
    text = private_text(path, where)
    lines = [(n, ln.split()) for n, ln in enumerate(text.splitlines(), 1) if ln.strip() and not ln.lstrip().startswith("#")]
    if len(lines) == 1 and len(lines[0][1]) == 1:
        return {"": check_token(lines[0][1][0], where)}
    out: dict[str, str] = {}
    for n, fields in lines:
        if len(fields) != 2:
            raise ValueError(f"{where}: line {n}: expected 'NAME TOKEN' (one credential a line), got {len(fields)} field(s)")
        name, token = fields
        if not _NAME.match(name):
            raise ValueError(f"{where}: line {n}: {name[:40]!r} is not a credential name (letters, digits, . _ @ + -)")
        if name in out:
            raise ValueError(f"{where}: line {n}: the name {name} is given twice")
        if check_token(token, f"{where}: line {n}") in out.values():
            raise ValueError(f"{where}: line {n}: the token of {name} is another name's token too (one token a credential)")
        out[name] = token
    if not out:
        raise ValueError(f"{where}: no token in it")
    return out


def tokens_from_env(value: str) -> dict[str, str]:
    """``{'': TOKEN}`` for ``$ASZ_RECEIVE_TOKEN``'s ``value`` checked (ValueError never naming it); {} when empty."""
    return {"": check_token(value, f"${RECEIVE_TOKEN_ENV}")} if value.strip() else {}


def root_token(root: Path) -> tuple[Path, dict[str, str]]:
    """The token file ``ROOT/_received/receive.token`` and the tokens it holds (``{'': TOKEN}``): made when absent
    (32 random bytes, URL-safe base64, one line; mode 0600, the folders 0700; written whole under a name of its own
    and linked into place, so two receivers starting at once read the one token), read when present (so the pushers
    given it keep working across restarts; a file of ``NAME TOKEN`` lines put there by hand is read as
    :func:`read_token_file` reads any). Raises ValueError naming the file, never the token: unreadable, not a token
    file, or open to other accounts (a group or others permission bit: ``chmod 600 PATH``)."""
    path = Path(root).joinpath(*ROOT_TOKEN)
    if not path.exists():
        from ..storage.mask_key import linked_whole

        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        linked_whole(path, (secrets.token_urlsafe(32) + "\n").encode(), 0o600)  # False: another receiver's is the one
    return path, read_token_file(path, str(path))

"""The figure cache's file name and the seal of its entries (:mod:`asz_core.view.summary_cache`, which re-exports both):
here without that module's imports, for plain ``asz verify``, which reads only the seals (issue 22: the command's
start)."""

from __future__ import annotations

import hashlib

__all__ = ["DB_NAME", "seal"]

#: The figure cache under ``<root>/_index``.
DB_NAME = "summaries.sqlite"


def seal(table: str, conversation: str, hide_key: str, fp: str, value: bytes | str) -> str:
    """SHA-256 (hex) binding an entry's bytes to its table, conversation, withheld names and fingerprint (the stat of
    the round and landed files it was counted from): an entry edited in the database without its seal, or moved to
    another conversation or fingerprint, no longer matches and is counted again from its files. No secret is involved:
    whoever rewrites entry and seal together (this function is public) is caught only by ``asz verify --figures``."""
    data = value.encode() if isinstance(value, str) else bytes(value)
    return hashlib.sha256(f"asz-seal\0{table}\0{conversation}\0{hide_key}\0{fp}\0".encode() + data).hexdigest()

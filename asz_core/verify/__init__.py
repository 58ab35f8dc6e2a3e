"""Verification: the pipeline stage that proves a storage root whole (origin-digest §6).

- :mod:`.landed`: one landed file (header, closing digest, ord and byte contiguity; ``--deep``).
- :mod:`.walk`: a root or one file walked and reported: every session's files and cursors,
  the round chains (:mod:`asz_core.flow.verify_chain`), provider bodies.
"""

from __future__ import annotations

from ..lazyload import lazy_getattr

__all__ = ["check_landed_file", "unverified", "verify", "verify_file", "verify_root"]

# Imported on first use: a reader that needs only :mod:`.damage` (asz search, asz show) does not load the walk and
# the collector's worker processes it imports.
__getattr__ = lazy_getattr(__name__, {"check_landed_file": "landed", "verify": "walk", "verify_file": "walk", "verify_root": "walk", "unverified": "gate"})

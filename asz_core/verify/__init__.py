"""Verification: the pipeline stage that proves a storage root whole (origin-digest §6).

- :mod:`.landed`: one landed file (header, closing digest, ord and byte contiguity; ``--deep``).
- :mod:`.walk`: a root or one file walked and reported: every session's files and cursors,
  the round chains (:mod:`asz_core.flow.verify_chain`), provider bodies.
"""

from __future__ import annotations

from .landed import check_landed_file
from .walk import verify, verify_file, verify_root

__all__ = ["check_landed_file", "verify", "verify_file", "verify_root"]

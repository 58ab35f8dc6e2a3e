"""The compiled modules of asz (issue 22), each optional. Everything else is in pyproject.toml.

- ``asz_core.verify.linescan``: ``asz verify`` reads every record line's positions in one C call, and lists a
  session in one call (``asz_core.verify.listing``).
- ``asz_core.sessiondata.bytescan``: a landed file's whole-file byte scans (the wide-number probe, the most openers
  on a line, ``null``) in one pass, for the asz.view build, parse and the reader; and a cursor's values in one call
  (``asz_core.storage.cursor``).
- ``asz_core.sessiondata.jsoncheck``: whether a source line is orjson's own encoding of its value, told from its
  bytes (``asz_core.canonical_json``), so the Claude Code adapter no longer encodes every line again to know it.
- ``asz_adapters_claude.usual_line``: the Claude Code adapter's own: the usual transcript line (an assistant line of
  text, call and thinking blocks; a user line of a prompt or of tool results with their ``toolUseResult``; a runtime
  bookkeeping line) into its record and parts in one call, the Python of transcript.py and blocks.py its definition
  and fallback.

Where no C compiler is found, or it fails, the install goes on without them and the same work is done in Python
(asz_core/verify/landed.py, asz_core/sessiondata/numberprobe.py), with the same results (docs/verify.md, How fast;
docs/performance.md, "asz.view build at session 15").
"""

import hashlib
from pathlib import Path

from setuptools import Extension, setup


def compiled(name: str, source: str) -> Extension:
    """The optional extension ``name`` built from ``source``, holding the SHA-256 of that source as ``SOURCE_SHA256``
    (asz_core/sessiondata/compiled.py uses a module only when it matches the ``.c`` beside it)."""
    digest = hashlib.sha256(Path(__file__).parent.joinpath(*source.split("/")).read_bytes()).hexdigest()
    return Extension(name, [source], optional=True, depends=["asz_core/sessiondata/source_digest.h"],
                     define_macros=[("ASZ_SOURCE_SHA256", f'"{digest}"')])


setup(ext_modules=[
    compiled("asz_core.verify.linescan", "asz_core/verify/linescan.c"),
    compiled("asz_core.sessiondata.bytescan", "asz_core/sessiondata/bytescan.c"),
    compiled("asz_core.sessiondata.jsoncheck", "asz_core/sessiondata/jsoncheck.c"),
    compiled("asz_adapters_claude.usual_line", "asz_adapters_claude/usual_line.c"),
])

"""The compiled modules of asz (issue 22), each optional. Everything else is in pyproject.toml.

- ``asz_core.verify.linescan``: ``asz verify`` reads every record line's positions in one C call, and lists a
  session in one call (``asz_core.verify.listing``).
- ``asz_core.sessiondata.bytescan``: a landed file's whole-file byte scans (the wide-number probe, the most openers
  on a line, ``null``) in one pass, for the asz.view build, parse and the reader; and a cursor's values in one call
  (``asz_core.storage.cursor``).

Where no C compiler is found, or it fails, the install goes on without them and the same work is done in Python
(asz_core/verify/landed.py, asz_core/sessiondata/numberprobe.py), with the same results (docs/verify.md, How fast;
docs/performance.md, "asz.view build at session 15").
"""

from setuptools import Extension, setup

setup(ext_modules=[
    Extension("asz_core.verify.linescan", ["asz_core/verify/linescan.c"], optional=True),
    Extension("asz_core.sessiondata.bytescan", ["asz_core/sessiondata/bytescan.c"], optional=True),
])

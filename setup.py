"""The one compiled module of asz, ``asz_core.verify.linescan`` (issue 22: ``asz verify`` reads every record line's
positions in one C call). Everything else is in pyproject.toml.

The extension is optional: where no C compiler is found, or it fails, the install goes on without it and
``asz verify`` reads the positions in Python (asz_core/verify/landed.py), with the same results (docs/verify.md,
How fast).
"""

from setuptools import Extension, setup

setup(ext_modules=[Extension("asz_core.verify.linescan", ["asz_core/verify/linescan.c"], optional=True)])

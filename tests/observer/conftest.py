"""The observer's tests run the real ``asz`` console script (``asz hooks install``, ``asz hook``) found on ``PATH``, and
skip without one. Run as ``.venv/bin/python -m pytest`` with the venv not activated, its ``bin`` holds the ``asz``
that ``pip install -e .`` made but ``PATH`` does not name it, and 14 of these tests skipped: this puts the running
interpreter's own folder first on ``PATH`` when it holds an ``asz``."""

from __future__ import annotations

import os
import sys
from pathlib import Path

_BIN = Path(sys.executable).parent
if (_BIN / "asz").is_file() and os.environ.get("PATH", "").split(os.pathsep)[0] != str(_BIN):
    os.environ["PATH"] = str(_BIN) + os.pathsep + os.environ.get("PATH", "")

"""The erase tests serve a root with the real ``asz view`` (tests/view_server/view_server_helpers.py's ``Served``)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "view_server"))

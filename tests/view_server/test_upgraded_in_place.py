"""A running server whose asz is upgraded in place (``git pull`` and ``pip install -e .``, as the README installs)
says to restart it, instead of a 500 ``internal error (ImportError)`` (trial 23b, F8: its new, lazily imported search
module imported a name the old module it had loaded lacked); ``/api/status`` says ``code_changed`` (trial 26a, F7:
a health check on it stayed green). Real parts: ``asz view`` run in a child from a copy of
asz_core, that copy's search module then changed on disk as an upgrade changes it; the bundled example root."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from view_server_helpers import Served

import asz_core


def test_search_after_an_upgrade_in_place_says_restart(example_root: Path, tmp_path: Path):
    code = tmp_path / "code"
    shutil.copytree(Path(asz_core.__file__).parent, code / "asz_core", ignore=shutil.ignore_patterns("__pycache__"))
    env = {"PYTHONPATH": str(code) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    s = Served(["view", "--root", str(example_root)], tmp_path, env=env)
    try:
        assert json.loads(s.get("/api/status").body)["code_changed"] is False
        search = code / "asz_core" / "reading" / "search_labels.py"  # imported by the first search (search.py), not at start
        assert "from ..view.session_records import title_words\n" in search.read_text()
        # the new version's module names what the old one this process loaded lacks
        search.write_text(search.read_text().replace("import title_words\n", "import title_words, title_words_v2\n"))
        r = s.get("/api/search?q=hello")
        body = json.loads(r.body)
        assert r.status == 503, (r.status, body)
        assert body["error"] == ("could not import asz_core.view.session_records: asz's code changed on disk since this "
                                 "server started (upgraded in place); restart it (asz server or asz view) to use the "
                                 "new version")
        # what a monitor polls says it too, while every other answer still comes from the old code (trial 26a, F7)
        assert json.loads(s.get("/api/status").body)["code_changed"] is True
    finally:
        s.stop()

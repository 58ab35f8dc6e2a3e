"""The page's usage notes name a conversation as ``asz usage`` does: by the shortest prefix of its id, 8 characters
or more, that no other conversation of the root shares (storage/ids.shown_names, 122b95e), given by the server in
``/api/usage`` as each entry's ``name`` (trial 21 leftover: the page cut every id at 8 characters, so both LangSmith
traces read ``ls-trace``, which names neither).

Real input, landed by the real ``asz collect --once``: two LangSmith chain runs with one model call each and no time
(their ids share ``ls-trace-``), staged in the ingest inbox as the receiver writes them; the bundled example's
Claude Code transcript under two session ids that share their first 10 characters, one of them changed in place
after it landed (one digit of a token count; its closing digest left as it was), so it does not verify and is held
back. A real ``asz view`` on loopback, headless Chromium.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import time

import pytest

from cli_helpers import asz_in_process, timeless_traces
from test_view_server_browser import open_usage, shot  # noqa: F401  (the browser fixture is in tests/conftest.py)
from view_server_helpers import REPO

EXAMPLE = REPO / "examples" / "claude-code" / "projects" / "-home-dev-hello-app" / "7d2f1c3e-5b8a-4e61-9f0d-2a4c6e8b1d35.jsonl"
TWINS = ("7d2f1c3e-1111-4000-8000-000000000001", "7d2f1c3e-2222-4000-8000-000000000002")


@pytest.fixture(scope="module")
def named_root(tmp_path_factory):
    base = tmp_path_factory.mktemp("usage-names")
    root = base / "root"
    timeless_traces(root)
    proj = base / "projects" / "-home-dev-hello-app"
    proj.mkdir(parents=True)
    for sid in TWINS:
        shutil.copyfile(EXAMPLE, proj / f"{sid}.jsonl")
    assert asz_in_process("collect", "--once", "--source", str(base / "projects"), "--root", str(root)).returncode == 0
    [path] = sorted((root / TWINS[1] / "streams" / "main").glob("transcript-*.sd"))
    data = path.read_bytes()
    at = re.search(rb'"out":(\d)', data).start(1)  # one digit of the first output count, the size kept
    os.chmod(path, stat.S_IRUSR | stat.S_IWUSR)
    path.write_bytes(data[:at] + str((int(data[at:at + 1]) + 1) % 10).encode() + data[at + 1:])
    os.chmod(path, stat.S_IRUSR)
    ids = sorted(p.name for p in root.iterdir() if not p.name.startswith("_"))
    assert len(ids) == 4 and ids[0][:9] == ids[1][:9] == "7d2f1c3e-" and ids[2][:9] == ids[3][:9] == "ls-trace-"
    return root, ids


def test_usage_notes_name_conversations_as_asz_usage_does(named_root, serve, browser):
    root, ids = named_root
    traces = [i for i in ids if i.startswith("ls-trace-")]
    want = {i: i[:10] for i in [*traces, TWINS[1]]}  # ls-trace-x, ls-trace-y, 7d2f1c3e-2: 9 characters are shared
    cli = asz_in_process("usage", "--root", str(root)).stdout
    line = next(x for x in cli.splitlines() if x.startswith("(no time): calls"))
    assert all(f" {want[t]} " in line for t in traces), line  # the CLI's own names, the same
    s = serve(root)
    deadline = time.monotonic() + 120
    while not (u := s.get("/api/usage").json())["complete"]:
        assert time.monotonic() < deadline, u
        time.sleep(0.2)
    assert u["held_back"] == [{"conversation": TWINS[1], "name": want[TWINS[1]], "state": "mismatch"}]
    assert u["no_time"]["conversations"] == [{"conversation": t, "name": want[t], "calls": 1} for t in traces]
    drv = browser
    try:
        note = open_usage(drv, s.base, "#usage-note")
        assert note.text.endswith(f"Held back, in no figure (they do not verify): {want[TWINS[1]]} (mismatch).")
        untimed = drv.find_element("css selector", "#usage-no-time")
        assert untimed.text.endswith(": " + ", ".join(f"{want[t]} (1 call(s))" for t in traces) + "."), untimed.text
    except Exception:
        shot(drv, "usage-names")
        raise

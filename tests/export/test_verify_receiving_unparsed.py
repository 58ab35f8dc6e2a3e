"""``asz verify`` on a receiving root does not advise ``asz parse`` for a session whose rounds have not come (trial 34b
F5: mid-push it said "normal after asz collect --no-parse; asz parse builds them", and a parse there would write a
chain ahead of the host's rounds). Real processes: a host collected with ``--no-parse`` (it sends files, no rounds),
``asz receive`` on loopback, ``asz push``."""

from __future__ import annotations

import shutil
import subprocess

from asz_core.verify.unparsed import NEVER_PARSED_LINE, RECEIVED_UNPARSED_LINE

from export_helpers import ASZ, asz, free_port

PROJECT = "-home-user-claude-reliability"


def test_verify_on_a_receiving_root_says_the_rounds_come_from_the_host(corpus_dir, tmp_path):
    src = tmp_path / "src"
    shutil.copytree(corpus_dir / "claude-code" / "projects" / PROJECT, src / PROJECT)
    host = tmp_path / "data"
    c = asz("collect", "--once", "--no-parse", "--source", str(src), "--root", str(host), cwd=tmp_path, child=True)
    assert c.returncode == 0, c.stdout + c.stderr
    sessions = sorted(p.stem for p in (src / PROJECT).glob("*.jsonl"))
    port = free_port()
    team = tmp_path / "team"
    rcv = subprocess.Popen([*ASZ, "receive", "--no-token", "--root", str(team), "--listen", f"127.0.0.1:{port}"], cwd=tmp_path,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert rcv.stderr.readline().startswith("receiving:")
        p = asz("push", "--root", str(host), "--endpoint", f"http://127.0.0.1:{port}", cwd=tmp_path)
        assert p.returncode == 0, p.stdout + p.stderr
    finally:
        rcv.terminate()
        rcv.communicate(timeout=60)
    v = asz("verify", "--root", str(team), cwd=tmp_path)
    assert v.returncode == 0, v.stdout + v.stderr
    out = v.stdout + v.stderr
    assert RECEIVED_UNPARSED_LINE.format(n=len(sessions), ids=", ".join(sessions)) in out, out
    assert "asz parse builds them" not in out, out
    h = asz("verify", "--root", str(host), cwd=tmp_path)  # the host's own root: its words stay
    assert NEVER_PARSED_LINE.format(n=len(sessions), ids=", ".join(sessions)) in h.stdout + h.stderr, h.stdout

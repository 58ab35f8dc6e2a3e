"""Two storage roots sending under one instance id are told apart and said, never merged unsaid (trial 34b F3).

Before: hosts/hE configured ``instance_id: ops@hostA`` (hostA's name) and its files were summed into hostA's one row of
``asz senders`` and ``asz usage instance``, with nothing anywhere saying that two roots sent under one name. Now each
root has an id of its own (``_export/root.id``), ``asz push`` sends it (``asz.root.id``), the receiver keeps it in each
sender line, and ``asz senders``, ``asz verify`` and ``asz usage instance`` say ``2 roots under one name since T``,
with whether they sent one after the other (a root re-made) or in the same span (two machines).

Real processes: two corpus projects collected by ``asz collect --once`` into two roots whose asz.yaml give the same
``export.otlp.instance_id``, a real ``asz receive`` on loopback, ``asz push`` from each. Counts are of the hosts' own
landed files and the source transcripts (tests/source_calls.py).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from pathlib import Path

import pytest

import forked
from source_calls import source_calls

from export_helpers import ASZ, asz, free_port, page_json

NAME = "ops@hostA"
HOSTS = {"hA": "-Users-alex-workspace-personal-site-next", "hE": "-home-user-sample-project"}


def _host(corpus_dir: Path, tmp: Path, key: str) -> tuple[Path, Path]:
    """``(src, root)`` of host ``key``: its project copied and collected; its asz.yaml names :data:`NAME`."""
    d = corpus_dir / "claude-code" / "projects" / HOSTS[key]
    if not d.is_dir():
        pytest.skip(f"{d} is absent")
    src, root = tmp / key / "src", tmp / key / "data"
    shutil.copytree(d, src / HOSTS[key])
    (tmp / key / "asz.yaml").write_text(f"export:\n  otlp:\n    instance_id: {NAME}\n")
    _collect(src, root, tmp / key)
    return src, root


def _collect(src: Path, root: Path, cwd: Path) -> None:
    c = asz("collect", "--once", "--source", str(src), "--root", str(root), cwd=cwd,
            env={"CLAUDE_CONFIG_DIR": str(cwd / "home")}, child=True)
    assert c.returncode == 0, c.stdout + c.stderr


def _push(root: Path, endpoint: str) -> None:
    p = asz("push", "--root", str(root), "--config", str(root.parent / "asz.yaml"), "--endpoint", endpoint,
            cwd=root.parent)
    assert p.returncode == 0, p.stdout + p.stderr


def _landed(root: Path) -> int:
    return sum(1 for p in root.rglob("*.sd") if "/streams/" in p.as_posix() or "/runs/" in p.as_posix())


def test_two_roots_under_one_instance_id_are_said_by_senders_verify_and_usage(corpus_dir, tmp_path):
    (a_src, a), (_, e) = _host(corpus_dir, tmp_path, "hA"), _host(corpus_dir, tmp_path, "hE")
    team = tmp_path / "team"
    address = f"127.0.0.1:{free_port()}"
    log = (tmp_path / "receive.log").open("w")
    rcv = forked.Popen([*ASZ, "receive", "--no-token", "--root", str(team), "--listen", address], stdout=subprocess.DEVNULL,
                       stderr=log, cwd=tmp_path)
    try:
        deadline = time.monotonic() + 60
        while "receiving:" not in (tmp_path / "receive.log").read_text():
            assert rcv.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        _push(a, f"http://{address}")
        time.sleep(0.01)  # hE's first file lands after hA's last: one root after the other
        _push(e, f"http://{address}")
        ids = {k: (r / "_export" / "root.id").read_text().strip() for k, r in (("hA", a), ("hE", e))}
        assert len(ids["hA"]) == 32 and ids["hA"] != ids["hE"]

        s = json.loads(asz("senders", "--root", str(team), "--json", cwd=tmp_path).stdout)
        row, = s["instances"]  # one instance id: one row, as before
        assert row["instance"] == NAME and row["files"] == _landed(a) + _landed(e)
        assert [(r["root"], r["files"]) for r in row["roots"]] == [(ids["hA"], _landed(a)), (ids["hE"], _landed(e))]
        assert row["two_roots"] == {"since": row["roots"][1]["first_received"], "apart": True}
        text = asz("senders", "--root", str(team), cwd=tmp_path).stdout
        said = (f"note: {NAME}: 2 roots under one name since {row['roots'][1]['first_received']} (root "
                f"{ids['hA'][:12]}: {_landed(a)} file(s), ")
        assert said in text and "one after the other: a root re-made under the same name" in text, text
        assert f"2 roots since {row['roots'][1]['first_received']}" in text

        v = asz("verify", "--root", str(team), cwd=tmp_path)
        assert v.returncode == 0 and said[len("note: "):] in v.stdout, v.stdout + v.stderr
        assert json.loads(asz("verify", "--root", str(team), "--json", cwd=tmp_path).stdout)["two_roots"] == 1

        u = asz("usage", "instance", "--root", str(team), "--json", cwd=tmp_path)
        rows = json.loads(u.stdout)
        calls = sum(len(source_calls(src)[0]) for src in (a_src, tmp_path / "hE" / "src"))
        assert [(r["instance"], r["calls"]) for r in rows] == [(NAME, calls)]  # summed under one name, and said:
        assert said in u.stderr, u.stderr
        api = page_json(team, "/api/usage?by=instance", tmp_path, lambda got: got.get("complete"))  # the page's Usage tab by sender: the same row, and the two roots said
        assert [(r["instance"], r["calls"]) for r in api["instances"]] == [(NAME, calls)]
        assert [(d["instance"], [r["root"] for r in d["roots"]], d["apart"]) for d in api["two_roots"]] == \
            [(NAME, [ids["hA"], ids["hE"]], True)]

        # hA sends again after hE began: the two roots' spans overlap, two machines under one name
        with (a_src / HOSTS["hA"] / "b25638d7-b104-4f06-a797-70ac33d069ed.jsonl").open("ab") as f:
            f.write((a_src / HOSTS["hA"] / "b25638d7-b104-4f06-a797-70ac33d069ed.jsonl").read_bytes().splitlines()[0]
                    + b"\n")
        _collect(a_src, a, tmp_path / "hA")
        _push(a, f"http://{address}")
        text = asz("senders", "--root", str(team), cwd=tmp_path).stdout
        assert "in the same span: two machines (or roots) sending under one service.instance.id" in text, text
    finally:
        rcv.terminate()
        rcv.wait(timeout=60)
        log.close()


def test_a_roots_id_is_made_once_and_kept_in_the_root(corpus_dir, tmp_path):
    """The id is written once into the root and read back from it (another process reads the same id)."""
    _, a = _host(corpus_dir, tmp_path, "hA")
    from asz_core.storage.sender_roots import root_id

    made = root_id(a)
    assert (a / "_export" / "root.id").read_text() == made + "\n"
    from asz_core.storage import sender_roots

    sender_roots._IDS.clear()  # read back from the root, not from this process's memory
    assert root_id(a) == made

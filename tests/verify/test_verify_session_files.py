"""A session's ``session.state`` or session index that does not read: verify warns naming the file and the line, and
the readers (asz ls, asz usage) say so in one line per file, their figures unchanged (they come from the chains)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from cli_helpers import asz_in_process

from asz_core.verify.session_files import UNREADABLE_STATE


def _asz(*args: str) -> tuple[int, str, str]:
    p = asz_in_process(*args)
    return p.returncode, p.stdout, p.stderr


@pytest.fixture(scope="module")
def clean(corpus_copy):
    root = corpus_copy()
    session = max((d for d in root.iterdir() if not d.name.startswith("_")), key=lambda d: (d / "index" / "entries.jsonl").stat().st_size)
    ls = _asz("ls", "--root", str(root))
    usage = _asz("usage", "--json", "--root", str(root))
    assert ls[0] == usage[0] == 0 and ls[2] == usage[2] == ""
    return root, session.name, ls[1], usage[1]


def _damage(root: Path, session: str, how: str) -> tuple[Path, int, str]:
    """Damage one state file of ``session`` as ``how`` says; returns (the file, the line verify must name, words of
    the reason)."""
    sdir = root / session
    entries = sdir / "index" / "entries.jsonl"
    if how == "state-garbage":
        st = sdir / "session.state"
        lines = st.read_bytes().splitlines(keepends=True)
        st.write_bytes(b"".join(lines) + b"\x00garbage\n")
        return st, len(lines) + 1, "not a 'key value' line"
    if how == "entries-not-json":
        data = entries.read_bytes()
        second = data.index(b"\n") + 1
        os.chmod(entries, 0o644)
        entries.write_bytes(data[:second] + b"x" + data[second + 1:])  # line 2's opening brace: not JSON any more
        return entries, 2, "does not read as JSON"
    if how == "entries-cut":
        data = entries.read_bytes()
        entries.write_bytes(data[: len(data) // 2])
        return entries, data[: len(data) // 2].count(b"\n") + 1, f"cut short: index.state says {len(data)} bytes"
    if how == "entries-cut-no-state":  # as an asz before session 42 left a first index a full disk refused (fix41k)
        (sdir / "index" / "index.state").unlink()
        data = entries.read_bytes()
        entries.write_bytes(data[: len(data) // 2])
        cut = data[: len(data) // 2]
        assert not cut.endswith(b"\n")
        return entries, cut.count(b"\n") + 1, f"cut short: its last line has no newline ({len(cut)} bytes); no index.state names it"
    assert how == "entries-directory"
    entries.unlink()
    entries.mkdir()
    return entries, 0, "cannot be read: Is a directory"


@pytest.mark.parametrize("how", ["state-garbage", "entries-not-json", "entries-cut", "entries-cut-no-state",
                                 "entries-directory"])
def test_an_unreadable_state_file_is_named_by_verify_and_the_readers(clean, tmp_path, how):
    root0, session, ls, usage = clean
    root = tmp_path / "root"
    shutil.copytree(root0, root, symlinks=True)
    path, line, why = _damage(root, session, how)
    where = f"{path}:{line}" if line else str(path)

    code, out, _ = _asz("verify", "--root", str(root))
    assert code == 0, out  # the landed files are whole: a warning, not a failure
    warned = [ln for ln in out.splitlines() if ln.startswith("warning: ")]
    assert len(warned) == 1 and warned[0].startswith(f"warning: {where}: {UNREADABLE_STATE}: {why}"), warned
    code, out, _ = _asz("verify", "--root", str(root), "--json")
    assert [w["file"] for w in json.loads(out)["warnings"]] == [str(path)]

    for args, figures in ((("ls",), ls), (("usage", "--json"), usage)):
        code, out, err = _asz(*args, "--root", str(root))
        assert code == 0 and out == figures  # the figures come from the chains, unchanged
        assert err.splitlines() == [warned[0]], err  # one line, naming the file (and the line)


def test_the_names_it_checks_are_the_roots_own():
    """session_files names session.state and index/ itself (asz view checks them before it answers, without the
    modules that define them): they are the names the writers use."""
    from asz_core.flow.index import INDEX_DIR, index_dir
    from asz_core.storage.root import SESSION_STATE
    from asz_core.verify import session_files

    assert (session_files.SESSION_STATE, session_files.INDEX_DIR) == (SESSION_STATE, INDEX_DIR)
    assert index_dir(Path("s")) == Path("s") / session_files.INDEX_DIR

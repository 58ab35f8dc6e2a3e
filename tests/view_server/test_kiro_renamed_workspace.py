"""A Kiro session whose workspace was renamed reads under the name it has now, and says it had another (trial 34a F4).

Real input: the corpus Kiro home, collected; then the IDE 3.x session's ``session.json`` rewritten as Kiro rewrites it
when the workspace folder is renamed and the session retitled (``workspacePaths`` and ``title`` changed, nothing else),
and collected again: its new version lands beside the first. Before, the title followed the newest version and the
project the first, and nothing said so: ``asz conversation`` named the old folder and ``asz ls --project <new name>``
matched nothing. The names expected are read from the two versions of the file, never from asz's output. Checked in
``asz ls`` (its table and ``--json``), ``asz conversation`` (text and ``--json``), ``asz usage project --json`` and a
real ``asz view``'s ``/api/conversations``.
"""

from __future__ import annotations

import json
import shutil

import pytest

from view_server_helpers import asz, asz_here, counted_rows
from test_view_server_kiro_page import CORPUS_KIRO as KIRO


@pytest.fixture(scope="module")
def renamed(tmp_path_factory) -> dict:
    if not KIRO.is_dir():
        pytest.skip(f"the Kiro corpus is absent ({KIRO})")
    base = tmp_path_factory.mktemp("kiro-renamed")
    home, root = base / "home", base / "root"
    shutil.copytree(KIRO, home / ".kiro")
    for p in (home / ".kiro").rglob("*"):
        p.chmod(0o755 if p.is_dir() else 0o644)
    (meta,) = (home / ".kiro" / "sessions").glob("*/sess_*/session.json")
    asz("collect", "--once", "--adapter", "kiro", "--source", str(home), "--root", str(root))
    first = json.loads(meta.read_text(encoding="utf-8"))
    (old,) = first["workspacePaths"]
    now = {**first, "workspacePaths": [old + "-renamed"], "title": "Retitled " + first["title"]}
    meta.write_text(json.dumps(now, indent=2), encoding="utf-8")
    asz("collect", "--once", "--adapter", "kiro", "--source", str(home), "--root", str(root))
    return {"root": root, "id": meta.parent.name, "old": old, "new": now["workspacePaths"][0], "title": now["title"]}


def _ls(t: dict, *args: str) -> list[dict]:
    return json.loads(asz_here("ls", "--json", "--root", str(t["root"]), *args, check=False).stdout or "[]")


def test_the_project_is_the_newest_version_s_and_the_old_name_is_said(renamed, serve):
    t = renamed
    (row,) = [r for r in _ls(t) if r["id"] == t["id"]]
    assert (row["title"], row["project"], row["project_before"]) == (t["title"], t["new"], [t["old"]])
    # either name finds it (the old one as before, the new one now), under the name it has now
    assert [r["id"] for r in _ls(t, "--project", "-renamed")] == [t["id"]]
    assert [r["id"] for r in _ls(t, "--project", t["old"].rsplit("/", 1)[1])] == [t["id"]]
    table = asz_here("ls", "--root", str(t["root"])).stdout.splitlines()
    assert f"renamed: {t['id'][:len('sess_') + 8]} (was {t['old']}): PROJECT is the one their runtime's session document names now, " \
           "another before (--project matches either; --json: project_before)" in table
    said = asz_here("conversation", t["id"], "--root", str(t["root"])).stdout.splitlines()
    assert said[1] == f"project {t['new']}, kiro"
    assert said[2] == (f"renamed: the session's metadata document named the project {t['old']} before "
                       "(asz ls --project matches either name)")
    s = json.loads(asz_here("conversation", t["id"], "--json", "--root", str(t["root"])).stdout)["summary"]
    assert (s["title"], s["project"], s["project_before"]) == (t["title"], t["new"], [t["old"]])
    by = {r["project"]: r["calls"] for r in json.loads(asz_here("usage", "project", "--json", "--root", str(t["root"])).stdout)}
    assert t["new"] in by and t["old"] not in by
    api = {r["id"]: (r["project"], r["project_before"]) for r in counted_rows(serve(t["root"]))}
    assert api[t["id"]] == (t["new"], [t["old"]])


def test_a_session_never_renamed_says_nothing(renamed):
    t = renamed
    others = [r for r in _ls(t) if r["id"] != t["id"]]
    assert others and all(r["project_before"] is None for r in others)
    said = asz_here("conversation", others[0]["id"], "--root", str(t["root"])).stdout
    assert "renamed:" not in said

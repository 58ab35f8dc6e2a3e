"""``asz verify --deep`` names a landed record whose flag no rule of its adapter declares (house26 item 2).

Since session 25 ``asz collect`` refuses such a record (trial 25a F7; tests/collect/test_undeclared_flag.py), but a
root an older adapter landed may hold one, whole and sealed: before, ``--deep`` passed it (this test failed: no
``flag without rule`` line). Here a session is landed as an old adapter would have written it: the corpus's Claude
Code transcript (claude-code-log-sample/326189cf…) copied record for record into a new session by the real writer,
header ``claude-code-local/0.1.0``, one record's flags ``["injected"]`` made ``["auxiliary", "injected"]``
(``auxiliary`` is in Session Data's vocabulary; claude-code/1 declares no rule that sets it). It is a warning (docs/
verify.md, Warnings): the file is whole, exit 0; the default check, which decodes no record, says nothing of it.
``asz`` runs in the test's process (:func:`cli_helpers.asz_in_process`): no signal, pipe or exit status of a process
is tested here (session 33: a child process each cost about 0.4 s of CPU).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import attrs

from asz_core.sessiondata import SDReader, SDWriter
from asz_core.storage import kind_dir, landed_name
from cli_helpers import asz_in_process

CORPUS_SESSION = "326189cf-5676-4237-8cde-1ce80aae4a9f"
OLD = "0f1a9c00-0000-4000-8000-00000000f7f7"


def _asz(*args: str) -> subprocess.CompletedProcess:
    return asz_in_process(*args)


def _land_as_an_old_adapter(root: Path) -> tuple[Path, int, str]:
    """The landed file, the line of the record given the undeclared flag, and that record's id."""
    (src,) = (root / CORPUS_SESSION / "streams" / "main").glob("*.sd")
    reader = SDReader(src)
    records = [rec for _, rec in reader]
    at = next(i for i, r in enumerate(records) if r.flags == ["injected"])
    records[at] = attrs.evolve(records[at], flags=["auxiliary", "injected"])
    header = attrs.evolve(reader.header, session=OLD, adapter="claude-code-local/0.1.0", seq=1)
    d = kind_dir(root, OLD, "transcript", stream="main")
    d.mkdir(parents=True)
    path = d / landed_name("transcript", "20261101T000000.000000000Z", 1)
    with SDWriter(path, header) as w:
        for r in records:
            w.write(r)
        w.close()
    rid = records[at].id
    lines = path.read_bytes().split(b"\n")
    (line,) = [n for n, x in enumerate(lines, start=1) if json.dumps(rid).encode() in x and b'"auxiliary"' in x]
    return path, line, rid


def test_deep_names_a_flag_no_declared_rule_sets(corpus_copy) -> None:
    root = corpus_copy()
    path, line, rid = _land_as_an_old_adapter(root)
    plain = _asz("verify", "--root", str(root))
    assert plain.returncode == 0, plain.stdout + plain.stderr
    assert "flag without rule" not in plain.stdout
    deep = _asz("verify", "--deep", "--root", str(root))
    assert deep.returncode == 0, deep.stdout + deep.stderr  # a warning: the file is whole
    said = [x for x in deep.stdout.splitlines() if "flag without rule" in x]
    assert len(said) == 1, deep.stdout  # "injected" has its rule; the corpus's own 528 flags all have theirs
    assert said[0].startswith(f"warning: {path}:{line}: flag without rule [flags[0]]: record ord ")
    assert f"(id {rid!r}): 'auxiliary' has no flag rule in dialect claude-code/1 (its rules: " in said[0]
    assert "landed by claude-code-local/0.1.0, before asz collect refused such a record" in said[0]
    report = json.loads(_asz("verify", "--deep", "--json", "--root", str(root)).stdout)
    (w,) = [w for w in report["warnings"] if w["problem"] == "flag without rule"]
    assert (w["file"], w["line"], w["field"]) == (str(path), line, "flags[0]")
    assert report["flags_without_rule"] == 1 and report["ok"] is True
    one = _asz("verify", "--deep", str(path))  # the one file alone says it too
    assert any(x.startswith(f"warning: {path}:{line}: flag without rule [flags[0]]") for x in one.stdout.splitlines()), one.stdout
    session = _asz("verify", "--deep", OLD, "--root", str(root))  # and the session alone
    assert sum("flag without rule" in x for x in session.stdout.splitlines()) == 1, session.stdout


def test_deep_names_it_in_a_skeleton_too(corpus_copy) -> None:
    """A skeleton keeps every record's flags (seed 000, Skeletons) and the readers take them as set, so ``--deep`` holds
    them too: the old adapter's file removed by retention (its skeleton written as ``asz prune`` writes it, the ``.sd``
    gone) is named at the skeleton's line, as it unzips. Before, only ``.sd`` files were read: nothing was said."""
    import gzip

    from asz_core.sessiondata.skeleton import write_skeleton

    root = corpus_copy()
    path, _line, rid = _land_as_an_old_adapter(root)
    sk = write_skeleton(path, at="2026-12-05T00:00:00Z", generation=1, receiver="unconfirmed", owner="")
    path.unlink()
    lines = gzip.decompress(sk.read_bytes()).split(b"\n")
    (line,) = [n for n, x in enumerate(lines, start=1) if json.dumps(rid).encode() in x and b'"auxiliary"' in x]
    deep = _asz("verify", "--deep", "--root", str(root))
    said = [x for x in deep.stdout.splitlines() if "flag without rule" in x]
    assert len(said) == 1 and said[0].startswith(f"warning: {sk}:{line}: flag without rule [flags[0]]: "), deep.stdout
    one = _asz("verify", "--deep", str(sk))
    assert any(x.startswith(f"warning: {sk}:{line}: flag without rule") for x in one.stdout.splitlines()), one.stdout

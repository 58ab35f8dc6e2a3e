"""``asz verify`` of a root retention pruned says what it can no longer check (trial 29a F4: 35 of 35 landed files
were skeletons and the output was a whole root's, "all landed data is contiguous and matches its digests", with no
skeleton count in ``--json``): a line ``N of M landed file(s) in S session(s) are skeletons: their text was removed by
retention at …``, naming who holds the originals, and the ``--json`` keys ``skeletons``, ``landed_files`` and
``removed_by_retention`` (the existing keys kept).

Real input: the collected corpus root (a copy), pruned by ``asz prune`` (retention ``after: 0``, no receiver: each
skeleton's ``removed.receiver`` is ``unconfirmed``). The counts are the files on disk (``*.sk``, ``*.sd``)."""

from __future__ import annotations

import gzip
import json

import orjson

from cli_helpers import asz_in_process as asz


def test_verify_says_how_many_files_are_skeletons(corpus_copy, tmp_path):
    root = corpus_copy(tmp_path / "root")
    whole = json.loads(asz("verify", "--root", str(root), "--json").stdout)
    assert "skeletons" not in whole and "removed_by_retention" not in whole
    assert "are skeletons" not in asz("verify", "--root", str(root)).stdout
    landed = len(list(root.glob("*/streams/*/*.sd")))
    (tmp_path / "asz.yaml").write_text('storage: {retention: {after: "0", require_accepted: false}}\n')
    asz("prune", "--root", str(root), "--config", str(tmp_path / "asz.yaml"))
    sk = sorted(root.glob("*/streams/*/*.sk"))
    assert len(sk) == landed and not list(root.glob("*/streams/*/*.sd"))
    ats = sorted({orjson.loads(gzip.open(p).readline())["removed"]["at"] for p in sk})
    sessions = {p.relative_to(root).parts[0] for p in sk}
    p = asz("verify", "--root", str(root))
    assert p.returncode == 0, p.stdout
    (line,) = [x for x in p.stdout.splitlines() if "are skeletons" in x]
    when = f"at {ats[0]}" if len(ats) == 1 else f"from {ats[0]} to {ats[-1]}"
    assert line.startswith(f"{len(sk)} of {len(sk)} landed file(s) in {len(sessions)} session(s) are skeletons: their "
                           f"text was removed by retention {when}; ")
    assert f"({len(sk)} confirmed by no receiver (removed.receiver: unconfirmed or rejected)" in line
    js = json.loads(asz("verify", "--root", str(root), "--json").stdout)
    assert set(whole) <= set(js)  # every key kept
    assert js["skeletons"] == len(sk) and js["landed_files"] == len(sk) and js["ok"]
    assert js["removed_by_retention"] == {"sessions": len(sessions), "from": ats[0], "to": ats[-1], "held_by": {}, "held_as": {},
                                          "unconfirmed": len(sk)}
    one = sorted(sessions)[0]
    mine = [q for q in sk if q.relative_to(root).parts[0] == one]
    js1 = json.loads(asz("verify", "--root", str(root), one, "--json").stdout)
    assert js1["skeletons"] == len(mine) and js1["removed_by_retention"]["sessions"] == 1

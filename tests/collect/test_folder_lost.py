"""A whole session folder lost, then collected again (trial 13): collect says so, verify names the remedy, and
``asz parse SESSION --anew`` sets the old chain aside (kept, never deleted) and builds a new one that verifies.

The old chain bound landed files that are gone; the files landed again are new evidence (another stamp), so the
old chain can never match them again. It stays, moved under ``ROOT/_set_aside/<stamp>/`` byte for byte.
"""

from __future__ import annotations

import shutil

from collect_helpers import asz
from test_reland import collected  # noqa: F401  (the corpus copied and collected into a temporary root)


def test_a_lost_folder_collected_again_is_told_and_parse_anew_sets_the_old_chain_aside(collected, tmp_path):
    src, root = collected
    sessions = sorted(p.name for p in root.iterdir() if not p.name.startswith("_"))
    session = sessions[0]
    chain = root / "_conversations" / session
    rounds = {p.name: p.read_bytes() for p in sorted((chain / "rounds").iterdir())}
    assert rounds
    shutil.rmtree(root / session)

    p = asz("collect", "--once", "--source", str(src), "--root", str(root), cwd=tmp_path)
    assert p.returncode == 0, p.stdout + p.stderr
    anew = f"asz parse {session} --anew --root {root}"
    told = [ln for ln in p.stderr.splitlines() if ln.startswith(f"warning: {root / session}: ")]
    assert len(told) == 1 and "landed again from its source after its folder went missing" in told[0], p.stderr
    assert anew in told[0]

    v = asz("verify", "--root", str(root), cwd=tmp_path)
    assert v.returncode == 1
    assert any(anew in ln for ln in v.stdout.splitlines() if "cannot be told" in ln), v.stdout

    p = asz("parse", session[:8], "--anew", "--root", str(root), cwd=tmp_path)
    assert p.returncode == 0, p.stdout + p.stderr
    kept = list((root / "_set_aside").glob(f"*/_conversations/{session}"))
    assert len(kept) == 1 and f"kept as {kept[0]}" in p.stderr
    assert {q.name: q.read_bytes() for q in sorted((kept[0] / "rounds").iterdir())} == rounds  # evidence, byte for byte
    assert [q.name for q in (chain / "rounds").iterdir()] and not set(q.name for q in (chain / "rounds").iterdir()) & set(rounds)

    v = asz("verify", "--root", str(root), cwd=tmp_path)
    assert v.returncode == 0 and v.stdout.splitlines()[-1] == "all landed data is contiguous and matches its digests", v.stdout
    ls = asz("ls", "--json", "--root", str(root), cwd=tmp_path)
    assert ls.returncode == 0 and '"mismatch"' not in ls.stdout
    p = asz("parse", "--anew", "--root", str(root), cwd=tmp_path)
    assert p.returncode == 2 and "--anew needs a SESSION" in p.stderr

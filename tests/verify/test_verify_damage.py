"""``asz verify --deep`` names the first damaged record of a file whose closing digest fails (issue 23).

The bundled example is collected (collect parses, so the session index keeps
each line's digest); then each landed file is tampered with, one case at a
time: single-byte flips at random positions of every line, truncations,
deleted, repeated and swapped lines. Every case must be caught, and the
``damaged record`` (or ``damaged line``) problem must name the first line
where the tampered file parts from the original, found here by comparing
the two files' lines, not by asking the code.
"""

from __future__ import annotations

import os
import random
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from rewrite import rewrite_bytes

from asz_core.storage.layout import landed_files
from asz_core.verify import verify, verify_file

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "claude-code" / "projects"
SESSION = "7d2f1c3e-5b8a-4e61-9f0d-2a4c6e8b1d35"


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    if not EXAMPLE.is_dir():
        pytest.skip(f"{EXAMPLE} is absent")
    base = tmp_path_factory.mktemp("damage")
    src = shutil.copytree(EXAMPLE, base / "src")
    env = dict(os.environ, PYTHONPATH=str(REPO))
    subprocess.run([sys.executable, "-m", "asz_core.cli.main", "collect", "--once", "--source", str(src), "--root", str(base / "data")],
                   check=True, env=env, capture_output=True)
    return base / "data"


def _first_difference(before: bytes, after: bytes) -> int:
    """The 1-based line where ``after`` first parts from ``before`` (a missing line counts as differing)."""
    a, b = before.split(b"\n"), after.split(b"\n")
    for i in range(max(len(a), len(b))):
        if i >= len(a) or i >= len(b) or a[i] != b[i]:
            return i + 1
    raise AssertionError("no difference")


def _cases(data: bytes, rng: random.Random, flips: int) -> list[tuple[str, bytes]]:
    lines = data.split(b"\n")[:-1]
    out = []
    for _ in range(flips):
        i = rng.randrange(len(data) - 1)  # never the final newline
        b = bytearray(data)
        b[i] ^= 1 << rng.randrange(8)
        out.append((f"flip of byte {i}", bytes(b)))
    for cut in sorted(rng.sample(range(1, len(data) - 1), 3)):
        out.append((f"cut at {cut}", data[:cut]))
    for row in range(1, len(lines) - 1):  # record rows
        out.append((f"row {row} deleted", b"".join(x + b"\n" for j, x in enumerate(lines) if j != row)))
        out.append((f"row {row} repeated", b"".join(x + b"\n" + (x + b"\n" if j == row else b"") for j, x in enumerate(lines))))
        if row + 1 < len(lines) - 1:
            swapped = list(lines)
            swapped[row], swapped[row + 1] = swapped[row + 1], swapped[row]
            out.append((f"rows {row} and {row + 1} swapped", b"".join(x + b"\n" for x in swapped)))
    return out


@pytest.mark.slow
def test_every_tampering_is_caught_and_the_first_damaged_line_named(root):
    rng = random.Random(20261201)
    caught = named = total = 0
    for ln, path in landed_files(root / SESSION):
        original = path.read_bytes()
        shown = str(path)
        for what, damaged in _cases(original, rng, 100):
            if damaged == original:
                continue
            total += 1
            os.chmod(path, stat.S_IRUSR | stat.S_IWUSR)
            rewrite_bytes(path, damaged)
            os.chmod(path, 0o444)
            try:
                rep = verify(root, jobs=1, deep=True)
                single = verify_file(path, deep=True)
            finally:
                os.chmod(path, stat.S_IRUSR | stat.S_IWUSR)
                rewrite_bytes(path, original)
                os.chmod(path, 0o444)
            assert not rep.ok and not single.ok, f"{path.name}: {what} not caught"
            caught += 1
            want = _first_difference(original, damaged)
            for report in (rep, single):
                hits = [p for p in report.problems if p.problem in ("damaged record", "damaged line") and p.file.endswith(path.name)]
                assert [p.line for p in hits] == [want], f"{path.name}: {what}: expected line {want}, got {[str(p) for p in report.problems]}"
            named += 1
    assert total >= 300 and caught == named == total
    print(f"{total} tamperings, {caught} caught, {named} with the first damaged line named")
    assert verify(root, jobs=1, deep=True).ok  # every file put back

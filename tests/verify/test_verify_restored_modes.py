"""A copy of a root restored with its write bits back (``cp -r`` then ``chmod -R u+w``, as a backup tool may leave
it) fails ``asz verify`` with one ``writable`` problem per landed file, each saying its bytes still match and the way
back (trial 29a F11: only ``mode -rw-r--r--: a landed file is read-only`` was said); after ``chmod a-w`` on the
landed files the copy verifies. Real input: the collected corpus root (a copy); the landed files counted on disk."""

from __future__ import annotations

import os
import stat

from cli_helpers import asz_in_process as asz


def test_a_restored_copy_is_told_its_bytes_match_and_how_to_make_it_read_only(corpus_copy, tmp_path):
    root = corpus_copy(tmp_path / "root")
    landed = sorted(root.glob("*/streams/*/*.sd")) + sorted(root.glob("*/runs/*/*.sd"))
    assert landed
    for p in landed:
        os.chmod(p, stat.S_IMODE(p.stat().st_mode) | stat.S_IWUSR)
    v = asz("verify", "--root", str(root))
    assert v.returncode == 1
    writable = [x for x in v.stdout.splitlines() if ": writable [mode]: " in x]
    assert len(writable) == len(landed)
    for line in writable:
        assert line.endswith("a landed file is read-only; its bytes still match its closing line's digest: a copy "
                             "restored with its write bits back (cp -r, a backup tool) is made read-only again by "
                             "chmod a-w on its landed files and skeletons (find ROOT -name '*.sd' -o -name '*.sk' | "
                             "xargs chmod a-w)")
    for p in landed:
        os.chmod(p, stat.S_IMODE(p.stat().st_mode) & ~0o222)
    assert asz("verify", "--root", str(root)).returncode == 0

"""The one rule of a file written by a name (asz_core/storage/out_path.py; trial 47b F1): renamed only over nothing or
a regular file, looked at again just before the rename, so a FIFO or a link put there after the writer began is not
replaced either; write_at_once (the receipts', the root's state files) follows it. Real FIFOs and links in the test's
own folder."""

from __future__ import annotations

import os
import stat

import pytest

from asz_core.storage.out_path import NotRegular, put_in_place, written_at
from asz_core.storage.root import write_at_once


def test_a_fifo_put_there_after_the_check_is_not_renamed_over(tmp_path):
    dest = tmp_path / "report.txt"
    assert written_at(dest) is None  # nothing there: written as it is named
    tmp = tmp_path / "report.txt.part"
    tmp.write_bytes(b"whole\n")
    os.mkfifo(dest)  # put there meanwhile
    with pytest.raises(NotRegular) as err:
        put_in_place(tmp, dest)
    assert str(err.value) == f"{dest}: a FIFO (named pipe), not a regular file"
    assert stat.S_ISFIFO(os.lstat(dest).st_mode) and tmp.read_bytes() == b"whole\n"  # the writer removes its .part
    os.unlink(dest)
    dest.symlink_to(tmp_path / "elsewhere")
    with pytest.raises(NotRegular, match="a symbolic link to .*elsewhere .asz does not write through a link there."):
        put_in_place(tmp, dest)
    assert dest.is_symlink() and not (tmp_path / "elsewhere").exists()


def test_write_at_once_refuses_a_fifo_and_leaves_no_temporary(tmp_path):
    os.mkfifo(tmp_path / "push.state")
    with pytest.raises(NotRegular):
        write_at_once(tmp_path / "push.state", b"x\n", True)
    assert os.listdir(tmp_path) == ["push.state"] and stat.S_ISFIFO(os.lstat(tmp_path / "push.state").st_mode)
    write_at_once(tmp_path / "other.state", b"x\n", False)
    assert (tmp_path / "other.state").read_bytes() == b"x\n"


def test_written_at_follows_a_chain_of_links_to_a_regular_file(tmp_path):
    (tmp_path / "real.md").write_text("x")
    (tmp_path / "one").symlink_to("real.md")
    (tmp_path / "two").symlink_to("one")
    assert written_at(tmp_path / "two") == tmp_path / "real.md" and written_at(tmp_path / "real.md") == tmp_path / "real.md"
    (tmp_path / "loop").symlink_to("loop")
    with pytest.raises(NotRegular, match="a symbolic link that does not end at a file .a loop."):
        written_at(tmp_path / "loop")
    (tmp_path / "d").mkdir()
    (tmp_path / "to-d").symlink_to("d")
    with pytest.raises(NotRegular) as err:
        written_at(tmp_path / "to-d")
    assert str(err.value) == f"{tmp_path / 'to-d'} (a symbolic link to d): a directory"


@pytest.mark.parametrize("writer", ["write_whole", "write_at_once"])
def test_a_link_planted_at_the_temporary_name_is_not_written_through(tmp_path, writer):
    """fix47j: export_manifest.write_whole (``FILE.part``) and write_at_once (``.FILE.PID.tmp``) opened their temporary
    name with a plain open, which wrote ``data`` into a link's target planted there (then renamed the link over FILE):
    now opened as part_open opens an export's .part (out_path.temp_open, O_NOFOLLOW): refused, naming the link, the
    target's bytes and FILE as they were, the link left (never the writer's to remove)."""
    from asz_core.reading.export_manifest import write_whole

    dest, victim = tmp_path / "index.html", tmp_path / "victim.txt"
    dest.write_bytes(b"before\n")
    victim.write_bytes(b"the victim's own bytes\n")
    tmp = tmp_path / ("index.html.part" if writer == "write_whole" else f".index.html.{os.getpid()}.tmp")
    tmp.symlink_to(victim)
    with pytest.raises(NotRegular) as err:
        write_whole(dest, b"new\n") if writer == "write_whole" else write_at_once(dest, b"new\n", True)
    assert str(err.value).startswith(f"{tmp}: a symbolic link to {victim}"), str(err.value)
    assert victim.read_bytes() == b"the victim's own bytes\n" and dest.read_bytes() == b"before\n"
    assert os.readlink(tmp) == str(victim)
    tmp.unlink()  # nothing planted: written as before, no temporary left
    write_whole(dest, b"new\n") if writer == "write_whole" else write_at_once(dest, b"new\n", True)
    assert dest.read_bytes() == b"new\n" and sorted(p.name for p in tmp_path.iterdir()) == ["index.html", "victim.txt"]


def test_a_fifo_planted_at_the_temporary_name_is_refused_without_waiting(tmp_path):
    """A FIFO at the temporary name: a plain open would wait for a reader for ever; refused at once (O_NONBLOCK)."""
    dest = tmp_path / "state.json"
    os.mkfifo(tmp_path / f".state.json.{os.getpid()}.tmp")
    with pytest.raises(NotRegular, match="a FIFO"):
        write_at_once(dest, b"{}", False)
    assert not dest.exists()

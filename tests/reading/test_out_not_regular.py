"""A named output is written only where nothing is, or a regular file is, or through a symbolic link to one (trial 47b
F1: ``asz export ID --out /dev/null``, run as root, replaced /dev/null with a regular file and wrote
``/dev/null.manifest.json`` into /dev, exit 0; a FIFO, a link to a file and a link to /proc/self/fd/1 were replaced
the same way). Every command with such an option is held to it here: ``asz export --out`` (one conversation, several
as one stream file, a folder export's own files) and ``asz usage --out``; ``asz push --receipts`` in
tests/export/test_push_receipts.py, the settings ``asz hooks`` edits in tests/observer/test_settings_linked_and_bytes.py.
And F3: one conversation's ``--out`` with another format's suffix is exit 2, as several conversations' is.

Real input: the corpus collected (tests/conftest.py), the spotter conversation; real FIFOs, a real character device
(made with mknod where this account may: skipped with the reason otherwise), real symbolic links and a real pipe's
/proc/self/fd entry, all inside the test's own folder."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from reading_helpers import asz, asz_process

SID = "55604662-cf2a-4331-851a-ec234028f8ca"
NOTHING = ("nothing written (asz writes a file whole under a temporary name and renames it over the one named, so it "
           "replaces only a regular file, or writes through a symbolic link to one; to print on stdout, leave out "
           "--out or give --out - (> /dev/null throws it away))")
REFUSED = f"not a regular file: {NOTHING}"


def _device(path: Path) -> None:
    """A character device 1,3 (what /dev/null is) at ``path``; skips when this account may not make one."""
    try:
        os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    except PermissionError as exc:
        pytest.skip(f"mknod is not permitted here ({exc.strerror}): the device case needs root or CAP_MKNOD")


@pytest.fixture
def pipe_end():
    """The read end of a real pipe, open for the test (the trial's link to /proc/self/fd/1 led to one), then closed."""
    r, w = os.pipe()
    yield r
    os.close(r)
    os.close(w)


def _odd_nodes(d: Path, r: int) -> dict[str, str]:
    """The nodes an ``--out`` must refuse, made in ``d`` (``r``: a pipe's fd): name -> what the refusal says it is."""
    os.mkfifo(d / "fifo.md")
    (d / "to-fifo.md").symlink_to("fifo.md")
    (d / "dangling.md").symlink_to("nowhere.md")
    # a link to this process's /proc/PID/fd entry of a pipe, as the trial's link to /proc/self/fd/1 was
    (d / "to-pipe.md").symlink_to(f"/proc/{os.getpid()}/fd/{r}")
    _device(d / "null.md")
    (d / "to-null.md").symlink_to(d / "null.md")
    return {"fifo.md": "a FIFO (named pipe), not a regular file",
            "to-fifo.md": "(a symbolic link to fifo.md): a FIFO (named pipe), not a regular file",
            "dangling.md": "a symbolic link to nowhere.md, which does not exist",
            "to-pipe.md": f"(a symbolic link to /proc/{os.getpid()}/fd/{r}): a FIFO (named pipe), not a regular file",
            "null.md": "a character device (1,3), not a regular file",
            "to-null.md": f"(a symbolic link to {d / 'null.md'}): a character device (1,3), not a regular file"}


def _named(path: Path, what: str) -> str:
    """How a refusal names ``path`` and says ``what`` it is (a link: ``PATH (a symbolic link to T): …``)."""
    return f"{path} {what}" if what.startswith("(") else f"{path}: {what}"


def _as_it_was(d: Path, before: dict[str, tuple]) -> None:
    """Every node in ``d`` as ``before`` recorded it (its kind, device numbers and link text), and nothing added."""
    assert _nodes(d) == before


def _nodes(d: Path) -> dict[str, tuple]:
    return {p.name: (stat.S_IFMT(os.lstat(p).st_mode), os.lstat(p).st_rdev, os.readlink(p) if p.is_symlink() else "")
            for p in d.iterdir()}


def test_export_refuses_a_fifo_a_device_and_links_to_them_exit_2_nothing_written(corpus_root, tmp_path, pipe_end):
    d = tmp_path / "out"
    d.mkdir()
    said = _odd_nodes(d, pipe_end)
    before = _nodes(d)
    for name, what in said.items():
        p = asz("export", SID[:8], "--root", str(corpus_root), "--out", str(d / name), check=False)
        assert p.returncode == 2 and p.stdout == "", (name, p.stderr)
        assert p.stderr == f"asz export: --out {_named(d / name, what)}: {NOTHING}\n"
    # several conversations as one md stream file: the same refusal
    p = asz("export", "--since", "2020-01-01", "--root", str(corpus_root), "--out", str(d / "fifo.md"), check=False)
    assert p.returncode == 2 and f"asz export: --out {d / 'fifo.md'}: a FIFO (named pipe), {REFUSED}" in p.stderr
    _as_it_was(d, before)  # no file, no manifest, no .part, no .lock; each node as it was


def test_a_device_is_refused_in_the_words_of_the_trial(corpus_root, tmp_path):
    _device(tmp_path / "null")
    p = asz("export", SID[:8], "--root", str(corpus_root), "--out", str(tmp_path / "null"), check=False)
    assert p.returncode == 2 and p.stdout == ""
    assert p.stderr == f"asz export: --out {tmp_path / 'null'}: a character device (1,3), {REFUSED}\n"
    assert sorted(os.listdir(tmp_path)) == ["null"] and stat.S_ISCHR(os.lstat(tmp_path / "null").st_mode)


def test_a_link_to_a_regular_file_is_written_through_and_stays_a_link(corpus_root, tmp_path):
    """The target gets the copy (the bytes the same export writes to a plain file), the link stays; the manifest is
    ``LINK.manifest.json`` beside the name given, and asz verify --export LINK passes."""
    plain = tmp_path / "plain.md"
    asz("export", SID[:8], "--root", str(corpus_root), "--out", str(plain))
    (tmp_path / "shared").mkdir()
    target = tmp_path / "shared" / "latest.md"
    target.write_text("keep?\n")
    link = tmp_path / "link.md"
    link.symlink_to(target)
    p = asz("export", SID[:8], "--root", str(corpus_root), "--out", str(link), check=False)
    assert p.returncode == 0, p.stderr
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_bytes() == plain.read_bytes()
    assert f"asz export: replaced {link} (the 6 bytes it held)" in p.stderr
    assert (f"wrote {link} ({plain.stat().st_size:,} bytes; through the symbolic link to {target}, which stays)"
            in p.stderr)
    assert sorted(os.listdir(tmp_path / "shared")) == ["latest.md"]  # no .part or .lock left there
    assert (tmp_path / "link.md.manifest.json").is_file()
    v = asz("verify", "--export", str(link), "--root", str(corpus_root), check=False)
    assert v.returncode == 0, v.stdout + v.stderr


def test_out_dash_is_stdout_and_writes_no_file(corpus_root, tmp_path):
    plain = asz_process("export", SID[:8], "--root", str(corpus_root), cwd=tmp_path)
    dash = asz_process("export", SID[:8], "--root", str(corpus_root), "--out", "-", cwd=tmp_path)
    assert dash.stdout == plain.stdout and dash.stdout.startswith("# ")
    assert os.listdir(tmp_path) == []


def test_a_folder_exports_own_file_that_is_a_fifo_or_a_link_is_left_alone_exit_2(corpus_root, tmp_path):
    out = tmp_path / "exp"
    out.mkdir()
    os.mkfifo(out / f"{SID}.md")
    p = asz("export", SID[:8], "--root", str(corpus_root), "--out", str(out) + "/", check=False)
    assert p.returncode == 2, p.stderr
    assert (f"asz export: cannot write {out / (SID + '.md')}: a FIFO (named pipe), not a regular file: left as it is, "
            "and nothing more written") in p.stderr
    assert stat.S_ISFIFO(os.lstat(out / f"{SID}.md").st_mode) and not (out / f"{SID}.md.manifest.json").exists()
    os.unlink(out / f"{SID}.md")
    keep = tmp_path / "keep.txt"
    keep.write_text("keep\n")
    (out / "index.md").symlink_to(keep)
    p = asz("export", SID[:8], "--root", str(corpus_root), "--out", str(out) + "/", check=False)
    assert p.returncode == 2 and f"cannot write {out / 'index.md'}: a symbolic link to {keep}" in p.stderr
    assert keep.read_text() == "keep\n" and os.readlink(out / "index.md") == str(keep)


def test_one_conversation_with_another_formats_suffix_is_exit_2_as_several_are(corpus_root, tmp_path):
    """F3: html into x.md, text into x.jsonl: exit 2, nothing written; several conversations' mismatch says the same
    "not one .md file"; a suffix asz does not write (.htm) or none is written as asked."""
    for fmt, name, other in (("html", "x.md", "md"), ("text", "x.jsonl", "prose"), ("md", "x.html", "html")):
        p = asz("export", SID[:8], "--root", str(corpus_root), "--format", fmt, "--out", str(tmp_path / name), check=False)
        ext = {"html": "html", "text": "txt", "md": "md"}[fmt]
        suffix = name[1:]
        assert p.returncode == 2 and p.stderr == (
            f"asz export: --out {tmp_path / name}: one conversation as {fmt} goes into a .{ext} file, not one {suffix} "
            f"file (--format {other}'s); give --out FILE.{ext}, or --format {other}\n"), p.stderr
    several = asz("export", "--since", "2020-01-01", "--root", str(corpus_root), "--format", "html", "--out",
                  str(tmp_path / "x.md"), check=False)
    assert several.returncode == 2 and "not one .md file" in several.stderr
    assert os.listdir(tmp_path) == []
    for name in ("page.htm", "page"):
        p = asz("export", SID[:8], "--root", str(corpus_root), "--format", "html", "--out", str(tmp_path / name), check=False)
        assert p.returncode == 0 and (tmp_path / name).read_bytes().startswith(b"<!doctype html>\n"), p.stderr


def test_usage_out_refuses_the_same_nodes_and_writes_through_a_link(corpus_root, tmp_path, pipe_end):
    d = tmp_path / "out"
    d.mkdir()
    said = _odd_nodes(d, pipe_end)
    (d / "adir").mkdir()
    said["adir"] = "a directory"
    before = _nodes(d)
    for name, what in said.items():
        p = asz("usage", "daily", "--root", str(corpus_root), "--out", str(d / name), check=False)
        assert p.returncode == 2 and p.stdout == "", (name, p.stderr)
        assert p.stderr == f"asz usage: --out {_named(d / name, what)}: {NOTHING}\n"
    _as_it_was(d, before)
    plain = asz("usage", "daily", "--root", str(corpus_root)).stdout
    assert asz("usage", "daily", "--root", str(corpus_root), "--out", "-").stdout == plain
    target = tmp_path / "t.txt"
    target.write_text("old\n")
    (tmp_path / "link.txt").symlink_to(target)
    p = asz("usage", "daily", "--root", str(corpus_root), "--out", str(tmp_path / "link.txt"))
    assert p.stdout == "" and target.read_text() == plain and (tmp_path / "link.txt").is_symlink()
    assert not [n for n in os.listdir(tmp_path) if n.endswith(".part")]


def test_a_suffix_not_the_formats_own_is_refused_without_format_and_warned_with_it(corpus_root, tmp_path):
    """Trial 49b F4: ``--out chat.pdf`` without ``--format`` wrote Markdown into chat.pdf without a word, though
    ``chat.html`` was refused: no --format (md by default), exit 2, nothing written; ``--format md`` (or ``--brief``,
    ``--audit``: a form chosen) writes it as asked and warns; the format's own other suffixes (.markdown, .htm) and none are written quietly."""
    for args, name in (((), "chat.pdf"), ((), "chat.log")):
        p = asz("export", SID[:8], "--root", str(corpus_root), *args, "--out", str(tmp_path / name), check=False)
        pdf = " (asz writes no PDF: --format html makes a page a browser prints to one)" if name.endswith(".pdf") else ""
        assert p.returncode == 2 and p.stderr == (
            f"asz export: --out {tmp_path / name}: no --format given, so this is md, whose file is .md, not "
            f".{name.split('.')[1]}{pdf}; give --out FILE.md, or --format md to write md into this "
            f".{name.split('.')[1]} file as asked\n"), p.stderr
    assert os.listdir(tmp_path) == []
    p = asz("export", SID[:8], "--root", str(corpus_root), "--format", "md", "--out", str(tmp_path / "chat.pdf"), check=False)
    assert p.returncode == 0 and (tmp_path / "chat.pdf").read_text().startswith("# ")
    assert (f"asz export: warning: --out {tmp_path / 'chat.pdf'}: md written into a .pdf file, not a .md one (asz writes "
            "no PDF: --format html makes a page a browser prints to one)\n") in p.stderr
    p = asz("export", SID[:8], "--root", str(corpus_root), "--audit", "--out", str(tmp_path / "day.audit"), check=False)
    assert p.returncode == 0 and "prose written into a .audit file, not a .jsonl one" in p.stderr, p.stderr
    for args, name in (((), "chat.markdown"), (("--format", "html"), "page.htm"), ((), "chat")):
        p = asz("export", SID[:8], "--root", str(corpus_root), *args, "--out", str(tmp_path / name), check=False)
        assert p.returncode == 0 and "warning" not in p.stderr and (tmp_path / name).stat().st_size, p.stderr

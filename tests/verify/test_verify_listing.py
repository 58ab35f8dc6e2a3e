"""The compiled listing of a session gives exactly ``session_listing``'s, or leaves it to the Python (issue 22).

``asz verify`` lists each session by one call of :mod:`asz_core.verify.linescan`'s ``listing``
(:func:`asz_core.verify.listing.verify_listing`) where it was built. It must give the same four fields as
:func:`asz_core.storage.layout.session_listing` with ``strings`` (the same files in the same order, a landed file
winning over its skeleton, the same directories, cursors in the same order, the same strays), or None where it
cannot be sure (a name that is not printable ASCII, a seq of more than 18 digits, a directory it cannot read), and
then the Python answers. Held on the sessions of the collected Claude Code corpus and on sessions made of every odd
entry a session directory can hold, and of names drawn at random. Every test skips where the module was not built.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from asz_core.storage.layout import PREFIX_KIND, LandedName, SessionListing, session_dirs, session_listing
from asz_core.verify import listing as listing_mod

linescan = listing_mod.linescan
pytestmark = pytest.mark.skipif(linescan is None,
                                reason="asz_core.verify.linescan was not built (setup.py's optional extension: no C compiler at install)")

STAMP = "20261203T170048.997069249Z"


def both(sdir: Path, skeletons: bool):
    """(the compiled listing or None, the Python's listing or the exception it raised)."""
    got = linescan.listing(os.fspath(sdir), skeletons, PREFIX_KIND, LandedName)
    try:
        want = session_listing(sdir, skeletons=skeletons, strings=True)
    except OSError as exc:
        want = exc
    return (None if got is None else SessionListing(*got)), want


def same(sdir: Path) -> int:
    """Assert the two ways agree on ``sdir`` (with and without skeletons); how many answers the C gave (0 to 2)."""
    answered = 0
    for skeletons in (True, False):
        got, want = both(sdir, skeletons)
        if got is None:
            continue
        answered += 1
        assert got == want
        assert list(got.cursors.items()) == list(want.cursors.items())  # the same order too
        assert all(p.__class__ is str for _, p in got.files) and all(d.__class__ is str for d in got.dirs)
    return answered


def test_the_corpus_sessions_list_alike(corpus_collected: Path):
    sessions = session_dirs(corpus_collected)
    assert len(sessions) == 11
    assert sum(same(s) for s in sessions) == 22  # every one answered in C
    got = listing_mod.verify_listing(sessions[0])
    assert len(got.files) > 0 and got == session_listing(sessions[0], skeletons=True, strings=True)


def odd_session(sdir: Path) -> None:
    """A session directory holding every kind of entry the listing must take, skip or name (strays, cursors, skeletons)."""
    main = sdir / "streams" / "main"
    main.mkdir(parents=True)
    for name in (f"transcript-{STAMP}-000002.sd", f"transcript-{STAMP}-000002.sk", f"transcript-{STAMP}-000001.sk",
                 f"meta-{STAMP}-000001.sd", f"transcript-{STAMP}-0000010.sd", f"transcript-{STAMP}-00003.sd",
                 f"nokind-{STAMP}-000004.sd", f"Transcript-{STAMP}-000005.sd", f"transcript-{STAMP}-000006.sdx",
                 f"transcript_{STAMP}-000007.sd", "notes.sd", "x.sk", "transcript.cursor", "meta.cursor", "nokind.cursor",
                 ".transcript-x.1.tmp", ".hidden.sd", f"changes-{STAMP}-000008.sd", "a b.sd", "transcript.cursor.bak"):
        (main / name).write_text("x")
    (main / f"transcript-{STAMP}-000009.sd").mkdir()  # a directory with a landed name: not a file
    (main / f"transcript-{STAMP}-000009.sk").write_text("x")  # its skeleton is listed (with skeletons)
    (main / "changes.cursor").mkdir()  # a cursor's name on a directory: still the cursor's path
    other = sdir / "streams" / "agent-1"
    other.mkdir()
    (other / f"transcript-{STAMP}-000002.sd").write_text("x")  # the same seq in another stream: both listed
    (sdir / "streams" / "afile").write_text("x")  # a file among the streams: not a stream
    (sdir / "streams" / ".dot").mkdir()  # a directory starting with a dot: a stream all the same
    ((sdir / "streams" / ".dot") / f"execution-{STAMP}-000013.sd").write_text("x")
    run = sdir / "runs" / "b1"
    run.mkdir(parents=True)
    (run / f"journal-{STAMP}-000014.sd").write_text("x")
    (run / "journal.cursor").write_text("x")
    (sdir / "provider_body").mkdir()
    (sdir / "provider_body" / f"provider_body-{STAMP}-000001.sd").write_text("x")


def test_every_odd_entry_lists_alike(tmp_path: Path):
    sdir = tmp_path / "s1"
    odd_session(sdir)
    assert same(sdir) == 2
    got, _ = both(sdir, True)
    names = [os.path.basename(p) for _, p in got.files]
    assert f"transcript-{STAMP}-000002.sk" not in names and f"transcript-{STAMP}-000001.sk" in names
    assert f"transcript-{STAMP}-000009.sk" in names
    assert len(got.strays) == 7 and len(got.cursors) == 4


def test_links_are_left_to_the_python_which_enters_no_linked_folder(tmp_path: Path):
    """Symbolic links (docs/storage-root.md, "No links"): the C listing leaves a session holding one to the Python,
    which lists a link in a landed file's place (its reader refuses it, naming it) and enters no linked folder."""
    sdir = tmp_path / "s1"
    odd_session(sdir)
    main = sdir / "streams" / "main"
    os.symlink(main / f"meta-{STAMP}-000001.sd", main / f"meta-{STAMP}-000011.sd")  # a link to a file: listed
    os.symlink(main / "nowhere", main / f"meta-{STAMP}-000012.sd")  # a broken link is not
    os.symlink(sdir / "streams" / "agent-1", sdir / "streams" / "linked")  # a link to a stream folder: not entered
    got, want = both(sdir, True)
    assert got is None  # the C answers nothing
    names = [os.path.relpath(p, sdir) for _, p in want.files]
    assert f"streams/main/meta-{STAMP}-000011.sd" in names and f"streams/main/meta-{STAMP}-000012.sd" not in names
    assert not [n for n in names if n.startswith("streams/linked/")]


@pytest.mark.parametrize("what", ["no session", "a file", "no streams", "runs a file", "streams a file", "empty"])
def test_missing_parts_list_alike(tmp_path: Path, what: str):
    sdir = tmp_path / "s"
    if what == "a file":
        sdir.write_text("x")
    elif what != "no session":
        sdir.mkdir()
        if what == "no streams":
            (sdir / "runs").mkdir()
        elif what == "runs a file":
            (sdir / "runs").write_text("x")
        elif what == "streams a file":
            (sdir / "streams").write_text("x")
    assert same(sdir) == 2


@pytest.mark.parametrize("name", ["transcript-" + STAMP + "-" + "1" * 19 + ".sd", "transcrïpt.sd", "a\nb.sd",
                                  f"transcript-{STAMP}-000001.sd\n", "\udcff.sd"])
def test_what_the_python_must_answer(tmp_path: Path, name: str):
    sdir = tmp_path / "s"
    (sdir / "streams" / "main").mkdir(parents=True)
    with open(os.path.join(os.fsencode(sdir / "streams" / "main"), os.fsencode(name)), "w") as f:
        f.write("x")
    got, want = both(sdir, True)
    assert got is None  # left to the Python, which lists it
    assert listing_mod.verify_listing(sdir) == want


def test_a_loop_and_an_unreadable_directory_are_left_to_the_python(tmp_path: Path):
    sdir = tmp_path / "s"
    (sdir / "streams").mkdir(parents=True)
    os.symlink(sdir / "streams" / "loop", sdir / "streams" / "loop")  # a link: the Python never enters it
    got, want = both(sdir, True)
    assert got is None and want == SessionListing([], [], {}, [])


NAME_PARTS = st.sampled_from(["transcript", "meta", "journal", "provider_body", "changes", "nokind", "", "-", STAMP,
                              "20261203T170048.99706924Z", "000001", "000002", "0000001", "12345", ".sd", ".sk", ".cursor",
                              ".", "_", "a", "Z", "9"])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(names=st.lists(st.lists(NAME_PARTS, min_size=1, max_size=7).map("".join), min_size=1, max_size=12, unique=True),
       dirs=st.lists(st.booleans(), min_size=12, max_size=12))
def test_random_names_list_alike(tmp_path_factory, names: list[str], dirs: list[bool]):
    sdir = tmp_path_factory.mktemp("s")
    for i, name in enumerate(names):
        if name in (".", "..", "") or "/" in name:
            continue
        where = sdir / ("provider_body" if i % 3 == 0 else "streams/main")
        where.mkdir(parents=True, exist_ok=True)
        (where / name).mkdir() if dirs[i] else (where / name).write_text("x")
    assert same(sdir) == 2

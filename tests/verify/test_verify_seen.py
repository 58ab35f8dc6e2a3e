"""What the chain checks list and read is kept for the checks after them (``asz_core.flow.verify_chain.Seen``; issue
22: ``asz verify`` listed each session three times and read each head round three times): the hints and the
arguments check take it instead of reading again, and find what they find without it."""

from __future__ import annotations

import os
import shutil

import orjson

from asz_core.flow.verify_chain import Seen
from asz_core.storage.layout import parse_landed_name, session_dirs, session_listing
from asz_core.verify.unparsed import lagging_sessions
from asz_core.verify.walk import verify


def _head_file(root, conversation: str) -> str:
    """The newest round file of a conversation, by the number its name starts with (r000001-…), read off the folder."""
    names = os.listdir(root / "_conversations" / conversation / "rounds")
    return max((n for n in names if n.endswith(".sf")), key=lambda n: int(n[1:7]))


def test_what_the_chain_checks_keep_is_what_reading_again_gives(corpus_copy):
    root = corpus_copy()
    seen = Seen()
    with_seen = verify(root, jobs=1, seen=seen)
    without = verify(root, jobs=1)
    assert with_seen.as_dict() == without.as_dict() and with_seen.ok
    chains = sorted(os.listdir(root / "_conversations"))
    assert sorted(seen.heads) == chains and len(chains) == 11
    for conv in chains:
        name = _head_file(root, conv)
        with open(root / "_conversations" / conv / "rounds" / name, "rb") as f:
            header = orjson.loads(f.readline())
        assert seen.heads[conv] == (name, header["session"], header["through_seq"])
    assert sorted(seen.listed) == sorted(os.fspath(s) for s in session_dirs(root))
    for sdir in session_dirs(root):
        assert seen.listed[os.fspath(sdir)] == session_listing(sdir, skeletons=True, strings=True).files


def test_a_session_ahead_of_its_chain_is_found_the_same_with_what_was_kept(corpus_copy):
    """A landed file past the head round's window (a copy of the last one under the next seq): the chain is behind
    its landed files, counted from the names on disk; the same with the listing and head the chain checks kept."""
    root = corpus_copy()
    sdir = session_dirs(root)[0]
    last = max(((parse_landed_name(n), os.path.join(d, n)) for d, _, names in os.walk(sdir) for n in names
                if parse_landed_name(n) is not None), key=lambda x: x[0].seq)
    ln, path = last
    name = os.path.basename(path)
    copy = os.path.join(os.path.dirname(path), name.replace(f"-{ln.seq:06d}.", f"-{ln.seq + 1:06d}."))
    shutil.copy(path, copy)
    seen = Seen()
    verify(root, jobs=1, seen=seen)
    conv = sdir.name
    with open(root / "_conversations" / conv / "rounds" / _head_file(root, conv), "rb") as f:
        through = orjson.loads(f.readline())["through_seq"]
    assert lagging_sessions(root) == lagging_sessions(root, None, seen) == [(sdir.name, through, ln.seq + 1)]


def test_the_chain_checks_find_the_same_with_the_compiled_listing(corpus_copy):
    """``asz verify``'s chain checks list each session once by :func:`~asz_core.verify.listing.verify_listing` (in C
    where it was built) instead of ``session_listing``; with one consumed file removed and another changed in place
    (its mode made writable, one byte changed), checks 5 and 6 find the same problems either way, and each session
    is listed once."""
    from asz_core.flow.verify_chain import verify_chains
    from asz_core.verify.listing import verify_listing

    root = corpus_copy()
    sdirs = session_dirs(root)
    gone = session_listing(sdirs[0], strings=True).files[0][1]
    os.remove(gone)
    changed = session_listing(sdirs[1], strings=True).files[0][1]
    os.chmod(changed, 0o644)
    with open(changed, "r+b") as f:
        f.seek(os.path.getsize(changed) // 2)
        byte = f.read(1)
        f.seek(-1, os.SEEK_CUR)
        f.write(b"x" if byte != b"x" else b"y")
    calls: list[str] = []

    def counted(sdir):
        calls.append(os.fspath(sdir))
        return verify_listing(sdir)

    python_way = verify_chains(root)
    compiled_way = verify_chains(root, listing=counted)
    assert compiled_way.as_dict() == python_way.as_dict()
    found = {(p.check, p.conversation) for p in compiled_way.problems}
    assert (5, sdirs[0].name) in found and (6, sdirs[1].name) in found
    assert sorted(calls) == sorted(os.fspath(s) for s in sdirs)  # each session listed once, by the listing given

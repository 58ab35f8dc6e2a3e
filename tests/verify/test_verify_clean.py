"""A clean session checked in one C call finds what the Python walk finds, and hands back every other (issue 22).

:func:`asz_core.verify.clean.clean_session` answers for a session only where
:func:`asz_core.verify.walk._verify_session`, over the session's listing and each file's check, finds no problem,
no warning and no record landed twice; its counts and whole-file digests must then be the walk's own. Everywhere
else it must give None, so that the Python (the definition) checks the session and says what it says. The
sessions are the Claude Code corpus as ``asz collect`` landed it, clean and tampered one way each; ``asz verify``'s
report on each tampered root is the same with and without the compiled modules. Skips where linescan or bytescan
was not built (no C compiler at install).
"""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

import pytest

import asz_core.verify.clean as clean
import asz_core.verify.walk as walk
from asz_core.storage.layout import session_dirs
from asz_core.verify.landed import check_for_walk
from asz_core.verify.listing import verify_listing

pytestmark = pytest.mark.skipif(clean.linescan is None or clean.cursor_values is None,
                                reason="asz_core.verify.linescan or sessiondata.bytescan was not built (setup.py's optional extensions)")


def python_session(root: Path, sdir: Path):
    """What the Python finds for one session: (streams, records, duplicates, uncursored), its problems, its files'
    digests by path and how many files it lists."""
    listing = verify_listing(sdir)
    results = [check_for_walk(path) for _, path in listing.files]
    problems: list = []
    counts = walk._verify_session(root, str(root), sdir, listing, results, problems)
    return counts, problems, dict(walk._file_digests(listing, results)), len(listing.files)


def same_or_handed_back(root: Path) -> tuple[int, int]:
    """Every session of ``root`` either answered by the C call exactly as the Python finds it (and then clean), or
    handed back (None, nothing put in the digests); returns (answered, handed back)."""
    answered = back = 0
    for sdir in session_dirs(root):
        digests: dict[str, str] = {}
        got = clean.clean_session(sdir, digests)
        counts, problems, want_digests, files = python_session(root, sdir)
        if got is None:
            back += 1
            assert digests == {}
            continue
        answered += 1
        assert not problems and counts[2] == 0, (sdir, problems)
        assert got == (counts[0], counts[1], counts[3], files)
        assert digests == want_digests
    return answered, back


def test_the_corpus_sessions_are_each_answered_in_one_call(corpus_collected: Path) -> None:
    """The 11 collected sessions are clean: each answered by the C call, with the walk's counts and digests."""
    assert same_or_handed_back(corpus_collected) == (11, 0)
    digests: dict[str, str] = {}
    got = clean.clean_session(session_dirs(corpus_collected)[0], digests)
    assert got is not None and got[3] == len(digests) > 0
    for path, hexdigest in digests.items():  # the whole file's SHA-256, as the round chains bind it
        assert hashlib.sha256(Path(path).read_bytes()).hexdigest() == hexdigest


def _rewrite(path: Path, fn) -> None:
    os.chmod(path, 0o644)
    path.write_bytes(fn(path.read_bytes()))
    os.chmod(path, 0o444)


def _reseal(lines: list[bytes]) -> bytes:
    body = b"".join(x + b"\n" for x in lines)
    return body + b'{"t":"end","records":%d,"digest":"%s"}\n' % (len(lines) - 1, hashlib.sha256(body).hexdigest().encode())


def _set_key(cursor: Path, key: str, value: str) -> None:
    lines = [f"{key:<15} {value}" if x.split(" ", 1)[0] == key else x for x in cursor.read_text().splitlines()]
    if not any(x.split(" ", 1)[0] == key for x in cursor.read_text().splitlines()):
        lines.append(f"{key:<15} {value}")
    cursor.write_text("\n".join(lines) + "\n")


def _cursor_value(cursor: Path, key: str) -> int:
    return int(next(x.split()[1] for x in cursor.read_text().splitlines() if x.split(" ", 1)[0] == key))


def _tamper(sdir: Path, how: str) -> bool:
    """Change one session of a copied root one way; False when the session has nothing to change that way.
    True marks a change the Python reports as a problem or a warning (or counts as landed again)."""
    files = sorted(sdir.glob("streams/*/transcript-*.sd"))
    main = sdir / "streams" / "main"
    cursor = main / "transcript.cursor"
    one = files[0]
    if how == "byte":
        _rewrite(one, lambda b: b[:200] + bytes([b[200] ^ 1]) + b[201:])
    elif how == "cut":
        _rewrite(one, lambda b: b[: b.rfind(b"\n", 0, len(b) - 1) + 1])
    elif how == "writable":
        os.chmod(one, 0o644)
    elif how == "stray":
        (main / "transcript-x.sd").write_bytes(b"")
    elif how == "skeleton":  # a skeleton beside its landed file, which wins: nothing to say, but the Python's to read
        shutil.copy(one, one.with_suffix(".sk"))
        return False
    elif how == "seq twice":
        other = one.with_name(one.name.replace("transcript-", "meta-"))
        shutil.copy(one, other)
    elif how in ("cursor ahead", "cursor behind", "conflict", "torn", "reread", "cursor bad"):
        if not cursor.is_file():
            return False
        if how == "cursor ahead":
            _set_key(cursor, "ord", str(_cursor_value(cursor, "ord") + 1))
        elif how == "cursor behind":
            _set_key(cursor, "offset", str(_cursor_value(cursor, "offset") - 1))
        elif how == "conflict":
            _set_key(cursor, "state", "conflict")
        elif how == "torn":
            _set_key(cursor, "torn", "12")
        elif how == "reread":  # read again from seq 1: the files are all the new reading, nothing to say
            _set_key(cursor, "reread_seq", "1")
            return False
        else:
            _set_key(cursor, "ord", "12x")
    elif how == "no cursor":  # a note (streams without a cursor), not a problem: answered in one call
        cursor.unlink()
        return False
    elif how == "landed again":  # the file's first record landed again at the start of a second file
        lines = one.read_bytes().split(b"\n")[:-2]
        if len(lines) < 3:
            return False
        seq = max(int(p.name.rsplit("-", 1)[1][:-3]) for p in sdir.glob("streams/*/*.sd")) + 1
        again = main / (one.name.rsplit("-", 1)[0] + f"-{seq:06d}.sd")
        head = lines[0].replace(b'"seq":%d' % int(one.name.rsplit("-", 1)[1][:-3]), b'"seq":%d' % seq)
        again.write_bytes(_reseal([head, lines[1]]))
        os.chmod(again, 0o444)
    elif how == "meta ord":
        metas = sorted(sdir.glob("streams/*/meta-*.sd"))
        if not metas:
            return False
        _rewrite(metas[0], lambda b: _reseal([x.replace(b'{"ord":1,', b'{"ord":2,', 1) for x in b.split(b"\n")[:-2]]))
    elif how == "empty":
        shutil.rmtree(sdir / "streams")
        return False
    return True


WAYS = ["byte", "cut", "writable", "stray", "skeleton", "seq twice", "cursor ahead", "cursor behind", "conflict", "torn",
        "reread", "cursor bad", "no cursor", "landed again", "meta ord", "empty"]


@pytest.mark.parametrize("how", WAYS)
def test_a_tampered_session_is_handed_back_and_the_report_is_the_same(corpus_copy, tmp_path: Path, how: str,
                                                                      monkeypatch) -> None:
    """A session changed one way: handed back to the Python wherever the Python finds anything (the C call answers
    only what it finds clean, as the Python finds it), and ``verify_root``'s report the same with the compiled
    session call and without it."""
    root = corpus_copy(tmp_path / "root")
    changed = [_tamper(sdir, how) for sdir in session_dirs(root)[:3]]
    answered, back = same_or_handed_back(root)
    assert answered + back == 11
    if any(changed):
        assert back >= 1
    with_c = walk.verify_root(root, jobs=1, digests=(d_c := {}))
    monkeypatch.setattr(clean, "linescan", None)
    assert clean.clean_session(session_dirs(root)[0], None) is None
    without = walk.verify_root(root, jobs=1, digests=(d_py := {}))
    assert with_c.lines() == without.lines() and with_c.as_dict() == without.as_dict() and d_c == d_py
    if any(changed):
        assert with_c.sections[0].problems or with_c.sections[0].warnings or with_c.sections[0].counts["duplicates"]

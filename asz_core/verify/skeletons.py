"""What ``asz verify`` can no longer check in a root retention pruned (trial 29a F4: a root whose every landed file
was a skeleton was said to "match its digests" like a whole one): how many landed files are skeletons, when their text
was removed, and which receiver holds the originals (seed 000, Skeletons; docs/verify.md, "Skeletons")."""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path
from urllib.parse import unquote

import orjson

from ..sessiondata.reader import header_line
from ..storage.layout import session_dirs, session_listing
from .report import Section

__all__ = ["skeleton_section"]


def _removed(path: Path) -> dict:
    """A skeleton's header's ``removed`` mapping ({} when it does not read: the landed check names that)."""
    try:
        got = orjson.loads(header_line(path)).get("removed")
    except Exception:  # noqa: BLE001 - a damaged skeleton is the landed check's problem, said there
        return {}
    return got if isinstance(got, dict) else {}


def _held_by(r: dict) -> str:
    """Who holds the original of a skeleton: the endpoint its ``removed.owner`` names when ``removed.receiver`` says
    it accepted the file (unescaped), else ``""`` (no receiver confirmed it)."""
    if r.get("receiver") == "accepted" and isinstance(r.get("owner"), str):
        return unquote(r["owner"].split("||", 1)[0])
    return ""


def _held_how(r: dict) -> str:
    """How the receiver holds a skeleton's records (:func:`_held_by` not ''): ``credential NAME`` when it refused this
    root's file as the session of credential NAME there, whose files hold every record (``removed.owned``, trial 43a
    F6; the name as every reader writes a sender's, :func:`~asz_core.storage.senders.instance_word`), ``another root``
    when it holds them from another root's file (``removed.elsewhere``), else ``''`` (it took this file)."""
    from ..storage.senders import instance_word

    if isinstance(r.get("owned"), str) and r["owned"]:
        return f"credential {instance_word(r['owned'])}"
    return "another root" if isinstance(r.get("elsewhere"), str) and r["elsewhere"] else ""


def _held_words(held: Counter, how: Counter) -> list[str]:
    """The skeleton line's ``N held by …`` parts: per endpoint, the files it took, then those it holds in another
    credential's files (naming the credential, not the receiver alone: close43) or from another root."""
    out = []
    for who, n in sorted(held.items()):
        if not who:
            continue
        took = n - sum(k for (w, _), k in how.items() if w == who)
        out += [f"{took} held by {who}, which accepted them"] if took else []
        out += [f"{k} held by {who} in the files of {h}, which sent their session first (it refused this root's)"
                if h.startswith("credential ") else f"{k} held by {who} from another root (it refused this root's)"
                for (w, h), k in sorted(how.items()) if w == who]
    return out


def skeleton_section(root: str | os.PathLike, session: str | None = None, listed: dict[str, list] | None = None
                     ) -> Section | None:
    """The ``skeletons`` section of ``asz verify`` (None when no landed file of ``root``, or of ``session``, is a
    skeleton): its line, ``N of M landed file(s) in S session(s) are skeletons: their text was removed by retention
    at AT (from A to B); here only each skeleton's removed.digest, bound by the round chain, is checked, not what the
    file held; held by ENDPOINT (N) …``, and its ``--json`` keys ``skeletons`` (N), ``landed_files`` (M) and
    ``removed_by_retention`` (``{"sessions", "from", "to", "held_by": {endpoint: N}, "unconfirmed": N}``: the
    receivers that accepted the files, by the skeletons' ``removed.owner``; ``held_as``: of those, ``ENDPOINT credential
    NAME`` or ``ENDPOINT another root`` -> how many it holds in another credential's files or from another root,
    ``removed.owned``/``removed.elsewhere``; how many no receiver confirmed).
    ``listed``: each session's landed files as the chain checks just listed them (skeletons too, paths as ``str``, by
    the session folder's path as ``str``: :class:`~asz_core.flow.verify_chain.Seen`); a session they did not list is
    listed here (issue 22: not listed twice, nor as a :class:`Path` a file)."""
    root = Path(root)
    dirs = [root / session] if session else session_dirs(root)
    listed = {} if listed is None else listed
    total, found, sessions = 0, [], set()
    for d in dirs:
        files = listed.get(os.fspath(d))
        if files is None:
            files = session_listing(d, skeletons=True, strings=True).files
        for ln, p in files:
            total += 1
            if ln.ext == "sk":
                found.append(_removed(p))
                sessions.add(d.name)
    if not found:
        return None
    ats = sorted(r["at"] for r in found if isinstance(r.get("at"), str) and r["at"])
    held = Counter(_held_by(r) for r in found)
    how = Counter((_held_by(r), _held_how(r)) for r in found if _held_by(r) and _held_how(r))
    when = ("" if not ats else f" at {ats[0]}" if ats[0] == ats[-1] else f" from {ats[0]} to {ats[-1]}")
    by = _held_words(held, how)
    by += [f"{held['']} confirmed by no receiver (removed.receiver: unconfirmed or rejected): no copy of what they "
           "held is known"] if held.get("") else []
    way = "; asz verify --root THAT_ROOT --receipts THIS_ROOT checks the receiver's copy" if any(held) else ""
    line = (f"{len(found)} of {total} landed file(s) in {len(sessions)} session(s) are skeletons: their text was removed "
            f"by retention{when}; here only each skeleton is checked, and the digest it keeps of its landed file (which "
            f"the round chain binds), not what the file held ({'; '.join(by)}{way})")
    return Section(name="skeletons", summary=line,
                   counts={"skeletons": len(found), "landed_files": total,
                           "removed_by_retention": {"sessions": len(sessions), "from": ats[0] if ats else None,
                                                    "to": ats[-1] if ats else None,
                                                    "held_by": {w: n for w, n in sorted(held.items()) if w},
                                                    "held_as": {f"{w} {h}": n for (w, h), n in sorted(how.items())},
                                                    "unconfirmed": held.get("", 0)}})

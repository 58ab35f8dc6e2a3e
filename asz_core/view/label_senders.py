"""Who sent a label's landed file and the conversation it names: on a receiving root, a label in another session's file
titles a conversation only when one sender sent both (session 43; docs/security.md, Who sent it; docs/reading.md).

``asz receive`` records who sent each landed file (``_received/<session directory>.senders``,
:mod:`asz_core.storage.senders`): a line's instance id and, when the receiver checked a named token, its credential,
named as every reader names a sender (:func:`~asz_core.storage.senders.sender_label`). A Claude Code ``summary`` in
one sender's file whose ``leafUuid`` is a message of another sender's conversation titled that conversation (session
42's review): any sender knowing one of another's message ids could name it in every reader. :meth:`Senders.same` is
the rule :class:`~asz_core.view.named_titles.NamedIn` asks for each such label (its titles and its keys alike).

On a root with no ``_received/`` (a root collected here, never received into) there are no senders: every label
counts, as before. On a receiving root a file's sender is its sender line's label; a line that does not verify, a
file ``_received/before.list`` lists (received before records were kept), or a file with no line yet (a request
landing it has not written its lines) has no known sender and titles nothing; a session collected into the receiving
root itself (its ``session.state``) is this host's (:data:`HERE`, which no sender's instance id can spell).
"""

from __future__ import annotations

import os

from ..storage.layout import dir_name
from ..storage.senders import RECEIVED, THIS_HOST, UNVERIFIED, listed_before, read_senders, sender_label

__all__ = ["Senders"]

#: A file or session whose sender cannot be told (no verified line): the same as no one.
UNKNOWN = None
#: This host (a session collected into the receiving root, :data:`~asz_core.storage.senders.THIS_HOST`) as this rule
#: tells it: a word no sender line's label can be (an instance id holding a parenthesis is quoted), so a sender whose
#: instance id is ``this host`` is not taken for this host (review43b: it titled the root's own collected sessions).
HERE = f"({THIS_HOST})"


class Senders:
    """The sender records of one root (a path) as titles read them; each session's record read again when its file's
    size, mtime or inode changes (a request landing more files appends lines)."""

    def __init__(self, root: str | os.PathLike) -> None:
        self.root = os.fspath(root)
        #: the root holds ``_received/``: files were received into it (else every label counts)
        self.receiving = os.path.isdir(os.path.join(self.root, RECEIVED))
        #: session directory -> (its record's stat, rel -> sender label or None, the session's senders)
        self._read: dict[str, tuple[tuple, dict[str, str | None], frozenset]] = {}

    def same(self, label_session: str, label_file: str | None, session: str) -> bool:
        """Whether a label in the landed file ``label_file`` (root-relative, ``SESSION/streams/…/….sd``; None: not
        known) of the session directory ``label_session`` may title the conversation of ``session`` (its id): always
        on a root no receiver landed; on a receiving root only when the file's sender is known and is the one sender of
        every landed file of ``session`` the records name. Never raises."""
        if not self.receiving:
            return True
        if not label_file:
            return False
        try:
            name = dir_name(session)
        except ValueError:
            return False
        who = self.file_sender(label_session, label_file)
        return who is not UNKNOWN and self.session_senders(name) == frozenset((who,))

    def file_sender(self, session_dir: str, rel: str) -> str | None:
        """The sender label of the landed file ``rel`` (root-relative) of ``session_dir``: its verified sender line's
        (:func:`~asz_core.storage.senders.sender_label`), :data:`HERE` for a file a collect pass of this root landed,
        None when not known (no verified line). Never raises."""
        by_file, _ = self._session(session_dir)
        return by_file[rel] if rel in by_file else self._unlisted(session_dir, rel)

    def session_senders(self, session_dir: str) -> frozenset:
        """The senders of ``session_dir``'s landed files (:meth:`file_sender`'s words; None among them for files of no
        known sender). Never raises."""
        return self._session(session_dir)[1]

    def _unlisted(self, session_dir: str, rel: str) -> str | None:
        """The sender of a landed file no line of its session's record names: this host's in a session collected here
        (``session.state``), else not known (received before records were kept, or its line not written yet)."""
        if rel in listed_before(self.root).get(session_dir, ()):
            return UNKNOWN
        return HERE if os.path.exists(os.path.join(self.root, session_dir, "session.state")) else UNKNOWN

    def _session(self, session_dir: str) -> tuple[dict[str, str | None], frozenset]:
        """``(rel -> the sender label of its verified line, None for one that does not verify; the session's
        senders)``: each line's label (None: a line that does not verify, or files received before records were
        kept), this host when a collect pass landed some of it, None alone when nothing names a sender."""
        path = os.path.join(self.root, RECEIVED, f"{session_dir}.senders")  # senders_path's, as a string (one a row)
        try:
            st = os.stat(path)
            mark: tuple = (st.st_size, st.st_mtime_ns, st.st_ino)
        except OSError:
            mark = ()
        hit = self._read.get(session_dir)
        if hit is not None and hit[0] == mark:
            return hit[1], hit[2]
        by_file: dict[str, str | None] = {}
        for e in read_senders(path).entries if mark else ():
            by_file[e["file"]] = UNKNOWN if e.get(UNVERIFIED) else sender_label(e)
        who = set(by_file.values())
        if listed_before(self.root).get(session_dir):
            who.add(UNKNOWN)
        if os.path.exists(os.path.join(self.root, session_dir, "session.state")):
            who.add(HERE)
        got = frozenset(who or (UNKNOWN,))
        self._read[session_dir] = (mark, by_file, got)
        return by_file, got

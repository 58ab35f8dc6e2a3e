"""What ``asz receive`` refuses because of what it refused earlier in the same request (docs/push.md, ``asz receive``).

- a round reading a landed file refused earlier in the request (it would name a file the root never gets;
  origin-digest §2.6), and, when every such file was refused as held here whole, counted as held too;
- a file this root could not write (disk full, a quota, a file size limit: any OSError of the write) is refused as
  retryable (:data:`.admit.RETRY`), and so are the later files of its session and the rounds reading it or after it,
  and after a round it could not write, the later rounds of that chain: landed, they would break the stream here or
  name a file the root does not hold (trial 34b F1: the rounds landed, and the receiving root failed ``asz verify``
  for good). The pusher keeps them all due and sends them again.
"""

from __future__ import annotations

from ..storage.layout import CONVERSATIONS
from .admit import RETRY, Refused, landed_seq, round_reads

__all__ = ["cannot_write", "reads_no_refused", "reads_only_held"]


def cannot_write(rel: str, exc: OSError) -> str:
    """The answer's line for ``rel``, which this root could not write (``exc``): ``rejected REL: cannot write: WHY
    (retryable: …)``."""
    return f"rejected {rel}: cannot write: {exc.strerror or exc} ({RETRY} once this root can be written)"


def reads_only_held(rel, data, refused_seqs: dict[str, dict[int, str]], held: set[str]) -> bool:
    """True when ``rel`` is a round (``data`` its bytes) refused because it reads files this request refused, every
    one of them as held here whole (``held``): the pusher counts such a round as held too."""
    if not isinstance(rel, str) or not rel.endswith(".sf") or data is None or not held:
        return False
    reads = round_reads(data)
    if reads is None:
        return False
    session, lo, hi = reads
    hit = [p for seq, p in refused_seqs.get(session, {}).items() if lo <= seq <= hi]
    return bool(hit) and all(p in held for p in hit)


def reads_no_refused(rel: str, data: bytes, refused_seqs: dict[str, dict[int, str]], erased: str = "",
                     refused: list[str] | None = None) -> None:
    """Refused for a round that reads a landed file refused earlier in the same request (``refused_seqs``: session
    directory -> seq -> path). Across requests the pusher holds such rounds back. ``erased``: why the file is of a
    session ``asz erase`` erased here (:func:`~asz_core.storage.erased_list.erased_refusal`): refused so.
    ``refused``: the request's refusal lines so far; a file after one this root could not write is refused as
    retryable (:func:`_after_unstored`)."""
    if erased:
        raise Refused(erased)
    if refused:
        _after_unstored(rel, data, refused)
    if not rel.endswith(".sf") or not refused_seqs:
        return
    reads = round_reads(data)
    if reads is None:
        return
    session, lo, hi = reads
    hit = sorted(seq for seq in refused_seqs.get(session, {}) if lo <= seq <= hi)
    if hit:
        raise Refused(f"{rel}: it reads seq {hit[0]} of its session, {refused_seqs[session][hit[0]]}, which was refused")


def _unstored(refused: list[str]) -> dict[str, tuple[int, str]]:
    """From the request's refusal lines, the first file not written of each session (session directory -> (seq,
    path)) and of each chain (``_conversations/<id>`` -> (0, path)): the lines saying :data:`.admit.RETRY`."""
    out: dict[str, tuple[int, str]] = {}
    for line in refused:
        if RETRY not in line or not line.startswith("rejected "):
            continue
        path = line[len("rejected "):].split(": ", 1)[0]
        at = landed_seq(path)
        if at is not None:
            out.setdefault(at[0], (at[1], path))
        elif path.startswith(CONVERSATIONS + "/"):
            out.setdefault("/".join(path.split("/")[:2]), (0, path))
    return out


def _after_unstored(rel: str, data: bytes, refused: list[str]) -> None:
    """Refused as retryable for a file of a session whose earlier file this request could not write, for a round
    reading that file or a later one of its session, and for a round of a chain whose earlier round was not written."""
    if not any(RETRY in line for line in refused):
        return
    unstored = _unstored(refused)
    chain = "/".join(rel.split("/")[:2])
    if rel.startswith(CONVERSATIONS + "/") and chain in unstored:
        raise Refused(f"{rel}: an earlier round of its chain, {unstored[chain][1]}, could not be written here ({RETRY} "
                      "with it)")
    at = landed_seq(rel)
    if at is not None and at[0] in unstored:
        seq, path = unstored[at[0]]
        raise Refused(f"{rel}: seq {seq} of its session, {path}, could not be written here ({RETRY} with it)")
    reads = round_reads(data) if rel.endswith(".sf") else None
    if reads is not None and reads[0] in unstored and reads[2] >= unstored[reads[0]][0]:
        seq, path = unstored[reads[0]]
        raise Refused(f"{rel}: it reads seq {seq} of its session or after it, {path}, which could not be written here "
                      f"({RETRY} with it)")

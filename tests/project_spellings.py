"""One corpus transcript copied under five project paths a team on macOS, Windows, WSL and Linux writes for one
project (trial 31c F2, F3): macOS in NFC and in its own NFD, WSL's ``/mnt/c/…``, Windows' ``C:\\…`` and the corpus's
own ``/Users/alex/…``, and Windows' ``c:\\users\\…`` in other letter case (the same folder on NTFS: trial 36c F2),
each copy under fresh ids (a copy of a session under the same ids is one session, or
continues it). The expected figures are counted here from the copies' lines, never by asz."""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
import uuid
from pathlib import Path

SOURCE = "-Users-alex-workspace-personal-site-next/b25638d7-b104-4f06-a797-70ac33d069ed.jsonl"
ORIGINAL = "/Users/alex/workspace/personal-site.example-next"
NFC = unicodedata.normalize("NFC", "/Users/Zoë/workspace/personal-site.example-next")
NFD = unicodedata.normalize("NFD", NFC)
WSL = "/mnt/c/Users/Zoë/workspace/personal-site.example-next"
WINDOWS = "C:\\Users\\Zoë\\workspace\\personal-site.example-next"
#: The same Windows folder as Explorer's address bar may give it (trial 36c F2: NTFS ignores letter case).
WINDOWS_CASE = "c:\\users\\zoë\\workspace\\Personal-Site.example-next"
#: The project of each copy, by copy number (0: the corpus file itself).
PROJECTS = (ORIGINAL, NFC, NFD, WSL, WINDOWS, WINDOWS_CASE)
#: The copies whose projects are one Windows folder (WSL's /mnt/c is drive C:).
ONE_FOLDER = (WSL, WINDOWS, WINDOWS_CASE)
_IDS = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|(?:msg|req|toolu)_[0-9A-Za-z]{8,40}")


def _fresh(old: str, copy: int) -> str:
    """A new id for ``old`` in copy ``copy`` (the same kind of id)."""
    if copy == 0:
        return old
    if "_" in old:
        head, _, tail = old.partition("_")
        return head + "_" + hashlib.sha256(f"{copy}:{old}".encode()).hexdigest()[:len(tail)]
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"spelling{copy}:{old}"))


def calls_and_tokens(body: str) -> tuple[int, int]:
    """A transcript's model calls (one per message id and request id carrying usage, its last line, as ccusage counts
    them) and their tokens (input, output, cache write and cache read)."""
    calls = {}
    for line in body.splitlines():
        d = json.loads(line)
        m = d.get("message") or {}
        if d.get("type") == "assistant" and isinstance(m.get("usage"), dict):
            calls[(m.get("id"), d.get("requestId"))] = m["usage"]
    return len(calls), sum(u.get(k, 0) for u in calls.values() for k in ("input_tokens", "output_tokens",
                                                                        "cache_creation_input_tokens", "cache_read_input_tokens"))


def write_copies(corpus_source: Path, to: Path) -> dict[str, dict]:
    """Write the six copies under ``to`` (one project folder each) and return ``{session id: {"project", "calls",
    "tokens"}}``: its cwd, and its model calls (one per message id and request id carrying usage, its last line, as
    ccusage counts them) and their tokens (input, output, cache write and cache read)."""
    text = (corpus_source / SOURCE).read_text(encoding="utf-8")
    assert text.count(f'"cwd":"{ORIGINAL}"') == len(text.splitlines())  # every line names the project
    out = {}
    for copy, project in enumerate(PROJECTS):
        body = _IDS.sub(lambda m: _fresh(m.group(0), copy), text).replace(f'"cwd":"{ORIGINAL}"',
                                                                         '"cwd":' + json.dumps(project, ensure_ascii=False))
        session = json.loads(body.splitlines()[0])["sessionId"]
        folder = to / f"copy{copy}"
        folder.mkdir(parents=True)
        (folder / f"{session}.jsonl").write_text(body, encoding="utf-8")
        calls, tokens = calls_and_tokens(body)
        out[session] = {"project": project, "calls": calls, "tokens": tokens}
    assert len(out) == len(PROJECTS)
    return out

"""A real corpus transcript made Windows-shaped here, as a WSL user's Claude Code in VS Code writes it (trial 36c):
cb2e607c of the corpus project -Users-alex-workspace-coderabbit-review-helper with its project folder written as the
UNC path Windows gives a WSL folder (``\\\\wsl.localhost\\Ubuntu\\home\\zoe\\coderabbit``, every ``/`` after it a
``\\``), every line ending in CRLF, and one more prompt appended as a person types it on Windows (:data:`TYPED`).
Nothing of the corpus is copied into the project: the copy is made in the test's own folder."""

from __future__ import annotations

import json
from pathlib import Path

PROJECT = "-Users-alex-workspace-coderabbit-review-helper"
SESSION = "cb2e607c-c758-415a-8b45-c49e4631906a"
ORIGINAL = "/Users/alex/workspace/coderabbit-review-helper"
UNC = "\\\\wsl.localhost\\Ubuntu\\home\\zoe\\coderabbit"
#: The prompt appended, as trial 36c typed it: Windows paths whose backslashes Markdown would take (``\\_ \\* \\[ \\#``
#: and the UNC path's first two), over two lines.
TYPED = ("Lösche C:\\Users\\Zoë\\source\\repos\\my app\\_build\\*.obj und \\\\server\\share\\[x]\\#1 sowie "
         "D:\\work\\`tmp`\\ bitte\r\nund dann \\\\wsl.localhost\\Ubuntu\\home\\zoe\\*.log")
#: The corpus's first prompt's ``<ide_selection>`` line as the copy holds it.
SELECTED = f"The user selected the lines 508 to 508 from {UNC}\\extract-coderabbit-feedback.py:"


def wsl_copy(corpus_projects: Path, to: Path) -> Path:
    """Write the copy as ``to/<its project folder>/<SESSION>.jsonl`` and return ``to`` (a source root)."""
    text = (corpus_projects / PROJECT / f"{SESSION}.jsonl").read_text(encoding="utf-8")
    lines = text.splitlines()

    def unc(m: str) -> str:  # a path under the project, its separators Windows'
        return m.replace(ORIGINAL, UNC).replace("/", "\\")

    out = []
    for line in lines:
        d = json.loads(line)
        out.append(json.dumps(_mapped(d, unc), ensure_ascii=False, separators=(",", ":")))
    last, first = json.loads(lines[-1]), json.loads(lines[2])
    typed = {**first, "parentUuid": last["uuid"], "uuid": "5e0f7a11-36c0-4f1e-9a00-000000000001", "cwd": UNC,
             "timestamp": "2025-11-17T12:05:00.000Z", "message": {"role": "user", "content": TYPED}}
    out.append(json.dumps(typed, ensure_ascii=False, separators=(",", ":")))
    folder = to / "--wsl-localhost-Ubuntu-home-zoe-coderabbit"
    folder.mkdir(parents=True)
    (folder / f"{SESSION}.jsonl").write_bytes("".join(x + "\r\n" for x in out).encode("utf-8"))
    return to


def _mapped(v, unc):
    """``v`` with each string holding the project folder passed through ``unc`` (the path from it to the next white
    space or quote)."""
    if isinstance(v, dict):
        return {k: _mapped(x, unc) for k, x in v.items()}
    if isinstance(v, list):
        return [_mapped(x, unc) for x in v]
    if isinstance(v, str) and ORIGINAL in v:
        import re

        return re.sub(re.escape(ORIGINAL) + r"[^\s\"'`:,)]*", lambda m: unc(m.group(0)), v)
    return v

"""A Claude Code conversation with an API error line reads ``errors`` in ``asz ls``, in words that do not say the call
failed for good (review B 28: a ``system/api_error`` line is one request that failed, which Claude Code may have retried;
the spec's ``error.api`` keeps no retry state, so ``a model call ended with an error`` said more than was recorded).

Real input: the corpus's de3b8b19 transcript with one ``system/api_error`` line, in Claude Code's own shape, put in
its chain between the prompt and the first reply, collected by the real ``asz collect --once``. The count is made from
the transcript written: its lines of type ``system`` and subtype ``api_error``.
"""

from __future__ import annotations

import json

from cli_helpers import asz_in_process as asz
from reading_helpers import planted_root

TRANSCRIPT = "claude-code/projects/-home-user-claude-reliability/de3b8b19-5bc0-4a2a-934a-1b6806567e25.jsonl"
#: A model request failed: Claude Code's error step is no failed run (trial 32a F7 split the words by what failed).
SAID = "API error step(s): a model request failed (the talk shows each as API error; whether a retry followed is not recorded)"


def _one_api_error(lines: list[dict]) -> None:
    prompt = next(i for i, d in enumerate(lines) if d.get("type") == "user")
    reply = lines[prompt + 1]
    error = {k: lines[prompt][k] for k in ("isSidechain", "userType", "cwd", "sessionId", "version", "gitBranch")}
    error.update({"parentUuid": lines[prompt]["uuid"], "type": "system", "subtype": "api_error", "level": "error",
                  "error": {"status": 529, "error": {"type": "overloaded_error", "message": "Overloaded"}},
                  "retryInMs": 1000, "retryAttempt": 1, "maxRetries": 10, "timestamp": reply["timestamp"],
                  "uuid": "0e0e0e0e-0000-4000-8000-00000000a529"})
    reply["parentUuid"] = error["uuid"]
    lines.insert(prompt + 1, error)


def test_a_claude_code_api_error_reads_errors_without_saying_the_call_failed_for_good(corpus_dir, tmp_path):
    root = planted_root(corpus_dir, tmp_path, TRANSCRIPT, _one_api_error)
    written = (tmp_path / "projects" / "-home-user-claude-reliability").glob("de3b8b19-*.jsonl")
    (path,) = list(written)
    errors = sum(1 for ln in path.read_text().splitlines()
                 if (d := json.loads(ln)).get("type") == "system" and d.get("subtype") == "api_error")
    assert errors == 1
    (row,) = json.loads(asz("ls", "--root", str(root), "--json").stdout)
    assert row["api_errors"] == errors and row["state"] == "verified" and row["failed_runs"] == 0
    table = asz("ls", "--root", str(root)).stdout.splitlines()
    assert any(" verified errors" in line for line in table), table
    assert any(x.startswith("errors: ") and x.endswith(f" {errors} {SAID}") for x in table), table
    text = asz("conversation", row["id"], "--root", str(root)).stdout
    assert f"errors {errors} {SAID}" in text.splitlines(), text

"""What ``asz conversation`` says of a file an earlier ``langsmith-ingest`` landed (``Adapter.landed_without``;
docs/adapters.md, docs/storage-root.md "A root several asz versions read"): 0.8.0 counts a tool result's bytes as its
text's and keeps a run time that does not read as sent (trial 32a F2, trial 30a F8; docs/adapters/langchain.md: files
landed by 0.7.0 and earlier keep the size of the whole ToolMessage), so a file landed by 0.7.0 says so and one landed
by 0.8.0 or later does not (review32)."""

from __future__ import annotations

from asz_adapters_langchain.plugin import LangsmithIngest

DIALECT = "langsmith/1"


def test_a_file_landed_by_0_7_0_says_its_tool_result_sizes_and_unread_times():
    said = LangsmithIngest().landed_without(DIALECT, "langsmith-ingest/0.7.0")
    told = [s for s in said if "whole ToolMessage" in s]
    assert len(told) == 1, said
    assert "result_bytes" in told[0] and "--whole" in told[0] and "does not read" in told[0]
    # 0.6.0 gets the 0.7.0 phrase and this one, in version order (the later versions' phrases after them)
    older = LangsmithIngest().landed_without(DIALECT, "langsmith-ingest/0.6.0")
    assert older[1:] == said and "person messages" in older[0]


def test_a_file_landed_by_0_8_0_or_later_is_not_said_to_count_the_whole_tool_message():
    for version in ("0.8.0", "0.9.0", LangsmithIngest.version):
        said = LangsmithIngest().landed_without(DIALECT, f"langsmith-ingest/{version}")
        assert not any("whole ToolMessage" in s for s in said), (version, said)


def test_a_file_landed_by_0_9_0_says_a_run_part_over_the_limit_lost_every_bulky_member():
    """0.10.0 takes out of a run part over --max-part only its largest members until it fits (review32 on 7b21ad8b):
    a file landed by 0.9.0 says it took out every one, a model call's reply and usage too; 0.10.0 and later do not."""
    said = [s for s in LangsmithIngest().landed_without(DIALECT, "langsmith-ingest/0.9.0") if "--max-part" in s]
    assert len(said) == 1 and "reply and usage" in said[0] and "largest members" in said[0], said
    for version in ("0.10.0", LangsmithIngest.version):
        assert not [s for s in LangsmithIngest().landed_without(DIALECT, f"langsmith-ingest/{version}") if "--max-part" in s]


def test_a_file_landed_by_0_14_0_says_its_prompt_times_and_unsaid_reposts():
    """0.15.0 times a trace posted complete at its first run's start_time and lands a changed repost as a conflict
    (trial 48c F1, F2): a file landed by 0.14.0 says both; 0.15.0 and later do not."""
    said = [s for s in LangsmithIngest().landed_without(DIALECT, "langsmith-ingest/0.14.0") if "start_time" in s]
    assert len(said) == 1 and "after the final reply" in said[0] and "conflict" in said[0], said
    assert not [s for s in LangsmithIngest().landed_without(DIALECT, f"langsmith-ingest/{LangsmithIngest.version}")
                if "start_time" in s]


def test_a_file_landed_by_0_15_0_says_its_chain_answers_and_unended_calls():
    """0.16.0 lands a chain trace's own outputs as its answer and reads a model call whose run ended as ended (trial 50c
    F1, F5): a file landed by 0.15.0 says both; 0.16.0 and later do not."""
    said = [s for s in LangsmithIngest().landed_without(DIALECT, "langsmith-ingest/0.15.0") if "chain trace's answer" in s]
    assert len(said) == 1 and "no end recorded" in said[0] and "dropped" in said[0], said
    assert not [s for s in LangsmithIngest().landed_without(DIALECT, f"langsmith-ingest/{LangsmithIngest.version}")
                if "chain trace's answer" in s]

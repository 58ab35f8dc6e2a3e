"""Scenarios of the original's inventory whose files are not in ../shared, written here from the numbers
origin-digest §9.2 gives for them (attachment-input, growth, replay, reset-first, sdk-prompt,
skill-fork, string-tool-result). They exercise the steps the shared suite does not use (``queued``,
``replay``, ``skill``, ``entrypoint: sdk-cli``, a bare-string result, five checkpoints), in both
formats with every property.
"""

from __future__ import annotations

import pytest
import yaml

from asz_core.testing.scenario.check import check_scenario
from asz_core.testing.scenario.expect import expectation_from_dict
from asz_core.testing.scenario.model import scenario_from_dict

CASES = {
    'attachment-input': (
        """\
steps:
  - input: first
  - call: {text: Working.}
  - queued: {text: also do this, mode: prompt}
  - queued: {text: "<task-notification>done</task-notification>", mode: task-notification}
  - inject: {type: todo_reminder, text: your todo list is empty}
  - inject: {type: some_future_attachment}
  - call: {text: Done.}
""",
        """\
checkpoints:
  final:
    kinds: {message.external: 2, context.injection: 3}
""",
    ),
    'growth': (
        """\
steps:
  - input: one
  - call: {text: One.}
    checkpoint: c1
  - input: two
  - call:
      agent: {name: a1, prompt: help, steps: [{call: {text: helped}}], notify: true}
  - call: {text: Two.}
    checkpoint: c2
  - input: three
  - call: {text: Three.}
    checkpoint: c3
  - input: four
  - call:
      agent: {name: a2, prompt: help more, steps: [{call: {text: helped more}}], notify: true}
  - call: {text: Four.}
    checkpoint: c4
  - input: five
  - call: {text: Five.}
""",
        """\
checkpoints:
  c2: {rounds: 2, delta: true}
  c3: {rounds: 3, delta: true}
  c4: {rounds: 4, delta: true}
  final:
    rounds: 5
    delta: true
    kinds: {stream: 3, talk: 7, agent.call: 2, agent.output: 2}
""",
    ),
    'replay': (
        """\
steps:
  - input: do it
  - call: {text: Working, tool: {name: Bash, input: {command: ls}, result: files}}
  - call: {text: Done.}
    checkpoint: before
  - replay: 2
  - reset: {summary: the summary}
""",
        """\
checkpoints:
  before:
    rounds: 1
    kinds: {llm.call: 2, tool: 1, message.assistant: 2}
  final:
    rounds: 2
    written: true
    kinds: {llm.call: 2, tool: 1, message.assistant: 2, epoch.boundary: 1}
""",
    ),
    'reset-first': (
        """\
steps:
  - reset: {summary: what came before}
  - input: carry on
  - call: {text: Carrying on.}
""",
        """\
checkpoints:
  final:
    kinds: {epoch: 1, epoch.boundary: 1, epoch.summary: 1}
    relations: {follows: 0, summarizes: 1}
""",
    ),
    'sdk-prompt': (
        """\
entrypoint: sdk-cli
steps:
  - input: first
  - call:
      agent: {name: scout, prompt: look around, steps: [{call: {text: looked}}], notify: true}
  - call: {text: Scouted.}
  - input: second
  - call: {text: Done.}
""",
        """\
checkpoints:
  final:
    kinds: {message.external: 2, runtime.notification: 1}
    talks_on: {main: 2, scout: 1}
""",
    ),
    'skill-fork': (
        """\
steps:
  - input: use the skill
  - call:
      skill: {name: review, steps: [{call: {text: reviewed}}]}
  - call: {text: Done.}
""",
        """\
checkpoints:
  final:
    kinds: {agent.call: 1, stream: 2}
    relations: {starts: 1}
    unresolved_kinds: {spawn_of_child: none}
""",
    ),
    'string-tool-result': (
        """\
steps:
  - input: read it
  - call: {text: Reading, tool: {id: t1, name: Read, input: {path: a.txt}, result: {text: contents, string: true}}}
  - call: {text: Done.}
""",
        """\
checkpoints:
  final:
    nodes:
      tool/t1: {refs: 2, attrs: {result: available}}
""",
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_inventory_scenario(name: str) -> None:
    text, expect = CASES[name]
    sc = scenario_from_dict(yaml.safe_load(text), name)
    ex = expectation_from_dict(yaml.safe_load(expect), name)
    res = check_scenario(sc, ex)
    assert res.ok, "\n".join(res.failures)
    assert res.passed > 20

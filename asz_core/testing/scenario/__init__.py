"""The original's scenario language: build a scenario as a storage root and check it (origin-digest §9.1, §9.2).

- :mod:`.model`: the language as typed data, read from ``NAME.yaml``; :mod:`.expect` reads ``NAME.expect.yaml``;
  :mod:`.fields` the typed field readers both use;
- :mod:`.plan`: steps turned into the lines Claude Code writes (format independent);
- :mod:`.mock`: the mock dialect (``mock/0.2.0``, ``mock/1``) that lands them directly;
- :mod:`.build`: stage by stage, write and collect (claude-code) or land (sd), then parse;
- :mod:`.check`: expectations per checkpoint and both formats compared; :mod:`.properties` the §9.1 properties.

The builder is ``asz_core.testing.scenario.build.build`` (not re-exported here, so the
name ``build`` stays the module).
"""

from .build import DEFAULT_AT, FORMATS, Build, Snapshot
from .check import CheckResult, check_files, check_scenario
from .expect import Expectation, load_expectation
from .fields import ScenarioError
from .model import Scenario, load_scenario
from .plan import Plan, make_plan

__all__ = [
    "DEFAULT_AT",
    "FORMATS",
    "Build",
    "Snapshot",
    "CheckResult",
    "check_files",
    "check_scenario",
    "Expectation",
    "Scenario",
    "ScenarioError",
    "load_expectation",
    "load_scenario",
    "Plan",
    "make_plan",
]

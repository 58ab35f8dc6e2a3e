"""Trial 30c F9: the page's Hook executions table ran past the right edge of the window at 1800 px wide (long MCP tool
names, digests, the record's JSON), its last columns out of reach. Its cells now wrap inside its box: at 1800 and at
1000 px no cell's right edge is past the viewport, and every cell's text is still there whole.

Real input: the bundled example transcript with its one tool call renamed to a long MCP name (a server and a tool
name of 60 characters and more, as MCP servers name them), the corpus's first probe hook payload made that call's and
fed to the real ``asz hook``; collected by ``asz collect --once``; a real ``asz view`` on loopback, headless
Chromium."""

from __future__ import annotations

import json

import pytest
from selenium.webdriver.common.by import By
from view_server_helpers import EXAMPLE_SESSION, asz

from test_mcp_executions_read import example_with_mcp_call, hook, land_with_hooks, renamed
from test_view_server_browser import open_at, shot, wait  # noqa: F401  (the browser fixture is in tests/conftest.py)

SERVER = "analytics-warehouse-replica-eu-west-reporting-readonly-gateway"
TOOL = "query_partitioned_materialized_aggregate_by_customer_segment_and_region"
NAME = f"mcp__{SERVER}__{TOOL}"


@pytest.fixture(scope="module")
def long_names(tmp_path_factory, corpus_dir):
    base = tmp_path_factory.mktemp("mcp-long")
    projects, main = example_with_mcp_call(base)
    renamed(main, ('"name":"mcp__probe__run"', f'"name":"{NAME}"'))
    probe = next((corpus_dir / "hooks").glob("apache__*mcp-hooks-2.1.282.jsonl")).read_bytes().splitlines()
    event = json.loads(probe[0])
    event.update(session_id=EXAMPLE_SESSION, tool_use_id="toolu_0001", tool_name=NAME, duration_ms=1234,
                 mcp_server={"name": SERVER, "source": "dynamic"}, cwd="/home/dev/hello-app")
    data = base / "hookdata"
    hook(json.dumps(event).encode(), data)
    return land_with_hooks(projects, data, base / "root")


#: Each cell of the executions table whose right edge is past the viewport: [column, its right edge, the viewport].
PAST = """
const vw = document.documentElement.clientWidth;
return Array.from(document.querySelectorAll('#panel #executions th, #panel #executions td'))
  .map(function (c, i) { return [c.cellIndex, Math.round(c.getBoundingClientRect().right), vw]; })
  .filter(function (x) { return x[1] > x[2]; });
"""


@pytest.mark.parametrize("width", [1800, 1000])
def test_no_cell_of_the_executions_table_is_past_the_viewport(long_names, serve, browser, width):
    doc = json.loads(asz("conversation", EXAMPLE_SESSION, "--json", "--root", str(long_names)).stdout)
    (e,) = doc["tool_executions"]
    assert e["tool_name"] == NAME and e["server"]["name"] == SERVER  # the premise: the long names landed
    s = serve(long_names)
    drv = browser
    try:
        open_at(drv, f"{s.base}/c/{EXAMPLE_SESSION}", ".tabs button[data-tab='executions']", width=width, height=900)
        drv.find_element(By.CSS_SELECTOR, ".tabs button[data-tab='executions']").click()
        row = wait(drv, lambda d: d.find_elements(By.CSS_SELECTOR, "#panel #executions tbody tr"))[0]
        cells = row.find_elements(By.TAG_NAME, "td")
        assert cells[2].text.replace("\n", "") == NAME and SERVER in cells[3].text.replace("\n", "")  # whole, wrapped
        assert drv.execute_script(PAST) == []
        cells[-1].find_element(By.TAG_NAME, "summary").click()  # the record's JSON opened in its cell
        wait(drv, lambda d: cells[-1].find_element(By.TAG_NAME, "pre").is_displayed())
        assert NAME in cells[-1].find_element(By.TAG_NAME, "pre").text.replace("\n", "")
        assert drv.execute_script(PAST) == []
        assert drv.execute_script("return document.documentElement.scrollWidth <= document.documentElement.clientWidth")
        shot(drv, f"30c-f9-executions-{width}")
    except Exception:
        shot(drv, f"30c-f9-executions-{width}-failed")
        raise

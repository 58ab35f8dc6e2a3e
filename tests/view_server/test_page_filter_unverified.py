"""The page's project filter keeps a conversation that does not verify and names no project, as ``asz ls --project``
keeps it, and the count line says why (trial 25b F3: the filter cannot judge what its failed files held back;
docs/reading.md, "A filter cannot judge what does not verify").

Input built here (tests/search_convs_data.py): four Claude Code sessions in two projects (``/home/dev/stats-lab``,
``/home/dev/other``), collected and parsed by the real commands, copied, and one reply of c3333333 (project other)
changed in its landed transcript, written anew; a real ``asz view`` on loopback, its page opened in Chromium; the rows
the page keeps are held to what the real ``asz ls --json`` keeps with the same value."""

from __future__ import annotations

import json
import shutil

from selenium.webdriver.common.by import By

from test_view_server_browser import open_at, shot, wait  # noqa: F401  (the browser fixture is in tests/conftest.py)
from view_server_helpers import asz

SID = "c3333333-0000-4000-8000-000000000003"


def _ls(root, *args: str) -> set[str]:
    p = asz("ls", "--json", "--root", str(root), *args, check=False)
    return {r["id"] for r in json.loads(p.stdout)} if p.returncode == 0 else set()


def test_the_page_keeps_what_the_project_filter_cannot_judge(word_sessions_root, serve, browser, tmp_path):
    root = tmp_path / "root"
    shutil.copytree(word_sessions_root, root, symlinks=True)
    (path,) = sorted((root / SID / "streams" / "main").glob("transcript-*.sd"))
    data = path.read_bytes()
    assert data.count(b"Nothing else to add.") == 1
    mode = path.stat().st_mode & 0o7777
    path.unlink()
    path.write_bytes(data.replace(b"Nothing else to add.", b"Nothing else to adD."))
    path.chmod(mode)
    want = _ls(root, "--project", "stats-lab")
    assert want == {"a1111111-0000-4000-8000-000000000001", "b2222222-0000-4000-8000-000000000002", SID}
    s, drv = serve(root), browser
    try:
        open_at(drv, s.base + "/", "#rows tr[data-id]")
        wait(drv, lambda d: d.find_elements(By.CSS_SELECTOR, f'#rows tr[data-id="{SID}"]') and "mismatch" in
             d.find_element(By.CSS_SELECTOR, f'#rows tr[data-id="{SID}"]').text)  # checked: it does not verify
        open_at(drv, s.base + "/#project=stats-lab", "#rows")
        got = wait(drv, lambda d: {tr.get_attribute("data-id") for tr in d.find_elements(By.CSS_SELECTOR, "#rows tr[data-id]")} == want)
        assert got
        shown = drv.find_element(By.CSS_SELECTOR, "#shown").text
        assert ("1 kept though the project or model filter cannot judge them: they do not verify, so their project or "
                "models are held back (c3333333; asz verify names the problems).") in shown, shown
        import time
        import urllib.request

        deadline = time.monotonic() + 120
        while True:  # the sums are made as the server builds each conversation: complete once every one is built
            with urllib.request.urlopen(s.base + "/api/usage?project=stats-lab", timeout=30) as r:
                usage = json.loads(r.read())
            if usage["complete"] or time.monotonic() > deadline:
                break
            time.sleep(0.5)
        assert usage["complete"] and usage["conversations"] == 3, usage  # a1, b2 and the one it cannot judge
        assert [h["conversation"] for h in usage["held_back"]] == [SID]  # as asz usage --project: held back, named
    except Exception:
        shot(drv, "trial25b-page-filter-unverified")
        raise

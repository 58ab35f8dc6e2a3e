"""Media on the page (issue 18): a thumbnail where the bytes are kept, a labelled placeholder with size where they were too large to land."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "view"))

from test_view_media import PNG, S, collect_media  # noqa: E402
from test_view_server_browser import go, shot, wait  # noqa: E402,F401  (the browser fixture is in tests/conftest.py)

By = pytest.importorskip("selenium.webdriver.common.by", reason="selenium is not installed").By


def test_a_kept_image_is_a_thumbnail_and_a_cut_one_a_placeholder(tmp_path, serve, browser):  # noqa: F811
    s = serve(collect_media(tmp_path))
    drv = browser
    drv.set_window_size(1280, 1000)
    go(drv, f"{s.base}/c/{S}")
    wait(drv, lambda d: d.find_elements(By.CSS_SELECTOR, "#panel > section.talk .talkhead"))[0].click()
    img = wait(drv, lambda d: [e for e in d.find_elements(By.CSS_SELECTOR, "figure.media img.thumb") if e.get_attribute("src")])[0]
    assert img.get_attribute("src") == "data:image/png;base64," + PNG
    assert drv.execute_script("return arguments[0].complete && arguments[0].naturalWidth", img) == 1  # the 1x1 PNG decoded
    ph = drv.find_element(By.CSS_SELECTOR, "figure.media.placeholder")
    assert ph.find_elements(By.CSS_SELECTOR, "img") == []
    assert ph.text == "image/jpeg · 4.0 kB · too large to land"  # 4,096 base64 characters, none landed
    shot(drv, "20-media")

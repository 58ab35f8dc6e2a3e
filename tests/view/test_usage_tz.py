"""``asz usage --tz`` refuses an empty zone name as it refuses any other name that is no zone (trial 6, finding 4:
``--tz ''`` was taken silently as the machine's zone, exit 0). Every reading command takes the same ``--tz`` (tests/reading/test_tz_option.py)."""

from __future__ import annotations

import pytest

from cli_helpers import asz_in_process


@pytest.mark.parametrize("zone", ["", " ", "Mars/Olympus"])
def test_a_name_that_is_no_zone_is_refused_in_one_line(tmp_path, zone):
    p = asz_in_process("usage", "--tz", zone, "--root", str(tmp_path))
    assert p.returncode == 2
    assert p.stdout == ""
    assert p.stderr == f"asz usage: --tz: {zone!r} is not a time zone name such as UTC or Europe/Paris\n"


def test_no_tz_is_the_machine_s_zone_and_utc_is_taken(tmp_path):
    for args in ((), ("--tz", "UTC")):
        p = asz_in_process("usage", *args, "--root", str(tmp_path))
        assert p.returncode == 0, p.stderr
        assert p.stdout.splitlines()[-1].split() == ["total", "-", "0", "-", "-", "-", "-", "not", "recorded", "-"]

"""asz.yaml (origin-digest §8.2): keys, defaults, errors that name the key and the file."""

from __future__ import annotations

import pytest

from asz_core.config import ConfigError, Config, format_duration, load_config, parse_config, parse_duration


def test_defaults_without_a_file(tmp_path):
    cfg = load_config(cwd=tmp_path)
    assert cfg == Config()
    assert cfg.root == "./data" and cfg.path is None
    (a,) = cfg.enabled()
    assert (a.name, a.collector.mode, a.collector.interval, a.collector.max_delta_bytes) == ("claude-code-local", "watch", 600.0, 2097152)


def test_every_key(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    f = tmp_path / "asz.yaml"
    f.write_text(
        "storage: {root: /srv/asz}\n"
        "adapters:\n"
        "  - name: claude-code-local\n    enabled: false\n"
        "  - name: mini\n    enabled: true\n    source_root: ~/x\n    include: [a]\n    exclude: [/private/tmp/**]\n"
        "    collector: {mode: once, interval: 1h30m, max_delta_bytes: 8192}\n"
        "parse: {max_round_bytes: 4096}\n"
    )
    cfg = load_config(cwd=tmp_path)
    assert cfg.path == f and cfg.root == "/srv/asz" and cfg.max_round_bytes == 4096
    (a,) = cfg.enabled()
    assert (a.name, a.source_root, a.include, a.exclude) == ("mini", f"{tmp_path}/home/x", ["a"], ["/private/tmp/**"])  # ~ is $HOME
    assert (a.collector.mode, a.collector.interval, a.collector.max_delta_bytes) == ("once", 5400.0, 8192)
    assert cfg.adapter("other").name == "other"


@pytest.mark.parametrize(
    "text, where",
    [
        ("storage: {rot: x}", "storage.rot"),
        ("colector: {}", "colector"),
        ("adapters: [{name: claude-code-local, listen: x}]", "adapters[0].listen"),
        ("adapters: [{name: a, collector: {mode: sometimes}}]", "adapters[0].collector.mode"),
        ("adapters: [{name: a, collector: {interval: 10}}]", "adapters[0].collector.interval"),
        ("adapters: [{name: a, collector: {interval: 10 minutes}}]", "adapters[0].collector.interval"),
        ("adapters: [{name: a, collector: {max_delta_bytes: 2MiB}}]", "adapters[0].collector.max_delta_bytes"),
        ("adapters: [{enabled: true}]", "adapters[0].name"),
        ("adapters: [{name: a}, {name: a}]", "adapters"),
        ("parse: {max_round_bytes: -1}", "parse.max_round_bytes"),
        ("parse: {max_round_bytes: 99999999999999999999999}", "parse.max_round_bytes"),
        ("adapters: [{name: a, collector: {interval: 99999999999h}}]", "adapters[0].collector.interval"),
        ("adapters: [{name: a, collector: {interval: 0}}]", "adapters[0].collector.interval"),  # spins: below 100ms
        ("adapters: [{name: a, collector: {interval: 50ms}}]", "adapters[0].collector.interval"),
        ("adapters: [{name: langsmith-ingest, listen: '127.0.0.1:99999'}]", "adapters[0].listen"),
        ("[1, 2]", ""),
    ],
)
def test_errors_name_the_file_and_the_key(tmp_path, text, where):
    f = tmp_path / "my.yaml"
    f.write_text(text)
    with pytest.raises(ConfigError) as info:
        load_config(f)
    assert str(info.value).startswith(f"{f}: {where}" if where else str(f))


def test_a_missing_or_broken_file_is_an_error(tmp_path):
    with pytest.raises(ConfigError, match="cannot read"):
        load_config(tmp_path / "nope.yaml")
    (tmp_path / "bad.yaml").write_text("a: [")
    with pytest.raises(ConfigError, match="not valid YAML"):
        load_config(tmp_path / "bad.yaml")


def test_an_empty_file_is_the_defaults():
    assert parse_config(None).adapters == Config().adapters


@pytest.mark.parametrize("text, seconds", [("0", 0), ("30s", 30), ("10m", 600), ("1h30m", 5400), ("500ms", 0.5), ("1.5h", 5400), ("30d", 2592000), ("1d12h", 129600)])
def test_durations(text, seconds):
    assert parse_duration(text) == pytest.approx(seconds)


@pytest.mark.parametrize("text", ["", "10", "-5s", "ten", "5 s", "5y", "5D"])
def test_bad_durations(text):
    with pytest.raises(ValueError):
        parse_duration(text)


def test_format_duration():
    assert [format_duration(s) for s in (600, 30, 5400, 0.25, 0)] == ["10m", "30s", "1h30m", "250ms", "0s"]


def test_relative_paths_in_a_file_are_relative_to_the_file(tmp_path, monkeypatch):
    from asz_core.config import load_config

    cfgdir = tmp_path / "cfgdir"
    cfgdir.mkdir()
    (cfgdir / "asz.yaml").write_text("storage: {root: ./r1}\nadapters:\n  - name: claude-code-local\n    source_root: src\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    cfg = load_config(cfgdir / "asz.yaml")
    assert cfg.root == str(cfgdir.resolve() / "r1")
    assert cfg.adapters[0].source_root == str(cfgdir.resolve() / "src")


@pytest.mark.parametrize(
    "text, line, key, first",
    [
        ("storage:\n  root: /a\nparse: {max_round_bytes: 4096}\nstorage:\n  root: /b\n", 4, "storage", 1),
        ("storage:\n  root: /a\n  root: /b\n", 3, "root", 2),
        ("adapters:\n  - {name: x, enabled: true, enabled: false}\n", 2, "enabled", 2),
    ],
)
def test_a_key_given_twice_is_an_error_naming_file_line_and_key(tmp_path, text, line, key, first):
    """YAML keys are unique (YAML 1.2 §3.2.1.1); the last one does not silently win."""
    f = tmp_path / "asz.yaml"
    f.write_text(text)
    with pytest.raises(ConfigError) as info:
        load_config(f)
    assert str(info.value) == f"{f}: line {line}: duplicate key {key!r} (first on line {first})"


def test_a_key_over_a_merged_one_is_not_a_duplicate(tmp_path):
    g = tmp_path / "merged.yaml"
    g.write_text("storage: &s {root: /a}\nview: {hide: []}\nadapters:\n  - <<: {name: x, enabled: true}\n    enabled: false\n")
    assert [(a.name, a.enabled) for a in load_config(g).adapters] == [("x", False)]

"""Component configuration: loading TOML and resolving mode / max_lines."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_doc.document.component_config import ComponentConfig
from agent_doc.document.component_config import load_component_configs
from agent_doc.document.component_config import resolve_max_lines
from agent_doc.document.component_config import resolve_mode
from agent_doc.document.component_config import validate_component_attrs
from agent_doc.document.components import Component
from agent_doc.document.components import parse_components
from agent_doc.errors import ConfigError
from agent_doc.errors import PatchError


def component(tag: str, name: str) -> Component:
    (found,) = parse_components(f"{tag}\nx\n<!-- /agent:{name} -->\n")
    return found


def write(root: Path, name: str, text: str) -> Path:
    path = root / ".agent-doc" / name
    path.write_text(text, encoding="utf-8")
    return path


def test_no_project_or_no_files_gives_empty_configs(project: Path) -> None:
    assert load_component_configs(None) == {}
    assert load_component_configs(project) == {}


def test_components_toml_tables_are_parsed(project: Path) -> None:
    write(
        project,
        "components.toml",
        '[log]\nmode = "append"\ntimestamp = true\nmax_entries = 3\nmax_lines = 9\n'
        'pre_patch = "tr a-z A-Z"\npost_patch = "true"\nmerge_strategy = "x"\n'
        '[status]\npatch = "prepend"\nmode = "append"\n',
    )
    configs = load_component_configs(project)
    assert configs["log"] == ComponentConfig(
        mode="append",
        timestamp=True,
        max_entries=3,
        max_lines=9,
        pre_patch="tr a-z A-Z",
        post_patch="true",
    )
    assert configs["status"].mode == "prepend"  # ``patch`` is preferred over ``mode``


def test_config_toml_components_merge_and_components_toml_wins(project: Path) -> None:
    write(
        project,
        "config.toml",
        'tmux_session = "main"\n[components.log]\npatch = "prepend"\nmax_lines = 4\n'
        '[components.notes]\nmode = "append"\n',
    )
    write(project, "components.toml", '[log]\nmode = "append"\n')
    configs = load_component_configs(project)
    assert configs["log"].mode == "append"
    assert configs["log"].mode_source == "components.toml"
    assert configs["log"].max_lines == 4
    assert configs["log"].max_lines_source == "config.toml"
    assert configs["notes"].mode == "append"


def test_toml_syntax_error_names_file_and_line(project: Path) -> None:
    path = write(project, "components.toml", '[log]\nmode = "append"\nbroken = \n')
    with pytest.raises(ConfigError) as info:
        load_component_configs(project)
    assert str(path) in str(info.value)
    assert "line 3" in str(info.value)


@pytest.mark.parametrize(
    ("body", "fragment"),
    [
        pytest.param('mode = "sideways"', "mode must be one of", id="bad-mode"),
        pytest.param('patch = "x"', "patch must be one of", id="bad-patch"),
        pytest.param(
            'timestamp = "yes"', "timestamp must be true or false", id="bad-ts"
        ),
        pytest.param("max_entries = -1", "max_entries must be an integer", id="neg"),
        pytest.param("max_lines = true", "max_lines must be an integer", id="bool"),
        pytest.param("pre_patch = 3", "pre_patch must be a string", id="hook"),
    ],
)
def test_invalid_values_name_file_table_and_line(
    project: Path, body: str, fragment: str
) -> None:
    path = write(
        project, "components.toml", f'[ok]\nmode = "append"\n\n[log]\n{body}\n'
    )
    with pytest.raises(ConfigError) as info:
        load_component_configs(project)
    message = str(info.value)
    assert f"{path}, line 5" in message
    assert "[log]" in message
    assert fragment in message


def test_invalid_value_in_config_toml_is_reported_there(project: Path) -> None:
    path = write(project, "config.toml", '[components.log]\nmode = "nope"\n')
    with pytest.raises(ConfigError, match=r"config\.toml, line 2: \[components\.log\]"):
        load_component_configs(project)
    assert path.exists()


def test_non_table_entry_is_rejected(project: Path) -> None:
    write(project, "components.toml", 'log = "append"\n')
    with pytest.raises(ConfigError, match="line 1: 'log' must be a table"):
        load_component_configs(project)


@pytest.mark.parametrize(
    ("tag", "configs", "expected"),
    [
        pytest.param(
            "<!-- agent:status patch=replace mode=append -->",
            {"status": ComponentConfig(mode="prepend")},
            ("replace", "inline"),
            id="inline-patch",
        ),
        pytest.param(
            "<!-- agent:status mode=append -->",
            {"status": ComponentConfig(mode="prepend")},
            ("append", "inline"),
            id="inline-mode",
        ),
        pytest.param(
            "<!-- agent:status -->",
            {"status": ComponentConfig(mode="prepend")},
            ("prepend", "components.toml"),
            id="config",
        ),
        pytest.param("<!-- agent:status -->", {}, ("replace", "default"), id="default"),
        pytest.param(
            "<!-- agent:exchange -->", {}, ("append", "default"), id="exchange-default"
        ),
        pytest.param(
            "<!-- agent:findings -->",
            {"findings": ComponentConfig(max_lines=3)},
            ("append", "default"),
            id="config-without-mode",
        ),
    ],
)
def test_resolve_mode_precedence(
    tag: str, configs: dict[str, ComponentConfig], expected: tuple[str, str]
) -> None:
    name = tag.split(":")[1].split()[0]
    assert resolve_mode(component(tag, name), configs) == expected


def test_resolve_mode_rejects_invalid_inline_value() -> None:
    with pytest.raises(PatchError, match="invalid patch='bogus'"):
        resolve_mode(component("<!-- agent:log patch=bogus -->", "log"), {})


def test_resolve_max_lines_precedence() -> None:
    cfg = {"log": ComponentConfig(max_lines=7)}
    assert resolve_max_lines(
        component("<!-- agent:log max_lines=3 -->", "log"), cfg
    ) == (
        3,
        "inline",
    )
    assert resolve_max_lines(component("<!-- agent:log -->", "log"), cfg) == (
        7,
        "components.toml",
    )
    assert resolve_max_lines(component("<!-- agent:log -->", "log"), {}) == (
        0,
        "default",
    )
    with pytest.raises(PatchError, match="max_lines='x'"):
        resolve_max_lines(component("<!-- agent:log max_lines=x -->", "log"), {})


def test_validate_component_attrs_lists_every_problem() -> None:
    bad = component("<!-- agent:log patch=append mode=bogus max_lines=-2 -->", "log")
    problems = validate_component_attrs(bad)
    assert len(problems) == 2
    assert any("mode='bogus'" in p for p in problems)
    assert any("max_lines='-2'" in p for p in problems)
    good = component("<!-- agent:log patch=prepend max_lines=5 -->", "log")
    assert validate_component_attrs(good) == []

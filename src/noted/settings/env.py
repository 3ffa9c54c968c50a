"""Overrides for one run from environment variables named after the keys (see ``env_names``)."""

from __future__ import annotations

import re
from collections.abc import Mapping

from noted.errors import ConfigError
from noted.settings.registry import ENV_PREFIX, SettingsRegistry, env_names, tool_key
from noted.settings.spec import SettingSpec, SettingValue

_TOOL_VARIABLE = re.compile(ENV_PREFIX + r"AI_TOOL_([A-Z][A-Z0-9_]*)_ENABLED")


def read_environment(
    registry: SettingsRegistry, environ: Mapping[str, str]
) -> dict[str, tuple[str, SettingValue]]:
    """The settings the environment overrides, as ``{key: (variable, value)}``.

    Switches of tools not declared yet are found by their variable's shape
    (``NOTED_AI_TOOL_<ID>_ENABLED``), so they apply once the tool declares itself.

    Raises:
        ConfigError: a variable holds a value its setting does not allow (the message names the
            variable and the allowed values), or a primary name and its alias disagree.
    """
    found: dict[str, tuple[str, SettingValue]] = {}
    for spec in registry.specs():
        override = _read_one(spec, environ)
        if override is not None:
            found[spec.key] = override
    for variable in environ:
        match = _TOOL_VARIABLE.fullmatch(variable)
        if match is None:
            continue
        key = tool_key(match.group(1).lower())
        tool = registry.find(key)
        if tool is not None and key not in found:
            override = _read_one(tool, environ)
            if override is not None:
                found[key] = override
    return found


def _read_one(spec: SettingSpec, environ: Mapping[str, str]) -> tuple[str, SettingValue] | None:
    present = [(name, environ[name]) for name in env_names(spec.key) if name in environ]
    if not present:
        return None
    if len(present) == 2 and present[0][1] != present[1][1]:
        (first, _), (second, _) = present
        raise ConfigError(f"{first} and {second} both set {spec.key}, to different values; unset one")
    variable, text = present[0]
    try:
        return variable, spec.parse(text)
    except ConfigError as exc:
        raise ConfigError(f"environment variable {variable}: {exc.message}", hint=exc.hint) from None

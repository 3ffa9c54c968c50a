"""What ``Settings`` hands out: a value in effect with its origin, and the changes subscribers hear of."""

from __future__ import annotations

import enum
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from noted.settings.spec import Setting, SettingValue, to_json


class Source(enum.StrEnum):
    """Where a value in effect came from."""

    DEFAULT = "default"
    FILE = "config file"
    ENV = "environment"


@dataclass(frozen=True, slots=True)
class ResolvedSetting:
    """One setting's value in effect, with its spec and its origin."""

    spec: Setting[Any]
    value: SettingValue
    source: Source
    env_var: str | None = None
    """The variable that set it, when ``source`` is ``Source.ENV``."""
    written: object = None
    """What the config file holds when it is refused and ``value`` is the guard's ``closed`` stand-in
    (TOML has no null, so None means nothing was refused)."""

    @property
    def key(self) -> str:
        return self.spec.key

    def shown(self) -> str:
        """The value as a person reads it: as written in the file when it was refused (not the
        stand-in that keeps the guard shut)."""
        if self.written is not None:
            return json.dumps(self.written, ensure_ascii=False, default=str)
        return self.spec.display(self.value)

    def describe_source(self) -> str:
        """``default``, ``config file`` or ``environment (NOTED_…)``."""
        if self.source is Source.ENV:
            return f"environment ({self.env_var})"
        return str(self.source)

    def to_json(self) -> dict[str, Any]:
        """Plain data for ``--json`` output and the settings screen."""
        spec = self.spec
        data: dict[str, Any] = {
            "key": spec.key, "value": to_json(self.value), "source": self.describe_source(),
            "default": to_json(spec.default), "section": spec.section, "label": spec.label,
            "type": str(spec.kind), "allowed": spec.allowed(), "help": spec.explained,
        }  # fmt: skip
        if spec.choices:
            data["choices"] = list(spec.choices)
        if self.written is not None:  # as written, and refused: not the stand-in
            data["value"], data["refused"] = json.loads(self.shown()), True
        if spec.at_start:
            data["next_start"] = spec.next_start
        if spec.writes_notes is not None:
            data["writes_notes"] = spec.writes_notes
        return data


@dataclass(frozen=True, slots=True)
class SettingChange:
    """A value in effect that changed, as told to subscribers."""

    key: str
    old: SettingValue
    new: SettingValue


Subscriber = Callable[[tuple[SettingChange, ...]], None]

"""What a setting is: one declaration that is also its typed handle, and how its values are read.

``Setting[T]`` carries the key, the section, the label, the default (a ``T``) and the help, and its
kind follows from the default's type (``Kind.URL`` and ``Kind.PATH`` are named, being text):
``settings.get(AI_ENABLED)`` is a ``bool`` to mypy because ``AI_ENABLED`` is a ``Setting[bool]``.

Values come in two shapes. Text (from the command line or an environment variable) goes through
``Setting.parse``; values already typed by TOML or by a front end go through ``Setting.coerce``.
Both return the one canonical, immutable value of the setting's kind or raise a ``ConfigError`` whose
message names the key, what it allows and what it got: ``ai.provider must be one of openai, anthropic,
fake (got "foo")``.
"""

from __future__ import annotations

import enum
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Generic, TypeAlias, TypeVar

import tomlkit
from tomlkit.exceptions import TOMLKitError

from noted.errors import ConfigError
from noted.settings.urls import SETTING_EXAMPLES, url_problem

if TYPE_CHECKING:
    from noted.settings.core import Settings

SettingValue: TypeAlias = bool | int | str | tuple[str, ...] | Mapping[str, str]
"""A setting's value: lists are tuples and tables read-only mappings, so a snapshot can be shared."""

T = TypeVar("T", bound=SettingValue)

Check: TypeAlias = "Callable[[Settings, T], None]"
"""A check that needs more than the value (a file, another setting, what a front end knows); it
raises ``ConfigError`` to refuse the value before anything is written."""

TRUE_WORDS = frozenset({"1", "true", "yes", "on"})
FALSE_WORDS = frozenset({"0", "false", "no", "off"})
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
AT_START = "A change"
"""``Setting.at_start`` of a setting read only as the app or MCP server starts."""
_KEY_LIKE_VALUE = re.compile(r"(sk|sk-ant|pk|rk|ghp|gho|xox[abpr])[-_][A-Za-z0-9]")


class Kind(enum.StrEnum):
    """The type of a setting's value."""

    BOOL = "bool"
    INT = "int"
    STR = "str"
    ENUM = "enum"
    URL = "url"
    """An http(s) URL, or ``""`` for the setting's documented fallback."""
    PATH = "path"
    """A file path as text; ``""`` means not set. Read it with ``Settings.get_path``."""
    LIST = "list"
    """A list of strings."""
    TABLE = "table"
    """A table of string values keyed by string (the keymap)."""


_KIND_OF_TYPE: tuple[tuple[type, Kind], ...] = (
    (bool, Kind.BOOL), (int, Kind.INT), (str, Kind.STR), (tuple, Kind.LIST), (Mapping, Kind.TABLE),
)  # fmt: skip
"""The kind of a setting by its default's type, first match first (a bool is an int too)."""
_ALLOWED = {
    Kind.BOOL: "true or false", Kind.STR: "text", Kind.URL: 'an http:// or https:// URL, or ""',
    Kind.PATH: 'a file path, or "" for none',
    Kind.LIST: "a list of text (a JSON array, or items separated by commas)",
    Kind.TABLE: 'a table of text values (a JSON object such as {"note.save": "ctrl+s"})',
}  # fmt: skip


@dataclass(frozen=True, slots=True)
class Setting(Generic[T]):
    """One setting, declared once in ``settings.handles``; code reads it with ``settings.get(HANDLE)``."""

    key: str
    """Joplin-style dotted key, e.g. ``ai.allowRemote``; also its path in ``config.toml``."""
    section: str
    """Human section the settings screen and ``noted config list`` group it under."""
    label: str
    """Short human name shown in the settings screen."""
    default: T
    help: str
    """One or two sentences for people: what it does and what the values mean."""
    kind: Kind | None = None
    """Set from the default's type (``ENUM`` for text with ``choices``); name ``URL`` or ``PATH`` here."""
    choices: tuple[str, ...] = ()
    """Allowed values of an ``ENUM`` setting, in the order they are shown."""
    minimum: int | None = None
    maximum: int | None = None
    check: Check[T] | None = None
    writes_notes: bool | None = None
    """For a tool switch: whether the tool changes notes. ``None`` for every other setting."""
    registered: bool = True
    """False for an ``ai.tool.<id>.enabled`` key no tool has declared (yet) in this process."""
    table: Setting[Mapping[str, str]] | None = None
    """For one entry of a table setting (``ui.keymap.note.save``): the table it belongs to."""
    empty_means: str = ""
    """For a limit whose empty value lifts it, what empty means (``"every notebook"``, ``"no
    token"``). Typed text that reads as empty is then refused, so an unset shell variable or a stray
    ``""`` never lifts the limit: ``noted config unset`` is the one way to."""
    closed: tuple[T, str] | None = None
    """For a limit or a switch that guards the notes: the value that stands in for one the config
    file holds and the setting refuses (an empty limit among them), in place of the default, and
    what it means (``"no notebook is shared"``), so a slip in the file never lifts the guard."""
    at_start: str = ""
    """What of the setting a running app or MCP server reads only as it starts, as the subject of
    ``next_start`` (``AT_START``: all of it); "" for a setting read where it is used."""

    def __post_init__(self) -> None:
        if self.kind is None:
            kinds = [kind for cls, kind in _KIND_OF_TYPE if isinstance(self.default, cls)]
            object.__setattr__(self, "kind", Kind.ENUM if self.choices else kinds[0])

    @property
    def parts(self) -> tuple[str, ...]:
        """The key's path in the TOML file (an entry's name may hold dots: ``note.save``)."""
        if self.table is not None:
            return (*self.table.parts, self.key[len(self.table.key) + 1 :])
        return tuple(self.key.split("."))

    def entry(self: Setting[Mapping[str, str]], name: str) -> Setting[str]:
        """The setting of one entry of this table, e.g. ``ui.keymap.note.save``."""
        label, default = f"{self.label}: {name}", self.default.get(name, "")
        return Setting(f"{self.key}.{name}", self.section, label, default, self.help, table=self)

    @property
    def next_start(self) -> str:
        """The sentence marking what applies only at the next start, "" for a setting read at use."""
        return (
            f"{self.at_start} applies at the next start of the app and the MCP server."
            if self.at_start
            else ""
        )

    @property
    def explained(self) -> str:
        """The help with the mark of the next start, as every front end shows it."""
        return " ".join(part for part in (self.help, self.next_start) if part)

    def allowed(self) -> str:
        """What the setting accepts, in words, for error messages and help."""
        if self.kind is Kind.INT:
            return _int_range(self.minimum, self.maximum)
        if self.kind is Kind.ENUM:
            return "one of " + ", ".join(self.choices)
        if self.table is not None:
            return 'keys such as "ctrl+s" or "ctrl+s,f2"'
        return _ALLOWED[self.kind or Kind.STR]

    def parse(self, text: str) -> SettingValue:
        """Read a value typed as text, as given on the command line or in the environment."""
        match self.kind:
            case Kind.BOOL:
                word = text.strip().lower()
                if word in TRUE_WORDS or word in FALSE_WORDS:
                    return word in TRUE_WORDS
                raise self._invalid(text, hint="1/0, yes/no and on/off work too")
            case Kind.INT:
                try:
                    number = int(text.strip())
                except ValueError:
                    raise self._invalid(text) from None
                return self._check_range(number)
            case Kind.LIST:
                value: SettingValue = self._parse_list(text)
            case Kind.TABLE:
                value = self._parse_table(text)
            case _:
                value = self._check_text(text)
        return self._not_empty(value)

    def coerce(self, raw: object) -> SettingValue:
        """Check a value that is already typed (from TOML or a front end) and make it canonical.
        An empty limit is refused where something closed stands in for a refused one."""
        value = self._coerced(raw)
        return self._not_empty(value) if self.closed is not None else value

    def _coerced(self, raw: object) -> SettingValue:
        if isinstance(raw, str) and self.kind in (Kind.BOOL, Kind.INT, Kind.LIST, Kind.TABLE):
            return self.parse(raw)
        match self.kind:
            case Kind.BOOL if isinstance(raw, bool):
                return raw
            case Kind.INT if isinstance(raw, int) and not isinstance(raw, bool):
                return self._check_range(raw)
            case Kind.LIST if isinstance(raw, list | tuple) and all(isinstance(i, str) for i in raw):
                return tuple(self._one_line(item) for item in raw)
            case Kind.TABLE if isinstance(raw, Mapping):
                return self._check_table(raw)
            case Kind.STR | Kind.ENUM | Kind.URL | Kind.PATH if isinstance(raw, str):
                return self._check_text(raw)
        raise self._invalid(raw)

    def display(self, value: SettingValue) -> str:
        """The value as a person reads it, in a form ``parse`` accepts back."""
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, int):
            return str(value)
        if isinstance(value, str):
            return value if value else '""'
        return json.dumps(to_json(value), ensure_ascii=False)

    def _not_empty(self, value: SettingValue) -> SettingValue:
        if self.empty_means and _is_empty(value):
            raise ConfigError(
                f"{self.key} is empty, and an empty value never means {self.empty_means}",
                hint=f"give a value, or `noted config unset {self.key}` for {self.empty_means}",
            )
        return value

    def _check_text(self, text: str) -> str:
        text = self._one_line(text)
        if self.table is not None:  # an entry of the keymap: the keys of one binding
            if not text.strip():
                raise self._invalid(text)
            return text.strip()
        if self.kind is Kind.ENUM:
            word = text.strip().lower()
            if word not in self.choices:
                raise self._invalid(text)
            return word
        if self.kind is Kind.URL:
            url = text.strip()
            problem = url_problem(url) if url else None
            if problem is not None:
                raise ConfigError(
                    f"{self.key} {_quote(url)} is not a server address: {problem}",
                    hint=f"write it like {SETTING_EXAMPLES.get(self.key, 'http://127.0.0.1:11434/v1')}",
                )
            return url
        if self.kind is Kind.PATH:
            if _KEY_LIKE_VALUE.match(text.strip()):
                raise ConfigError(
                    f"{self.key} takes the path of a file that holds the secret, not the secret itself"
                )
            return text.strip()
        return text

    def _one_line(self, text: str) -> str:
        if _CONTROL.search(text):
            raise ConfigError(
                f"{self.key} must be one line of text without control characters (got {_quote(text)})",
                hint="a tab, a new line or an escape sequence has no place in a setting",
            )
        return text

    def _check_range(self, number: int) -> int:
        too_small = self.minimum is not None and number < self.minimum
        if too_small or (self.maximum is not None and number > self.maximum):
            raise self._invalid(number)
        return number

    def _parse_list(self, text: str) -> tuple[str, ...]:
        stripped = text.strip()
        if stripped.startswith("["):
            try:
                items = json.loads(stripped)
            except json.JSONDecodeError:
                raise self._invalid(text) from None
            if not isinstance(items, list) or not all(isinstance(i, str) for i in items):
                raise self._invalid(text)
            return tuple(self._one_line(item) for item in items)
        return tuple(self._one_line(item.strip()) for item in stripped.split(",") if item.strip())

    def _parse_table(self, text: str) -> Mapping[str, str]:
        stripped = text.strip()
        if not stripped:
            return MappingProxyType({})
        try:
            table: object = json.loads(stripped)
        except json.JSONDecodeError:
            try:  # a TOML inline table: {"note.save" = "ctrl+s"}
                table = tomlkit.parse(f"v = {stripped}").unwrap()["v"]
            except (TOMLKitError, KeyError):
                raise self._invalid(text) from None
        if not isinstance(table, Mapping):
            raise self._invalid(text)
        return self._check_table(table)

    def _check_table(self, table: Mapping[Any, Any]) -> Mapping[str, str]:
        if not all(isinstance(k, str) and isinstance(v, str) for k, v in table.items()):
            raise self._invalid(dict(table))
        return MappingProxyType({self._one_line(k): self._one_line(v) for k, v in table.items()})

    def _invalid(self, got: object, *, hint: str | None = None) -> ConfigError:
        return ConfigError(f"{self.key} must be {self.allowed()} (got {_quote(got)})", hint=hint)


def _is_empty(value: SettingValue) -> bool:
    """Whether a value says nothing: blank text, a list of nothing but blank text (what
    ``'["$NB"]'`` gives with ``NB`` unset), or an empty table."""
    if isinstance(value, str):
        return not value.strip()
    if isinstance(value, tuple):
        return not any(item.strip() for item in value)
    return not value


def to_json(value: SettingValue) -> bool | int | str | list[str] | dict[str, str]:
    """The value as plain JSON data (lists and dicts instead of tuples and mappings)."""
    if isinstance(value, bool | int | str):
        return value
    if isinstance(value, tuple):
        return list(value)
    return dict(value)


def _int_range(minimum: int | None, maximum: int | None) -> str:
    if minimum is not None and maximum is not None:
        return f"a whole number from {minimum} to {maximum}"
    if minimum is not None:
        return f"a whole number of at least {minimum}"
    return "a whole number"


def _quote(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Mapping):
        value = dict(value)
    elif isinstance(value, tuple):
        value = list(value)
    if isinstance(value, str | list | dict):
        return json.dumps(value, ensure_ascii=False, default=str)
    return repr(value)

"""A tool call's arguments: what is wrong with them (one line), and their ids as the store keeps them.

Ids are 32 hex digits, kept in lower case; a person or an AI app copying one may give it in upper
case. ``normal_ids`` lower-cases every id a call gives (the field ``id`` or ``ids``, or one named
``…_id`` or ``…_ids``), once, before the handler runs: every lookup, scope check and write then
sees the one form, so no comparison of ids can miss through case (a scope fails closed either way,
and a cycle check of a notebook's move must not fail open).
"""

from __future__ import annotations

import json
from typing import Any

from jsonschema.exceptions import ValidationError

from noted.models import is_full_id
from noted.tools.base import Payload


def normal_ids(args: Payload) -> Payload:
    """``args`` with each id in an id field in lower case (anything else in them as given)."""

    def normal(value: Any) -> Any:
        if isinstance(value, str) and is_full_id(value.lower()):
            return value.lower()
        if isinstance(value, list):
            return [normal(item) for item in value]
        return value

    return {key: normal(value) if _is_id_field(key) else value for key, value in args.items()}


def _is_id_field(key: str) -> bool:
    return key in ("id", "ids") or key.endswith(("_id", "_ids"))


def field_of(error: ValidationError) -> str | None:
    where = ".".join(str(p) for p in error.absolute_path)
    if error.validator == "required" and isinstance(error.instance, dict):
        return _missing(error)[0]
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        extra = _extra(error)
        return f"{where}.{extra[0]}" if where and extra else (extra[0] if extra else where or None)
    return where or None


def _missing(error: ValidationError) -> list[str]:
    """Every required field the object lacks, not only the one ``error`` is about (jsonschema
    makes an error of each, and the call's answer names one error), each by its whole path."""
    where = ".".join(str(p) for p in error.absolute_path)
    instance: Any = error.instance
    required: Any = error.validator_value
    absent = [str(r) for r in required if r not in instance] or ["?"]
    return [f"{where}.{name}" if where else name for name in absent]


def _extra(error: ValidationError) -> list[str]:
    instance: Any = error.instance
    schema: Any = error.schema
    allowed = set(schema.get("properties") or {}) if isinstance(schema, dict) else set()
    return sorted(str(k) for k in instance if k not in allowed)


_JSON_TYPES = {
    bool: "a boolean",
    int: "an integer",
    float: "a number",
    str: "a string",
    list: "an array",
    dict: "an object",
    type(None): "null",
}


def describe_validation_error(error: ValidationError) -> str:
    """``field "limit" is 500; the maximum is 100`` and the like: short, naming the field, never
    echoing a huge value back."""
    where = ".".join(str(p) for p in error.absolute_path)
    value: Any = error.instance
    bound: Any = error.validator_value
    if error.validator == "required":
        missing = _missing(error)
        word = "fields" if len(missing) > 1 else "field"
        return f"missing required {word} " + ", ".join(f'"{m}"' for m in missing)
    if error.validator == "additionalProperties":
        schema: Any = error.schema
        extra = ", ".join(f'"{e}"' for e in _extra(error))
        allowed = ", ".join(sorted(schema.get("properties", {}))) if isinstance(schema, dict) else ""
        inside = f' in "{where}"' if where else ""
        if not allowed:
            none = f'"{where}" takes no fields' if where else "the tool takes no arguments: send {}"
            return f"unknown field {extra}{inside}; {none}"
        return f"unknown field {extra}{inside}; the fields are: {allowed}"
    if error.validator == "type":
        got = _JSON_TYPES.get(type(value), type(value).__name__)
        wanted = bound if isinstance(bound, str) else " or ".join(map(str, bound))
        if not where:
            return f"the arguments must be a JSON {wanted} (got {got})"
        return f'field "{where}" must be of type {wanted} (got {got})'
    bounded = _bound_message(str(error.validator), f'field "{where}"', value, bound)
    if bounded is not None:
        return bounded
    message = error.message if len(error.message) <= 200 else error.message[:200] + "…"
    return f'field "{where}": {message}' if where else message


def _bound_message(kind: str, field: str, value: Any, bound: Any) -> str | None:
    match kind:
        case "maxLength":
            return f"{field} is too long: {len(value):,} characters; at most {bound:,} are allowed"
        case "minLength":
            return f"{field} must not be empty" if bound == 1 else f"{field} is too short"
        case "maxItems":
            return f"{field} has {len(value)} items; at most {bound} are allowed"
        case "minItems":
            return f"{field} needs at least {bound} item{'s' if bound != 1 else ''}"
        case "maximum":
            return f"{field} is {value}; the maximum is {bound}"
        case "minimum":
            return f"{field} is {value}; the minimum is {bound}"
        case "enum":
            return f"{field} must be one of {', '.join(map(str, bound))} (got {short(value, 60)})"
        case "pattern":
            return f"{field} is not in the expected form (got {short(value, 60)})"
    return None


def short(value: object, limit: int = 500) -> str:
    text = json.dumps(value, ensure_ascii=False, default=repr) if not isinstance(value, str) else repr(value)
    return text if len(text) < limit else text[:limit] + "…"

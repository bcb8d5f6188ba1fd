"""Reading game descriptions: a checked view of parsed YAML/JSON data.

Every accessor knows where it is (``source`` file and the dotted key path), so a problem becomes
one ``ConfigError`` line such as ``config/games/x.yaml: board.files: expected a whole number
>= 1, got 'nine'``. The engine receives already-parsed data: reading files is the caller's job.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import NoReturn

from engine.errors import ConfigError

_MISSING = object()


class Node:
    """A value in a config document together with its location."""

    __slots__ = ("error", "path", "source", "value")

    def __init__(
        self,
        value: object,
        source: str,
        path: str = "",
        error: type[ValueError] = ConfigError,
    ) -> None:
        self.value = value
        self.source = source
        self.path = path
        self.error = error

    # -- location and errors ------------------------------------------------------------
    def fail(self, problem: str) -> NoReturn:
        where = f"{self.source}: {self.path}" if self.path else self.source
        raise self.error(f"{where}: {problem}")

    def _child(self, value: object, path: str) -> Node:
        return Node(value, self.source, path, self.error)

    def _child_path(self, key: object) -> str:
        return f"{self.path}.{key}" if self.path else str(key)

    # -- mappings -------------------------------------------------------------------------
    def mapping(self) -> Mapping[object, object]:
        if not isinstance(self.value, Mapping):
            self.fail(f"expected a mapping, got {_show(self.value)}")
        return self.value

    def _lookup(self, key: str) -> object:
        """The value under ``key``; YAML may have parsed a key like ``1`` as a number."""
        data = self.mapping()
        if key in data:
            return data[key]
        for actual, value in data.items():
            if not isinstance(actual, str) and str(actual) == key:
                return value
        return _MISSING

    def has(self, key: str) -> bool:
        return self._lookup(key) is not _MISSING

    def get(self, key: str, default: object = _MISSING) -> Node:
        value = self._lookup(key)
        if value is not _MISSING:
            return self._child(value, self._child_path(key))
        if default is _MISSING:
            self.fail(f"missing key '{key}'")
        return self._child(default, self._child_path(key))

    def key(self, name: str) -> Node:
        """A key of this mapping as a Node, so a problem with the key itself names its place."""
        return self._child(name, self._child_path(name))

    def items(self) -> Iterator[tuple[str, Node]]:
        for key, value in self.mapping().items():
            yield str(key), self._child(value, self._child_path(key))

    def only_keys(self, *allowed: str) -> None:
        unknown = [str(k) for k in self.mapping() if str(k) not in allowed]
        if unknown:
            self.fail(f"unknown key '{unknown[0]}' (expected one of: {', '.join(allowed)})")

    # -- sequences ------------------------------------------------------------------------
    def elements(self) -> list[Node]:
        if not isinstance(self.value, list | tuple):
            self.fail(f"expected a list, got {_show(self.value)}")
        return [self._child(v, f"{self.path}[{i}]") for i, v in enumerate(self.value)]

    # -- scalars --------------------------------------------------------------------------
    def text(self) -> str:
        if not isinstance(self.value, str) or not self.value.strip():
            self.fail(f"expected a non-empty string, got {_show(self.value)}")
        return self.value.strip()

    def integer(self, minimum: int | None = None, maximum: int | None = None) -> int:
        value = self.value
        if isinstance(value, str) and value.strip().lstrip("-").isdigit():
            if len(value.strip()) > 18:  # int() of thousands of digits is slow, then refused
                self.fail(f"expected a whole number, got one of {len(value.strip())} digits")
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int):
            self.fail(f"expected a whole number, got {_show(self.value)}")
        if minimum is not None and value < minimum:
            self.fail(f"expected a whole number >= {minimum}, got {value}")
        if maximum is not None and value > maximum:
            self.fail(f"expected a whole number <= {maximum}, got {value}")
        return value

    def boolean(self) -> bool:
        value = self.value
        if isinstance(value, bool):
            return value
        if isinstance(value, str):
            lowered = value.strip().lower()
            if lowered in ("true", "yes", "on", "1"):
                return True
            if lowered in ("false", "no", "off", "0"):
                return False
        if isinstance(value, int) and value in (0, 1):
            return bool(value)
        self.fail(f"expected true or false, got {_show(self.value)}")

    def choice(self, choices: tuple[str, ...] | list[str]) -> str:
        value = self.value
        if isinstance(value, bool | int):
            value = str(value).lower()
        if not isinstance(value, str) or value.strip() not in choices:
            self.fail(f"expected one of {', '.join(choices)}, got {_show(self.value)}")
        return value.strip()

    def text_list(self) -> list[str]:
        return [element.text() for element in self.elements()]


def _show(value: object) -> str:
    if value is None:
        return "nothing"
    if isinstance(value, Mapping):
        return "a mapping"
    if isinstance(value, list | tuple):
        return "a list"
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."

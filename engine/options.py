"""Named game options (variants, draw rules), declared in a game's config and checked at load."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from engine.config import Node

OptionValue = str | int | bool
INT_OPTION_LIMIT = 1_000_000  # the bound of a whole-number option whose config names none


@dataclass(frozen=True, slots=True)
class OptionSpec:
    name: str
    doc: str
    type: str  # "choice" | "int" | "bool"
    default: OptionValue
    choices: tuple[str, ...] = ()
    minimum: int | None = None
    maximum: int | None = None
    label: str = ""  # the option in a few words, for a form ("Who won the coin toss")
    labels: tuple[tuple[str, str], ...] = ()  # (choice, its words), for a form's choices

    @property
    def title(self) -> str:
        """The label, or the name made readable."""
        return self.label or self.name.replace("_", " ").capitalize()

    def choice_label(self, choice: str) -> str:
        return dict(self.labels).get(choice, choice.replace("_", " "))

    def coerce(self, node: Node) -> OptionValue:
        """Check and convert a value given in config, on the command line or in a position."""
        if self.type == "choice":
            return node.choice(self.choices)
        if self.type == "int":  # bounded even when the config gives no bound
            low = -INT_OPTION_LIMIT if self.minimum is None else self.minimum
            high = INT_OPTION_LIMIT if self.maximum is None else self.maximum
            return node.integer(low, high)
        return node.boolean()

    def describe(self) -> str:
        if self.type == "choice":
            allowed = "|".join(self.choices)
        elif self.type == "int":
            low = "" if self.minimum is None else str(self.minimum)
            high = "" if self.maximum is None else str(self.maximum)
            allowed = f"integer {low}..{high}"
        else:
            allowed = "true|false"
        default = str(self.default).lower() if isinstance(self.default, bool) else self.default
        return f"{self.name}={allowed} (default {default}): {self.doc}"


def parse_option_specs(node: Node) -> dict[str, OptionSpec]:
    specs: dict[str, OptionSpec] = {}
    for name, spec_node in node.items():
        spec_node.only_keys("doc", "type", "choices", "default", "min", "max", "label", "labels")
        doc = spec_node.get("doc", "").value
        if not isinstance(doc, str):
            spec_node.get("doc").fail("expected text")
        if spec_node.has("choices"):
            choices = tuple(spec_node.get("choices").text_list())
            if not choices:
                spec_node.get("choices").fail("expected at least one choice")
            kind = spec_node.get("type", "choice").choice(("choice",))
        else:
            choices = ()
            kind = spec_node.get("type").choice(("int", "bool"))
        minimum = spec_node.get("min").integer() if spec_node.has("min") else None
        maximum = spec_node.get("max").integer() if spec_node.has("max") else None
        label = spec_node.get("label").text() if spec_node.has("label") else ""
        labels: list[tuple[str, str]] = []
        for choice, words in spec_node.get("labels", {}).items():
            if choice not in choices:
                words.fail(f"no choice called {choice!r} (choices: {', '.join(choices)})")
            labels.append((choice, words.text()))
        spec = OptionSpec(name, doc.strip(), kind, "", choices, minimum, maximum)
        default = spec.coerce(spec_node.get("default"))
        specs[name] = OptionSpec(name, doc.strip(), kind, default, choices, minimum, maximum,
                                 label, tuple(labels))  # fmt: skip
    return specs


def resolve_options(
    specs: Mapping[str, OptionSpec], given: Mapping[str, object], where: str
) -> dict[str, OptionValue]:
    """Defaults overlaid with ``given``; unknown names and bad values are ConfigErrors."""
    values: dict[str, OptionValue] = {name: spec.default for name, spec in specs.items()}
    given_node = Node(dict(given), where)
    for name, value_node in given_node.items():
        spec = specs.get(name)
        if spec is None:
            known = ", ".join(specs) or "none"
            value_node.fail(f"unknown option (known options: {known})")
        values[name] = spec.coerce(value_node)
    return values

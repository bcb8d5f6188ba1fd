"""The package's map holds: imports run one way between the role folders, and no circle.

docs/architecture.md draws the map: engine <- link <- referee <- faces <- commands, with the
simulated boards beside the referee (engine and link only). Every import counts, including one
inside a function, since a lazy import is still a dependency.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# What each folder may import, besides itself and the standard library and third parties.
ALLOWED: dict[str, set[str]] = {
    "engine": set(),
    # The words players read (firmware_bridge/words.py): every folder says things.
    "words": {"engine"},
    "link": {"engine", "words"},
    # The computer opponent's process and protocol: it loads games as the link does.
    "opponent": {"engine", "link", "words"},
    "referee": {"engine", "link", "opponent", "words"},
    # The board's circuit as code: worked out from the wiring, as the firmware's settings are.
    "circuit": {"engine", "link", "words", "physics"},
    # The board's printed circuit board, laid out and routed from the circuit (KiCad builds it).
    "pcb": {"engine", "link", "words", "physics", "circuit"},
    # The board's physics (magnets, sensors, stack-up), worked out from its profile.
    "physics": {"engine", "link", "words"},
    "boards": {"engine", "link", "words"},
    # The emulated board's page is the face of a simulated table: it reads the table.
    "faces": {"engine", "link", "opponent", "referee", "boards", "words"},
    "commands": {
        "engine",
        "link",
        "opponent",
        "referee",
        "boards",
        "faces",
        "circuit",
        "words",
        "physics",
        "pcb",
    },
    "cli": {
        "engine",
        "link",
        "opponent",
        "referee",
        "boards",
        "faces",
        "circuit",
        "physics",
        "commands",
        "words",
        "pcb",
    },
}


def role(module: str) -> str | None:
    parts = module.split(".")
    if parts[0] == "engine":
        return "engine"
    if parts[0] != "firmware_bridge" or len(parts) < 2:
        return None
    return parts[1]


def module_name(path: Path) -> str:
    relative = path.relative_to(ROOT).with_suffix("")
    parts = list(relative.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(path: Path) -> set[str]:
    """Every project module this file imports (``from x import y`` counts y when y is a module)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            assert not node.level, f"{path}: the project imports by absolute names"
            base = node.module or ""
            for alias in node.names:
                candidate = f"{base}.{alias.name}"
                found.add(candidate if _is_module(candidate) else base)
    return {name for name in found if name.split(".")[0] in {"engine", "firmware_bridge"}}


def _is_module(name: str) -> bool:
    path = ROOT.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def project_modules() -> dict[str, Path]:
    files = [*(ROOT / "engine").rglob("*.py"), *(ROOT / "firmware_bridge").rglob("*.py")]
    return {module_name(path): path for path in files}


def test_imports_run_one_way() -> None:
    wrong = []
    for name, path in project_modules().items():
        own = role(name)
        if own is None:
            continue
        for target in imports_of(path):
            other = role(target)
            if other is None or other == own:
                continue
            if other not in ALLOWED[own]:
                wrong.append(f"{name} imports {target} ({own} may not import {other})")
    assert not wrong, "\n".join(wrong)


def test_no_import_circle() -> None:
    modules = project_modules()
    # A package's __init__ re-exporting its modules is not a circle with them.
    graph = {
        name: {
            target
            for target in imports_of(path)
            if target in modules and target != name and not name.startswith(target + ".")
        }
        for name, path in modules.items()
    }
    state: dict[str, int] = {}
    circles: list[list[str]] = []

    def visit(node: str, trail: list[str]) -> None:
        state[node] = 1
        for target in sorted(graph[node]):
            if state.get(target) == 1:
                circles.append([*trail[trail.index(target) :], target])
            elif target not in state:
                visit(target, [*trail, target])
        state[node] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name, [name])
    assert not circles, "\n".join(" -> ".join(circle) for circle in circles)


def test_the_map_sees_the_folders() -> None:
    """The check above would pass on an empty tree: it must see every role folder's modules."""
    roles = {role(name) for name in project_modules()}
    assert {"engine", "link", "referee", "boards", "faces", "commands", "cli"} <= roles
    assert any(role(t) == "link" for t in imports_of(ROOT / "firmware_bridge/referee/daemon.py"))


def test_a_module_over_700_lines_says_why_at_its_top() -> None:
    """Small modules whose names say what they hold: past about 700 lines a module says at
    its top why it is still one (and where it splits next)."""
    long = []
    for name, path in project_modules().items():
        text = path.read_text()
        if text.count("\n") > 700:
            doc = ast.get_docstring(ast.parse(text)) or ""
            if "Over 700 lines" not in doc:
                long.append(f"{name}: {text.count(chr(10))} lines")
    assert not long, "\n".join(long)


def test_no_import_circle_in_the_pi_check() -> None:
    """tools/pi/ (make pi-check) keeps no circle either, type-only imports included: the
    measurements and the screen check are handed what they use (pi.evening), never the club
    that calls them."""
    folder = ROOT / "tools" / "pi"
    modules = {f"pi.{path.stem}": path for path in folder.glob("*.py") if path.stem != "__init__"}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("pi"):
                base = node.module or ""
                found |= {f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base
                          for a in node.names}  # fmt: skip
            elif isinstance(node, ast.Import):
                found |= {a.name for a in node.names if a.name.startswith("pi.")}
        graph[name] = {t for t in found if t in modules and t != name}

    def reaches(start: str, goal: str, seen: set[str]) -> bool:
        for target in graph[start] - seen:
            if target == goal or reaches(target, goal, seen | {target}):
                return True
        return False

    circles = sorted(name for name in graph if reaches(name, name, set()))
    assert not circles, f"modules of tools/pi in an import circle: {circles}"

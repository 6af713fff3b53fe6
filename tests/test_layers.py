"""The whole package's import direction: no module imports one of a higher layer (lazy imports included).

The layers, lowest first, are the table below (``docs/dev/architecture.md`` draws it). A module may import
modules of its own package and of lower layers only; two packages of the same layer never import each
other. Nothing below the envs imports gymnasium, and nothing in ``lean_gym`` imports the agents package
(``lean_gym_agents``): what sits above is reached by a ``"module:attr"`` string resolved at call time, as
the backend registry and ``lean-gym demo`` do. Every import anywhere in a file — at the top, inside a
function, under ``TYPE_CHECKING`` — is read with ``ast``. The simulator's own order is
``tests/test_sim_layers.py``'s.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from import_graph import imported_modules

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "lean_gym"

# lowest first: (layer name, the top-level modules or packages of lean_gym in it)
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("base", ("errors", "jsonl")),
    ("process", ("lean",)),  # the REPL protocol, one process, the pool, where the workspace is
    ("simulator", ("sim",)),
    ("data", ("data", "aesop")),  # theorem records and loaders; aesop layouts and canonical strings
    ("backends", ("backends",)),  # the Backend interface, its registry, the simulator and REPL backends
    ("grading", ("grading", "distributed", "workspace")),  # verdicts; the Ray backend; setup and doctor
    ("support", ("prompts", "curriculum", "rollouts")),  # what the envs read besides grading
    ("envs", ("envs", "buffers")),  # gymnasium envs, vector envs and wrappers; buffers and their recorders
    (
        "services",
        ("integrations", "evaluation", "serve", "conformance"),
    ),  # TRL, TorchRL, `eval`, HTTP, selftest
    ("tools", ("bench", "demo")),  # `bench`; the deprecated home of the demo (resolved at call time)
    ("cli", ("cli", "__init__", "__main__")),
]
RANK = {m: i for i, (_, mods) in enumerate(LAYERS) for m in mods}
ENVS = next(i for i, (name, _) in enumerate(LAYERS) if name == "envs")


def _top(path: Path) -> str:
    rel = path.relative_to(PKG)
    return rel.parts[0].removesuffix(".py")


def _imports(path: Path, root: Path = PKG) -> set[str]:
    """Every module ``path`` (a file under ``root``, the package) imports, as dotted names."""
    return imported_modules(path, ".".join(("lean_gym", *path.relative_to(root).parts[:-1])))


def _files() -> list[Path]:
    return sorted(p for p in PKG.rglob("*.py") if _top(p) != "sim")  # the simulator has its own test


def test_every_module_has_a_layer() -> None:
    tops = {_top(p) for p in PKG.rglob("*.py")}
    assert tops - set(RANK) == set(), "give these a layer in LAYERS (and in docs/dev/architecture.md)"


@pytest.mark.parametrize("path", _files(), ids=lambda p: str(p.relative_to(PKG)))
def test_imports_go_down_only(path: Path) -> None:
    me = _top(path)
    bad = []
    for mod in sorted(_imports(path)):
        parts = mod.split(".")
        if parts[0] == "lean_gym_agents":
            bad.append(f"{mod} (the agents package sits above lean_gym: resolve it at call time)")
        if parts[0] == "gymnasium" and RANK[me] < ENVS:
            bad.append(f"{mod} (nothing below the envs imports gymnasium)")
        if parts[0] != "lean_gym" or len(parts) < 2 or parts[1] == me:
            continue
        other = parts[1]
        if other not in RANK:
            continue  # an attribute of the package (from lean_gym import __version__)
        if RANK[other] > RANK[me]:
            bad.append(f"{mod} (layer {LAYERS[RANK[other]][0]!r} is above {LAYERS[RANK[me]][0]!r})")
        elif RANK[other] == RANK[me] and me not in ("cli", "__init__", "__main__"):
            bad.append(f"{mod} (same layer {LAYERS[RANK[me]][0]!r}: packages of one layer are independent)")
    assert bad == []


def test_the_check_catches_an_upward_and_a_lazy_import(tmp_path: Path) -> None:
    # The reader itself: an import inside a function and one under TYPE_CHECKING both count.
    f = tmp_path / "lean_gym" / "backends" / "probe.py"
    f.parent.mkdir(parents=True)
    f.write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from lean_gym.envs import base\n"
        "def f():\n    from ..grading import oracle\n    import lean_gym_agents\n"
    )
    assert {"lean_gym.envs", "lean_gym.grading", "lean_gym_agents"} <= _imports(f, tmp_path / "lean_gym")


def test_the_demo_and_the_services_reach_the_agents_only_by_name() -> None:
    # lean-gym demo and serve-policy name the agents' modules as strings (resolved at call time).
    cli = (PKG / "cli.py").read_text()
    assert '"lean_gym_agents.demo:run_demo"' in cli
    assert '"lean_gym_agents.dpo:DPOPolicy"' in (PKG / "serve" / "policy.py").read_text()

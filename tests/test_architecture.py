"""The package's import layering (docs/architecture.md), read from the source with ``ast``:
every import goes to the module's own layer or a lower one, the imports made when modules load
form no circle, and no module imports another module's private name. The few exceptions are
listed below, each with its reason; an exception that no longer occurs fails the test, so
the lists only shrink."""

from __future__ import annotations

import ast
from pathlib import Path

import puretree

PACKAGE = Path(puretree.__file__).parent

#: Lowest first. A module may import modules of its own layer and of lower ones.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("errors", "files", "params", "_version"),  # foundation
    ("nodes", "data", "datasets", "fold"),  # values (the tree value itself sits above what reads it: "tree")
    ("impurity", "tasks", "criteria", "costs", "estimates"),  # criteria and estimates
    # using a tree; the tree value itself sits above what its conveniences call: the walker (predict),
    # text, and one row through the generated Python (answers, compiled, and the lowering and
    # rendering of codegen; the codegen functions that take ensembles load on first use)
    ("flat", "predict", "text", "codegen", "codegen.literals", "codegen.lower", "codegen.certified", "codegen.leaves", "codegen.render", "codegen.selftest", "compiled", "answers", "tree", "distributions", "views", "importance", "evaluate", "validation", "monotone"),
    ("growth", "growth.limits", "growth.assemble", "growth.choose", "growth.level", "growth.sorted", "growth.bounds", "growth.histograms", "growth.kernels", "growth.engine", "growth.c45_cuts", "growth.random_draw", "growth.random_cuts", "splits", "surrogates", "losses", "builder", "c45", "grow", "ensemble", "boosted", "gradient_boosting", "hist_gradient_boosting", "explain", "analysis"),  # builders (grow gathers their public names)
    # pruning and rules: the prune folder (its package re-exports the methods; chi-square pre-pruning sits
    # there too: only pruning uses it) and rule lists
    ("prune", "prune.rewrites", "prune.raising", "prune.complexity", "prune.significance", "prune.mml", "rules"),
    # io and codegen: the io folder (JSON model files, data files), the scikit-learn bridge, Dask, checked code (mcu:
    # generated C on emulated boards)
    ("io", "io.json", "io.formats", "io._xgboost", "io._lightgbm", "sklearn_export", "sklearn", "estimators", "dask", "dask_boosting", "codegen.verify", "codegen.languages", "codegen.shared", "codegen.boosted", "codegen.boosted_languages", "codegen.contributions", "codegen.ensemble", "mcu"),
    ("invariants", "strategies", "_hypothesis_plugin"),  # checking kit (uses every layer)
    ("cli", "cli.commands", "cli.commands.core", "cli.commands.prune", "cli.commands.codegen", "cli.commands.imports", "cli.commands.explain", "cli.commands.analysis", "__main__", ""),  # command line; "" is the package
)

#: Imports against the layering: none. (Tree's conveniences sit in ``tree``, above ``predict``
#: and ``text``; one row through the compiled tree is ``answers``, above ``compiled``; the version
#: is ``_version``'s.)
UPWARD: dict[tuple[str, str], str] = {}

#: The only imports of puretree modules made inside a function (not when the module loads), each
#: with its reason: each loads an optional dependency, or keeps a start-up light on purpose.
LOCAL_ALLOWED = {
    ("sklearn", "estimators"): "scikit-learn, an optional dependency, loads with the estimators",
    ("_hypothesis_plugin", "strategies"): "Hypothesis loads this entry point in every test run: it stays light",
    ("_hypothesis_plugin", "nodes"): "Hypothesis loads this entry point in every test run: it stays light",
    ("_hypothesis_plugin", "tree"): "Hypothesis loads this entry point in every test run: it stays light",
    ("cli", "cli.commands"): "the command line sets its Ctrl-C handling before numpy and the commands load",
    ("cli", "files"): "the command line sets its Ctrl-C handling before numpy and the commands load",
}

#: Circles through imports made inside functions, among the builders and C4.5's pruning
#: (owned by the speed, c45speed and prune work; to be removed there).
CIRCLES_ALLOWED: set[tuple[str, str]] = set()

#: Private names still imported across modules, owned by other work in progress.
PRIVATE_ALLOWED: set[tuple[str, str, str]] = set()


def _modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


MODULES = _modules()


def _imports(name: str, path: Path) -> list[tuple[str, str, bool]]:
    """(imported module, imported name, made when the module loads) for each relative import;
    imports only for type checkers (``if TYPE_CHECKING:``) are skipped."""
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    package = [p for p in package if p]
    found = []

    def visit(node: ast.AST, at_load: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and isinstance(child.test, ast.Name) and child.test.id == "TYPE_CHECKING":
                continue
            if isinstance(child, ast.ImportFrom) and child.level:
                base = package[: len(package) - (child.level - 1)]
                target = ".".join(base + ([child.module] if child.module else []))
                for alias in child.names:
                    sub = f"{target}.{alias.name}".lstrip(".")
                    found.append((sub if sub in MODULES else target, alias.name, at_load))
            assert not (isinstance(child, ast.Import) and any(a.name.startswith("puretree") for a in child.names)), f"{name}: use relative imports"
            visit(child, at_load and not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)))

    visit(ast.parse(path.read_text(encoding="utf-8")), True)
    return found


EDGES = {name: _imports(name, path) for name, path in MODULES.items()}
LAYER_OF = {module: i for i, layer in enumerate(LAYERS) for module in layer}


def test_every_module_has_a_layer():
    assert set(MODULES) == set(LAYER_OF), "a module was added or removed: place it in LAYERS (and docs/architecture.md)"


def test_imports_go_down_the_layers():
    upward = {(name, target) for name, edges in EDGES.items() for target, _, _ in edges if LAYER_OF[target] > LAYER_OF[name]}
    assert upward == set(UPWARD)
    assert all(not at_load for name, target in UPWARD for t, _, at_load in EDGES[name] if t == target)


def _circles(edges: dict[str, set[str]]) -> set[tuple[str, str]]:
    """The edges that close a circle (found by a depth-first search, iteratively)."""
    closing, state = set(), {}
    for start in sorted(edges):
        if start in state:
            continue
        stack = [(start, iter(sorted(edges[start])))]
        state[start] = "open"
        while stack:
            node, todo = stack[-1]
            nxt = next(todo, None)
            if nxt is None:
                state[node] = "done"
                stack.pop()
            elif state.get(nxt) == "open":
                closing.add((node, nxt))
            elif nxt not in state:
                state[nxt] = "open"
                stack.append((nxt, iter(sorted(edges[nxt]))))
    return closing


def test_no_import_circle_when_modules_load():
    at_load = {name: {t for t, _, load in edges if load and t != name} for name, edges in EDGES.items()}
    assert _circles(at_load) == set()


def test_no_import_circle_at_all_but_the_listed_ones():
    allowed = set(UPWARD) | CIRCLES_ALLOWED
    every = {name: {t for t, _, _ in edges if t != name and (name, t) not in allowed} for name, edges in EDGES.items()}
    assert _circles(every) == set()


def test_no_private_name_is_imported_from_another_module():
    private = {(name, target, imported) for name, edges in EDGES.items() for target, imported, _ in edges
               if imported.startswith("_") and not imported.startswith("__") and target != name and target in MODULES}
    assert private == PRIVATE_ALLOWED


def test_split_kinds_are_dispatched_on_in_few_modules():
    # What a split means lives in its test; only the modules that make a kind-specific
    # artefact name the test classes or the old node classes (see docs/architecture.md).
    kind_names = ("Threshold", "Multiway", "Subset", "NumericSplit", "CategoricalSplit", "SubsetSplit", "THRESHOLD_SPLIT", "NUMERIC_SPLIT", "MULTIWAY_SPLIT", "SUBSET_SPLIT")
    naming = set()
    for name, path in MODULES.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        if any(isinstance(n, ast.Name) and n.id in kind_names for n in ast.walk(tree)):
            naming.add(name)
    defining = {"nodes"}  # the tests themselves (and how each is drawn: Test.possible/drawn)
    artefacts = {"io.json", "codegen.lower", "sklearn", "growth.assemble"}  # the JSON registry, lowering, the bridge, nodes from growth arrays
    assert len(artefacts) <= 4
    # readers of other libraries' models (issue 29): each turns the foreign split tests into puretree's
    importers = {"io._lightgbm"}
    assert naming <= defining | artefacts | importers, naming - (defining | artefacts | importers)


#: Modules that still walk nodes with a stack of their own instead of the traversal kit
#: (puretree/fold.py), each with its reason.
OWN_NODE_STACKS_ALLOWED = {
    "nodes": "==, hash and repr live below the kit (fold imports nodes)",
    "flat": "flatten builds the pre-order table with its parents and depths in one pass",
}


def _walks_nodes_by_hand(tree: ast.AST) -> bool:
    """A ``while`` loop that pops from a list and asks for children: a hand-written node stack."""
    for loop in ast.walk(tree):
        if not isinstance(loop, ast.While):
            continue
        inside = [n for statement in loop.body for n in ast.walk(statement)]
        pops = any(isinstance(n, ast.Attribute) and n.attr == "pop" for n in inside)
        kids = any((isinstance(n, ast.Name) and n.id == "children") or (isinstance(n, ast.Attribute) and n.attr == "children") for n in inside)
        if pops and kids:
            return True
    return False


def test_the_library_walks_trees_with_the_kit():
    # Text, rules, invariants, JSON, lowering and pruning use fold's walk, fold, rewrite and
    # events (iterative at any depth); a new hand-written node stack belongs in the kit instead.
    own = {name for name, path in MODULES.items() if name != "fold" and _walks_nodes_by_hand(ast.parse(path.read_text(encoding="utf-8")))}
    assert own == set(OWN_NODE_STACKS_ALLOWED)

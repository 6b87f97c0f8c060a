"""Code generation for ensembles: each member generated as a tree of its own (the single-tree
templates, untouched), and one more file that combines them (``codegen_templates/_ensemble/``).

- Python: ``NAME_m0.py`` ... (the members' modules) and ``NAME.py``, which loads them from its
  folder and adds their probabilities (or values, or AdaBoost's votes) in member order;
- C (``c`` and ``c-table``): ``NAME_m0.c/.h`` ... and ``NAME.c/.h``; ``NAME.c`` includes the
  members' sources, so it is the one file to compile.

Outputs are combined exactly as :mod:`puretree.ensemble` combines them: ``acc += w * p`` in
member order, then ``acc / total`` with the total the library divides by (a literal), so
bagging's and forests' probabilities (and regression values) and AdaBoost's votes and classes
are bit for bit the library's. AdaBoost's probabilities go through ``exp``, which maths
libraries (numpy's SIMD one, the C library's) round differently: they agree to a few units in
the last place, and :func:`verify` checks them to a relative 1e-12.

The public ``generate``, ``export`` and ``verify`` (``puretree.codegen``) are this module's:
they take a tree or an ensemble, and hand trees to :mod:`puretree.codegen.render` and
:mod:`puretree.codegen.verify` unchanged.

>>> import numpy as np
>>> from puretree.ensemble import random_forest
>>> X = np.arange(12.0).reshape(-1, 1); y = [0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1]
>>> files = generate(random_forest(X, y, n_trees=2, seed=0), "python", name="forest")
>>> sorted(files)
['forest.py', 'forest_m0.py', 'forest_m1.py']
>>> verify(random_forest(X, y, n_trees=2, seed=0), X, "python").mismatches
[]
"""

from __future__ import annotations

import hashlib
import math
import os
import re
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import attrs
import numpy as np

from ..data import Dataset, as_dataset
from ..boosted import Boosted
from ..ensemble import Ensemble, member_outputs, predict as ensemble_predict, predict_proba, vote_total, votes
from ..errors import CodegenError
from ..explain import contributions as explain_contributions
from ..files import write_folder
from ..io.json import to_json
from ..mcu import Program, board, build_firmware, check_tools, measured_files, rows_runner, run_firmware, with_unmeasured_note
from . import boosted as boosting, boosted_languages, contributions as contributing, languages, literals as lit, render, selftest as self_test, shared, verify as single
from .leaves import LEAF_SCALE, check_leaf_type, leaf_combined
from .lower import check_options, max_comparisons, quantization, quantize as quantize_rows, quantized_tree, quantizer_model, read_features, tree_quantization

__all__ = ["generate", "generate_measured", "measure_files", "contributions_program", "export", "verify", "verify_code", "ensemble_files", "quantized_ensemble", "to_javascript", "to_java", "to_rust"]

_DESCRIPTION = {"bagging": "bagging", "forest": "a random forest", "adaboost": "AdaBoost (SAMME)"}
_TARGETS = ("python", "c", "c-table", *languages.TARGETS)


def _double(value: float) -> str:
    """A double as a literal both Python and C read back exactly (shortest round trip)."""
    text = repr(float(value))
    return text if any(c in text for c in ".en") else text + ".0"


def ensemble_files(ens: Ensemble, target: str, *, name: str = "tree", feature_type: str = "double", proba: bool = True, template_dirs: Iterable[str | os.PathLike[str]] | None = None, **options: Any) -> dict[str, str]:
    """The generated files of an ensemble: its members' (named ``NAME_m<i>``) and the combiner."""
    if target not in _TARGETS:
        raise CodegenError(f"ensembles are generated for the built-in targets {', '.join(_TARGETS)}, not {target!r}")
    opts = check_options(target, {"name": name, "feature_type": feature_type, **options})
    quantize = options.pop("quantize", None)
    if check_leaf_type(opts["leaf_type"], regression=ens.schema.is_regression, language=opts["language"], method=ens.method) == "uint8" and len(set(ens.weights)) > 1:
        raise CodegenError("leaf_type 'uint8' adds the members' probabilities as integers: it needs members of equal weight (bagging and random forests have them)")
    if opts["form"] == "shared":
        if opts["leaf_type"] != "double":
            raise CodegenError(f"the shared table (form shared) stores the leaves' own numbers; leaf_type {opts['leaf_type']!r} is written by the per-member tables")
        return _shared(ens, target, opts, quantize, template_dirs)
    members = [f"{name}_m{i}" for i in range(len(ens.members))]
    for m in members[-1:]:
        check_options(target, {"name": m})  # the longest member name still a valid identifier
    regression = ens.schema.is_regression
    files: dict[str, str] = {}
    for member, tree in zip(members, ens.members):
        files.update(render.generate(tree, target, name=member, feature_type=opts["feature_type"], proba=not regression, template_dirs=template_dirs, quantize=quantize, **options))
    k = len(ens.schema.classes)
    weights = list(ens.weights)
    member_stack = max((_stated_stack(files.get(f"{m}.h", ""), m) for m in members), default=0) if target != "python" else 0
    model = {
        "max_comparisons": sum(max_comparisons(tree) for tree in ens.members),
        # The combiner's own locals: up to three arrays of a double per class (votes, their
        # probabilities, a member's answer), its counters and one volatile term.
        "max_stack_bytes": member_stack + 32 + 24 * k,
        "name": name,
        "method": ens.method,
        "description": _DESCRIPTION[ens.method],
        "members": members,
        "n_members": len(members),
        "n_features": ens.schema.n_features,
        "n_classes": k,
        "regression": regression,
        "weights": [_double(w) for w in weights],
        "losses": [_double(-1 / (k - 1) * w if k > 1 else 0.0) for w in weights],
        "total": _double(vote_total(ens)),
        "ctype": lit.C_TYPES[opts["feature_type"]][0] if opts["language"] == "c" else "double",
        "member_predict": [f"{m}_predict" for m in members],
        "member_proba": [f"{m}_predict_proba" for m in members],
        "proba": proba,
        "leaf_type": opts["leaf_type"],
        "leaf_scale": LEAF_SCALE,
        # One quantizer for the model: every feature some member reads (a member's own
        # NAME_m<i>_quantize scales its features the same way, from the same ranges).
        "quantize": None if quantize is None else quantizer_model(ens.schema, quantize, opts["feature_type"], used=_read_features(ens)),
    }
    env = render.environment(template_dirs)
    folder = f"_ensemble/{target}" if target == "python" or target in languages.TARGETS else "_ensemble/c"
    for template in sorted(t for t in env.list_templates() if t.startswith(folder + "/") and t.endswith(".j2")):
        filename = template.rsplit("/", 1)[1][: -len(".j2")].replace("NAME", name)
        files[filename] = env.get_template(template).render(**model)
    return files


def _shared(ens: Ensemble, target: str, opts: dict[str, Any], quantize: Any, template_dirs: Any) -> dict[str, str]:
    """``form="shared"``: the ensemble in one table, each distinct subtree once (:mod:`puretree.codegen.shared`)."""
    if target != "c-table":
        raise CodegenError(f"the shared table (form shared) is written for the c-table target, not {target!r}")
    q = None
    if quantize is not None:
        qens, _, _ = quantized_ensemble(ens, quantize, opts["feature_type"])
        q = (quantizer_model(ens.schema, quantize, opts["feature_type"], used=_read_features(ens)), qens.members)
    return shared.shared_files(ens, name=opts["name"], ftype=opts["feature_type"], index_type=opts["index_type"], quantize=q, template_dirs=template_dirs)


def _stated_stack(header: str, name: str) -> int:
    """The stack a member's own header states (its ``NAME_MAX_STACK_BYTES``; 0 from a user's
    template that states none)."""
    m = re.search(rf"#define {re.escape(name.upper())}_MAX_STACK_BYTES (\d+)u", header)
    return int(m.group(1)) if m else 0


def _read_features(ens: Ensemble) -> list[int]:
    """The features some member of ``ens`` reads, in increasing order."""
    return sorted({j for tree in ens.members for j in read_features(tree)})


def quantized_ensemble(ens: Ensemble, ranges: Any, feature_type: str) -> tuple[Ensemble, np.ndarray, np.ndarray]:
    """``(ensemble, offset, scale)``: the ensemble the fixed-point code runs (each member the
    :func:`~puretree.codegen.lower.quantized_tree` of itself) and the quantization of its
    ``NAME_quantize`` (:func:`~puretree.codegen.lower.quantization` of the features some
    member reads).

    >>> from puretree.ensemble import bagging
    >>> X = np.arange(12.0).reshape(-1, 1); y = [0] * 5 + [1] * 7
    >>> q, offset, scale = quantized_ensemble(bagging(X, y, n_trees=2, seed=0), [(0.0, 11.0)], "int16")
    >>> offset.tolist(), q.members[0].root.test.value  # the first member's threshold, on int16's scale
    ([5.5], -5958.0)
    """
    offset, scale = quantization(ens.schema, ranges, feature_type, used=_read_features(ens))
    members = tuple(quantized_tree(tree, offset, scale, feature_type) for tree in ens.members)
    return attrs.evolve(ens, members=members), offset, scale


def generate(model: Any, target: str, *, selftest: bool = False, contributions: bool = False, measure: str | None = None, **options: Any) -> dict[str, str]:
    """:func:`puretree.codegen.render.generate` for a tree; :func:`ensemble_files` for an
    ensemble; :func:`puretree.codegen.boosted.boosted_files` for a boosted model. With
    ``selftest``, the code carries its self-test (:mod:`puretree.codegen.selftest`); with
    ``contributions``, its TreeSHAP values (:mod:`puretree.codegen.contributions`).

    A C header states the worst case: ``NAME_MAX_COMPARISONS``, ``NAME_MAX_STACK_BYTES`` and,
    with ``measure`` (a core of :data:`puretree.mcu.CORES`, e.g. ``"cortex-m4"``), what the
    emulated core measures: the stack and the instructions per prediction, the most and the mean
    over the rows :func:`verify` checks (:func:`generate_measured`; needs the Arm toolchain and
    QEMU). Without ``measure`` (the default: no compiler runs), the header says how to get them.

    >>> from puretree import cart
    >>> header = generate(cart(np.arange(4.0).reshape(-1, 1), [0, 0, 1, 1]), "c", name="m")["m.h"]
    >>> "m_predict: not measured" in header
    True
    """
    if measure is not None:
        return generate_measured(model, target, core=measure, selftest=selftest, contributions=contributions, **options)
    files = _generate(model, target, selftest=selftest, contributions=contributions, **options)
    return with_unmeasured_note(files, name=options.get("name", "tree"))


def _generate(model: Any, target: str, *, selftest: bool = False, contributions: bool = False, **options: Any) -> dict[str, str]:
    """The files of :func:`generate`, the header as the templates write it."""
    if contributions:
        _check_contributions(target, options)
        files = _generate(model, target, selftest=selftest, **options)
        name = options.get("name", "tree")
        if target == "python":
            return contributing.python_contributions(files, model, name=name)
        return contributing.c_contributions(files, model, name=name, feature_type=options.get("feature_type", "double"))
    if isinstance(model, Boosted) and options.get("leaf_type", "double") != "double":
        raise CodegenError("a boosted model's leaves hold raw scores, written as float or double; leaf_type 'uint8' is for trees, bagging and random forests")
    _single_tree_only(model, options)
    if isinstance(model, Ensemble):
        files = ensemble_files(model, target, **options)
    elif isinstance(model, Boosted) and target in languages.TARGETS:
        files = boosted_languages.boosted_files(model, target, **options)
    elif isinstance(model, Boosted):
        files = boosting.boosted_files(model, target, **options)
    else:
        files = render.generate(model, target, **options)
    return _with_selftest(model, target, files, options) if selftest else files


def _check_contributions(target: str, options: dict[str, Any]) -> None:
    if target not in ("python", "c", "c-table"):
        raise CodegenError(f"contributions are generated for the python, c and c-table targets, not {target!r}")
    if options.get("quantize") is not None:
        raise CodegenError("contributions read the features as numbers; quantized code is not covered (export without --quantize)")


def _single_tree_only(model: Any, options: dict[str, Any]) -> None:
    """The certified rewrites (``certified=True``) are written for a single tree."""
    if options.get("certified") and isinstance(model, (Ensemble, Boosted)):
        raise CodegenError("certified rewrites (certified=True, --certified) are for a single tree, not an ensemble or a boosted model")


def _selftest_answers(model: Any, rows: np.ndarray) -> list[Any]:
    """What ``NAME_predict`` must answer per row: the class index or the value (``None``:
    refused, no answer to compare)."""
    if isinstance(model, Boosted):
        return [a[1][0] if a[0] is None else a[0] for a in boosting._expected(model, rows)]
    if isinstance(model, Ensemble):
        return [a if model.schema.is_regression else a[0] for a in _expected(model, rows)]
    answers = single.expected(model, rows)
    return answers if model.schema.is_regression else [None if a is None else int(np.argmax(a)) for a in answers]


def _with_selftest(model: Any, target: str, files: dict[str, str], options: dict[str, Any]) -> dict[str, str]:
    if options.get("leaf_type", "double") != "double":
        raise CodegenError("the self-test compares the code's answers with the model's; code with uint8 leaves is not covered yet (export without --leaf-type)")
    if options.get("quantize") is not None:
        raise CodegenError("the self-test holds the readings as the code takes them; quantized code is not covered yet (export without --quantize)")
    if target not in ("python", "c", "c-table"):
        raise CodegenError(f"the self-test is written for the python, c and c-table targets, not {target!r}")
    name = options.get("name", "tree")
    language = "c" if target in ("c", "c-table") else "python"
    ftype = check_options("c", {"feature_type": options.get("feature_type", "double")})["feature_type"] if language == "c" else "double"
    none = np.zeros((0, model.schema.n_features))
    if isinstance(model, Boosted):
        rows = boosting.check_rows(model, none, ftype)
    elif isinstance(model, Ensemble):
        rows = _rows(model, none, ftype)
    else:
        rows = single.check_rows(model, none, ftype)
    rows, answers = self_test.pick(rows, _selftest_answers(model, rows))
    digest = "sha256:" + hashlib.sha256(to_json(model).encode("utf-8")).hexdigest()
    regression = model.schema.is_regression
    if language == "c":
        return self_test.c_selftest(files, name=name, feature_type=ftype, rows=rows, answers=answers, regression=regression, digest=digest)
    labels = answers if regression else [model.schema.classes[a] for a in answers]
    first = None if isinstance(model, Boosted) else (model.members[0] if isinstance(model, Ensemble) else model)
    values = rows.tolist() if first is None else [single.python_row(first, row) for row in rows.tolist()]
    return self_test.python_selftest(files, name=name, rows=values, answers=labels, regression=regression, digest=digest)


def generate_measured(model: Any, target: str, *, core: str, X: Any = None, **options: Any) -> dict[str, str]:
    """:func:`generate`'s C files of a tree, an ensemble or a boosted model, the header stating
    what was measured on the emulated ``core`` (:func:`puretree.mcu.measured_files`): the stack
    of the deepest call chain and the instructions per prediction, the most and the mean over
    the rows :func:`verify` checks (``X``, if given, and every node, threshold neighbour, unseen
    category and missing value), in the form the code takes them: quantized code's are the
    quantized readings (as :func:`verify` quantizes them) and its integer boundary rows. Needs
    the Arm toolchain and QEMU (:func:`puretree.mcu.check_tools`)."""
    if target not in ("c", "c-table"):
        raise CodegenError(f"figures are measured for C (targets c and c-table), not {target!r}")
    board(core)  # an unknown core fails before anything is built
    check_tools()
    return measure_files(model, _generate(model, target, **options), target, core=core, X=X, **options)


def measure_files(model: Any, files: dict[str, str], target: str, *, core: str, X: Any = None, **options: Any) -> dict[str, str]:
    """``files``, :func:`generate`'s for ``model`` with ``options``, measured as
    :func:`generate_measured` measures them (the header's note that they are not is replaced)."""
    if target not in ("c", "c-table"):
        raise CodegenError(f"figures are measured for C (targets c and c-table), not {target!r}")
    board(core)
    check_tools()
    ftype = check_options("c", {"feature_type": options.get("feature_type", "double")})["feature_type"]
    X = np.zeros((0, model.schema.n_features)) if X is None else _encode(X)
    rows = _measured_rows(model, X, ftype, options.get("quantize"))
    classes = 0 if model.schema.is_regression else len(model.schema.classes)
    # Code with uint8 leaves has a predict_proba of integers: the runner calls predict only.
    proba = bool(options.get("proba", True)) and options.get("leaf_type", "double") == "double"
    return measured_files(files, name=options.get("name", "tree"), core=core, feature_type=ftype, n_features=model.schema.n_features, n_classes=classes,
                          proba=proba, rows=rows)


def _measured_rows(model: Any, X: np.ndarray, ftype: str, quantize: Any) -> np.ndarray:
    """The rows :func:`verify` runs the code on (``X`` and the boundary rows), as the code takes
    them: with ``quantize``, the quantized readings of ``X`` and the quantized model's boundary rows."""
    if isinstance(model, Boosted):
        if quantize is None:
            return boosting.check_rows(model, X, ftype)
        checked_b, offset, scale = boosting.quantized_model(model, quantize, ftype)
        return boosting.quantized_check_rows(checked_b, quantize_rows(X, offset, scale, ftype), ftype)
    if isinstance(model, Ensemble):
        if quantize is None:
            return _rows(model, X, ftype)
        checked_e, offset, scale = quantized_ensemble(model, quantize, ftype)
        return _rows(checked_e, quantize_rows(X, offset, scale, ftype), ftype)
    if quantize is None:
        return single.check_rows(model, X, ftype)
    offset, scale = tree_quantization(model, quantize, ftype)
    return single.check_rows(quantized_tree(model, offset, scale, ftype), quantize_rows(X, offset, scale, ftype), ftype)


def to_javascript(model: Any, *, name: str = "tree", form: str = "auto") -> dict[str, str]:
    """A tree's, an ensemble's or a boosted model's JavaScript (CommonJS modules) as ``{file name: text}``:
    :func:`generate` with target ``javascript`` (a boosted model's:
    :mod:`puretree.codegen.boosted_languages`). ``form``: ``nested`` (if/else), ``table`` or
    ``auto``. A row is an array of numbers in feature order (categories as their codes, NaN
    for a missing value); ``predict`` answers the class index (or the value),
    ``predictProba`` the probabilities, exactly as the model.

    >>> from puretree.datasets import load_playtennis
    >>> from puretree.grow import id3
    >>> files = to_javascript(id3(load_playtennis()), name="tennis")
    >>> sorted(files), "function predictProba(x)" in files["tennis.js"]
    (['tennis.js'], True)
    """
    return generate(model, "javascript", name=name, form=form)


def to_java(model: Any, *, name: str = "Tree", form: str = "auto") -> dict[str, str]:
    """A tree's, an ensemble's or a boosted model's Java as ``{file name: text}`` (one class per file, the model's
    class called ``name``): :func:`generate` with target ``java``; see :func:`to_javascript`.

    >>> from puretree.datasets import load_playtennis
    >>> from puretree.grow import id3
    >>> files = to_java(id3(load_playtennis()), name="Tennis")
    >>> sorted(files), "public static int predict(double[] x)" in files["Tennis.java"]
    (['Tennis.java'], True)
    """
    return generate(model, "java", name=name, form=form)


def to_rust(model: Any, *, name: str = "tree", form: str = "auto") -> dict[str, str]:
    """A tree's, an ensemble's or a boosted model's Rust as ``{file name: text}`` (to include as a module:
    ``mod tree { include!("tree.rs"); }``): :func:`generate` with target ``rust``; see
    :func:`to_javascript`.

    >>> from puretree.datasets import load_playtennis
    >>> from puretree.grow import id3
    >>> files = to_rust(id3(load_playtennis()), name="tennis")
    >>> sorted(files), "pub fn predict(x: &[f64]) -> i32" in files["tennis.rs"]
    (['tennis.rs'], True)
    """
    return generate(model, "rust", name=name, form=form)


def export(model: Any, target: str, *, out_dir: str | os.PathLike[str], **options: Any) -> list[Path]:
    """Write the generated files of a tree, an ensemble or a boosted model (:func:`generate`,
    which takes ``measure=CORE`` too) into ``out_dir``, as a whole
    (:func:`puretree.files.write_folder`); returns their paths."""
    return write_folder(out_dir, generate(model, target, **options))


# -- verifying ----------------------------------------------------------------------------


def _rows(ens: Ensemble, X: np.ndarray, ftype: str) -> np.ndarray:
    """``X`` and every member's check rows (its nodes, threshold neighbourhoods, unseen
    categories and missing values), without repeats."""
    parts = [single.check_rows(ens.members[0], X, ftype)] + [r for tree in ens.members for r in single.check_batches(tree, X[:0], ftype)]
    rows = np.vstack(parts)
    seen: set[bytes] = set()
    keep = []
    for i, row in enumerate(rows):
        key = row.tobytes()
        if key not in seen:
            seen.add(key)
            keep.append(i)
    return rows[keep]


def _expected(ens: Ensemble, rows: np.ndarray) -> list[Any]:
    """The ensemble's answer per row in the form its code's driver prints; ``None`` where a
    member refuses the row (its missing-value strategy "error" meets a missing value), as the
    code refuses it."""
    refused = _refused(ens, rows)
    if refused.any():
        out: list[Any] = [None] * len(rows)
        keep = np.flatnonzero(~refused)
        for i, answer in zip(keep.tolist(), _expected(ens, rows[keep]) if keep.size else []):
            out[i] = answer
        return out
    ds = Dataset(ens.schema, rows)
    if ens.schema.is_regression:
        return [float(v) for v in ensemble_predict(ens, ds, unseen="ignore")]  # probes: unseen on purpose
    p = predict_proba(ens, ds, unseen="ignore")
    labels = ensemble_predict(ens, ds, unseen="ignore")
    codes = [ens.schema.classes.index(c) for c in labels.tolist()]
    if ens.method == "adaboost":
        return [(c, tuple(v), tuple(q)) for c, v, q in zip(codes, votes(ens, ds, unseen="ignore").tolist(), p.tolist())]
    return [(c, tuple(q)) for c, q in zip(codes, p.tolist())]


def _refused(ens: Ensemble, rows: np.ndarray) -> np.ndarray:
    """The rows some member refuses (:func:`single.expected`'s None)."""
    refused = np.zeros(len(rows), dtype=bool)
    for tree in ens.members:
        if tree.missing == "error" and len(rows):
            refused |= np.array([a is None for a in single.expected(tree, rows)])
    return refused


def _same(ens: Ensemble, want: Any, got: Any) -> bool:
    if want is None or got is None:
        return want is None and got is None
    if ens.method != "adaboost" or ens.schema.is_regression:
        return want == got
    if not (isinstance(got, tuple) and len(got) == 3 and got[0] == want[0]):
        return False
    votes_same = got[1] is None or got[1] == want[1]  # None: a board, which answers no votes
    return votes_same and len(got[2]) == len(want[2]) and all(math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-300) for a, b in zip(got[2], want[2]))


def _run_python(ens: Ensemble, work: Path, name: str, rows: np.ndarray) -> list[Any]:
    import importlib.util
    import sys
    import uuid

    key = f"puretree_generated_{uuid.uuid4().hex}"
    spec = importlib.util.spec_from_file_location(key, work / f"{name}.py")
    assert spec is not None and spec.loader is not None  # a .py file's
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        raise CodegenError(f"importing {name}.py failed: {type(exc).__name__}: {exc}") from None
    out: list[Any] = []
    try:
        for row in rows.tolist():
            values = single.python_row(ens.members[0], row)
            try:
                if ens.schema.is_regression:
                    out.append(float(module.predict(values)))
                    continue
                c = ens.schema.classes.index(module.predict(values))
                p = tuple(module.predict_proba(values))
                out.append((c, tuple(module.votes(values)), p) if ens.method == "adaboost" else (c, p))
            except ValueError:  # the code refusing the row (a member's strategy "error")
                out.append(None)
            except Exception as exc:  # the code under test is at fault: a mismatch
                out.append(f"raised {type(exc).__name__}: {exc}"[:200])
    finally:
        sys.modules.pop(key, None)
    return out


def _driver(ens: Ensemble, name: str, ctype: str, *, uint8: bool = False) -> str:
    big = name.upper()
    if uint8:  # the members' numerators added up, printed as integers
        body = (f"uint32_t p[{big}_N_CLASSES]; int k; int c = {name}_predict_proba(x, p);"
                f' if (c != {name}_predict(x)) {{ printf("inconsistent\\n"); }}'
                f' printf("%d", c); for (k = 0; k < {big}_N_CLASSES; k++) printf(" %lu", (unsigned long)p[k]); printf("\\n");')
    elif ens.schema.is_regression:
        body = f'printf("%a\\n", {name}_predict(x));'
    else:
        votes_ = (f"double v[{big}_N_CLASSES]; (void){name}_votes(x, v); for (k = 0; k < {big}_N_CLASSES; k++) printf(\" %a\", v[k]); printf(\" |\");"
                  if ens.method == "adaboost" else "")
        body = (f"double p[{big}_N_CLASSES]; int k; int c = {name}_predict_proba(x, p);"
                f' if (c != {name}_predict(x)) {{ printf("inconsistent\\n"); }}'
                f' printf("%d", c); {votes_} for (k = 0; k < {big}_N_CLASSES; k++) printf(" %a", p[k]); printf("\\n");')
    return single.driver_source(name, ctype, body)


def _run_c(ens: Ensemble, files: dict[str, str], work: Path, name: str, ftype: str, rows: np.ndarray, sanitize: bool, *, quantized: bool = False, uint8: bool = False) -> list[Any]:
    driver = _driver(ens, name, lit.C_TYPES[ftype][0], uint8=uint8)
    scale = float(LEAF_SCALE * len(ens.members))
    program = single.compile_c(files, name, ftype, regression=ens.schema.is_regression, proba=True, workdir=work, sanitize=sanitize, driver=driver, quantized=quantized)
    out: list[Any] = []
    for line in single.driver_lines(program, rows, ftype):
        if ens.schema.is_regression:
            value = line.split()[0]
            out.append(None if value in ("nan", "-nan") else float.fromhex(value))  # NaN: the row refused
            continue
        head, _, tail = line.partition("|")
        parts = head.split()
        c = int(parts[0])
        if c < 0:  # the code refusing the row (a member's strategy "error")
            out.append(None)
        elif uint8:
            out.append((c, tuple(int(p) / scale for p in parts[1:])))
        elif ens.method == "adaboost":
            out.append((c, tuple(float.fromhex(p) for p in parts[1:]), tuple(float.fromhex(p) for p in tail.split())))
        else:
            out.append((c, tuple(float.fromhex(p) for p in parts[1:])))
    return out


def _run_board(ens: Ensemble, files: dict[str, str], work: Path, name: str, ftype: str, rows: np.ndarray, core: str) -> list[Any]:
    """The answers of the ensemble's C on an emulated microcontroller (:mod:`puretree.mcu`),
    in the form of :func:`_expected`; AdaBoost's votes are not among a board's answers, so
    its answers are ``(class, None, probabilities)``."""
    k = 0 if ens.schema.is_regression else len(ens.schema.classes)
    run = rows_runner(files, name=name, feature_type=ftype, core=core, n_features=ens.schema.n_features, n_classes=k, proba=True, workdir=work)
    answers = run(rows)
    if ens.method != "adaboost" or not k:
        return answers
    return [a if a is None else (a[0], None, a[1]) for a in answers]


def verify(model: Any, X: Any, target: str, *, feature_type: str = "double", name: str = "tree", sanitize: bool = False,
           template_dirs: Iterable[str | os.PathLike[str]] | None = None, quantize: Any = None, on: str | None = None,
           max_changed: int | str = 0, contributions: bool = False, **options: Any) -> single.Report:
    """:func:`_verify_answers`; with ``contributions``, the code carries ``NAME_contributions``
    (:mod:`puretree.codegen.contributions`) and its values on the same rows are compared with
    :func:`puretree.explain.contributions` bit for bit too (a row the library refuses, one with a
    missing value in a model that sends it down no single path: NaN in C, an error in Python)."""
    if contributions:
        _check_contributions(target, {"quantize": quantize})
    report = _verify_answers(model, X, target, feature_type=feature_type, name=name, sanitize=sanitize, template_dirs=template_dirs,
                             quantize=quantize, on=on, max_changed=max_changed, **options)
    if not contributions:
        return report
    ftype = check_options(target, {"feature_type": feature_type})["feature_type"] if target != "python" else "double"
    options.pop("proba", None)
    files = generate(model, target, contributions=True, name=name, feature_type=ftype, template_dirs=template_dirs, **options)
    rows = _contribution_rows(model, _encode(X), ftype)
    want = _contributions_expected(model, rows)
    with tempfile.TemporaryDirectory(prefix="puretree-verify-") as tmp:
        work = Path(tmp)
        if target == "python":
            got = _contributions_python(files, work, name, rows)
        elif on is not None:
            got = _contributions_board(files, work, name, ftype, rows, on, model.schema.n_features)
        else:
            got = _contributions_c(files, work, name, ftype, rows, sanitize)
    bad = [(row, w, g) for row, w, g in zip(rows.tolist(), want, got) if not _same_bits(w, g)]
    if len(got) != len(want):
        bad.append(("row count", len(want), len(got)))
    return attrs.evolve(report, n_contributions=len(rows), contribution_mismatches=bad[: single.MAX_REPORTED], n_contribution_mismatches=len(bad))


def _contribution_rows(model: Any, X: np.ndarray, ftype: str) -> np.ndarray:
    """The rows verify checks the answers on: ``X`` and every node's, threshold's and missing value's."""
    if isinstance(model, Boosted):
        return boosting.check_rows(model, X, ftype)
    if isinstance(model, Ensemble):
        return _rows(model, X, ftype)
    return single.check_rows(model, X, ftype)


def _contributions_expected(model: Any, rows: np.ndarray) -> list[Any]:
    """The library's values per row as a tuple of floats (``None``: a row the library refuses)."""
    tables = contributing.tables_of(model)
    refused = np.isnan(rows).any(axis=1) if tables.nan_refused else np.zeros(len(rows), dtype=bool)
    values = explain_contributions(model, rows[~refused]).reshape(int((~refused).sum()), -1).tolist() if len(rows) else []
    it = iter(values)
    return [None if r else tuple(next(it)) for r in refused.tolist()]


def _same_bits(want: Any, got: Any) -> bool:
    """Bit for bit (``None``: refused, which the code answers with NaN everywhere or an error)."""
    if want is None:
        return got is None or (isinstance(got, tuple) and len(got) > 0 and all(math.isnan(v) for v in got))
    if not isinstance(got, tuple) or len(got) != len(want):
        return False
    return bool(np.array_equal(np.array(want).view(np.int64), np.array(got).view(np.int64)))


def _contributions_python(files: dict[str, str], work: Path, name: str, rows: np.ndarray) -> list[Any]:
    for filename, text in files.items():
        (work / filename).write_text(text, encoding="utf-8")
    module = single.load_python(files[f"{name}.py"], work)
    out: list[Any] = []
    for row in rows.tolist():
        try:
            out.append(tuple(module.contributions(row)))
        except ValueError:
            out.append(None)
        except Exception as exc:  # the code under test is at fault: a mismatch
            out.append(f"raised {type(exc).__name__}: {exc}"[:200])
    return out


def _contributions_c(files: dict[str, str], work: Path, name: str, ftype: str, rows: np.ndarray, sanitize: bool) -> list[Any]:
    big = name.upper()
    body = (f"double out[{big}_N_CONTRIBUTIONS]; unsigned k; {name}_contributions(x, out);"
            f' for (k = 0; k < {big}_N_CONTRIBUTIONS; k++) printf("%a ", out[k]); printf("\\n");')
    driver = single.driver_source(name, lit.C_TYPES[ftype][0], body)
    program = single.compile_c(files, name, ftype, regression=True, proba=False, workdir=work, sanitize=sanitize, driver=driver)
    return [tuple(float.fromhex(v) for v in line.split()) for line in single.driver_lines(program, rows, ftype)]


def contributions_program(files: dict[str, str], *, name: str, n_features: int) -> Program:
    """A :class:`puretree.mcu.Program` whose ``predict`` computes ``NAME_contributions`` (into a
    static buffer) and whose ``predict_proba`` answers them: the generated files run and timed
    on an emulated board by :mod:`puretree.mcu`'s row runner."""
    big = name.upper()
    wrapper = f"{name}_cw"
    header = (f"#ifndef {wrapper.upper()}_H\n#define {wrapper.upper()}_H\n#include \"{name}.h\"\n"
              f"int {wrapper}_predict(const {_ctype_of(files, name)} *x);\nint {wrapper}_predict_proba(const {_ctype_of(files, name)} *x, double *out);\n#endif\n")
    source = (f'#include "{wrapper}.h"\n#include "{name}.c"\n'
              f"static double {wrapper}_sink[{big}_N_CONTRIBUTIONS];\n"
              f"int {wrapper}_predict(const {_ctype_of(files, name)} *x)\n{{\n    {name}_contributions(x, {wrapper}_sink);\n    return 0;\n}}\n"
              f"int {wrapper}_predict_proba(const {_ctype_of(files, name)} *x, double *out)\n{{\n    {name}_contributions(x, out);\n    return 0;\n}}\n")
    width = int(re.search(rf"#define {big}_N_CONTRIBUTIONS (\d+)u", files[f"{name}.h"]).group(1))  # type: ignore[union-attr]
    return Program(wrapper, {**files, f"{wrapper}.h": header, f"{wrapper}.c": source}, n_features, width, True)


def _ctype_of(files: dict[str, str], name: str) -> str:
    return re.search(rf"void {name}_contributions\(const (\w+) \*x", files[f"{name}.h"]).group(1)  # type: ignore[union-attr]


def _contributions_board(files: dict[str, str], work: Path, name: str, ftype: str, rows: np.ndarray, core: str, n_features: int) -> list[Any]:
    program = contributions_program(files, name=name, n_features=n_features)
    elf = build_firmware([program], core=core, feature_type=ftype, workdir=work)
    answers = run_firmware(elf, [program], [(0, rows)], core=core, feature_type=ftype, workdir=work).answers[0]
    return [None if a is None else tuple(a[1]) for a in answers]


def _verify_answers(model: Any, X: Any, target: str, *, feature_type: str = "double", name: str = "tree", sanitize: bool = False,
                    template_dirs: Iterable[str | os.PathLike[str]] | None = None, quantize: Any = None, on: str | None = None,
                    max_changed: int | str = 0, **options: Any) -> single.Report:
    """:func:`puretree.codegen.verify.verify` for a tree; for an ensemble, its generated code
    run on ``X`` and on every member's check rows, compared with the library: probabilities
    (values; AdaBoost's votes and class) exactly, AdaBoost's probabilities to 1e-12.

    With ``quantize`` (C, ``feature_type`` int8, int16 or int32), as for a tree: the integer code
    against the ensemble of quantized members (:func:`quantized_ensemble`) on the quantized
    rows and every member's check rows, the ensemble's ``NAME_quantize`` against puretree's
    quantization value for value, and the rows of ``X`` whose prediction the quantization
    changes, at most ``max_changed`` of them. ``on``: run the C on an emulated
    microcontroller (:mod:`puretree.mcu`), not with ``quantize`` (as for a tree)."""
    if isinstance(model, Boosted) and options.get("leaf_type", "double") != "double":
        raise CodegenError("a boosted model's leaves hold raw scores, written as float or double; leaf_type 'uint8' is for trees, bagging and random forests")
    _single_tree_only(model, options)
    if isinstance(model, Boosted) and target in languages.TARGETS:
        return boosted_languages.verify(model, X, target, feature_type=feature_type, name=name, sanitize=sanitize, quantize=quantize, on=on, **options)
    if isinstance(model, Boosted):
        return boosting.verify(model, X, target, feature_type=feature_type, name=name, sanitize=sanitize, quantize=quantize, on=on, max_changed=max_changed, **options)
    if not isinstance(model, Ensemble):
        return single.verify(model, X, target, feature_type=feature_type, name=name, sanitize=sanitize, template_dirs=template_dirs,
                             quantize=quantize, on=on, max_changed=max_changed, **options)
    ens = model
    if target not in _TARGETS:
        raise CodegenError(f"verify runs the built-in targets {', '.join(_TARGETS)}, not {target!r}")
    if on is not None and target not in ("c", "c-table"):
        raise CodegenError(f"verify runs C (targets c and c-table) on a microcontroller, not {target}")
    if on is not None and quantize is not None:
        raise CodegenError("the fixed-point check runs on the host only; --on checks the float and integer forms")
    if on is not None and sanitize:
        raise CodegenError("the sanitizers run on the host only, not with a microcontroller")
    if quantize is not None and target == "python":
        raise CodegenError("quantization is for C targets (with feature type int8, int16 or int32)")
    single.allowed_changes(max_changed, 0)  # a bad value fails before anything is built
    options.pop("proba", None)  # the combiner always answers with probabilities
    encoded = _encode(X)
    ftype = check_options(target, {"feature_type": feature_type})["feature_type"]
    files = ensemble_files(ens, target, name=name, feature_type=ftype, template_dirs=template_dirs, quantize=quantize, **options)
    checked, inputs = ens, encoded
    if quantize is not None:
        checked, offset, scale = quantized_ensemble(ens, quantize, ftype)
        inputs = quantize_rows(encoded, offset, scale, ftype)
    rows = _rows(checked, inputs, ftype if target != "python" else "double")
    uint8 = options.get("leaf_type", "double") == "uint8"
    want = _leaf_expected(checked, rows) if uint8 else _expected(checked, rows)
    with tempfile.TemporaryDirectory(prefix="puretree-verify-") as tmp:
        work = Path(tmp)
        if target == "python":
            for filename, text in files.items():
                (work / filename).write_text(text, encoding="utf-8")
            got = _run_python(ens, work, name, rows)
        elif target in languages.TARGETS:
            kind = "adaboost" if ens.method == "adaboost" and not ens.schema.is_regression else "tree"
            command = languages.build(files, target, name, regression=ens.schema.is_regression, workdir=work, kind=kind)
            got = languages.run(command, rows, regression=ens.schema.is_regression, kind=kind)
        elif on is not None and uint8:
            raise CodegenError("code with uint8 leaves is checked on the host; --on checks the double leaf tables")
        elif on is not None:
            got = _run_board(ens, files, work, name, ftype, rows, on)
        else:
            got = _run_c(ens, files, work, name, ftype, rows, sanitize, quantized=quantize is not None, uint8=uint8)
            if quantize is not None:
                probes = np.vstack([single.quantize_probes(tree, encoded if i == 0 else encoded[:0], offset, scale, ftype) for i, tree in enumerate(ens.members)])
                q_got = single.run_quantize(work / "qdriver", probes, ftype)
    bad = [(row, w, g) for row, w, g in zip(rows.tolist(), want, got) if not _same(ens, w, g)]
    if len(got) != len(want):
        bad.append(("row count", len(want), len(got)))
    report = single.Report(len(rows), bad[: single.MAX_REPORTED], len(bad))
    if quantize is None and uint8:
        return attrs.evolve(report, changed_by_quantization=_changed(ens, checked, encoded, inputs, uint8=True), n_rows=len(encoded),
                            max_changed=single.allowed_changes(max_changed, len(encoded)))
    if quantize is None:
        return report
    q_want = quantize_rows(probes, offset, scale, ftype)
    differ = ~((q_got == q_want) | (np.isnan(q_got) & np.isnan(q_want)))
    q_bad = [(int(j), float(probes[i, j]), float(q_want[i, j]), float(q_got[i, j])) for i, j in zip(*np.nonzero(differ))]
    return attrs.evolve(report, n_quantized=int(probes.size), quantize_mismatches=q_bad[: single.MAX_REPORTED], n_quantize_mismatches=len(q_bad),
                        changed_by_quantization=_changed(ens, checked, encoded, inputs, uint8=uint8), n_rows=len(encoded),
                        max_changed=single.allowed_changes(max_changed, len(encoded)))


def _leaf_expected(ens: Ensemble, rows: np.ndarray) -> list[Any]:
    """The answers of the code with uint8 leaves (:func:`puretree.codegen.leaves.leaf_combined`)."""
    return leaf_combined(member_outputs(ens, Dataset(ens.schema, rows), unseen="ignore")) if len(rows) else []


def _changed(ens: Ensemble, qens: Ensemble, X: np.ndarray, QX: np.ndarray, *, uint8: bool = False) -> int:
    """How many rows the quantized ensemble on the quantized rows (with ``uint8``: its leaves
    in 255ths too) predicts otherwise than the model on the rows."""
    if not len(X):
        return 0
    a = ensemble_predict(ens, Dataset(ens.schema, X), unseen="ignore")  # probes: unseen on purpose
    if uint8:
        codes = [c for c, _ in _leaf_expected(qens, QX)]
        return sum(x != ens.schema.classes[c] for x, c in zip(a.tolist(), codes))
    b = ensemble_predict(qens, Dataset(ens.schema, QX), unseen="ignore")
    if ens.schema.is_regression:
        a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
        return int(np.sum(~((a == b) | (np.isnan(a) & np.isnan(b)))))
    return sum(x != y for x, y in zip(a.tolist(), b.tolist()))


def _encode(X: Any) -> np.ndarray:
    if isinstance(X, np.ndarray) and X.dtype.kind == "f" and X.ndim == 2:
        return X

    return X.X if isinstance(X, Dataset) else as_dataset(X).X


def verify_code(model: Any, X: Any, code_dir: str | os.PathLike[str], **options: Any) -> Any:
    """:func:`puretree.codegen.verify.verify_code` for a tree; ensembles are checked by
    :func:`verify` (generating their code), not from a folder."""
    if isinstance(model, Ensemble):
        raise CodegenError("verify --code checks a tree's exported files; for an ensemble, verify with --target (the code is generated and checked)")
    return single.verify_code(model, X, code_dir, **options)

"""Fast paths of prediction: generated Python reading a row lazily, the tree compiled to a
Python function (``to_function``) answering one row for the library, and the dense walk of
numeric batches. Each answers exactly as the general path does."""

import math
import pickle
import sys
import tempfile

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import puretree
from puretree.codegen.render import generate
from puretree.codegen.verify import check_rows, load_python, python_row
from puretree.compiled import to_function
from puretree.errors import DataError, ParameterError, SchemaError
from puretree.answers import predict, predict_proba, predict_value  # one row through the compiled tree
from puretree.flat import dense_ends, flatten
from puretree.nodes import Feature, Leaf, NumericSplit, Schema
from puretree.predict import apply
from puretree.tree import Tree
from test_codegen_c import built, grown


def module_of(tree, **options):
    module = load_python(generate(tree, "python", **options)["tree.py"], tempfile.mkdtemp(prefix="puretree-test-"))
    sys.modules.pop(module.__name__, None)
    return module


def two_level(missing="majority"):
    """x <= 0 -> 'low'; else y <= 0 -> 'mid', else 'high': a row going left never reads y."""
    schema = Schema((Feature("x"), Feature("y"), Feature("z")), ("high", "low", "mid"))
    right = NumericSplit(1, 0.0, Leaf((0, 0, 3)), Leaf((4, 0, 0)), (4, 0, 3))
    return Tree(NumericSplit(0, 0.0, Leaf((0, 5, 0)), right, (4, 5, 3)), schema, missing)


BAD = ["abc", math.inf, -math.inf, True, [1.0], object()]


@pytest.mark.parametrize("form", ["nested", "table"])
@pytest.mark.parametrize("missing", ["majority", "error", "distribute"])
@pytest.mark.parametrize("bad", BAD, ids=repr)
def test_generated_python_checks_only_what_the_path_reads(form, missing, bad):
    tree = two_level(missing)
    module = module_of(tree, form=form)
    # y and z are not read on the way to the left leaf: their cells are not examined.
    assert module.predict([-1.0, bad, bad]) == "low"
    assert module.predict({"x": -1.0, "y": bad, "z": bad}) == "low"
    assert module.predict_proba([-1.0, bad, bad]) == [0.0, 1.0, 0.0]
    # On the right, y is read (z never is): a bad y is refused, naming its column.
    assert module.predict([1.0, 1.0, bad]) == "high"
    with pytest.raises(ValueError, match="column 'y'"):
        module.predict([1.0, bad, 0.0])
    with pytest.raises(ValueError, match="column 'y'"):
        module.predict_proba({"x": 1.0, "y": bad, "z": 0.0})
    # A bad value where the path starts is refused whatever the rest holds.
    with pytest.raises(ValueError, match="column 'x'"):
        module.predict([bad, 0.0, 0.0])


@pytest.mark.parametrize("form", ["nested", "table"])
def test_generated_python_still_checks_the_row_shape(form):
    tree = two_level()
    module = module_of(tree, form=form)
    with pytest.raises(ValueError, match="expected 3 values, got 2"):
        module.predict([-1.0, 0.0])
    with pytest.raises(ValueError, match="missing column 'z'"):
        module.predict({"x": -1.0, "y": 0.0})
    # Numbers of other types are converted where they are read, as before.
    assert module.predict((1, "0.5", None)) == module.predict([1.0, 0.5, 0.0]) == "high"
    assert module.predict(np.array([1.0, -0.5, 0.0])) == "mid"
    # y missing: the heavier branch
    assert module.predict([1.0, float("nan"), "?"]) == predict(tree, {"x": 1.0, "y": None, "z": 0.0}) == "high"


def test_to_function_is_the_generated_predict_raising_data_errors():
    tree = two_level()
    f = to_function(tree)
    assert f is puretree.to_function(tree)
    assert f([-1.0, "abc", None]) == "low"
    assert f({"x": 1.0, "y": 2.0, "z": "whatever"}) == "high"
    with pytest.raises(DataError, match="column 'y': 'abc' is not a number"):
        f([1.0, "abc", 0.0])
    with pytest.raises(DataError, match="column 'y': value inf is not finite"):
        f([1.0, math.inf, 0.0])
    with pytest.raises(ParameterError, match="needs a Tree"):
        to_function("tree.json")


def test_the_compiled_function_is_no_part_of_the_value():
    tree = two_level()
    before = pickle.dumps(tree)
    twin = pickle.loads(before)
    digest = hash(tree)
    to_function(tree)
    predict(tree, {"x": 1.0, "y": 1.0, "z": 1.0})
    assert pickle.dumps(tree) == before
    assert hash(tree) == digest and tree == twin
    assert to_function(twin) is to_function(tree)  # equal trees share it


def test_the_library_still_checks_every_cell_of_one_row():
    # Unlike the generated module, the library refuses a bad value in any column, as it did.
    tree = two_level()
    for row in ({"x": -1.0, "y": "abc", "z": 0.0}, {"x": -1.0, "y": 0.0, "z": math.inf}):
        with pytest.raises(DataError, match="column '[yz]'"):
            predict(tree, row)
        with pytest.raises(DataError, match="column '[yz]'"):
            predict(tree, np.array([list(row.values())], dtype=object))
    with pytest.raises(SchemaError, match="missing column"):
        predict(tree, {"x": -1.0, "y": 0.0})
    with pytest.raises(DataError, match="missing value"):
        predict(attrs_evolve(tree, missing="error"), {"x": None, "y": 0.0, "z": 0.0})


def attrs_evolve(tree, **changes):
    import attrs

    return attrs.evolve(tree, **changes)


def _same(a, b):
    if isinstance(a, np.ndarray):
        return isinstance(b, np.ndarray) and a.dtype == b.dtype and a.shape == b.shape and a.tolist() == b.tolist()
    return type(a) is type(b) and a == b


def _outcome(call):
    try:
        return ("ok", call())
    except DataError as exc:
        return ("error", type(exc).__name__, str(exc))


@settings(max_examples=15, deadline=None)
@given(case=st.one_of(grown(), grown(regression=True), built()))
def test_one_row_answers_as_the_general_path(case):
    # One row (a mapping, a 1-row array) goes through the compiled tree; a list holding that
    # one mapping takes the general path. Both answer alike, errors included.
    tree, X = case
    names = tree.schema.feature_names
    regression = tree.schema.is_regression
    for row in check_rows(tree, X).tolist():
        mapping = dict(zip(names, python_row(tree, row)))
        fast = _outcome(lambda: predict(tree, mapping, unseen="ignore"))  # boundary rows: unseen on purpose
        slow = _outcome(lambda: predict(tree, [mapping], unseen="ignore"))
        if slow[0] == "ok":
            # One row's label is the schema's own object (a batch's, a numpy element).
            kind = float if regression else type(tree.schema.classes[tree.schema.classes.index(fast[1])])
            assert fast[0] == "ok" and type(fast[1]) is kind and fast[1] == slow[1][0], (mapping, fast, slow)
        else:
            assert fast == slow
        if not regression:
            fast = _outcome(lambda: predict_proba(tree, mapping, unseen="ignore"))
            slow = _outcome(lambda: predict_proba(tree, [mapping], unseen="ignore"))
            assert fast[0] == slow[0] and (fast[0] != "ok" or fast[1].tolist() == slow[1][0].tolist())
        if all(f.is_numeric for f in tree.schema.features):
            one = np.array([row])
            fast = _outcome(lambda: predict(tree, one))
            slow = _outcome(lambda: predict(tree, [dict(zip(names, row))]))
            assert fast[0] == slow[0] and (fast[0] != "ok" or _same(fast[1], slow[1])), (row, fast, slow)


def test_one_row_answers_have_the_general_forms():
    tree = two_level()
    assert predict(tree, {"x": 1, "y": -1, "z": 0}) == "mid"
    one = predict(tree, np.array([[1.0, -1.0, 0.0]]))
    assert one.tolist() == ["mid"] and one.dtype == predict(tree, np.zeros((2, 3))).dtype
    one[0] = "changed"  # the answer is the caller's: the next one is unchanged
    assert predict(tree, np.array([[1.0, -1.0, 0.0]])).tolist() == ["mid"]
    p = predict_proba(tree, {"x": 1.0, "y": -1.0, "z": 0.0})
    p[:] = 7
    assert predict_proba(tree, {"x": 1.0, "y": -1.0, "z": 0.0}).tolist() == [0.0, 0.0, 1.0]
    assert predict_proba(tree, np.array([[1.0, -1.0, 0.0]])).shape == (1, 3)
    # A mean of -0.0 comes back as 0.0, as the general path's sums make it.
    schema = Schema((Feature("x"),), (), task="regression")
    reg = Tree(NumericSplit(0, 0.5, Leaf((1.0, -0.0, 0.0)), Leaf((1.0, 2.0, 0.0)), (2.0, 2.0, 4.0)), schema)
    for answer in (predict_value(reg, {"x": 0.0}), predict(reg, {"x": 0.0}), predict(reg, np.array([[0.0]]))[0], predict(reg, np.zeros((3, 1)))[0]):
        assert answer == 0.0 and math.copysign(1.0, answer) == 1.0


@settings(max_examples=20, deadline=None)
@given(case=st.one_of(grown(), grown(regression=True), built()), seed=st.integers(0, 2**32 - 1))
def test_dense_walk_ends_where_descend_does(case, seed):
    tree, X = case
    rows = check_rows(tree, X)
    flat = flatten(tree)
    ends = dense_ends(flat, rows, tree.schema.features)
    numeric = all(f.is_numeric for f in tree.schema.features)
    finite = bool(np.isfinite(rows).all())
    if ends is None:  # only where the dense walk does not apply
        assert not (flat.dense and numeric and finite and len(rows))
    else:
        assert ends.tolist() == apply(tree, rows).tolist()
    if numeric and len(rows):
        # Batches of finite numbers answer as the general path (a list of mappings) does.
        finite_rows = np.nan_to_num(rows, nan=0.5)
        np.random.default_rng(seed).shuffle(finite_rows)
        mappings = [dict(zip(tree.schema.feature_names, r)) for r in finite_rows.tolist()]
        assert _same(predict(tree, finite_rows), predict(tree, mappings))
        if not tree.schema.is_regression:
            assert predict_proba(tree, finite_rows).tolist() == predict_proba(tree, mappings).tolist()


@pytest.mark.parametrize("block", [7, 8192])
def test_dense_walk_on_a_deep_tree_and_its_fallbacks(block, monkeypatch):
    from test_codegen_c import deep_chain

    monkeypatch.setattr(sys.modules["puretree.flat"], "DENSE_BLOCK", block)  # 7: many blocks, the last short
    tree = deep_chain(40)  # deeper than the walk's compaction interval, leaves at every depth
    X = np.arange(-1, 42, 0.5)[:, None]
    assert dense_ends(flatten(tree), X, tree.schema.features).tolist() == apply(tree, X).tolist()
    assert predict(tree, X).tolist() == [predict(tree, {"x": x}) for x in X[:, 0].tolist()]
    with_nan = X.copy()
    with_nan[3, 0] = np.nan
    assert dense_ends(flatten(tree), with_nan, tree.schema.features) is None
    assert predict(tree, with_nan).tolist() == predict(tree, [{"x": x} for x in with_nan[:, 0].tolist()]).tolist()
    with_inf = X.copy()
    with_inf[5, 0] = np.inf
    with pytest.raises(DataError, match="row 5, column 'x': value inf is not finite"):
        predict(tree, with_inf)


def lopsided(missing="majority"):
    """x <= 0 -> a chain of splits on y and z (the larger branch); x > 0 -> 'b' (a leaf). The
    generated module writes the smaller branch first: ``if x > 0`` (smaller_first)."""
    schema = Schema((Feature("x"), Feature("y"), Feature("z")), ("a", "b", "c"))
    deep = NumericSplit(2, -1.0, Leaf((3, 0, 0)), NumericSplit(2, 1.0, Leaf((0, 0, 2)), Leaf((1, 0, 0)), (1, 0, 2)), (4, 0, 2))
    left = NumericSplit(1, 0.5, deep, NumericSplit(1, 2.0, Leaf((0, 0, 3)), Leaf((2, 0, 0)), (2, 0, 3)), (6, 0, 5))
    return Tree(NumericSplit(0, 0.0, left, Leaf((0, 4, 0)), (6, 4, 5)), schema, missing)


@pytest.mark.parametrize("missing", ["majority", "error", "distribute"])
def test_generated_python_with_the_smaller_branch_first_answers_as_predict(missing):
    from decimal import Decimal
    from fractions import Fraction

    tree = lopsided(missing)
    source = generate(tree, "python")["tree.py"]
    if missing == "majority":
        assert "if f0 > 0.0:" in source  # the leaf branch comes first
    module = module_of(tree)
    values = [-math.inf, -2.0, np.nextafter(-1.0, -2.0), -1.0, np.nextafter(-1.0, 0.0), -0.0, 0.0, np.nextafter(0.0, 1.0),
              0.5, np.nextafter(0.5, 1.0), 1.0, np.nextafter(1.0, 2.0), 2.0, np.nextafter(2.0, 3.0), 3.0, math.inf, math.nan, None,
              "?", "0.5", 1, -1, True, False, Decimal("0.5"), Fraction(1, 2), np.float32(0.5), np.int64(-1), "abc"]
    for x in values:
        for y in values:
            for z in values:
                row = [x, y, z]
                try:
                    want = predict(tree, {"x": x, "y": y, "z": z})
                except DataError:
                    want = DataError
                try:
                    got = module.predict(row)
                except ValueError:
                    got = DataError
                if got is DataError and want is not DataError:
                    # The module refuses only what the row's path reads, the library every cell:
                    # here the library answered, so the module must have too.
                    raise AssertionError(f"{row}: the module refused, the library answered {want!r}")
                if want is not DataError:
                    assert got == want, row


def test_generated_python_refuses_a_decimal_as_the_library_does():
    from decimal import Decimal
    from fractions import Fraction

    tree = two_level()
    module = module_of(tree)
    with pytest.raises(ValueError, match="column 'x': Decimal"):
        module.predict([Decimal("1.5"), 0.0, 0.0])
    with pytest.raises(DataError):
        predict(tree, {"x": Decimal("1.5"), "y": 0.0, "z": 0.0})
    with pytest.raises(DataError, match="column 'x': Decimal"):
        to_function(tree)([Decimal("1.5"), 0.0, 0.0])
    # Other numbers convert as before: a Fraction, numpy's scalars.
    for x in (Fraction(3, 2), np.float32(1.5), np.int64(2)):
        assert module.predict([x, 1.0, 0.0]) == predict(tree, {"x": x, "y": 1.0, "z": 0.0}) == "high"


class _OnlyFloat:
    """Converts with float() and adds to a float, but is no number of the numeric tower."""

    def __float__(self):
        return 1.5

    def __add__(self, other):
        return 1.5 + other

    def __repr__(self):
        return "_OnlyFloat()"


@pytest.mark.parametrize("cell", [np.True_, np.False_, _OnlyFloat()], ids=["np.True_", "np.False_", "only __float__"])
def test_generated_python_refuses_what_the_library_refuses_as_no_number(cell):
    tree = two_level()
    with pytest.raises(DataError, match="is not a number"):
        predict(tree, {"x": cell, "y": 0.0, "z": 0.0})
    with pytest.raises(ValueError, match=r"column 'x': .* is not a number"):
        module_of(tree).predict([cell, 0.0, 0.0])
    with pytest.raises(DataError, match="is not a number"):
        to_function(tree)([cell, 0.0, 0.0])


@pytest.mark.parametrize("regression", [False, True])
@pytest.mark.parametrize("width", [6, 30])  # cells unpacked at once (up to 24), or fetched one by one
def test_generated_python_with_loops_answers_as_the_table_form(regression, width):
    # A tree whose splits near the root have long first branches: the nested form leaves them
    # through loops (render.loop_form). It must answer and refuse exactly as the table form,
    # the plain checked walk, on values at and around thresholds, infinities, missing values
    # and bad types, wherever they sit in the row.
    rng = np.random.default_rng(7)
    X = rng.normal(size=(3000, width))
    y = (X[:, 0] + X[:, 1] * X[:, 2] > 0.3).astype(int) if not regression else X[:, 0] - 2 * X[:, 3] ** 2
    tree = (puretree.cart_regressor if regression else puretree.cart)(X, y, max_depth=9)
    source = generate(tree, "python")["tree.py"]
    assert "while True:" in source
    assert ("f0, f1," in source) == (width <= 24)
    nested, table = module_of(tree, form="nested"), module_of(tree, form="table")
    thresholds = sorted({v for v in flatten(tree).threshold.tolist() if math.isfinite(v)})
    palette = [t for v in thresholds[::7] for t in (np.nextafter(v, -math.inf), v, np.nextafter(v, math.inf))]
    palette += [math.inf, -math.inf, math.nan, None, "?", True, "abc", "0.25", 3, -2]

    def outcome(module, row):
        try:
            return module.predict(row)
        except ValueError as exc:
            return str(exc)

    for _ in range(4000):
        row = [float(v) for v in rng.normal(size=width)]
        for j in rng.choice(width, size=int(rng.integers(1, 4)), replace=False):
            row[j] = palette[int(rng.integers(len(palette)))]
        assert outcome(nested, row) == outcome(table, row), row


def test_one_row_goes_through_the_compiled_tree_and_a_batch_through_the_walker(monkeypatch):
    # puretree.predict and tree.predict are answers.predict: one row through the compiled
    # tree, a batch through the walker of puretree.predict, a layer below.
    import puretree.answers as answers

    calls = []
    real = answers.one_row
    monkeypatch.setattr(answers, "one_row", lambda tree, X, what: calls.append(what) or real(tree, X, what))
    tree = two_level()
    row = {"x": 1.0, "y": -1.0, "z": 0.0}
    assert puretree.predict(tree, row) == "mid" and puretree.predict_proba(tree, row).tolist() == [0.0, 0.0, 1.0]
    assert puretree.predict(tree, np.array([[1.0, -1.0, 0.0]])).tolist() == ["mid"]
    assert calls == ["predict", "proba", "predict"]
    assert puretree.predict(tree, np.zeros((2, 3))).tolist() == tree.predict(np.zeros((2, 3))).tolist()
    assert calls == ["predict", "proba", "predict"]
    assert tree.predict(row) == "mid" and tree.predict_proba(row).tolist() == [0.0, 0.0, 1.0]
    assert calls == ["predict", "proba", "predict", "predict", "proba"]

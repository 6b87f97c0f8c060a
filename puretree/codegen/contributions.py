"""TreeSHAP in the generated code (``generate(..., contributions=True)``, ``puretree export --contributions``).

The C gets ``void NAME_contributions(const T *x, double *out)`` and the Python
``contributions(row)``: the path-dependent Shapley values of the row, equal bit for bit to
:func:`puretree.explain.contributions`, which defines their float order (the generated code
runs the same operations in the same order on the same constants; each product that is added
goes through a ``volatile`` so that no C compiler fuses it into a multiply-add). ``out`` holds
``NAME_N_CONTRIBUTIONS`` = outputs x (features + 1) doubles: per output (a class's probability,
AdaBoost's vote for a class, a boosted model's raw score, or the one value), the features'
values, then the expected value: ``out[c * (NAME_N_FEATURES + 1) + j]``. Those of an output add up
to its answer, to rounding.

The code carries the model's leaves as tables: per leaf its path's distinct features, the box
each asks (``lo < x <= hi``), whether a missing value follows the path, the training weight's
share that follows it, and the leaf's value. Numeric features, double or float readings, and
the path-dependent game only (the interventional one needs a background set the code does not
carry). A model that sends a missing value down no single path (strategy ``"distribute"`` or
``"error"``, surrogate splits) answers a row with one with NaN in every entry (C) or a
``ValueError`` (Python), as the library refuses it.

This module only writes the code; :func:`puretree.codegen.ensemble.generate` adds it to the
files of trees, ensembles and boosted models.

>>> import numpy as np, puretree as pt
>>> X = np.arange(12.0).reshape(-1, 1); y = [0] * 5 + [1] * 7
>>> files = pt.generate(pt.cart(X, y), "python", name="tree", contributions=True)
>>> scope = {}
>>> exec(files["tree.py"], scope)
>>> scope["contributions"]([8.0]) == pt.explain.contributions(pt.cart(X, y), [[8.0]]).ravel().tolist()
True
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..errors import CodegenError, ParameterError
from ..explain import ContributionTables, contribution_tables
from . import literals as lit

__all__ = ["tables_of", "c_contributions", "python_contributions"]


def tables_of(model: Any) -> ContributionTables:
    """:func:`puretree.explain.contribution_tables`, its refusals as :class:`~puretree.errors.CodegenError`."""
    try:
        return contribution_tables(model)
    except ParameterError as exc:
        raise CodegenError(str(exc)) from None


def _inverses(depth: int) -> list[float]:
    """``inv[n]``, the double nearest ``1 / n``, for ``n`` up to ``depth + 1`` (``inv[0]`` unused):
    the reference's (:func:`puretree.explain.contributions`) constants."""
    return [0.0] + [1.0 / n for n in range(1, depth + 2)]


def _index_type(largest: int) -> str:
    return "uint8_t" if largest <= 0xFF else "uint16_t" if largest <= 0xFFFF else "uint32_t"


def _c_array(ctype: str, name: str, values: list[str], per_line: int = 8) -> list[str]:
    values = values or ["0"]  # C has no empty array
    body = ["    " + ", ".join(values[i:i + per_line]) + "," for i in range(0, len(values), per_line)]
    return [f"static const {ctype} {name}[{len(values)}] = {{", *body, "};"]


def _flat(t: ContributionTables) -> dict[str, Any]:
    """The leaves as flat tables: the path entries of leaf ``l`` are ``start[l]`` to ``start[l + 1]``."""
    start: list[int] = [0]
    feature: list[int] = []
    lo: list[float] = []
    hi: list[float] = []
    nan_ok: list[bool] = []
    zero: list[float] = []
    value: list[float] = []
    output: list[int] = []
    for leaf in t.leaves:
        start.append(start[-1] + len(leaf.feature))
        feature += leaf.feature
        lo += leaf.lo
        hi += leaf.hi
        nan_ok += leaf.nan_ok
        zero += leaf.zero
        value += leaf.value
        output.append(leaf.output if leaf.output is not None else 0)
    depth = max((len(leaf.feature) for leaf in t.leaves), default=0)
    per_leaf = any(leaf.output is not None for leaf in t.leaves)
    return {"start": start, "feature": feature, "lo": lo, "hi": hi, "nan_ok": nan_ok, "zero": zero, "value": value,
            "output": output, "depth": depth, "one_output": per_leaf}


def c_contributions(files: Mapping[str, str], model: Any, *, name: str, feature_type: str) -> dict[str, str]:
    """``files`` (generated C) with ``NAME_contributions`` at the end of ``NAME.c`` and its
    prototype and ``NAME_N_CONTRIBUTIONS`` before the end of ``NAME.h``."""
    if feature_type not in ("double", "float"):
        raise CodegenError(f"contributions are generated for double or float features, not {feature_type!r} (quantized code reads integers)")
    t = tables_of(model)
    f = _flat(t)
    n_leaves, k, n = len(t.leaves), t.n_outputs, t.n_features
    ctype = lit.C_TYPES[feature_type][0]
    big = name.upper()
    width = k * (n + 1)
    read = "(double)(float)x[j]" if t.float32 else "(double)x[j]"
    code = ["", "", f"/* TreeSHAP (puretree export --contributions): {n_leaves} leaves; leaf l's path features are entries",
            " * cl_start[l] to cl_start[l + 1]: its feature, the box lo < x <= hi the path asks of it, whether a",
            " * missing value follows the path (cl_nan), the training weight's share that follows it (cl_zero).",
            " * Same operations in the same order as puretree.explain.contributions. */",
            "#include <math.h>",
            "#include <stdint.h>",
            *_c_array(_index_type(f["start"][-1]), f"{name}_cl_start", [str(v) for v in f["start"]], 16),
            *_c_array(_index_type(max(n - 1, 0)), f"{name}_cl_feature", [str(v) for v in f["feature"]], 16),
            *_c_array("double", f"{name}_cl_lo", [lit.c_double(v) for v in f["lo"]]),
            *_c_array("double", f"{name}_cl_hi", [lit.c_double(v) for v in f["hi"]]),
            *_c_array("double", f"{name}_cl_zero", [lit.c_double(v) for v in f["zero"]])]
    has_nan = any(f["nan_ok"]) and not t.nan_refused
    if has_nan:
        code += _c_array("uint8_t", f"{name}_cl_nan", ["1" if v else "0" for v in f["nan_ok"]], 16)
    code += _c_array("double", f"{name}_cl_value", [lit.c_double(v) for v in f["value"]])
    if f["one_output"] and k > 1:
        code += _c_array(_index_type(k - 1), f"{name}_cl_output", [str(v) for v in f["output"]], 16)
    code += _c_array("double", f"{name}_cl_expected", [lit.c_double(v) for v in t.expected])
    D = max(f["depth"], 1)
    code += _c_array("double", f"{name}_cl_inv", [lit.c_double(v) for v in _inverses(D)])
    if f["one_output"]:
        add = [f"                term = share * {name}_cl_value[leaf];",
               f"                out[{'(uint32_t)' + name + '_cl_output[leaf] * ' + str(n + 1) + 'u + ' if k > 1 else ''}j] += term;"]
    else:
        add = [f"                for (c = 0u; c < {k}u; c++) {{",
               f"                    term = share * {name}_cl_value[leaf * {k}u + c];",
               f"                    out[c * {n + 1}u + j] += term;",
               "                }"]
    if t.nan_refused:
        refuse = ["    for (j = 0u; j < " + f"{n}u; j++) {{",
                  "        if (isnan((double)x[j])) { /* no single path for a missing value: no values */",
                  f"            for (c = 0u; c < {width}u; c++) out[c] = NAN;",
                  "            return;",
                  "        }",
                  "    }"]
    else:
        refuse = []
    missing = f"{name}_cl_nan[e] != 0u" if has_nan else "0"
    code += ["",
             f"void {name}_contributions(const {ctype} *x, double *out)",
             "{",
             f"    double pw[{D + 1}];",
             f"    unsigned char one[{D}];",
             "    uint32_t leaf, c, j;",
             "    volatile double term; /* each product stored before it is added or subtracted: no fused multiply-add */",
             f"    for (c = 0u; c < {width}u; c++) out[c] = 0.0;",
             *refuse,
             f"    for (leaf = 0u; leaf < {n_leaves}u; leaf++) {{",
             f"        const uint32_t s = {name}_cl_start[leaf], D = (uint32_t){name}_cl_start[leaf + 1u] - s;",
             "        uint32_t d, i, k;",
             "        int live = 1;",
             "        for (d = 0u; d < D; d++) {",
             "            const uint32_t e = s + d;",
             "            double v;",
             f"            j = {name}_cl_feature[e];",
             f"            v = {read};",
             f"            one[d] = (unsigned char)(isnan(v) ? ({missing}) : (v > {name}_cl_lo[e] && v <= {name}_cl_hi[e]));",
             f"            if (!one[d] && {name}_cl_zero[e] == 0.0) live = 0; /* no coalition reaches the leaf */",
             "        }",
             "        if (!live) continue;",
             "        pw[0] = 1.0;",
             "        for (k = 1u; k <= D; k++) { /* EXTEND */",
             f"            const double z = {name}_cl_zero[s + k - 1u];",
             "            pw[k] = 0.0;",
             "            for (i = k; i-- > 0u;) {",
             "                if (one[k - 1u]) {",
             f"                    term = pw[i] * (double)(i + 1u) * {name}_cl_inv[k + 1u];",
             "                    pw[i + 1u] = pw[i + 1u] + term;",
             "                }",
             f"                pw[i] = z * pw[i] * (double)(k - i) * {name}_cl_inv[k + 1u];",
             "            }",
             "        }",
             "        for (d = 0u; d < D; d++) { /* UNWOUND_PATH_SUM per path feature */",
             f"            const double z = {name}_cl_zero[s + d];",
             "            double total = 0.0, share;",
             f"            j = {name}_cl_feature[s + d];",
             "            if (one[d]) {",
             "                double nxt = pw[D];",
             "                for (i = D; i-- > 0u;) {",
             f"                    const double tmp = nxt * {name}_cl_inv[i + 1u];",
             "                    total = total + tmp;",
             "                    term = tmp * z * (double)(D - i);",
             "                    nxt = pw[i] - term;",
             "                }",
             "            } else {",
             "                for (i = D; i-- > 0u;) {",
             f"                    term = pw[i] * {name}_cl_inv[D - i];",
             "                    total = total + term;",
             "                }",
             "                total = total / z;",
             "            }",
             "            share = total * (double)(D + 1u) * ((one[d] ? 1.0 : 0.0) - z);",
             "            {",
             *add,
             "            }",
             "        }",
             "    }",
             f"    for (c = 0u; c < {k}u; c++) out[c * {n + 1}u + {n}u] = {name}_cl_expected[c];",
             "}",
             ""]
    header = files[f"{name}.h"]
    # before the closing extern "C" block when there is one, else before the include guard's end
    at = header.rindex("#ifdef __cplusplus\n}") if "#ifdef __cplusplus\n}" in header else header.rindex("#endif")
    declared = [f"/* TreeSHAP (path-dependent) of the row x: out[{big}_N_CONTRIBUTIONS], per output c (a class, a raw",
                f" * score, or the one value) the features' values then the expected value: out[c * ({n} + 1) + j];",
                " * an output's entries add up to its answer. Bit for bit puretree.explain.contributions."
                + (" A row with a missing value: NaN everywhere (this model sends it down no single path)." if t.nan_refused else "") + " */",
                f"#define {big}_N_CONTRIBUTIONS {width}u",
                f"void {name}_contributions(const {ctype} *x, double *out);",
                "", ""]
    return {**files, f"{name}.h": header[:at] + "\n".join(declared) + header[at:], f"{name}.c": files[f"{name}.c"].rstrip("\n") + "\n" + "\n".join(code)}


def _py_tuple(values: list[Any]) -> str:
    return "(" + "".join(f"{v}, " for v in values) + ")"


def python_contributions(files: Mapping[str, str], model: Any, *, name: str) -> dict[str, str]:
    """``files`` (generated Python) with ``contributions(row)`` added to ``NAME.py``: a row as
    ``predict`` takes it (a sequence in feature order or a mapping by name; ``None`` or NaN for
    a missing value), the values as a flat list in the C ``out``'s layout."""
    t = tables_of(model)
    f = _flat(t)
    n, k = t.n_features, t.n_outputs
    names = ", ".join(lit.py_string(s) for s in model.schema.feature_names)
    if f["one_output"]:
        add = ["            out[_CL_OUTPUT[leaf] * %d + j] += share * _CL_VALUE[leaf]" % (n + 1)]
    else:
        add = [f"            for c in range({k}):",
               f"                out[c * {n + 1} + j] += share * _CL_VALUE[leaf * {k} + c]"]
    read = ["        v = float(v)" if not t.float32 else "        v = _cl_float32(float(v))"]
    code = ["", "", "# TreeSHAP (contributions): the leaves' path entries, as puretree.explain.contributions reads them.",
            "import math as _cl_math",
            "import numbers as _cl_numbers",
            "import struct as _cl_struct",
            f"_CL_NAMES = ({names},)",
            f"_CL_START = {_py_tuple(f['start'])}",
            f"_CL_FEATURE = {_py_tuple(f['feature'])}",
            f"_CL_LO = {_py_tuple([lit.py_float(v) for v in f['lo']])}",
            f"_CL_HI = {_py_tuple([lit.py_float(v) for v in f['hi']])}",
            f"_CL_NAN = {_py_tuple([bool(v) and not t.nan_refused for v in f['nan_ok']])}",
            f"_CL_ZERO = {_py_tuple([lit.py_float(v) for v in f['zero']])}",
            f"_CL_VALUE = {_py_tuple([lit.py_float(v) for v in f['value']])}",
            f"_CL_OUTPUT = {_py_tuple(f['output'])}",
            f"_CL_EXPECTED = {_py_tuple([lit.py_float(v) for v in t.expected])}",
            f"_CL_INV = {_py_tuple([lit.py_float(v) for v in _inverses(max(f['depth'], 1))])}",
            "",
            "",
            "def _cl_float32(v):",
            "    # The float32 nearest v, as the model reads its features.",
            "    try:",
            "        return _cl_struct.unpack('f', _cl_struct.pack('f', v))[0]",
            "    except OverflowError:",
            "        return _cl_math.copysign(_cl_math.inf, v)",
            "",
            "",
            "def _cl_row(row):",
            "    # The row's values in feature order as floats (NaN: missing).",
            "    if hasattr(row, 'keys'):",
            "        try:",
            "            row = [row[f] for f in _CL_NAMES]",
            "        except KeyError as exc:",
            "            raise ValueError('missing column %r' % (exc.args[0],)) from None",
            "    row = list(row)",
            f"    if len(row) != {n}:",
            f"        raise ValueError('expected {n} values, got %d' % len(row))",
            "    x = []",
            "    for j, v in enumerate(row):",
            "        if v is None:",
            "            v = _cl_math.nan",
            "        elif type(v).__name__ in ('bool', 'bool_') or not isinstance(v, _cl_numbers.Real):",
            "            raise ValueError('column %r: %r is not a number' % (_CL_NAMES[j], v))",
            *read,
            *(["        if v != v:",
               "            raise ValueError('column %r: a missing value, which this model sends down no single path; it has no contributions' % (_CL_NAMES[j],))"]
              if t.nan_refused else []),
            "        x.append(v)",
            "    return x",
            "",
            "",
            "def contributions(row):",
            f'    """TreeSHAP (path-dependent) of one row: {k * (n + 1)} floats, per output c the features\' values',
            f"    then the expected value (index c * {n + 1} + j); an output's values add up to its answer.",
            '    Bit for bit puretree.explain.contributions."""',
            "    x = _cl_row(row)",
            f"    out = [0.0] * {k * (n + 1)}",
            f"    for leaf in range({len(t.leaves)}):",
            "        s = _CL_START[leaf]",
            "        D = _CL_START[leaf + 1] - s",
            "        one = []",
            "        live = True",
            "        for d in range(D):",
            "            v = x[_CL_FEATURE[s + d]]",
            "            o = _CL_NAN[s + d] if v != v else _CL_LO[s + d] < v <= _CL_HI[s + d]",
            "            one.append(o)",
            "            if not o and _CL_ZERO[s + d] == 0.0:",
            "                live = False  # no coalition reaches the leaf",
            "        if not live:",
            "            continue",
            "        pw = [1.0] + [0.0] * D",
            "        for k in range(1, D + 1):  # EXTEND",
            "            z = _CL_ZERO[s + k - 1]",
            "            o = one[k - 1]",
            "            for i in range(k - 1, -1, -1):",
            "                if o:",
            "                    pw[i + 1] = pw[i + 1] + pw[i] * float(i + 1) * _CL_INV[k + 1]",
            "                pw[i] = z * pw[i] * float(k - i) * _CL_INV[k + 1]",
            "        for d in range(D):  # UNWOUND_PATH_SUM per path feature",
            "            z = _CL_ZERO[s + d]",
            "            j = _CL_FEATURE[s + d]",
            "            total = 0.0",
            "            if one[d]:",
            "                nxt = pw[D]",
            "                for i in range(D - 1, -1, -1):",
            "                    tmp = nxt * _CL_INV[i + 1]",
            "                    total = total + tmp",
            "                    nxt = pw[i] - tmp * z * float(D - i)",
            "            else:",
            "                for i in range(D - 1, -1, -1):",
            "                    total = total + pw[i] * _CL_INV[D - i]",
            "                total = total / z",
            "            share = total * float(D + 1) * ((1.0 if one[d] else 0.0) - z)",
            *add,
            f"    for c in range({k}):",
            f"        out[c * {n + 1} + {n}] = _CL_EXPECTED[c]",
            "    return out",
            ""]
    return {**files, f"{name}.py": files[f"{name}.py"].rstrip("\n") + "\n" + "\n".join(code)}

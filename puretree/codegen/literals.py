"""Literals and names for generated code: the only places where user data turns into source text.

One float formatter per language and C type (exact round trip), one identifier sanitiser, one
string-literal escaper per language. Feature names and class labels come from users' files:
they reach generated code **only** through :func:`c_string` / :func:`py_string` (inside an
escaped string literal) or through :func:`identifiers` (letters, digits and ``_`` only).

>>> py_float(0.1), c_double(0.1), c_float(float32_floor(0.1))
('0.1', '0.1', '0.099999994f')
>>> print(c_string('say "hi" */ ??/'))
"say \\"hi\\" \\052\\057 \\?\\?\\057"
>>> identifiers(["if", "x y", "x_y", "1st", "é"], prefix="F")
['F_if', 'F_x_y', 'F_x_y_2', 'F_1st', 'F_e']
"""

from __future__ import annotations

import json
import keyword
import math
import re
import unicodedata
from collections.abc import Iterable
from typing import Any

import numpy as np

from ..errors import CodegenError

__all__ = [
    "C_TYPES",
    "py_float",
    "py_string",
    "c_double",
    "c_float",
    "c_int",
    "c_string",
    "js_string",
    "js_float",
    "java_string",
    "java_double",
    "rust_string",
    "rust_f64",
    "JAVA_KEYWORDS",
    "RUST_KEYWORDS",
    "float32_floor",
    "float32_threshold",
    "identifiers",
    "word",
    "unique",
    "c_identifier_ok",
]

#: The C feature types: name -> (C type, integer range or None for floating types).
C_TYPES: dict[str, tuple[str, Any]] = {
    "double": ("double", None),
    "float": ("float", None),
    "int8": ("int8_t", (-(2**7), 2**7 - 1)),
    "int16": ("int16_t", (-(2**15), 2**15 - 1)),
    "int32": ("int32_t", (-(2**31), 2**31 - 1)),
}


def py_float(value: float) -> str:
    """A Python float literal that reads back as exactly ``value`` (``repr`` is shortest round-trip).

    >>> py_float(1e300), py_float(-0.0), py_float(2.0)
    ('1e+300', '-0.0', '2.0')
    """
    value = float(value)
    if not math.isfinite(value):
        return "float('inf')" if value > 0 else ("float('-inf')" if value < 0 else "float('nan')")
    return repr(value)


def c_double(value: float) -> str:
    """A C double literal that a correctly rounding compiler reads as exactly ``value``.

    The shortest round-trip decimal (17 significant digits at most), always with a ``.`` or
    an exponent so that it is a floating constant, never an integer one.

    >>> c_double(3.0), c_double(1e-310), c_double(float("inf"))
    ('3.0', '1e-310', 'INFINITY')
    """
    value = float(value)
    if math.isinf(value):
        return "INFINITY" if value > 0 else "(-INFINITY)"
    if math.isnan(value):
        raise CodegenError("a NaN cannot be emitted as a C constant")
    text = repr(value)
    return f"({text})" if text.startswith("-") else text


def c_float(value: float) -> str:
    """A C float literal (``f`` suffix) for a value that must already be a float32 value.

    Nine significant digits always round-trip a float32; the text is the shortest that does.

    >>> c_float(np.float32(0.1)), c_float(-2.5), c_float(np.float32(3.4028235e38))
    ('0.1f', '(-2.5f)', '3.4028235e+38f')
    """
    f = np.float32(value)
    if float(f) != float(value) and not math.isinf(float(value)):
        raise CodegenError(f"{value!r} is not a float32 value")
    if np.isinf(f):
        return "INFINITY" if f > 0 else "(-INFINITY)"
    for digits in range(6, 10):
        text = f"{float(f):.{digits}g}"
        if np.float32(float(text)) == f:
            break
    if "." not in text and "e" not in text:
        text += ".0"
    elif "." not in text:
        mantissa, exp = text.split("e")
        text = f"{mantissa}.0e{exp}"
    text += "f"
    return f"({text})" if text.startswith("-") else text


def c_int(value: int, ctype: str = "int32_t") -> str:
    """A C integer literal in range of ``ctype``; the type's minimum is spelled with its macro.

    >>> c_int(-5), c_int(-(2**31)), c_int(-(2**15), "int16_t"), c_int(-128, "int8_t")
    ('(-5)', 'INT32_MIN', 'INT16_MIN', 'INT8_MIN')
    """
    value = int(value)
    minimum = {"int8_t": -(2**7), "int16_t": -(2**15), "int32_t": -(2**31)}.get(ctype)
    if value == minimum:
        return ctype.replace("_t", "").upper() + "_MIN"
    return f"({value})" if value < 0 else str(value)


def float32_floor(value: float) -> np.float32:
    """The largest float32 value ``<= value`` (``-inf`` below every finite float32).

    For every float32 ``x``: ``x <= float32_floor(t)`` exactly when ``float(x) <= t``.

    >>> float(float32_floor(0.1)) <= 0.1 < float(np.nextafter(float32_floor(0.1), np.float32(np.inf)))
    True
    >>> float32_floor(1e300), float32_floor(-1e300)
    (np.float32(3.4028235e+38), np.float32(-inf))
    """
    with np.errstate(over="ignore"):
        f = np.float32(value)
    if float(f) > value:
        f = np.nextafter(f, np.float32(-np.inf))
    return f


_F32_MAX = float(np.finfo(np.float32).max)
# Half a float32 ulp at the top: values from FLT_MAX + 2**103 on round to infinity.
_OVERFLOW = _F32_MAX + 2.0**103


def float32_threshold(t: float) -> float:
    """The largest double ``v`` with ``x <= v`` iff ``float32(x) <= t``, for every double ``x``.

    ``float32(x)`` rounds to nearest (ties to even) and is monotonic, so the set of ``x``
    with ``float32(x) <= t`` is ``x <= m`` or ``x < m`` for ``m`` the midpoint between ``u``
    (the largest float32 ``<= t``) and the next float32 up; which one depends on which way
    ``m`` itself rounds.

    >>> v = float32_threshold(0.5)
    >>> bool(np.float32(v) <= 0.5), bool(np.float32(np.nextafter(v, 1.0)) <= 0.5)
    (True, False)
    >>> float32_threshold(1e300) < _OVERFLOW <= float32_threshold(1e300) + 2.0**75
    True
    """
    u = float32_floor(t)
    if np.isneginf(u):
        m = -_OVERFLOW
    elif float(u) == _F32_MAX:
        m = _OVERFLOW
    else:
        m = (float(u) + float(np.nextafter(u, np.float32(np.inf)))) / 2.0
    with np.errstate(over="ignore"):
        if float(np.float32(m)) <= t:
            return m
    return float(np.nextafter(m, -np.inf))


_ESCAPES_C = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t", "?": "\\?", "/": "\\057", "*": "\\052"}


def c_string(text: str) -> str:
    """A C99 string literal holding ``text`` as UTF-8, safe in any context.

    Quotes and backslashes are escaped; ``?`` is escaped so no trigraph (``??/``) can form;
    ``/`` and ``*`` are escaped so that ``*/``, ``/*`` and ``//`` never appear; every byte outside printable
    ASCII becomes an octal escape (three digits, so a following digit cannot extend it).
    A NUL in a name is kept as ``\\000`` (C string functions would see the name end there).

    >>> c_string("naïve")
    '"na\\\\303\\\\257ve"'
    """
    out = []
    for byte in str(text).encode("utf-8", "surrogatepass"):
        ch = chr(byte)
        if ch in _ESCAPES_C:
            out.append(_ESCAPES_C[ch])
        elif 0x20 <= byte < 0x7F:
            out.append(ch)
        else:
            out.append(f"\\{byte:03o}")
    return '"' + "".join(out) + '"'


def py_string(text: str) -> str:
    """A Python string literal for ``text``: ``repr`` escapes quotes, backslashes, newlines and NUL;
    non-ASCII becomes ``\\u`` escapes so the module is pure ASCII.

    >>> py_string('a"\\'\\n\\x00é')
    '\\'a"\\\\\\'\\\\n\\\\x00\\\\xe9\\''
    """
    return ascii(str(text))


def js_string(text: str) -> str:
    """A JavaScript string literal (JSON's, with ``<``, ``>``, ``/`` and line separators escaped).

    >>> js_string("</script>")
    '"\\\\u003c\\\\/script\\\\u003e"'
    """
    body = json.dumps(str(text), ensure_ascii=True)
    return body.replace("/", "\\/").replace("<", "\\u003c").replace(">", "\\u003e")


def js_float(value: float) -> str:
    """A JavaScript number literal (doubles, like Python's floats; ``repr`` round-trips).

    >>> js_float(0.1), js_float(-3.0), js_float(float("-inf"))
    ('0.1', '(-3.0)', '(-Infinity)')
    """
    value = float(value)
    if math.isinf(value):
        return "Infinity" if value > 0 else "(-Infinity)"
    if math.isnan(value):
        return "NaN"
    text = repr(value)
    return f"({text})" if text.startswith("-") else text


def java_double(value: float) -> str:
    """A Java ``double`` literal that javac reads as exactly ``value`` (JLS 3.10.2 rounds to
    nearest; the shortest round-trip decimal always has a ``.`` or an exponent, so it is a
    double literal, never an int one).

    >>> java_double(0.1), java_double(1e-310), java_double(float("inf")), java_double(-2.0)
    ('0.1', '1e-310', 'java.lang.Double.POSITIVE_INFINITY', '(-2.0)')
    """
    value = float(value)
    if math.isinf(value):
        return "java.lang.Double.POSITIVE_INFINITY" if value > 0 else "java.lang.Double.NEGATIVE_INFINITY"
    if math.isnan(value):
        return "java.lang.Double.NaN"
    text = repr(value)
    return f"({text})" if text.startswith("-") else text


def rust_f64(value: float) -> str:
    """A Rust ``f64`` literal that rustc reads as exactly ``value`` (suffixed, so its type
    never depends on inference).

    >>> rust_f64(0.1), rust_f64(1e300), rust_f64(float("-inf")), rust_f64(-0.0)
    ('0.1f64', '1e+300f64', 'f64::NEG_INFINITY', '-0.0f64')
    """
    value = float(value)
    if math.isinf(value):
        return "f64::INFINITY" if value > 0 else "f64::NEG_INFINITY"
    if math.isnan(value):
        return "f64::NAN"
    return repr(value) + "f64"  # a unary minus binds tighter than any operator it meets here


# Java translates \uXXXX escapes before it reads the source (JLS 3.3), inside string
# literals too: a quote, a backslash or a line end spelt that way would end the literal,
# so those get their own escapes; everything else outside printable ASCII is a \u escape
# (a UTF-16 pair above U+FFFF), which stays inside the literal.
_ESCAPES_JAVA = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def java_string(text: str) -> str:
    """A Java string literal for ``text``, pure ASCII, safe in any context.

    >>> print(java_string('say "hi" é\\\\u0022'))
    "say \\"hi\\" \\u00e9\\\\u0022"
    """
    out = []
    for ch in str(text):
        if ch in _ESCAPES_JAVA:
            out.append(_ESCAPES_JAVA[ch])
        elif 0x20 <= ord(ch) < 0x7F:
            out.append(ch)
        else:
            units = ch.encode("utf-16-le", "surrogatepass")
            out.extend(f"\\u{int.from_bytes(units[i:i + 2], 'little'):04x}" for i in range(0, len(units), 2))
    return '"' + "".join(out) + '"'


def rust_string(text: str) -> str:
    """A Rust string literal for ``text``, pure ASCII (``\\u{...}`` escapes); a lone
    surrogate, which no Rust string can hold, raises :class:`CodegenError`.

    >>> print(rust_string('say "hi" é\\\\'))
    "say \\"hi\\" \\u{e9}\\\\"
    """
    out = []
    for ch in str(text):
        if ch in ('"', "\\"):
            out.append("\\" + ch)
        elif 0x20 <= ord(ch) < 0x7F:
            out.append(ch)
        elif 0xD800 <= ord(ch) < 0xE000:
            raise CodegenError(f"{text!r} holds a lone surrogate, which a Rust string cannot hold")
        else:
            out.append(f"\\u{{{ord(ch):x}}}")
    return '"' + "".join(out) + '"'


#: Java's reserved words and literals (JLS 3.9) and its contextual keywords: never a class name.
JAVA_KEYWORDS = frozenset(
    """abstract assert boolean break byte case catch char class const continue default do double else enum
    extends final finally float for goto if implements import instanceof int interface long native new package
    private protected public return short static strictfp super switch synchronized this throw throws transient
    try void volatile while true false null var yield record sealed permits non-sealed exports module open
    opens provides requires to transitive uses with""".split()
)
#: Rust's strict and reserved keywords: never a module or item name.
RUST_KEYWORDS = frozenset(
    """as async await break const continue crate dyn else enum extern false fn for if impl in let loop match mod
    move mut pub ref return self Self static struct super trait true type unsafe use where while abstract become
    box do final macro override priv try typeof unsized virtual yield union""".split()
)


_C_KEYWORDS = frozenset(
    """auto break case char const continue default do double else enum extern float for goto if inline
    int long register restrict return short signed sizeof static struct switch typedef union unsigned
    void volatile while _Bool _Complex _Imaginary NULL main""".split()
)
_JS_KEYWORDS = frozenset(
    """await break case catch class const continue debugger default delete do else enum export extends
    false finally for function if import in instanceof let new null return super switch this throw true
    try typeof var void while with yield""".split()
)


def _ascii_word(text: str) -> str:
    # Letters with accents keep their base letter; everything else becomes "_".
    plain = unicodedata.normalize("NFKD", str(text)).encode("ascii", "ignore").decode("ascii")
    word = re.sub(r"[^A-Za-z0-9]+", "_", plain).strip("_")
    return word or "x"


def word(name: str) -> str:
    """A name reduced to ASCII letters, digits and single underscores (accents dropped).

    >>> word("Température (°C)"), word("*/"), word("a__b")
    ('Temperature_C', 'x', 'a_b')
    """
    return re.sub(r"_+", "_", _ascii_word(name))


def unique(words: Iterable[str], *, reserved: Iterable[str] = ()) -> list[str]:
    """The words made distinct (and distinct from ``reserved``) with ``_2``, ``_3``... suffixes.

    >>> unique(["A", "A", "B"], reserved=["B"])
    ['A', 'A_2', 'B_2']
    """
    seen = set(reserved)
    out = []
    for w in words:
        candidate, k = w, 2
        while candidate in seen:
            candidate = f"{w}_{k}"
            k += 1
        seen.add(candidate)
        out.append(candidate)
    return out


def identifiers(names: Iterable[str], *, prefix: str = "", upper: bool = False, reserved: Iterable[str] = ()) -> list[str]:
    """Distinct identifiers for ``names``, valid and never a keyword in C, Python and JavaScript.

    Only ASCII letters, digits and ``_`` survive; the result always starts with ``prefix`` +
    ``_`` when a prefix is given (so it cannot start with a digit or clash with a keyword),
    or with a letter otherwise. Names that collide after sanitising (or with ``reserved``)
    get ``_2``, ``_3``... Never a reserved C identifier (no leading underscore, no ``__``).

    >>> identifiers(["a", "a", "A!"], upper=True)
    ['A', 'A_2', 'A_3']
    >>> identifiers(["class", "9lives", ""])
    ['class_', 'n9lives', 'x']
    """
    words = []
    for name in names:
        w = word(name)
        if upper:
            w = w.upper()
        if prefix:
            w = f"{prefix}_{w}"
        elif w[0].isdigit():
            w = "n" + w
        if not prefix and (keyword.iskeyword(w) or keyword.issoftkeyword(w) or w in _C_KEYWORDS or w in _JS_KEYWORDS or w.lower() in {"true", "false", "none"}):
            w += "_"
        words.append(w)
    return unique(words, reserved=reserved)


_C_IDENT = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,30}")


def c_identifier_ok(name: str) -> bool:
    """Whether ``name`` may be used as the prefix of generated C, Python and JavaScript symbols:
    an ASCII letter, then letters, digits or single underscores, at most 31 characters, no keyword.

    >>> [c_identifier_ok(n) for n in ("tree", "my_tree2", "2tree", "int", "a__b", "x;system")]
    [True, True, False, False, False, False]
    """
    return (
        bool(_C_IDENT.fullmatch(name))
        and "__" not in name
        and not name.endswith("_")
        and name not in _C_KEYWORDS
        and name not in _JS_KEYWORDS
        and not keyword.iskeyword(name)
    )

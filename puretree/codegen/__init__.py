"""Code generation: trees compiled to standalone Python and C that decide exactly as the model.

``lower`` (tree -> plain render model), ``generate`` (file contents), ``export`` (files on
disk) and ``verify`` (generated code run against the model), for trees and ensembles
(:mod:`puretree.codegen.ensemble`). See docs/codegen.md.

Lowering and rendering (:mod:`~puretree.codegen.lower`, :mod:`~puretree.codegen.render`) load
with the package: they sit below the tree value, whose one-row answers run the generated Python
(:mod:`puretree.compiled`). ``export``, ``generate``, ``verify``, ``verify_code`` and ``Report``
take ensembles too, so they live with the ensembles, a layer up, and load on first use (PEP 562).

>>> import puretree.codegen as codegen
>>> codegen.verify.__module__, codegen.lower.__module__
('puretree.codegen.ensemble', 'puretree.codegen.lower')
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import TYPE_CHECKING, Any

from .lower import FEATURE_TYPES, lower
from .render import environment, targets, template_roots

if TYPE_CHECKING:  # (verify: for type checkers the name is the submodule; `puretree.verify` is the function)
    from .ensemble import export, generate, to_java, to_javascript, to_rust, verify_code
    from .verify import Report

__all__ = ["FEATURE_TYPES", "lower", "environment", "export", "generate", "targets", "template_roots", "Report", "verify", "verify_code", "to_javascript", "to_java", "to_rust"]

# The names that take ensembles: {name: submodule}, imported on first use.
_LATER = {"export": "ensemble", "generate": "ensemble", "verify": "ensemble", "verify_code": "ensemble", "Report": "verify", "to_javascript": "ensemble", "to_java": "ensemble", "to_rust": "ensemble"}


def __getattr__(name: str) -> Any:
    if name in _LATER:
        value = getattr(importlib.import_module(f".{_LATER[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


class _Package(types.ModuleType):
    """``puretree.codegen.verify`` stays the function when the submodule of that name loads
    (Python sets the package's attribute to a submodule when it imports it)."""

    @property
    def verify(self) -> Any:
        return importlib.import_module(f"{__name__}.ensemble").verify

    @verify.setter
    def verify(self, value: Any) -> None:
        if not isinstance(value, types.ModuleType):
            raise AttributeError(f"{__name__}.verify is read-only; patch {__name__}.ensemble.verify instead")


sys.modules[__name__].__class__ = _Package

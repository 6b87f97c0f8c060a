"""Code generation: trees compiled to standalone Python and C that decide exactly as the model.

``lower`` (tree -> plain render model), ``generate`` (file contents), ``export`` (files on
disk) and ``verify`` (generated code run against the model). See docs/codegen.md.
"""

from .lower import FEATURE_TYPES, lower
from .render import environment, export, generate, targets, template_roots
from .verify import Report, verify

__all__ = ["FEATURE_TYPES", "lower", "environment", "export", "generate", "targets", "template_roots", "Report", "verify"]

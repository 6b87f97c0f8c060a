"""Code generation: trees compiled to standalone Python and C that decide exactly as the model.

``lower`` (tree -> plain render model), ``generate`` (file contents), ``export`` (files on
disk) and ``verify`` (generated code run against the model), for trees and ensembles
(:mod:`puretree.codegen.ensemble`). See docs/codegen.md.
"""

from .ensemble import export, generate, verify, verify_code
from .lower import FEATURE_TYPES, lower
from .render import environment, targets, template_roots
from .verify import Report

__all__ = ["FEATURE_TYPES", "lower", "environment", "export", "generate", "targets", "template_roots", "Report", "verify", "verify_code"]

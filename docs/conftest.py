"""The documentation pages' doctests: a page whose reference library cannot be installed on this
Python is not collected (shap 0.51, compared with in explain.md, installs on Python 3.11+ only)."""

import importlib.util

collect_ignore = [] if importlib.util.find_spec("shap") else ["explain.md"]

"""Input and output: what puretree saves and what it reads.

- :mod:`puretree.io.json`: trees and ensembles saved as JSON, a documented, versioned,
  validated format (:func:`save`, :func:`load`, :func:`to_json`, :func:`from_json`, the
  dictionaries :func:`to_dict` and :func:`from_dict`, and the registry of split kinds
  :data:`SPLIT_FORMATS`);
- :mod:`puretree.io.formats`: the data files puretree reads (CSV, ARFF, Parquet, JSON lines:
  :func:`read_data`, :func:`read_arff`);
- :mod:`puretree.io._xgboost`: XGBoost's saved models (JSON, UBJSON or a ``Booster``) as
  :class:`~puretree.boosted.Boosted` values (:func:`from_xgboost`);
- :mod:`puretree.io._lightgbm`: LightGBM's model text (or a ``Booster``) as
  :class:`~puretree.boosted.Boosted` values (:func:`from_lightgbm`).

``puretree.io`` re-exports the JSON codec's names, as when it was one module, and the two
readers of data files; the examples live with the code:

>>> from puretree import io
>>> from puretree.io import formats, json
>>> io.load is json.load and io.read_data is formats.read_data
True
"""

from __future__ import annotations

from .formats import read_arff, read_data
from ._lightgbm import from_lightgbm
from ._xgboost import from_xgboost
from .json import FORMAT, READS, SPLIT_FORMATS, VERSION, SplitFormat, from_dict, from_json, load, save, to_dict, to_json

__all__ = ["FORMAT", "VERSION", "READS", "SplitFormat", "SPLIT_FORMATS", "to_dict", "from_dict", "to_json", "from_json", "save", "load", "read_data", "read_arff", "from_xgboost", "from_lightgbm"]

"""Shared test settings: Hypothesis profiles.

``make test`` (and plain ``pytest``) uses the ``ci`` profile: derandomized, with no example
database, so one commit gives one verdict on every machine and every run. ``make fuzz``
uses ``fuzz``: random seeds, many more examples and the example database, for finding bugs;
what it finds becomes an ``@example`` or a unit test.
"""

import os

from hypothesis import HealthCheck, settings

_COMMON = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow], print_blob=True)

settings.register_profile("ci", derandomize=True, database=None, max_examples=60, **_COMMON)
settings.register_profile("fuzz", derandomize=False, max_examples=2000, **_COMMON)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

"""The hostile sweep of issue 9: hostile inputs and faults, one verdict each.

One module per category (``test_csv``, ``test_predict_schema``, ``test_model_json``,
``test_library``, ``test_outputs``, ``test_codegen``), each a list ``CASES`` of
:class:`~.harness.Case` and one parametrized test asserting the verdict ``ok``; the shared
harness is :mod:`.harness` (verdicts), :mod:`.faults` (kills, Ctrl-C, concurrent writers) and
:mod:`.common` (inputs). ``python -m tests.hostile`` prints the count by verdict and category.
"""

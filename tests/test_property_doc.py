"""docs/property-testing.md runs: its code as written, its shown counterexample as produced."""

import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import settings

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "property-testing.md"


def blocks(text, language):
    return re.findall(rf"```{language}\n(.*?)```", text, flags=re.S)


@pytest.fixture(scope="module")
def page():
    text = PAGE.read_text(encoding="utf-8")
    namespace = {"__name__": "property_testing_page"}
    for code in blocks(text, "python"):
        exec(compile(code, str(PAGE), "exec"), namespace)
    shown = text.split("<!-- output of test_naive_entropy -->", 1)[1]
    return namespace, blocks(shown, "text")[0]


def failure_text(exc):
    """The parts of Hypothesis' report that do not depend on the run: the shrunk example and
    the error (Hypothesis may add other notes, such as an explanation, around them)."""
    notes = "\n".join(getattr(exc, "__notes__", []))
    example = re.search(r"^(Failing test case|Falsifying example): .*?^\)$", notes, flags=re.S | re.M)
    assert example is not None, notes
    # Hypothesis' explain phase may annotate the example with comments ("# or any other
    # generated value"); they say how the failure varies, not what the example is.
    lines = [re.sub(r"\s+# .*$", "", line) for line in example.group(0).splitlines() if not line.lstrip().startswith("# ")]
    return "\n".join(lines) + f"\nAssertionError: {exc}\n"


def test_the_hand_written_entropy_passes(page):
    namespace, _ = page
    namespace["test_my_entropy"]()


def test_the_naive_entropy_fails_with_the_counterexample_shown(page):
    namespace, shown = page
    # The page's test carries its own settings (database=None: no earlier run's failures).
    with pytest.raises(AssertionError) as caught, np.errstate(divide="ignore", invalid="ignore"):
        namespace["test_naive_entropy"]()
    assert failure_text(caught.value) == shown


@pytest.mark.parametrize("name", ["test_json", "test_simplify_is_a_pruning", "test_python_export", "test_predictions_are_probabilities"])
def test_the_other_examples_pass(page, name):
    namespace, _ = page
    settings(max_examples=10)(namespace[name])()


def test_the_script_is_the_page(page):
    # examples/property_test_criterion.py carries the same two tests, word for word.
    script = (ROOT / "examples" / "property_test_criterion.py").read_text(encoding="utf-8")
    text = PAGE.read_text(encoding="utf-8")
    for code in blocks(text, "python")[:2]:
        for definition in re.findall(r"^(?:@given.*\n)?def .*?(?=\n\n\n|\Z)", code, flags=re.S | re.M):
            assert definition.strip() in script, definition.splitlines()[0]

"""The seeds' worked examples, shipped inside the package.

>>> ds = load_playtennis()
>>> ds.n_rows, ds.schema.feature_names, ds.schema.classes
(14, ('outlook', 'temperature', 'humidity', 'wind'), ('no', 'yes'))
>>> load_temperature().X[:, 0].tolist()
[40.0, 48.0, 60.0, 72.0, 80.0, 90.0]
"""

from __future__ import annotations

from importlib import resources
from typing import Any

from ..data import Dataset, build_dataset, read_csv, read_csv_table
from ..errors import DataError

__all__ = ["path", "load", "load_playtennis", "load_buys_computer", "load_temperature", "load_mammals", "load_mammals_small", "NAMES"]

#: name -> (file, target column, identifier column dropped on load)
_TABLES = {
    "playtennis": ("playtennis.csv", "play", "day"),
    "buys_computer": ("buys_computer.csv", "buys_computer", "rid"),
    "temperature": ("temperature.csv", "play", None),
    "mammals_train": ("mammals_train.csv", "mammal", "name"),
    "mammals_test": ("mammals_test.csv", "mammal", "name"),
    "mammals_5": ("mammals_5.csv", "mammal", "name"),
    "mammals_8": ("mammals_8.csv", "mammal", "name"),
}
NAMES = tuple(_TABLES)


def path(name: str) -> Any:
    """The path of a shipped CSV file (for the command line, or to read it yourself)."""
    if name not in _TABLES:
        raise DataError(f"unknown data set {name!r}; choose one of {list(_TABLES)}")
    return resources.files(__package__).joinpath(_TABLES[name][0])


def load(name: str) -> Dataset:
    """A shipped data set, with its identifier column dropped and its target set."""
    file, target, ident = _TABLES[name] if name in _TABLES else (None, None, None)
    with resources.as_file(path(name)) as p:
        if ident is None:
            return read_csv(p, target=target)
        header, body = read_csv_table(p)
        assert target is not None  # the tables with an identifier column name their target
        keep = [j for j, h in enumerate(header) if h not in (ident, target)]
        t = header.index(target)
        return build_dataset([header[j] for j in keep], [[r[j] for r in body] for j in keep], [r[t] for r in body], categorical=None, target=target, task="classification")


def load_playtennis() -> Dataset:
    """Mitchell's 14-day PlayTennis table (seed 001)."""
    return load("playtennis")


def load_buys_computer() -> Dataset:
    """Han & Kamber's 14-row buys_computer table (seeds 002, 004)."""
    return load("buys_computer")


def load_temperature() -> Dataset:
    """The 6-row temperature table of seed 000, for midpoint thresholds."""
    return load("temperature")


def load_mammals() -> tuple[Dataset, Dataset]:
    """The mammals training and testing tables of seed 004."""
    return load("mammals_train"), load("mammals_test")


def load_mammals_small() -> tuple[Dataset, Dataset]:
    """Seed 004's overfitting tables: five animals, then the same five with human, dolphin and
    elephant added (eight rows; three features: no ``gives_birth``).

    >>> five, eight = load_mammals_small()
    >>> five.n_rows, eight.n_rows, five.schema.feature_names
    (5, 8, ('body_temperature', 'four_legged', 'hibernates'))
    """
    return load("mammals_5"), load("mammals_8")

"""Convert Weka ARFF files to the CSV files in this folder (run once; the CSVs are shipped).

    python tests/data/arff_to_csv.py /path/to/weka/examples breast-cancer vote soybean credit-g labor

ARFF's ``?`` (missing) is written as ``?``, which puretree's CSV reader reads as missing.
Nominal attributes whose values all look numeric (e.g. breast-cancer's ``deg-malig``)
are listed on stdout: pass them as ``categorical=`` when reading the CSV.
"""

from __future__ import annotations

import csv
import io
import sys
from pathlib import Path


def _unquote(text: str) -> str:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    return text


def _attribute(line: str) -> tuple[str, str]:
    rest = line.split(None, 1)[1].strip()
    if rest[0] in "'\"":
        end = rest.index(rest[0], 1)
        name, kind = rest[1:end], rest[end + 1 :].strip()
    else:
        name, kind = rest.split(None, 1)
    return name, kind.strip()


def _nominal_values(kind: str) -> list[str] | None:
    if not kind.startswith("{"):
        return None
    body = kind[1 : kind.rindex("}")]
    return [_unquote(v) for v in next(csv.reader(io.StringIO(body), quotechar="'", skipinitialspace=True))]


def convert(arff: Path, out: Path) -> list[str]:
    """Write ``out`` from ``arff``; return the nominal attributes with numeric-looking values."""
    names: list[str] = []
    numeric_looking: list[str] = []
    rows: list[list[str]] = []
    in_data = False
    for raw in arff.read_text(encoding="utf-8", errors="replace").splitlines():
        line = raw.strip()
        if not line or line.startswith("%"):
            continue
        low = line.lower()
        if not in_data and low.startswith("@attribute"):
            name, kind = _attribute(line)
            names.append(name)
            values = _nominal_values(kind)
            if values is not None and all(_is_number(v) for v in values):
                numeric_looking.append(name)
        elif not in_data and low.startswith("@data"):
            in_data = True
        elif in_data:
            cells = next(csv.reader(io.StringIO(line), quotechar="'", skipinitialspace=True))
            rows.append([c.strip() for c in cells])
    with out.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(names)
        writer.writerows(rows)
    return numeric_looking


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


if __name__ == "__main__":
    folder = Path(sys.argv[1])
    for stem in sys.argv[2:]:
        listed = convert(folder / f"{stem}.arff", Path(__file__).with_name(f"{stem}.csv"))
        print(stem, "categorical:", listed)

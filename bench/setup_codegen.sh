#!/usr/bin/env bash
# Installs what bench/bench_codegen.py compares against (benchmarks only; the tests need none of it):
# the bare-metal ARM compiler from Debian's packages, and emlearn and m2cgen from PyPI into the venv.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
python="${PYTHON:-$here/.venv/bin/python}"
if ! command -v arm-none-eabi-gcc >/dev/null 2>&1; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gcc-arm-none-eabi libnewlib-arm-none-eabi binutils-arm-none-eabi
fi
"$python" -m pip install -q emlearn m2cgen
arm-none-eabi-gcc --version | head -1
"$python" -c "import emlearn, m2cgen; print('emlearn', emlearn.__version__ if hasattr(emlearn, '__version__') else '?', 'm2cgen', m2cgen.__version__)"

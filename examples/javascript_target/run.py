"""Add (or override) a target with a template folder: here a small JavaScript template.

JavaScript is a built-in target (``puretree export MODEL.json --target javascript``, or
``puretree.to_javascript``): use that one for real code. This folder shows the template
mechanism only: it overrides the built-in ``javascript`` target with its own template.

    python examples/javascript_target/run.py            # writes build/tennis.js and runs it with node
    puretree export MODEL.json --target javascript --language javascript \
        --template-dir examples/javascript_target -o build

A folder given with ``--template-dir`` (``template_dirs=`` in Python) is searched before the
built-in templates: ``<folder>/<target>/NAME.<ext>.j2`` adds a target (or overrides one of the
same name). The render model is the one every target gets (see docs/codegen.md); the
``language`` option picks how its literals are spelled (here: JavaScript strings and numbers).
"""

import shutil
import subprocess
from pathlib import Path

from puretree.codegen import export
from puretree.datasets import load_playtennis
from puretree.grow import id3

here = Path(__file__).resolve().parent
tree = id3(load_playtennis())
paths = export(tree, "javascript", out_dir=here / "build", name="tennis", language="javascript", form="table", template_dirs=[here])
print("wrote", *paths)
if shutil.which("node"):
    script = "const t = require(process.argv[1]); console.log(t.predict({outlook: 'sunny', temperature: 'hot', humidity: 'high', wind: 'weak'}));"
    print("node says:", subprocess.run(["node", "-e", script, str(paths[0])], capture_output=True, text=True, check=True).stdout.strip())
print("puretree says:", tree.predict({"outlook": "sunny", "temperature": "hot", "humidity": "high", "wind": "weak"}))

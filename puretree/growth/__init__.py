"""Growing trees fast: the pieces every fast path shares.

:mod:`puretree.builder` and :mod:`puretree.splits` are the specification (a recursive
builder over split generators, readable, the tests' oracle); the fast paths grow the same
trees from the pieces here:

- :mod:`puretree.growth.assemble`: nodes from growth records, children before parents
  (also used by JSON loading, the scikit-learn bridge and the Hypothesis strategies);
- :mod:`puretree.growth.choose`: the best split from candidate statistics, one chooser per
  family (CART's impurity decrease with its tie rule; C4.5's options with J48's filter),
  fed by the in-memory engine and by Dask alike;
- :mod:`puretree.growth.level`: the one frontier loop over a source of statistics;
- :mod:`puretree.growth.sorted`: the sorted source, presorted columns in memory (the
  level-wise engine's);
- :mod:`puretree.growth.limits`: the memory a fit may take;
- :mod:`puretree.growth.histograms`: the histogram source, blocks of binned rows summed into
  per-node histograms, over a ``Blocks`` protocol, driven by the same frontier loop (:mod:`puretree.dask`
  runs the blocks as its partitions);
- :mod:`puretree.growth.random_draw`: the random splitter's draw (``splitter="random"``), one
  specification for the reference and the compiled tree;
- :mod:`puretree.growth.random_cuts`: the random splitter's tree grown whole in C.

This module imports nothing when it loads, so that loading one piece loads only that piece.
"""

__all__: list[str] = []

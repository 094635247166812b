"""The analysis of stored results, between :mod:`delve_bench.stats` (numerics on arrays,
no files) and :mod:`delve_bench.report` (presentation): it reads the result store, pairs
methods on the instances both have, and computes what the commands, reports and study
claims show.

Modules: :mod:`.task` (one task: its layout and standardisation, loss matrices, paired
losses, the results of ``delve stats`` and ``delve compare``), :mod:`.collect` (many
methods and tasks at once, for ``delve report``), :mod:`.overview` (average ranks and
wins across prototasks), :mod:`.rankings` (multiplicity-corrected per-task tests against
the Friedman test), :mod:`.gate` (``delve check``), :mod:`.advice` (``delve power``).
"""

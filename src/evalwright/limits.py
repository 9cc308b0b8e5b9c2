"""Bounds shared by the files, the command line and the Python API, in a module that imports
nothing (the command line reads them before anything heavy is loaded)."""

MAX_REPEAT = 1000
"""The most repeats of a case: ``repeat:``, ``--repeat`` and ``run(repeat=)``
(docs/running.md#repeats-and-reliability)."""

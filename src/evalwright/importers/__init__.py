"""Importers: other tools' eval suites written out as evalwright eval and targets files
(docs/importing.md)."""

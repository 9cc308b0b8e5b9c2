"""Targets (docs/targets.md): the file's models, loading, variable resolution, the table of
provider kinds, and a run's registry.

Nothing is imported here, so the models can be used without loading the providers.
"""

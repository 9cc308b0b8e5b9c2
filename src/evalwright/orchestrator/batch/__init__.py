"""Batch mode (docs/batch.md): a run's single-turn chat cases and their judges sent through the
providers' batch APIs, their state kept in a file so that ``--resume`` re-attaches."""

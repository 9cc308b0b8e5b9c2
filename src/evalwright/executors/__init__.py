"""Where agent cases run besides this machine (docs/scale.md)."""

"""The public Python API behind ``import evalwright`` (docs/python-api.md)."""

"""The providers stage."""

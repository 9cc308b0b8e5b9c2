"""The results stage."""

"""Results: rows as JSON Lines, the response cache, and what reads them back."""

"""An offline provider for quickstarts, dry runs and tests."""

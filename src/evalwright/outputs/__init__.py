"""Output formats of a finished run: JUnit XML, the Markdown summary, the comparison table."""

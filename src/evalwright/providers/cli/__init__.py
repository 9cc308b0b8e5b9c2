"""Any command line as a target: placeholders filled inside argv, never a shell."""

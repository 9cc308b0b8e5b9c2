"""VS Code's chat as a target (experimental): one isolated workspace per case."""

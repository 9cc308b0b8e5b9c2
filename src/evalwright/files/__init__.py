"""File infrastructure shared by every file a user writes (eval files, the targets file, the
project config): reading with limits, parsing with positions, validation with located
diagnostics, the project root, variables and globs."""

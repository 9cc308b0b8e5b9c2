"""``python -m evalwright`` runs the command line."""

from evalwright.cli import main

raise SystemExit(main())

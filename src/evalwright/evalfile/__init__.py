"""Loading: eval files, config and file references, with located diagnostics."""

from evalwright.errors import Diagnostic
from evalwright.evalfile.loader import EVAL_SUFFIXES, check_eval_file, load_eval_file
from evalwright.evalfile.resolved import CaseMessage, LoadedCase, LoadedSuite
from evalwright.files.project import Project, find_project_root

__all__ = [
    "EVAL_SUFFIXES",
    "CaseMessage",
    "Diagnostic",
    "LoadedCase",
    "LoadedSuite",
    "Project",
    "check_eval_file",
    "find_project_root",
    "load_eval_file",
]

"""Statistics over result rows: reliability (pass@k, intervals), the judges' metrics and
agreement, judge-check against human labels, and comparing two runs."""

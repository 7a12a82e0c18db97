"""Analysis: length audits, evaluation, balance, effects, statistics, plots and reports."""

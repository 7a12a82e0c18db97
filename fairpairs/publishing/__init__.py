"""Publishing: a run folder checked, converted to parquet with a card, and uploaded."""

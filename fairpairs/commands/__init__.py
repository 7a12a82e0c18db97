"""click sub-commands; each module is imported only when its command runs."""

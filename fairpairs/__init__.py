"""fairpairs: minimal-pair benchmarks free of token-length bias.

Pipeline, one module (or sub-package) per stage:

    vocab -> grammar -> generate -> control -> scoring -> evaluate -> publish

Importing the package does no work; heavy libraries (torch, transformers) are imported by the
stages that need them.
"""

__version__ = "0.1.0"

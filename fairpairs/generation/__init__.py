"""Generation: vocabulary -> grammar (paradigm files) -> sampler (pairs)."""

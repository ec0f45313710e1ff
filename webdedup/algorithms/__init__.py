"""Pure near-duplicate algorithms: shingling, MinHash/LSH, SimHash, windowed Levenshtein
and anti-chaining star clustering. No I/O here; the phases module wires them to the store."""

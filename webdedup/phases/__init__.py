"""The phases of a run. Each module has one entry point ``run(ctx) -> PhaseReport``."""

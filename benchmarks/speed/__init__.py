"""Time, memory and disk writes of webdedup's commands, beside plain peer pipelines."""

"""One-off measurements behind a default or a choice (segments, the language guard, language
identifiers, the real crawls)."""

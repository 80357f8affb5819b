"""Record schema, vocabularies and validation rules: the single source of truth for every config."""

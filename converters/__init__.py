"""One module per source format. Pure: source files in, records out."""

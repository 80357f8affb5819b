"""The static audit gallery under ``data/report/``: per config, overlaid thumbnails with filters and a
detail page per row, plus distribution plots. No network resources: plain HTML, CSS and JS."""

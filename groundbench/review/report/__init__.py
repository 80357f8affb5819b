"""The static audit gallery under ``data/report/``: per config, pages of thumbnails drawn over the image
store's files with filters, a view of every row, plus distribution plots. No network resources: plain HTML,
CSS and JS, and no image written (the browser draws the boxes)."""

"""Tools for looking at built rows: row selection, overlay previews, contact sheets and the audit gallery."""

"""Reading runs.db: tables and statistics, feedback rounds, the HTML page, Datasette."""

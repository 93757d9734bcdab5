"""runs.db: the RunStore, its append-only migrations and views."""

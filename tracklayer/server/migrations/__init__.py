"""Alembic migrations of the server database (run automatically when the server starts)."""

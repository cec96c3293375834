"""Database models (added with the survey and aggregator features)."""

"""Tests of the staff dashboard (aggregator/dashboard)."""

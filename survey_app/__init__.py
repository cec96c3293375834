"""Surveys: designer configuration, respondent pages and the report API."""

"""A whole survey's randomization protocol: this name re-exports ``aggregator.privacy.protocol`` (configuration
rules in ``protocol.config``, shared parts in ``protocol.base``, one module per mode), so existing imports keep
working."""
from __future__ import annotations

from .protocol import (
    MAX_VALIDATION_SHARE,
    VALIDATION_KEY,
    ConfigError,
    GaussianProtocol,
    LDPProtocol,
    MixedProtocol,
    MRRProtocol,
    ReportError,
    SurveyProtocol,
    build,
    check_settings,
)

__all__ = ["ReportError", "ConfigError", "SurveyProtocol", "MRRProtocol", "LDPProtocol", "GaussianProtocol",
           "MixedProtocol", "build", "check_settings", "MAX_VALIDATION_SHARE", "VALIDATION_KEY"]

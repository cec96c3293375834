"""python manage.py ohttp_key [--rotate]

Print the Oblivious HTTP gateway's active key configuration (RFC 9458 §3.1, hex: what a relay operator or a client
may compare with ``GET /ohttp/keys/``), made on first use, and its SHA-256: the fingerprint survey pages show.
``--rotate`` first retires the active key for a new one (the retired key still opens requests from pages loaded
before). survey_app/ohttp.py; docs/operations.md."""
from __future__ import annotations

import hashlib

from django.core.management.base import BaseCommand

from aggregator.privacy import ohttp
from survey_app.ohttp import active_gateway_key, rotate_gateway_key


class Command(BaseCommand):
    help = "Print the Oblivious HTTP gateway's key configuration (hex); --rotate makes a new active key first."

    def add_arguments(self, parser):
        parser.add_argument("--rotate", action="store_true", help="retire the active key and make a new one")

    def handle(self, *args, **opts):
        key = rotate_gateway_key() if opts["rotate"] else active_gateway_key()
        config = ohttp.key_config(ohttp.KeyConfig(key.key_id, bytes.fromhex(key.public_key)))
        self.stdout.write(f"key {key.key_id}: {config.hex()}")
        self.stdout.write(f"fingerprint (SHA-256, as survey pages show it): {hashlib.sha256(config).hexdigest()}")

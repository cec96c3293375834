"""The floor's view under the product's settings: ``coinflip.settings`` (its apps, its whole middleware chain, its
database settings) with the floor's URLconf (``bench.load.floor``): plain Django plus everything the product's
request path runs before and after its view — the second floor of the load table (``servers.FLOOR_STACK``)."""
from coinflip.settings import *  # noqa: F403 — the product's settings, entire

ROOT_URLCONF = "bench.load.floor"

"""The Oblivious HTTP gateway (RFC 9458): a respondent's redemption and report through a relay run by someone else.

An operator who sets a survey's ``ohttp_relay`` (the relay's URL) gets the Privacy Pass split of who sees what: the
respondent's browser encapsulates its two POSTs (``static/js/ohttp.mjs``: Binary HTTP inside HPKE, to the gateway's
published key) and sends them to the relay; the relay sees the respondent's address and ciphertext, and forwards the
ciphertext to ``gateway`` (``POST /ohttp/gateway/``, ``message/ohttp-req``); the gateway sees the request and only
the relay's address.

``gateway`` opens the request (``aggregator.privacy.ohttp.decapsulate_request``, with any stored ``GatewayKey``),
reads its Binary HTTP, and hands it — as a request of its own, built from the decapsulated method, path, content
and the three headers a respondent's POST needs, with the relay's address as ``REMOTE_ADDR`` — to the view that
``resolve()`` finds for its path, only if that is the report or redemption view (``TARGETS``); anything else is
answered 404 inside the encapsulation. The view's response is sealed to the client (``message/ohttp-res``). Errors
before decryption are plain 4xx (RFC 9458 §5.2: 415 media type, 413 too large, 400 undecryptable, 400
``application/problem+json`` of type "ohttp-key" for an unknown key); errors after it are encapsulated.

Keys: one gateway key for the whole server (``active_gateway_key``, made on first use), so that its key
configuration, published in every relayed survey's protocol (``published``) and at ``GET /ohttp/keys/``
(``application/ohttp-keys``), sets no respondent apart. ``rotate_gateway_key`` makes a new active key; retired keys
keep opening requests (a page loaded before the rotation still sends), until 255 rotations later their one-byte key
identifier is reused.
"""
from __future__ import annotations

import base64
import io
import logging
import sys
from urllib.parse import urlsplit

from django.conf import settings
from django.core.handlers.wsgi import WSGIRequest
from django.db import IntegrityError, InterfaceError, OperationalError, transaction
from django.http import HttpResponse, JsonResponse
from django.http.request import split_domain_port, validate_host
from django.urls import Resolver404, resolve
from django.utils import translation
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_POST

from aggregator.privacy import ohttp

from .models import GatewayKey, Survey

__all__ = ["TARGETS", "MAX_REQUEST_BYTES", "active_gateway_key", "rotate_gateway_key", "gateway_keys", "published",
           "relay_origin", "csp_update", "gateway", "keys"]

logger = logging.getLogger(__name__)

#: The URL names of the only views a relayed request may reach: a respondent's two POSTs.
TARGETS = frozenset({"api-reports", "api-redeem"})
#: Largest Encapsulated Request read: 1 MiB (a report body is at most 512 KiB; survey_app/api.py MAX_REPORT_BYTES).
MAX_REQUEST_BYTES = 1024 * 1024
#: The request headers passed on to the view: what a respondent's JSON POST needs, nothing that could identify.
PASSED_HEADERS = ("content-type", "accept", "accept-language")
#: Response headers not sealed into the Encapsulated Response (the Binary HTTP content has its own length).
DROPPED_RESPONSE_HEADERS = frozenset({"content-length", "set-cookie", "connection", "transfer-encoding"})
KEY_PROBLEM = "https://iana.org/assignments/http-problem-types#ohttp-key"


# -- keys ------------------------------------------------------------------------------------------------------------

def _new_key(key_id: int) -> GatewayKey:
    private = ohttp.generate_private_key()
    GatewayKey.objects.filter(key_id=key_id).delete()  # a retired key 256 rotations old gives up its identifier
    return GatewayKey.objects.create(key_id=key_id, public_key=ohttp.public_key(private).hex(),
                                     private_key=private.hex(), active=True)


def active_gateway_key() -> GatewayKey:
    """The gateway's active key, made on first use (concurrent first uses make one: ``one_active_gateway_key``)."""
    key = GatewayKey.objects.filter(active=True).first()
    if key is not None:
        return key
    try:
        with transaction.atomic():
            return _new_key(0)
    except IntegrityError:
        return GatewayKey.objects.get(active=True)


def rotate_gateway_key() -> GatewayKey:
    """Retire the active key (it still opens requests) and make a new active one with the next key identifier."""
    with transaction.atomic():
        current = GatewayKey.objects.select_for_update().filter(active=True).first()
        next_id = 0 if current is None else (current.key_id + 1) % 256
        GatewayKey.objects.filter(active=True).update(active=False)
        return _new_key(next_id)


def gateway_keys() -> dict[int, bytes]:
    """Every stored key, by key identifier: the raw private keys that may open a request."""
    return {key_id: bytes.fromhex(private) for key_id, private in
            GatewayKey.objects.values_list("key_id", "private_key")}


def _config(key: GatewayKey) -> ohttp.KeyConfig:
    return ohttp.KeyConfig(key.key_id, bytes.fromhex(key.public_key))


def published(survey: Survey) -> dict:
    """What a survey's protocol says about its relay: ``{"ohttp": {"relay", "key_config"}}`` (the gateway's active
    key configuration, RFC 9458 §3.1, unpadded base64url), or ``{}`` without a relay."""
    if not survey.ohttp_relay:
        return {}
    config = ohttp.key_config(_config(active_gateway_key()))
    return {"ohttp": {"relay": survey.ohttp_relay,
                      "key_config": base64.urlsafe_b64encode(config).rstrip(b"=").decode("ascii")}}


def relay_origin(survey: Survey) -> str | None:
    """The origin (scheme://host[:port]) of the survey's relay, or ``None``."""
    if not survey.ohttp_relay:
        return None
    parts = urlsplit(survey.ohttp_relay)
    return f"{parts.scheme}://{parts.netloc}"


def csp_update(survey: Survey) -> dict:
    """The survey page's addition to its Content-Security-Policy: ``connect-src`` of the relay's origin (``{}``
    without a relay), so that the page may send to the relay and no other page may."""
    origin = relay_origin(survey)
    return {"connect-src": [origin]} if origin else {}


# -- the gateway -----------------------------------------------------------------------------------------------------

@never_cache
@require_GET
def keys(request):
    """``GET /ohttp/keys/``: the active key configuration as ``application/ohttp-keys`` (RFC 9458 §3.2)."""
    body = ohttp.key_configs([_config(active_gateway_key())])
    return HttpResponse(body, content_type=ohttp.KEYS_MEDIA_TYPE)


def _plain(status: int, detail: str) -> JsonResponse:
    return JsonResponse({"detail": detail}, status=status)


@csrf_exempt
@never_cache
@require_POST
def gateway(request):
    """``POST /ohttp/gateway/``: an Encapsulated Request in, an Encapsulated Response out (module docstring)."""
    media_type = (request.content_type or "").strip().lower()
    if media_type != ohttp.REQUEST_MEDIA_TYPE:
        return _plain(415, f"Expected Content-Type: {ohttp.REQUEST_MEDIA_TYPE}.")
    declared = request.META.get("CONTENT_LENGTH") or ""
    if not declared.isdigit():
        return _plain(411, "An Encapsulated Request needs a Content-Length.")
    if int(declared) > MAX_REQUEST_BYTES:
        return _plain(413, "The Encapsulated Request is too large.")
    try:
        inner, context = ohttp.decapsulate_request(request.body, gateway_keys())
    except ohttp.KeyConfigError as exc:
        return JsonResponse({"type": KEY_PROBLEM, "title": str(exc)}, status=400,
                            content_type="application/problem+json")
    except ohttp.DecryptError:
        return _plain(400, "The Encapsulated Request could not be decrypted.")
    answer = _answer(request, inner)
    sealed = context.encapsulate_response(ohttp.encode_response(answer))
    response = HttpResponse(sealed, content_type=ohttp.RESPONSE_MEDIA_TYPE)
    response["Cache-Control"] = "no-store"
    return response


def _binary(status: int, detail: str) -> ohttp.Response:
    body = JsonResponse({"detail": detail}).content
    return ohttp.Response(status, (("content-type", "application/json"),), body)


def _answer(outer, data: bytes) -> ohttp.Response:
    """The target view's response to the decapsulated Binary HTTP request ``data`` (or the gateway's refusal)."""
    try:
        message = ohttp.decode_request(data)
    except ohttp.BinaryHTTPError as exc:
        return _binary(400, f"Not a Binary HTTP request ({exc}).")
    if message.header("expect") is not None:
        return _binary(400, "A relayed request may not carry Expect (RFC 9458 §5.1).")
    host, _port = split_domain_port(message.authority)
    if not host or not validate_host(host, settings.ALLOWED_HOSTS):
        return _binary(400, "The request is for another host.")
    path, _, query = message.path.partition("?")
    script = outer.META.get("SCRIPT_NAME", "")
    path_info = path[len(script):] if script and path.startswith(script) else path
    try:
        match = resolve(path_info)
    except Resolver404:
        match = None
    if match is None or match.url_name not in TARGETS:
        return _binary(404, "Only a survey's report and redemption may be sent through the relay.")
    if message.method != "POST":
        return _binary(405, "Only POST may be sent through the relay.")
    request = WSGIRequest(_environ(outer, message, script, path_info, query))
    language = translation.get_language_from_request(request)
    request.LANGUAGE_CODE = language  # as LocaleMiddleware would set it
    try:
        with translation.override(language):
            response = match.func(request, *match.args, **match.kwargs)
            if hasattr(response, "render") and not getattr(response, "is_rendered", True):
                response = response.render()
            content = b"".join(response.streaming_content) if response.streaming else response.content
    except (OperationalError, InterfaceError):
        logger.warning("database unavailable during a relayed request")
        return _binary(503, "The service is temporarily unavailable (database unreachable); nothing was stored. "
                            "Please try again shortly.")
    except Exception:  # a view error: logged as Django logs one (``django.request``), answered 500, sealed
        logging.getLogger("django.request").exception("Internal Server Error (relayed): %s", path_info)
        return _binary(500, "Something went wrong on the server.")
    headers = tuple((name.lower(), value) for name, value in response.items()
                    if name.lower() not in DROPPED_RESPONSE_HEADERS)
    return ohttp.Response(response.status_code, headers, content)


def _environ(outer, message: ohttp.Request, script: str, path_info: str, query: str) -> dict:
    """The WSGI environ of the relayed request: the decapsulated method, path, host and content, the headers of
    ``PASSED_HEADERS``, and the outer request's server and peer (the relay's address: the client's never reaches
    the gateway)."""
    meta = outer.META
    environ = {
        "REQUEST_METHOD": message.method, "SCRIPT_NAME": script, "PATH_INFO": path_info, "QUERY_STRING": query,
        "SERVER_NAME": meta.get("SERVER_NAME", "localhost"), "SERVER_PORT": str(meta.get("SERVER_PORT", "443")),
        "SERVER_PROTOCOL": "HTTP/1.1", "REMOTE_ADDR": meta.get("REMOTE_ADDR", ""), "HTTP_HOST": message.authority,
        "CONTENT_LENGTH": str(len(message.content)), "wsgi.input": io.BytesIO(message.content),
        "wsgi.url_scheme": message.scheme, "wsgi.errors": sys.stderr, "wsgi.version": (1, 0),
        "wsgi.multithread": True, "wsgi.multiprocess": True, "wsgi.run_once": False,
    }
    for name in PASSED_HEADERS:
        value = message.header(name)
        if value is None:
            continue
        if name == "content-type":
            environ["CONTENT_TYPE"] = value
        else:
            environ["HTTP_" + name.upper().replace("-", "_")] = value
    return environ

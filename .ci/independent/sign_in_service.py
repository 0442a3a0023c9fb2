#!/usr/bin/env python3
"""An OAuth 2.0 authorization server (Authlib on Flask, PyPI) in front of the ownership service (odatapy), on loopback.

What the authorization server does is Authlib's own: the device authorization grant (RFC 8628: authorization_pending,
slow_down, access_denied, expired_token), the authorization code grant with PKCE (RFC 7636, S256 required) and a
loopback redirect, refresh tokens, and OpenID discovery. Ours are the storage (in memory), one public client, short
access tokens, and the test's hands: approving or denying a user code, revoking every token, slowing polls down.

The OData service under /odata/ is ownership_service.py's, answering only requests with a valid bearer token
(else 401 with WWW-Authenticate). Access tokens are unsigned JWTs naming the user (preferred_username): this server
checks them by lookup, and a client may read the name from them.

    python sign_in_service.py PORT [TOKEN_TTL]    # issuer http://127.0.0.1:PORT, service /odata/
"""

import base64
import json
import secrets
import signal
import sys
import threading
import time
from urllib.parse import urlparse
from wsgiref.simple_server import make_server

import flask
from authlib.integrations.flask_oauth2 import AuthorizationServer
from authlib.oauth2.rfc6749 import ClientMixin, grants
from authlib.oauth2.rfc7636 import CodeChallenge
from authlib.oauth2.rfc8628 import DeviceAuthorizationEndpoint, DeviceCodeGrant, DeviceCredentialDict

import ownership_service

CLIENT_ID = "cardealer-device"
LOCK = threading.Lock()
DEVICES = {}  # device_code -> DeviceCredentialDict
GRANTS = {}  # user_code -> (user, approved)
CODES = {}  # code -> AuthorizationCode
TOKENS = {}  # access_token -> record
REFRESH = {}  # refresh_token -> record
STATE = {"slow_down_next": False}
POLLS = {}  # user_code -> [seconds since the epoch of each poll]


class User:
    def __init__(self, name):
        self.name = name

    def get_user_id(self):
        return self.name


class Client(ClientMixin):
    """One public client: no secret; any loopback redirect (RFC 8252 §7.3: any port)."""

    def get_client_id(self):
        return CLIENT_ID

    def get_default_redirect_uri(self):
        return None

    def get_allowed_scope(self, scope):
        return scope or ""

    def check_redirect_uri(self, redirect_uri):
        parsed = urlparse(redirect_uri)
        return parsed.scheme == "http" and parsed.hostname in ("127.0.0.1", "::1")

    def check_client_secret(self, client_secret):
        return False

    def check_endpoint_auth_method(self, method, endpoint):
        return method == "none"

    def check_response_type(self, response_type):
        return response_type == "code"

    def check_grant_type(self, grant_type):
        return grant_type in (
            "urn:ietf:params:oauth:grant-type:device_code", "authorization_code", "refresh_token")


CLIENT = Client()


class AuthorizationCode:
    def __init__(self, code, user, redirect_uri, scope, challenge, method):
        self.code, self.user, self.redirect_uri, self.scope = code, user, redirect_uri, scope
        self.code_challenge, self.code_challenge_method = challenge, method

    def get_redirect_uri(self):
        return self.redirect_uri

    def get_scope(self):
        return self.scope


class Record:
    """An issued token, as the resource and the refresh grant look it up."""

    def __init__(self, token, user, grant):
        self.token, self.user, self.grant = token, user, grant
        self.expires_at = time.time() + token["expires_in"]
        self.revoked = False

    def check_client(self, client):
        return client.get_client_id() == CLIENT_ID

    def get_scope(self):
        return self.token.get("scope", "")

    def is_expired(self):
        return False  # refresh tokens here live until revoked

    def is_revoked(self):
        return self.revoked


class DeviceEndpoint(DeviceAuthorizationEndpoint):
    CLIENT_AUTH_METHODS = ["none"]
    INTERVAL = 1
    EXPIRES_IN = 120

    def get_verification_uri(self):
        return flask.request.host_url + "device"

    def save_device_credential(self, client_id, scope, data):
        credential = DeviceCredentialDict(
            client_id=client_id, scope=scope, expires_at=time.time() + self.EXPIRES_IN, **data)
        with LOCK:
            DEVICES[data["device_code"]] = credential


class DeviceGrant(DeviceCodeGrant):
    TOKEN_ENDPOINT_AUTH_METHODS = ["none"]

    def query_device_credential(self, device_code):
        with LOCK:
            credential = DEVICES.get(device_code)
            if credential:
                POLLS.setdefault(credential["user_code"], []).append(time.time())
            return credential

    def query_user_grant(self, user_code):
        with LOCK:
            return GRANTS.get(user_code)

    def should_slow_down(self, credential):
        with LOCK:
            slow, STATE["slow_down_next"] = STATE["slow_down_next"], False
        return slow


class CodeGrant(grants.AuthorizationCodeGrant):
    TOKEN_ENDPOINT_AUTH_METHODS = ["none"]

    def save_authorization_code(self, code, request):
        payload = request.payload.data
        with LOCK:
            CODES[code] = AuthorizationCode(
                code, request.user, request.payload.redirect_uri, request.payload.scope,
                payload.get("code_challenge"), payload.get("code_challenge_method"))

    def query_authorization_code(self, code, client):
        with LOCK:
            return CODES.get(code)

    def delete_authorization_code(self, authorization_code):
        with LOCK:
            CODES.pop(authorization_code.code, None)

    def authenticate_user(self, authorization_code):
        return authorization_code.user


class RefreshGrant(grants.RefreshTokenGrant):
    TOKEN_ENDPOINT_AUTH_METHODS = ["none"]
    INCLUDE_NEW_REFRESH_TOKEN = True

    def authenticate_refresh_token(self, refresh_token):
        with LOCK:
            record = REFRESH.get(refresh_token)
        return record if record and not record.revoked else None

    def authenticate_user(self, credential):
        return credential.user

    def revoke_old_credential(self, credential):
        with LOCK:
            credential.revoked = True
            TOKENS.pop(credential.token["access_token"], None)


def unsigned_jwt(user):
    def part(value):
        return base64.urlsafe_b64encode(json.dumps(value).encode()).decode().rstrip("=")

    claims = {"preferred_username": user.name, "sub": user.name, "jti": secrets.token_urlsafe(12)}
    return part({"alg": "none"}) + "." + part(claims) + "." + secrets.token_urlsafe(16)


def make_app(token_ttl):
    app = flask.Flask("sign_in_service")
    app.config["OAUTH2_TOKEN_EXPIRES_IN"] = {
        "urn:ietf:params:oauth:grant-type:device_code": token_ttl,
        "authorization_code": token_ttl,
        "refresh_token": token_ttl,
    }
    app.config["OAUTH2_ACCESS_TOKEN_GENERATOR"] = lambda client, grant_type, user, scope: unsigned_jwt(user)
    app.config["OAUTH2_REFRESH_TOKEN_GENERATOR"] = True

    def save_token(token, request):
        record = Record(token, request.user, request.payload.grant_type)
        with LOCK:
            TOKENS[token["access_token"]] = record
            if "refresh_token" in token:
                REFRESH[token["refresh_token"]] = record

    server = AuthorizationServer(app, query_client=lambda cid: CLIENT if cid == CLIENT_ID else None,
                                 save_token=save_token)
    server.register_grant(DeviceGrant)
    server.register_grant(CodeGrant, [CodeChallenge(required=True)])
    server.register_grant(RefreshGrant)
    server.register_endpoint(DeviceEndpoint)

    @app.get("/.well-known/openid-configuration")
    def discovery():
        base = flask.request.host_url.rstrip("/")
        return {
            "issuer": base, "token_endpoint": base + "/oauth/token",
            "device_authorization_endpoint": base + "/oauth/device",
            "authorization_endpoint": base + "/oauth/authorize",
            "grant_types_supported": ["urn:ietf:params:oauth:grant-type:device_code", "authorization_code",
                                      "refresh_token"],
            "code_challenge_methods_supported": ["S256"],
        }

    @app.post("/oauth/device")
    def device():
        return server.create_endpoint_response("device_authorization")

    @app.post("/oauth/token")
    def token():
        return server.create_token_response()

    @app.get("/oauth/authorize")
    def authorize():
        # The test is the person at the web browser: ?login=NAME approves as NAME, ?login= (empty) denies.
        login = flask.request.args.get("login")
        return server.create_authorization_response(grant_user=User(login) if login else None)

    @app.post("/_test/device")
    def decide():
        body = flask.request.get_json()
        with LOCK:
            GRANTS[body["user_code"]] = (User(body.get("user", "")), bool(body.get("approve")))
        return {}

    @app.post("/_test/slow-down")
    def slow_down():
        with LOCK:
            STATE["slow_down_next"] = True
        return {}

    @app.post("/_test/revoke")
    def revoke():
        with LOCK:
            for record in list(TOKENS.values()) + list(REFRESH.values()):
                record.revoked = True
            TOKENS.clear()
            REFRESH.clear()
        return {}

    @app.get("/_test/polls")
    def polls():
        with LOCK:
            return {"results": [{"user_code": code, "at": times} for code, times in POLLS.items()]}

    @app.get("/_test/tokens")
    def tokens():
        now = time.time()
        with LOCK:
            live = [r for r in TOKENS.values() if not r.revoked and r.expires_at > now]
        return {"results": [{"user": r.user.name, "grant": r.grant} for r in live]}

    return app


def protected(odata):
    """The OData service, for bearers of a live access token only."""

    def app(environ, start_response):
        header = environ.get("HTTP_AUTHORIZATION", "")
        token = header[7:] if header.lower().startswith("bearer ") else None
        with LOCK:
            record = TOKENS.get(token) if token else None
        if record is None or record.revoked or record.expires_at <= time.time():
            error = ', error="invalid_token"' if token else ""
            start_response("401 Unauthorized", [
                ("WWW-Authenticate", 'Bearer realm="ownership"' + error), ("Content-Type", "application/json")])
            return [b'{"error":{"code":"401","message":"a valid bearer token is required"}}']
        return odata(environ, start_response)

    return app


def main():
    port = int(sys.argv[1])
    token_ttl = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    odata = protected(ownership_service.wsgi_app())
    auth = make_app(token_ttl)

    def dispatch(environ, start_response):
        # (the ownership service and its value-help service, issue 33, both for bearers only)
        if environ.get("PATH_INFO", "").startswith(("/odata", "/vh")):
            return odata(environ, start_response)
        return auth(environ, start_response)

    server = make_server("127.0.0.1", port, dispatch, server_class=ownership_service.Server,
                         handler_class=ownership_service.QuietHandler)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    print("serving http://127.0.0.1:%d/ (service /odata/)" % port, flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()

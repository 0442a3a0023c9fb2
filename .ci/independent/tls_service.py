#!/usr/bin/env python3
"""The ownership service (odatapy) over TLS on loopback, with client certificates required (mutual TLS), and a
token endpoint that authenticates clients by that certificate alone (RFC 8705 tls_client_auth: client credentials
with the client's id in the form and no secret).

    python tls_service.py PORT SERVER_CERT SERVER_KEY CLIENT_CA    # https://127.0.0.1:PORT/odata/ and /token

The certificates are made by the CI script with openssl: a CA, the server's certificate for 127.0.0.1, and the
client certificates the tests present. The TLS is CPython's ssl module (OpenSSL), not ours.
"""

import json
import secrets
import signal
import ssl
import sys
from wsgiref.simple_server import make_server

import ownership_service


class Server(ownership_service.Server):
    def get_request(self):
        # The handshake per connection, on its own thread (a client that never finishes one blocks nobody else).
        connection, address = self.socket.accept()
        return connection, address

    def process_request_thread(self, request, client_address):
        try:
            request = self.context.wrap_socket(request, server_side=True)
        except (ssl.SSLError, OSError) as error:
            sys.stderr.write("handshake refused: %s\n" % error)
            self.shutdown_request(request)
            return
        super().process_request_thread(request, client_address)


def with_token_endpoint(odata):
    """POST /token: client credentials for a client whose certificate the handshake already checked. A bearer token
    of this fixture's making (another instance's too: the CI script runs one as a token endpoint on another origin)
    is taken by the service; anything else that claims to be one is refused. GET /_test/issued: how many tokens this
    instance issued."""
    issued = []

    def app(environ, start_response):
        if environ.get("PATH_INFO") == "/token" and environ.get("REQUEST_METHOD") == "POST":
            length = int(environ.get("CONTENT_LENGTH") or 0)
            form = dict(p.split("=", 1) for p in environ["wsgi.input"].read(length).decode().split("&") if "=" in p)
            if form.get("grant_type") != "client_credentials" or form.get("client_id") != "cardealer-mtls":
                start_response("400 Bad Request", [("Content-Type", "application/json")])
                return [b'{"error":"invalid_client"}']
            token = "mtls-" + secrets.token_urlsafe(16)
            issued.append(token)
            start_response("200 OK", [("Content-Type", "application/json")])
            return [json.dumps({"access_token": token, "token_type": "Bearer", "expires_in": 300}).encode()]
        if environ.get("PATH_INFO") == "/_test/issued":
            start_response("200 OK", [("Content-Type", "application/json")])
            return [json.dumps({"issued": len(issued)}).encode()]
        header = environ.get("HTTP_AUTHORIZATION", "")
        if header.lower().startswith("bearer ") and not header[7:].startswith("mtls-"):
            start_response("401 Unauthorized", [("Content-Type", "application/json")])
            return [b'{"error":{"code":"401","message":"unknown token"}}']
        return odata(environ, start_response)

    return app


def main():
    port, certificate, key, client_ca = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(certificate, key)
    context.load_verify_locations(client_ca)
    context.verify_mode = ssl.CERT_REQUIRED
    # TLS 1.2: a missing client certificate is refused inside the handshake. Under TLS 1.3 the refusal comes after
    # the client has sent its request, and a reset can overtake the alert (CPython's own tests allow for that).
    context.maximum_version = ssl.TLSVersion.TLSv1_2
    server = make_server("127.0.0.1", port, with_token_endpoint(ownership_service.wsgi_app()), server_class=Server,
                         handler_class=ownership_service.QuietHandler)
    server.context = context
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    print("serving https://127.0.0.1:%d/odata/" % port, flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()

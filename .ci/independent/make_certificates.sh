#!/usr/bin/env bash
# Certificates for the mutual-TLS check, made fresh in DIR with openssl: a CA and the server's certificate for
# 127.0.0.1 signed by it, a client certificate signed by it (its key encrypted with the passphrase "kiwi-passphrase"),
# and a second CA that signed nothing here (a wrong one to trust).
set -euo pipefail
dir=$1
mkdir -p "$dir"
cd "$dir"
quiet() { "$@" >/dev/null 2>&1; }
quiet openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=CarDealer CI CA" -keyout ca.key -out ca.pem
quiet openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=Another CA" -keyout other-ca.key -out other-ca.pem
quiet openssl req -newkey rsa:2048 -nodes -subj "/CN=127.0.0.1" -keyout server.key -out server.csr
printf 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n' >server.ext
quiet openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 -extfile server.ext -out server.pem
quiet openssl req -newkey rsa:2048 -subj "/CN=cardealer-client" -passout pass:kiwi-passphrase -keyout client.key -out client.csr
printf 'extendedKeyUsage=clientAuth\n' >client.ext
quiet openssl x509 -req -in client.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 -extfile client.ext -out client.pem
chmod 600 ./*.key

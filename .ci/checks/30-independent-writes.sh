#!/usr/bin/env bash
# Changing data on a server we did not write (issue 13): mock-sap (PyPI), SAP Gateway's shapes — CSRF tokens,
# weak ETags, MERGE — on loopback, changed through the built binary in tmux (EndToEndTests.IndependentServerWriteTests), and its OData v4
# services' $metadata read into the model (EndToEndTests.IndependentVersion4MetadataTests) and one of them browsed
# by the built binary: three levels, paging, a server filter, details (EndToEndTests.IndependentVersion4BrowseTests);
# and `cardealer export` of a whole set, as many rows as the server counts (EndToEndTests.IndependentExportTests);
# and prefetches cut by `$select` to what the next screens show (EndToEndTests.IndependentSelectTests).
# And odatapy (PyPI, v4, its own in-memory semantics) serving people, cars and the ownerships that join them
# (.ci/independent/ownership_service.py): x in a person's cars ends the ownership, never the car; a car added there is
# made with its ownership, and one whose ownership is refused is not left behind; x in a person's friends (many to
# many, no link entity) removes the friendship with $ref (EndToEndTests.IndependentLinkTests).
# Queued writes flush as one $batch: multipart with CSRF on mock-sap's v2, JSON on its v4, and on odatapy a car and the
# ownership that makes it visible in one changeset, refused or made together (issue 34); and a list refreshed by its
# delta link on a mock-sap of its own, v2 and v4, a change and a deletion made there past the browser (issue 34).
# And a third mock-sap behind OAuth 2.0 (client credentials, 5-second tokens, refresh tokens, revocation): login,
# whoami, browsing past expiry and revocation, a change waiting for a sign-in and landing once; and Authlib's
# authorization server (.ci/independent/sign_in_service.py) in front of the ownership service: the device grant from
# login and from browse's start-up screen and status line, slow_down honoured, a denied code (issue 35).
# And odatapy's inspections marked by the level their UI.Criticality names, on the list and the detail, and charted
# as their UI.Chart says; and a car's
# make picked with F4 from the value list odatapy declares for it, then sent (issue 33); and odatapy's enum and flags
# enum types shown, filtered by, refused and sent as odatapy spells them (issue 37); and / asking odatapy's own $search
# of its parts, and mock-sap's 501 to $search said in a sentence and the fields filtered instead (issues 33 and 37);
# and odatapy's RegisterOwner action on a car, whose Common.SideEffects name the car's ownerships: seen empty before,
# they show the new owner once it has run; and odatapy's AddMake on the service and RenameMake on the list of cars,
# sent through the outbox from the browser, their effects read back over HTTP and the renamed make on screen (issue 36);
# and odatapy's staff, of an open type with a derived one: the mechanics' rows say so, a mechanic's detail shows its
# speciality and, apart, the property the schema does not declare, and :type Mechanic lists them alone (issue 37);
# and a car changed at odatapy's /ks/ root, whose container declares KeyAsSegmentSupported, sent to Car/3 (issue 37);
# and odatapy's work orders edited through drafts as CAP serves them: a title changed with e reaches the active work
# order through edit, PATCH, prepare and activate with no draft left, one added with a is made a draft and activated,
# and one whose draft another user holds is the service's 423 in the outbox, nothing changed (issue 36);
# and pyslet's OData v2 server (PyPI, .ci/independent/v2_function_imports.py) with two function imports invoked with !:
# a GET one whose answer opens as a list, and a POST one whose effect and single run are read back (issue 36).
# Runs after `swift test` has built everything; bounded by `timeout`.
set -euo pipefail
cd "$(dirname "$0")/../.."
VENV=.ci/.venv
if ! "$VENV/bin/python" -c 'import mocksap, odatapy, authlib, flask, pyslet.odata2.server' 2>/dev/null; then
    echo "independent-writes: installing mock-sap, odatapy, Authlib, Flask and pyslet into $VENV"
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install --quiet mock-sap==0.22.0 odatapy==5.3.0 Authlib==1.9.10 Flask==3.1.3 \
        pyslet==0.7.20170805
fi
port=$("$VENV/bin/python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$VENV/bin/python" -m mocksap --host 127.0.0.1 --port "$port" -q >.ci-mocksap.log 2>&1 &
server=$!
oauth=$("$VENV/bin/python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$VENV/bin/python" -m mocksap --host 127.0.0.1 --port "$oauth" -q --oauth cardealer-ci:ci-Secret-7f3a9 --token-ttl 5 \
    >.ci-mocksap-oauth.log 2>&1 &
oauthServer=$!
# (a mock-sap of the delta tests' own: they delete rows)
delta=$("$VENV/bin/python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$VENV/bin/python" -m mocksap --host 127.0.0.1 --port "$delta" -q >.ci-mocksap-delta.log 2>&1 &
deltaServer=$!
issuer=$("$VENV/bin/python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$VENV/bin/python" .ci/independent/sign_in_service.py "$issuer" 5 >.ci-signin.log 2>&1 &
issuerServer=$!
certificates=$(mktemp -d)
bash .ci/independent/make_certificates.sh "$certificates"
tls=$("$VENV/bin/python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$VENV/bin/python" .ci/independent/tls_service.py "$tls" "$certificates/server.pem" "$certificates/server.key" \
    "$certificates/ca.pem" >.ci-tls.log 2>&1 &
tlsServer=$!
tlsToken=$("$VENV/bin/python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$VENV/bin/python" .ci/independent/tls_service.py "$tlsToken" "$certificates/server.pem" "$certificates/server.key" \
    "$certificates/ca.pem" >.ci-tls-token.log 2>&1 &
tlsTokenServer=$!
links=$("$VENV/bin/python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$VENV/bin/python" .ci/independent/ownership_service.py "$links" >.ci-odatapy.log 2>&1 &
linkServer=$!
functions=$("$VENV/bin/python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$VENV/bin/python" .ci/independent/v2_function_imports.py "$functions" >.ci-pyslet.log 2>&1 &
functionServer=$!
trap 'kill "$server" "$deltaServer" "$linkServer" "$oauthServer" "$issuerServer" "$tlsServer" "$tlsTokenServer" "$functionServer" 2>/dev/null || true; rm -rf "$certificates"' EXIT
"$VENV/bin/python" - "$port" "$links" "$oauth" "$issuer" "$tls" "$tlsToken" "$delta" "$functions" <<'PY'
import socket, sys, time, urllib.request
for tls_port in sys.argv[5:7]:
    for _ in range(200):
        try:
            socket.create_connection(("127.0.0.1", int(tls_port)), timeout=1).close()
            break
        except OSError:
            time.sleep(0.05)
    else:
        sys.exit("the TLS service did not listen")
for url in ("http://127.0.0.1:%s/_mock/health" % sys.argv[1], "http://127.0.0.1:%s/odata/" % sys.argv[2],
            "http://127.0.0.1:%s/_mock/health" % sys.argv[3],
            "http://127.0.0.1:%s/.well-known/openid-configuration" % sys.argv[4],
            "http://127.0.0.1:%s/_mock/health" % sys.argv[7], "http://127.0.0.1:%s/$metadata" % sys.argv[8]):
    for _ in range(200):
        try:
            urllib.request.urlopen(url, timeout=1)
            break
        except Exception:
            time.sleep(0.05)
    else:
        sys.exit("%s did not answer" % url)
PY
export CARDEALER_MOCKSAP_ROOT="http://127.0.0.1:$port/sap/opu/odata/IWBEP/GWSAMPLE_BASIC/"
export CARDEALER_MOCKSAP_DELTA_ORIGIN="http://127.0.0.1:$delta"
export CARDEALER_MOCKSAP_OAUTH_ROOT="http://127.0.0.1:$oauth/sap/opu/odata/IWBEP/GWSAMPLE_BASIC/"
export CARDEALER_SIGNIN_ISSUER="http://127.0.0.1:$issuer"
export CARDEALER_TLS_ROOT="https://127.0.0.1:$tls/odata/"
export CARDEALER_TLS_CERTS="$certificates"
export CARDEALER_TLS_TOKEN_URL="https://127.0.0.1:$tlsToken/token"
export CARDEALER_ODATAPY_ROOT="http://127.0.0.1:$links/odata/"
export CARDEALER_PYSLET_ROOT="http://127.0.0.1:$functions/"
set +e
timeout 300 swift test --skip-build --filter "${CI_FILTER:-(EndToEndTests|SSHGatewayTests).Independent}" >.ci-independent.log 2>&1
status=$?
set -e
tail -n 15 .ci-independent.log
# Skipped tests would pass silently: all seventy must have run (five v2 writes, one of them a $batch, one v4
# $metadata, two v4 browsing, two v4 writes, one of them a JSON $batch, one export, one $select, five links on odatapy,
# one of them a create and its link in one changeset, two of the screens annotations describe and one typed filter, two signed in with
# OAuth 2.0 client credentials, three with the device grant, two with the code grant and PKCE, one naming an SAP client, three over mutual TLS, two serve-ssh sessions signing in, one function and one bound action on odatapy, the function and the action invoked from the browser, two functions answering a value, one refresh by delta link on odatapy and one test of two cases on mock-sap (v2 !deltatoken, v4 $deltatoken, deletions), verdicts marked by UI.Criticality and the UI.Chart of odatapy's inspections, a make picked with F4 from odatapy's value list (in a form and in :filter), v4 enums and flags on odatapy (and an enum parameter of its InspectionsOfKind), its Dealership singleton, $search asked of odatapy's parts, and a refused $search on mock-sap said and the fields
# filtered instead, an action's side effects read again, an action on the service and one on a list, three
# edits through drafts, one browse of derived and open types, one change by key segment, media saved with :save, and two people's trips read inside each (containment), and pyslet's two v2 function imports, GET and POST).
if [ "$status" -eq 0 ] && [ -z "${CI_FILTER:-}" ] && ! grep -q "Test run with 70 tests" .ci-independent.log; then
    echo "independent-writes: the tests did not run"
    exit 1
fi
exit "$status"

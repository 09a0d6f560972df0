#!/usr/bin/env bash
# phoneauthd in one minute: start it, sign in with curl as Firebase's clients do, stop it.
# Usage: examples/server/demo.sh [path/to/phoneauthd]
set -euo pipefail
PHONEAUTHD=${1:-phoneauthd}
work=$(mktemp -d)
trap 'kill $pid 2>/dev/null || true; rm -rf "$work"' EXIT

# The engine's configuration plus a "server" section. +1 650-555-1234 is a fictional test number
# with a fixed code; codes for other numbers go to the console "provider" (the server's stdout).
cat > "$work/phoneauthd.json" <<JSON
{
  "database": "$work/phoneauth.db",
  "projectId": "demo-project",
  "issuer": "https://securetoken.google.com/demo-project",
  "testPhoneNumbers": {"+16505551234": "123456"},
  "sms": {"provider": "console"},
  "server": {"host": "127.0.0.1", "port": 0}
}
JSON
"$PHONEAUTHD" --config "$work/phoneauthd.json" > "$work/out.log" 2> "$work/err.log" &
pid=$!
for _ in $(seq 100); do grep -q '"listening"' "$work/err.log" && break; sleep 0.1; done
url=$(grep -o 'http://[^"]*' "$work/err.log" | head -1)
echo "phoneauthd listening on $url"

post() { curl -sS -X POST "$url$1" -H 'Content-Type: application/json' -d "$2"; }
field() { python3 -c "import json,sys; print(json.load(sys.stdin)['$1'])"; }

echo; echo "1. sendVerificationCode (the iOS SDK's path)"
# Echoed: tee to the stderr device would reopen, and truncate, a log file the caller redirected to.
sent=$(post "/www.googleapis.com/identitytoolkit/v3/relyingparty/sendVerificationCode?key=demo" \
  '{"phoneNumber": "+16505551234"}')
echo "$sent"
session=$(echo "$sent" | field sessionInfo)
echo; echo "2. verifyPhoneNumber with the code: signs in, creating the user"
answer=$(post "/www.googleapis.com/identitytoolkit/v3/relyingparty/verifyPhoneNumber?key=demo" \
  "{\"sessionInfo\": \"$session\", \"code\": \"123456\"}")
echo "$answer" | python3 -c "import json,sys; a=json.load(sys.stdin); print({k: (v[:24] + '...' if k.endswith('Token') else v) for k, v in a.items()})"
id_token=$(echo "$answer" | field idToken)
echo; echo "3. getAccountInfo with the ID token"
post "/www.googleapis.com/identitytoolkit/v3/relyingparty/getAccountInfo?key=demo" "{\"idToken\": \"$id_token\"}"
echo; echo; echo "4. the keys that verify the ID token: $url/.well-known/jwks.json"
curl -sS "$url/.well-known/jwks.json" | head -c 200; echo ...
kill -TERM $pid; wait $pid && echo "phoneauthd stopped cleanly"

#!/usr/bin/env bash
# Serve dist/ on a free local port, run the browser tests against it, stop the server
# (also when the tests fail or are interrupted). Usage: scripts/test/e2e.sh [NAME_FILTER]
set -euo pipefail
cd "$(dirname "$0")/../.."

if [[ ! -f dist/index.html ]]; then
  echo "e2e: dist/index.html is missing; build first (trunk build --release)" >&2
  exit 1
fi

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
mkdir -p target
log=target/e2e-server.log
python3 -m http.server "$port" --bind 127.0.0.1 --directory dist >"$log" 2>&1 &
server=$!
# A second static server with dist/ under a sub-path, as on GitHub Pages (/shardscope/).
subroot=target/e2e-subpath
rm -rf "$subroot" && mkdir -p "$subroot" && cp -r dist "$subroot/shardscope"
subport=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
python3 -m http.server "$subport" --bind 127.0.0.1 --directory "$subroot" >"$log.subpath" 2>&1 &
subserver=$!
export E2E_SUBPATH_URL="http://127.0.0.1:$subport/shardscope/"
stop_server() {
  kill "$server" "$subserver" 2>/dev/null || true
  wait "$server" "$subserver" 2>/dev/null || true
}
trap stop_server EXIT
trap 'exit 130' INT TERM

status=0
node tests/e2e/run.mjs "http://127.0.0.1:$port/" "$@" || status=$?
if [[ $status -ne 0 ]]; then
  echo "e2e: server log ($log), last lines:" >&2
  tail -n 20 "$log" >&2 || true
fi
exit "$status"

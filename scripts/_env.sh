# Shared by scripts/*: create .venv on a fresh machine and install the project from its own files.
# PARLEY_EXTRAS (set by the calling script) names the optional dependencies it needs, e.g. "test".
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
PY="${PYTHON:-python3.11}"
command -v "$PY" >/dev/null 2>&1 || PY=python3
VENV="$ROOT/.venv"
EXTRAS="${PARLEY_EXTRAS:-}"
STAMP="$VENV/.parley-installed${EXTRAS:+-$EXTRAS}"
if [ ! -x "$VENV/bin/python" ]; then
  "$PY" -m venv "$VENV"
fi
if [ ! -f "$STAMP" ] || [ pyproject.toml -nt "$STAMP" ]; then
  echo "Installing Parley${EXTRAS:+ with [$EXTRAS]} into .venv …" >&2
  # this machine's pip configuration names local folders that may be absent: drop only those notices
  "$VENV/bin/python" -m pip install --quiet --upgrade pip 2>&1 | { grep -v "is ignored: it is neither" || true; } >&2
  "$VENV/bin/python" -m pip install --quiet -e ".${EXTRAS:+[$EXTRAS]}" 2>&1 | { grep -v "is ignored: it is neither" || true; } >&2
  [ "${PIPESTATUS[0]}" = 0 ] || { echo "scripts: installing the project failed" >&2; exit 1; }
  touch "$STAMP"
fi
export PATH="$VENV/bin:$PATH"

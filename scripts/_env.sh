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
  echo "Installing Parley${EXTRAS:+ with [$EXTRAS]} into .venv (log: .venv/install.log) …" >&2
  # pip's and setuptools' chatter goes to the log; it is shown only when the install fails
  if ! { "$VENV/bin/python" -m pip install --upgrade pip && \
         "$VENV/bin/python" -m pip install -e ".${EXTRAS:+[$EXTRAS]}"; } >"$VENV/install.log" 2>&1; then
    grep -v "is ignored: it is neither" "$VENV/install.log" >&2 || true
    echo "scripts: installing the project failed (full log: .venv/install.log)" >&2
    exit 1
  fi
  touch "$STAMP"
fi
export PATH="$VENV/bin:$PATH"

# Shared by scripts/*: create .venv on a fresh machine and install the project from its own files.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
PY="${PYTHON:-python3.11}"
command -v "$PY" >/dev/null 2>&1 || PY=python3
VENV="$ROOT/.venv"
STAMP="$VENV/.parley-installed"
need_install=0
if [ ! -x "$VENV/bin/python" ]; then
  "$PY" -m venv "$VENV"
  need_install=1
fi
if [ ! -f "$STAMP" ] || [ pyproject.toml -nt "$STAMP" ]; then
  need_install=1
fi
if [ "$need_install" = 1 ]; then
  "$VENV/bin/python" -m pip install --quiet --upgrade pip
  "$VENV/bin/python" -m pip install --quiet -e ".[test]"
  touch "$STAMP"
fi
export PATH="$VENV/bin:$PATH"

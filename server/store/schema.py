"""The schema: tables keep their own invariants (CHECKs, foreign keys), so a bad write fails in the
database too; triggers bump a revision counter whenever anything that decides a caller's scopes changes.
"""

from __future__ import annotations

import re

from server.store.triggers import postgres_revision_triggers

SCHEMA = """
CREATE TABLE IF NOT EXISTS principals (
    -- AUTOINCREMENT: a deleted row's id is never reused, so a dead token can never revive.
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    handle TEXT NOT NULL UNIQUE CHECK (length(handle) BETWEEN 2 AND 32),
    name TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('applicant', 'member', 'suspended')),
    steward INTEGER NOT NULL DEFAULT 0 CHECK (steward IN (0, 1)),
    bio TEXT NOT NULL DEFAULT '',
    tags TEXT NOT NULL DEFAULT '[]',
    created_at TEXT NOT NULL,
    admitted_at TEXT,
    password_hash TEXT
);
CREATE TABLE IF NOT EXISTS agents (
    -- AUTOINCREMENT: a deleted row's id is never reused, so a dead token can never revive.
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    principal_id INTEGER NOT NULL REFERENCES principals(id),
    name TEXT NOT NULL,
    created_at TEXT NOT NULL,
    revoked_at TEXT,
    UNIQUE (principal_id, name)
);
CREATE TABLE IF NOT EXISTS tokens (
    -- AUTOINCREMENT: a deleted row's id is never reused, so a dead token can never revive.
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    public_id TEXT NOT NULL UNIQUE,
    hash TEXT NOT NULL UNIQUE,
    kind TEXT NOT NULL CHECK (kind IN ('agent', 'principal')),
    principal_id INTEGER NOT NULL REFERENCES principals(id),
    agent_id INTEGER,
    scopes TEXT NOT NULL,
    created_at TEXT NOT NULL,
    expires_at TEXT,
    revoked_at TEXT,
    CHECK ((kind = 'agent') = (agent_id IS NOT NULL))
);
CREATE TABLE IF NOT EXISTS mandates (
    id INTEGER PRIMARY KEY,
    principal_id INTEGER NOT NULL REFERENCES principals(id),
    version INTEGER NOT NULL,
    body TEXT NOT NULL,
    signature TEXT NOT NULL,
    key_id TEXT NOT NULL,
    created_at TEXT NOT NULL,
    UNIQUE (principal_id, version)
);
CREATE TABLE IF NOT EXISTS applications (
    id INTEGER PRIMARY KEY,
    principal_id INTEGER NOT NULL REFERENCES principals(id),
    statement TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS evidence (
    id INTEGER PRIMARY KEY,
    principal_id INTEGER NOT NULL REFERENCES principals(id),
    kind TEXT NOT NULL,
    title TEXT NOT NULL,
    detail TEXT NOT NULL DEFAULT '',
    url TEXT,
    created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS briefing (
    id INTEGER PRIMARY KEY,
    principal_id INTEGER NOT NULL REFERENCES principals(id),
    topic TEXT NOT NULL,
    text TEXT NOT NULL,
    visibility TEXT NOT NULL CHECK (visibility IN ('public', 'members', 'private')),
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS threads (
    id INTEGER PRIMARY KEY,
    asker_id INTEGER NOT NULL REFERENCES principals(id),
    answerer_id INTEGER NOT NULL REFERENCES principals(id),
    subject TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS messages (
    id INTEGER PRIMARY KEY,
    thread_id INTEGER NOT NULL REFERENCES threads(id),
    kind TEXT NOT NULL CHECK (kind IN ('question', 'answer', 'decline', 'decision')),
    body TEXT NOT NULL,
    created_at TEXT NOT NULL
);
-- A decision in a principal's queue: a question their answering agent could not settle.
CREATE TABLE IF NOT EXISTS escalations (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    principal_id INTEGER NOT NULL REFERENCES principals(id),
    asker_id INTEGER NOT NULL REFERENCES principals(id),
    asker_agent TEXT,
    thread_id INTEGER NOT NULL REFERENCES threads(id),
    question TEXT NOT NULL,
    language TEXT NOT NULL CHECK (language IN ('en', 'pt-BR')),
    reason TEXT NOT NULL CHECK (reason IN ('outside_mandate', 'commitment')),
    status TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'answered', 'declined', 'widened')),
    decision TEXT,
    created_at TEXT NOT NULL,
    decided_at TEXT
);
CREATE INDEX IF NOT EXISTS escalations_queue ON escalations (principal_id, status);
-- Rules drafted and published through `parley rules` (the manifest's own rules live in the manifest).
CREATE TABLE IF NOT EXISTS rules (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    agent TEXT NOT NULL,
    tool TEXT NOT NULL,
    name TEXT NOT NULL,
    body TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('draft', 'published', 'removed')),
    created_at TEXT NOT NULL,
    published_at TEXT,
    removed_at TEXT
);
CREATE TABLE IF NOT EXISTS refunds (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    principal_id INTEGER NOT NULL REFERENCES principals(id),
    agent TEXT,
    order_id TEXT NOT NULL,
    amount REAL NOT NULL CHECK (amount > 0),
    expedite INTEGER NOT NULL DEFAULT 0,
    reason TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS audit (
    id INTEGER PRIMARY KEY,
    ts TEXT NOT NULL,
    lane TEXT NOT NULL,
    principal TEXT,
    agent TEXT,
    tool TEXT NOT NULL,
    outcome TEXT NOT NULL,
    duration_ms REAL NOT NULL,
    binding TEXT,
    rule TEXT
);
CREATE TABLE IF NOT EXISTS oauth_clients (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    client_id TEXT NOT NULL UNIQUE,
    secret_hash TEXT,
    metadata TEXT NOT NULL,
    issued_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS oauth_codes (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    code_hash TEXT NOT NULL UNIQUE,
    client_id TEXT NOT NULL,
    redirect_uri TEXT NOT NULL,
    scope TEXT NOT NULL,
    resource TEXT NOT NULL,
    principal_id INTEGER NOT NULL REFERENCES principals(id),
    agent_id INTEGER NOT NULL REFERENCES agents(id),
    code_challenge TEXT NOT NULL,
    code_challenge_method TEXT NOT NULL CHECK (code_challenge_method = 'S256'),
    auth_time INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    used_at INTEGER,
    family TEXT
);
-- A grant family: one consent, and every access and refresh token rotated from it.
CREATE TABLE IF NOT EXISTS oauth_grants (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    family TEXT NOT NULL UNIQUE,
    client_id TEXT NOT NULL,
    principal_id INTEGER NOT NULL REFERENCES principals(id),
    agent_id INTEGER NOT NULL REFERENCES agents(id),
    scope TEXT NOT NULL,
    resource TEXT NOT NULL,
    created_at TEXT NOT NULL,
    revoked_at TEXT,
    revoked_reason TEXT
);
CREATE TABLE IF NOT EXISTS oauth_refresh_tokens (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    token_hash TEXT NOT NULL UNIQUE,
    family TEXT NOT NULL REFERENCES oauth_grants(family),
    client_id TEXT NOT NULL,
    scope TEXT NOT NULL,
    issued_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    rotated_at INTEGER
);
-- An external identity provider's subjects, bound to the agents they act as.
CREATE TABLE IF NOT EXISTS external_subjects (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    issuer TEXT NOT NULL,
    subject TEXT NOT NULL,
    agent_id INTEGER NOT NULL REFERENCES agents(id),
    UNIQUE (issuer, subject)
);
-- Console sign-ins, kept server-side so sign-out, a password change or a suspension ends them at once.
-- Only a digest of the session's secret is stored; the cookie carries the secret.
CREATE TABLE IF NOT EXISTS console_sessions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    digest TEXT NOT NULL UNIQUE,
    principal_id INTEGER NOT NULL REFERENCES principals(id),
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    ended_at TEXT,
    ended_reason TEXT
);
CREATE INDEX IF NOT EXISTS console_sessions_principal ON console_sessions (principal_id, ended_at);
-- An `ask` retried with the same idempotency key returns the first result instead of asking again.
CREATE TABLE IF NOT EXISTS ask_requests (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    principal_id INTEGER NOT NULL REFERENCES principals(id),
    idempotency_key TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    result TEXT NOT NULL,
    created_at TEXT NOT NULL,
    UNIQUE (principal_id, idempotency_key)
);
-- What the router does for a member when a `plan` request names neither (the console's Settings page);
-- principal_id 0 holds the club's defaults, set by a steward.
CREATE TABLE IF NOT EXISTS router_settings (
    principal_id INTEGER PRIMARY KEY,
    language TEXT NOT NULL CHECK (language IN ('en', 'pt-BR')),
    on_unread TEXT NOT NULL CHECK (on_unread IN ('refuse', 'model', 'ask', 'answer')),
    updated_at TEXT NOT NULL
);
-- OAuth signing keys retired by `parley oauth retire`: refused by every process from its next request.
CREATE TABLE IF NOT EXISTS oauth_retired_keys (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    kid TEXT NOT NULL UNIQUE,
    retired_at TEXT NOT NULL
);
-- What `parley db migrate` recorded: the schema version, the fingerprints of the keys every process
-- must share, the manifest's digest. Never a secret.
CREATE TABLE IF NOT EXISTS parley_meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS revision (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    n INTEGER NOT NULL
);
INSERT OR IGNORE INTO revision (id, n) VALUES (1, 0);
CREATE INDEX IF NOT EXISTS mandates_current ON mandates (principal_id, version DESC);
CREATE INDEX IF NOT EXISTS briefing_principal ON briefing (principal_id);
CREATE INDEX IF NOT EXISTS evidence_principal ON evidence (principal_id);
-- the inbox: a principal's threads newest first, either side, and each thread's messages in order
CREATE INDEX IF NOT EXISTS threads_asker ON threads (asker_id, updated_at);
CREATE INDEX IF NOT EXISTS threads_answerer ON threads (answerer_id, updated_at);
CREATE INDEX IF NOT EXISTS messages_thread ON messages (thread_id, id);
"""

# Columns added after a table first shipped: (table, column, type), as of the baseline migration
# (migrations/v0003_baseline.py). Frozen: a new column is a new numbered file in migrations/.
LATER_COLUMNS = (
    ("principals", "password_hash", "TEXT"),
    ("agents", "revoked_at", "TEXT"),
    ("audit", "binding", "TEXT"),
    ("audit", "rule", "TEXT"),
    # applications decided by a steward: open | admitted | declined, when, and the reason given
    ("applications", "status", "TEXT NOT NULL DEFAULT 'open'"),
    ("applications", "decided_at", "TEXT"),
    ("applications", "decision", "TEXT"),
    # tokens: a label the principal chose, and when the token was last used
    ("tokens", "label", "TEXT"),
    ("tokens", "last_used_at", "TEXT"),
    # inbox messages: answered | escalated | declined | decided, and who decided
    ("messages", "status", "TEXT"),
    ("messages", "decided_by", "TEXT"),
    # briefing notes: one an agent wrote is pending until its principal approves it (notes from
    # before approval existed stay approved); relay = "my agent may relay this as written"
    ("briefing", "status", "TEXT NOT NULL DEFAULT 'approved'"),
    ("briefing", "relay", "INTEGER NOT NULL DEFAULT 0"),
    ("briefing", "written_by", "TEXT"),
    ("briefing", "reviewed_at", "TEXT"),
    # escalations: ids of the notes the principal should see beside the question (JSON)
    ("escalations", "notes", "TEXT"),
    # audit: the path of the decision (scopes, mandate, each rule and context source by name), JSON
    ("audit", "path", "TEXT"),
    # rules: a published rule's removal drafted (it stays in force until the next publish)
    ("rules", "removal_drafted_at", "TEXT"),
)


# PostgreSQL: the same tables, translated where the dialects differ; every later column is part of
# the PostgreSQL schema (added IF NOT EXISTS). The schema's version is the newest numbered file in
# migrations/ (SCHEMA_VERSION there), never written here.


def _postgres_tables() -> str:
    text = SCHEMA.replace(
        "INSERT OR IGNORE INTO revision (id, n) VALUES (1, 0);",
        "INSERT INTO revision (id, n) VALUES (1, 0) ON CONFLICT (id) DO NOTHING;",
    )
    text = re.sub(
        r"\bid INTEGER PRIMARY KEY( AUTOINCREMENT)?",
        "id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY",
        text,
    )
    text = re.sub(r"\bINTEGER\b", "BIGINT", text)
    text = re.sub(r"\bREAL\b", "DOUBLE PRECISION", text)
    later = "\n".join(
        f"ALTER TABLE {table} ADD COLUMN IF NOT EXISTS {column} {kind};"
        for table, column, kind in LATER_COLUMNS
    )
    return text + later


def postgres_schema() -> str:
    """Tables, then what only PostgreSQL has: the cluster-wide rate-limit buckets (UNLOGGED: a crash
    may reset budgets, never lose data) and the revision's statement triggers (`triggers`)."""
    return (
        _postgres_tables()
        + """
CREATE UNLOGGED TABLE IF NOT EXISTS rate_buckets (
    key TEXT PRIMARY KEY,
    tat DOUBLE PRECISION NOT NULL
);"""
        + postgres_revision_triggers()
    )

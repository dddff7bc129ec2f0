#!/bin/bash
# Worker container start-up (reference 004): check credentials, clone the repository
# into the workspace (REPO_URL, or a bare repository mounted at REPO_PATH), set the
# git identity from the agent's name, then exec the worker (signals reach it directly).
set -euo pipefail

log() { printf '%s entrypoint %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }
die() { log "error: $*"; exit 1; }

WORKSPACE_DIR="${WORKSPACE_DIR:-/workspace}"
REPO_PATH="${REPO_PATH:-/repo.git}"
HARNESS="${HARNESS:-claude}"
export WORKSPACE_DIR HARNESS

# 1. Credentials: the app's URL and this agent's worker token; Claude's login for HARNESS=claude.
[ -n "${SWARMDECK_URL:-}" ] || die "SWARMDECK_URL is not set (the app's URL, e.g. http://app:3000)"
[ -n "${SWARMDECK_TOKEN:-}" ] || die "SWARMDECK_TOKEN is not set (create a worker token on the agent's page)"
case "$SWARMDECK_TOKEN" in sdw_*) ;; *) die "SWARMDECK_TOKEN must be a worker token (sdw_...)";; esac
if [ "$HARNESS" = "claude" ]; then
  CLAUDE_CONFIG_DIR="${CLAUDE_CONFIG_DIR:-/home/node/.claude}"
  export CLAUDE_CONFIG_DIR
  if [ -z "${ANTHROPIC_API_KEY:-}" ] && [ ! -d "$CLAUDE_CONFIG_DIR" ]; then
    die "no Claude credentials: mount your ~/.claude at $CLAUDE_CONFIG_DIR (read-only) or set ANTHROPIC_API_KEY"
  fi
  command -v claude >/dev/null || die "the claude CLI is not installed"
elif [ -z "${AGENT_COMMAND:-}" ]; then
  die "set HARNESS=claude or AGENT_COMMAND"
fi

# 2. Who am I: the token says which agent this is (register is idempotent).
AGENT_NAME="${AGENT_NAME:-}"
if [ -z "$AGENT_NAME" ]; then
  for attempt in 1 2 3 4 5 6 7 8 9 10; do
    if answer="$(curl -fsS -X POST "$SWARMDECK_URL/api/worker/register" \
        -H "Authorization: Bearer $SWARMDECK_TOKEN" -H 'Content-Type: application/json' \
        -d "{\"version\":\"entrypoint\",\"hostname\":\"$(hostname)\",\"harness\":\"$HARNESS\"}" 2>/dev/null)"; then
      AGENT_NAME="$(printf '%s' "$answer" | jq -r '.agent.name // empty')"
      break
    fi
    log "the app is not answering yet (attempt $attempt); retrying"
    sleep $((attempt * 2))
  done
fi
AGENT_NAME="${AGENT_NAME:-swarmdeck-agent}"
log "agent: $AGENT_NAME"

# 3. The workspace: a clone of REPO_URL or of the mounted bare repository, else a plain folder.
mkdir -p "$WORKSPACE_DIR"
SOURCE=""
if [ -n "${REPO_URL:-}" ]; then SOURCE="$REPO_URL"; elif [ -d "$REPO_PATH" ]; then SOURCE="$REPO_PATH"; fi
if [ -n "$SOURCE" ]; then
  if [ -d "$WORKSPACE_DIR/.git" ]; then
    log "workspace already cloned: fetching"
    git -C "$WORKSPACE_DIR" fetch --quiet origin || log "warning: fetch failed; the worker retries per task"
  elif [ -z "$(ls -A "$WORKSPACE_DIR")" ]; then
    log "cloning $SOURCE into $WORKSPACE_DIR"
    git clone --quiet "$SOURCE" "$WORKSPACE_DIR"
  else
    die "$WORKSPACE_DIR is not empty and not a git clone; refusing to clone over it"
  fi
  git config --global --add safe.directory "$WORKSPACE_DIR"
else
  log "no REPO_URL and nothing at $REPO_PATH: the workspace is a plain folder (no git workflow)"
fi

# 4. Git identity from the agent's name.
git config --global user.name "$AGENT_NAME"
git config --global user.email "${AGENT_NAME}@swarmdeck.local"

# 5. Hand over to the worker (exec: it gets SIGTERM itself and gives back its task).
exec node --import tsx /app/worker/main.ts "$@"

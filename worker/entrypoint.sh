#!/bin/bash
# Worker container start-up (reference 004): check credentials, name the repository
# (REPO_URL, or a bare repository mounted at REPO_PATH) for the worker to clone, set
# the git identity from the agent's name, then exec the worker (signals reach it directly).
# The worker runs as root and the agent as AGENT_USER (the image's `agent`), which the
# kernel keeps out of the worker's /proc entries: the agent never sees the token.
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

# 1b. Who the agent runs as. A process of the worker's own OS user (or root) can read the
#     token from /proc/<worker pid>/environ, so a root worker runs the agent as AGENT_USER
#     (worker/agent-user.ts) and refuses to start without it unless ALLOW_AGENT_AS_ROOT says so.
truthy() { case "$(printf '%s' "${1:-}" | tr '[:upper:]' '[:lower:]' | tr -d '[:space:]')" in ""|0|false|no|off) return 1;; *) return 0;; esac; }
AGENT_USER="${AGENT_USER:-}"
AGENT_OWNER=""
if [ "$(id -u)" = 0 ]; then
  if [ -n "$AGENT_USER" ]; then
    case "$AGENT_USER" in
      *[!0-9:]*)
        agent_uid="$(id -u "$AGENT_USER" 2>/dev/null)" || die "AGENT_USER=$AGENT_USER: no such user (create it, e.g. useradd --create-home $AGENT_USER)"
        agent_gid="$(id -g "$AGENT_USER")";;
      *:*) agent_uid="${AGENT_USER%%:*}"; agent_gid="${AGENT_USER#*:}";;
      *) agent_uid="$AGENT_USER"; agent_gid="$AGENT_USER";;
    esac
    [ "$agent_uid" != 0 ] || die "AGENT_USER=$AGENT_USER is root (uid 0): that is no separation"
    AGENT_OWNER="$agent_uid:$agent_gid"
    export AGENT_USER
    log "the agent runs as $AGENT_USER (uid $agent_uid), apart from the worker (root)"
  elif truthy "${ALLOW_AGENT_AS_ROOT:-}"; then
    log "warning: ALLOW_AGENT_AS_ROOT is set: the agent runs as root and can read this worker's token"
  else
    die "running as root without AGENT_USER: the agent would run as root too and could read this worker's token from /proc. Set AGENT_USER to an unprivileged user (the image's is agent), or ALLOW_AGENT_AS_ROOT=1 to accept that (unsafe)"
  fi
else
  [ -z "$AGENT_USER" ] || die "AGENT_USER=$AGENT_USER needs the worker to run as root (it runs as uid $(id -u))"
  log "warning: the agent runs as the worker's own user (uid $(id -u)) and could read its token; run as root with AGENT_USER"
fi
if [ "$HARNESS" = "claude" ]; then
  # Claude Code needs a writable config folder of its own (it saves each session there, and
  # the post-task reflection's `claude --continue` resumes it); the login is seeded into it
  # from the read-only credentials mount, never written back.
  CLAUDE_CONFIG_DIR="${CLAUDE_CONFIG_DIR:-/home/agent/.claude}"
  CLAUDE_CREDENTIALS_DIR="${CLAUDE_CREDENTIALS_DIR:-/claude-credentials}"
  export CLAUDE_CONFIG_DIR
  mkdir -p "$CLAUDE_CONFIG_DIR"
  [ -w "$CLAUDE_CONFIG_DIR" ] || die "$CLAUDE_CONFIG_DIR is not writable: give each worker its own volume there"
  if [ -d "$CLAUDE_CREDENTIALS_DIR" ]; then
    for file in .credentials.json settings.json; do
      if [ -f "$CLAUDE_CREDENTIALS_DIR/$file" ] && [ ! -f "$CLAUDE_CONFIG_DIR/$file" ]; then
        cp "$CLAUDE_CREDENTIALS_DIR/$file" "$CLAUDE_CONFIG_DIR/$file"
        chmod 600 "$CLAUDE_CONFIG_DIR/$file"
        log "seeded $file into $CLAUDE_CONFIG_DIR"
      fi
    done
  fi
  # Claude Code runs as the agent's user: the config (sessions, login) is that user's alone.
  if [ -n "$AGENT_OWNER" ]; then
    chown -R "$AGENT_OWNER" "$CLAUDE_CONFIG_DIR"
    chmod 700 "$CLAUDE_CONFIG_DIR"
  fi
  if [ -z "${ANTHROPIC_API_KEY:-}" ] && [ ! -f "$CLAUDE_CONFIG_DIR/.credentials.json" ]; then
    die "no Claude credentials: mount your ~/.claude read-only at $CLAUDE_CREDENTIALS_DIR (it must hold .credentials.json) or set ANTHROPIC_API_KEY"
  fi
  command -v claude >/dev/null || die "the claude CLI is not installed"
elif [ -z "${AGENT_COMMAND:-}" ]; then
  die "set HARNESS=claude or AGENT_COMMAND"
fi

# 2. Who am I: the token says which agent this is. The worker registers with it (the
#    app counts registrations per agent and hour, and audits each one, so this script
#    does not register too), and gives each checkout the registered agent's name as its
#    git identity unless one is set (worker/task-runner.ts, ensureGitIdentity).
AGENT_NAME="${AGENT_NAME:-}"
if [ -n "$AGENT_NAME" ]; then log "agent: $AGENT_NAME"; else log "agent: the one the token names (the worker registers)"; fi

# 3. The repository: REPO_URL, else the bare repository mounted at REPO_PATH. The worker
#    clones it into $WORKSPACE_DIR/project and keeps the agent's own files in
#    $WORKSPACE_DIR/home beside it (never inside the checkout).
mkdir -p "$WORKSPACE_DIR"
if [ -z "${REPO_URL:-}" ] && [ -d "$REPO_PATH" ]; then REPO_URL="$REPO_PATH"; fi
# Git runs as the agent's user, with that user's HOME: its global settings live in a file
# every user reads and only root writes (GIT_CONFIG_GLOBAL reaches git through the environment).
export GIT_CONFIG_GLOBAL="${GIT_CONFIG_GLOBAL:-$WORKSPACE_DIR/.gitconfig}"
touch "$GIT_CONFIG_GLOBAL"
chmod 644 "$GIT_CONFIG_GLOBAL"
if [ -n "${REPO_URL:-}" ]; then
  export REPO_URL
  log "repository: $REPO_URL (checkout in $WORKSPACE_DIR/project)"
  for dir in "$WORKSPACE_DIR/project" "$REPO_URL"; do
    git config --global --get-all safe.directory | grep -xF "$dir" >/dev/null || git config --global --add safe.directory "$dir"
  done
else
  log "no REPO_URL and nothing at $REPO_PATH: the agent works in a plain folder (no git workflow)"
fi

# 4. Git identity from AGENT_NAME when it is set (else the worker's, as above: what an
#    earlier version of this script wrote here, possibly a stand-in name, is dropped).
if [ -n "$AGENT_NAME" ]; then
  git config --global user.name "$AGENT_NAME"
  git config --global user.email "${AGENT_NAME}@swarmdeck.local"
else
  git config --global --unset-all user.name || true
  git config --global --unset-all user.email || true
fi

# 5. Hand over to the worker beside this script (/app/worker/main.ts in the image; exec: it gets SIGTERM itself and gives back its task).
exec node --import tsx "$(dirname "$(readlink -f "$0")")/main.ts" "$@"

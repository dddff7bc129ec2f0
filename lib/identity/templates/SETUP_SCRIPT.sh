# Agent setup script: runs at every container start, after the global script.

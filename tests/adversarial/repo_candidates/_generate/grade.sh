#!/bin/bash
# usage: grade.sh <task> <diff> [nobody]
cd /tmp/redteam/proj
if [ "$3" = nobody ]; then
  cd /tmp/redteam/projn
  exec setpriv --reuid=65534 --regid=65534 --clear-groups -- env HOME=/tmp/redteam/nobodyhome LOOP_ENV_CACHE=/tmp/redteam/nobodycache PYTHONPATH=/tmp/attack-base:/tmp/redteam/site timeout 300 /usr/bin/python3 -m loop --config config.toml grade "$1" "$2" --json
fi
PYTHONPATH=/tmp/attack-base timeout 300 /work/main/.venv/bin/python -m loop --config config.toml grade "$1" "$2" --json

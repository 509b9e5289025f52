#!/bin/sh
# Regenerate geometry_core/viewer/lcmtypes/drake/ from lcmtypes/*.lcm.
# Needs lcm-gen (pip install lcm); see geometry_core/viewer/lcmgen.py.
set -e
cd "$(dirname "$0")/../.."
exec "${PYTHON:-python3}" -m geometry_core.viewer.lcmgen "$@"

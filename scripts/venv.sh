# Sourced by scripts/demo and scripts/test: make the virtual environment and
# install this checkout into it (editable), only when something changed.
#
# An editable install needs no reinstall for a .py change; it does for a change
# of setup.py, setup.cfg (dependencies) or csrc/ (the compiled kernels), so a
# stamp file in the environment keeps the hash of those, the extra asked for,
# the checkout's path and the interpreter, and pip runs only when it differs.
# GEOMETRY_CORE_REINSTALL=1 forces the install.

geometry_core_venv() {  # usage: geometry_core_venv VENV [EXTRA]
  local venv=$1 extra=${2:-}
  if [[ ! -x "$venv/bin/python" ]]; then
    echo "creating the virtual environment $venv ($(python3 --version 2>&1))" >&2
    if ! python3 -m venv "$venv"; then
      echo "error: 'python3 -m venv $venv' failed (above). On Debian/Ubuntu install" \
        "python3-venv (and python3-dev, gcc for the compiled kernels)," \
        "then remove $venv and run again." >&2
      exit 1
    fi
    "$venv/bin/python" -m pip install --quiet --upgrade pip
  fi
  # One stamp per extra; a plain install (scripts/demo) is also satisfied by
  # the test extra's, which includes it.
  local stamp="$venv/.geometry_core-install-${extra:-base}" key candidate
  local candidates=("$stamp")
  if [[ -z "$extra" ]]; then candidates+=("$venv"/.geometry_core-install-*); fi
  key=$( { echo "$PWD $("$venv/bin/python" -VV)"; cat setup.py setup.cfg csrc/*; } \
         | sha256sum | cut -d' ' -f1)
  if [[ "${GEOMETRY_CORE_REINSTALL:-0}" != 1 ]]; then
    for candidate in "${candidates[@]}"; do
      if [[ -f "$candidate" && "$(cat "$candidate")" == "$key" ]]; then
        return 0
      fi
    done
  fi
  rm -f "$stamp"
  echo "installing geometry_core${extra:+[$extra]} into $venv (editable; compiles csrc/)" >&2
  # setuptools explains its editable-install mechanism on every install: say
  # nothing of it (the message is a warning of its category InformationOnly).
  PYTHONWARNINGS="ignore:Editable install" \
    "$venv/bin/python" -m pip install --quiet -e ".${extra:+[$extra]}"
  echo "$key" >"$stamp"
}

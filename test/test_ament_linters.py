"""The ament linters a ROS 2 user expects ``colcon test`` to run (STYLE.md rule 14).

flake8, pep257, copyright and xmllint run as the ament linters' own commands
(Debian's ``python3-ament-<name>`` packages, or ``ros-<distro>-ament-<name>``
in a ROS workspace); each test skips, naming the missing command, where its
linter is not installed. ruff, the house linter, runs too.

Our conventions differ from ament's defaults in a few documented places, read
from ``ruff.toml`` where ruff has the same setting: line length 100 and the
generated LCM types excluded. A handful of files with known findings are listed
in ``KNOWN_*`` below; a finding outside those lists fails, and so does an entry
that no longer matches a finding, so the lists only shrink.

Nothing here opens a socket: xmllint validates against a local copy of the
package.xml schema or not at all.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

pytestmark = pytest.mark.linter

ROOT = Path(__file__).resolve().parents[1]
_RUFF_TOML = (ROOT / "ruff.toml").read_text()  # tomllib is 3.11+, ROS Humble has 3.10
LINE_LENGTH = int(re.search(r"^line-length = (\d+)$", _RUFF_TOML, re.MULTILINE)[1])

#: Python sources of the package; scripts/ros/ holds extension-less node scripts.
PYTHON_PATHS = ("setup.py", "geometry_core", "nodes", "launch", "bench", "test",
                "scripts/ros/scene_graph_node", "scripts/ros/lcm_bridge_node",
                "scripts/ros/demo_motion_node")
#: Generated code (lcm-gen), excluded from ruff as well.
EXCLUDES = tuple(re.findall(r'"([^"]+)"', re.search(
    r"^extend-exclude = \[(.*)\]$", _RUFF_TOML, re.MULTILINE)[1]))

#: flake8 findings ruff does not report (E127 and W391 are preview rules in ruff).
#: Fix them and delete the entries.
KNOWN_FLAKE8: dict[str, set[str]] = {}
#: pep257 findings: summary lines without a period or blank line after them, and a
#: backslash in a non-raw docstring. Fix them and delete the entries.
KNOWN_PEP257: dict[str, set[str]] = {}
#: pep257 codes our docstrings do not follow, beyond ament's own list:
#: D100-D107 (a missing docstring) as ament; pydocstyle's "pep257" convention
#: instead of "ament" because ament's wants the summary on the second line
#: (D213) where ours, like Drake's and numpy's, starts on the first; D401
#: (imperative mood), since our summaries describe ("Signed distance of ...");
#: D403, which misreads names such as PairWitness, TFMessage or n as words.
PEP257_IGNORE = ["D100", "D101", "D102", "D103", "D104", "D105", "D106", "D107",
                 "D401", "D403"]


def _linter(name: str, package: str) -> str:
    path = shutil.which(name)
    if path is None:
        pytest.skip(f"{name} is not installed (Debian: {package}; "
                    f"ROS 2: ros-<distro>-{name.replace('_', '-')})")
    return path


def _run(command: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=300)


def _findings(output: str, pattern: str) -> dict[str, set[str]]:
    """Codes found per file (relative to the repository root) in a linter's output."""
    found: dict[str, set[str]] = {}
    for match in re.finditer(pattern, output, re.MULTILINE):
        path = Path(match["path"])
        relative = path.relative_to(ROOT) if path.is_absolute() else path
        found.setdefault(relative.as_posix(), set()).add(match["code"])
    return found


def _assert_only_known(found: dict[str, set[str]], known: dict[str, set[str]],
                       output: str) -> None:
    new = {path: codes - known.get(path, set()) for path, codes in found.items()}
    new = {path: codes for path, codes in new.items() if codes}
    assert not new, f"new findings {new}:\n{output}"
    gone = {path: codes - found.get(path, set()) for path, codes in known.items()}
    gone = {path: codes for path, codes in gone.items() if codes}
    assert not gone, f"fixed, so delete them from the KNOWN list: {gone}"


def test_python_paths_cover_the_repository():
    """Every top-level folder with Python code is linted (colcon's and venvs aside)."""
    ignored = {"build", "install", "log"}
    folders = {d.name for d in ROOT.iterdir() if d.is_dir() and d.name not in ignored
               and not d.name.startswith(".") and next(d.rglob("*.py"), None)}
    linted = {Path(p).parts[0] for p in PYTHON_PATHS}
    assert folders <= linted, f"not linted: {sorted(folders - linted)}"


def test_ruff():
    """The house linter (STYLE.md rule 10), with ruff.toml."""
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    if ruff is None:
        pytest.skip("ruff is not installed (pip install ruff; it is in the test extra)")
    result = _run([ruff, "check", "--no-cache", "."], ROOT)
    assert result.returncode == 0, result.stdout + result.stderr


def test_flake8(tmp_path):
    """ament_flake8: pycodestyle and pyflakes, with our line length."""
    ament_flake8 = _linter("ament_flake8", "python3-ament-flake8")
    # E, F and W only: ament's config also enables plugins (quotes, import order,
    # docstrings...) where installed, and their rules are ruff's and pep257's job.
    # A select drops pycodestyle's default ignores, which ament's config keeps.
    config = tmp_path / "flake8.ini"
    config.write_text("[flake8]\nselect = E,F,W\n"
                      "ignore = E121,E123,E126,E226,E24,E704,W503,W504\n"
                      f"max-line-length = {LINE_LENGTH}\n")
    # Run from an empty folder: ament_flake8 walks its working directory.
    result = _run([ament_flake8, "--config", str(config),
                   "--exclude", *(str(ROOT / e) for e in EXCLUDES), "--",
                   *(str(ROOT / p) for p in PYTHON_PATHS)], tmp_path)
    output = result.stdout + result.stderr
    found = _findings(output, r"^(?P<path>[^\s:]+):\d+:\d+: (?P<code>[A-Z]\d+) ")
    _assert_only_known(found, KNOWN_FLAKE8, output)
    assert result.returncode == (1 if found else 0), output


def test_pep257(tmp_path):
    """ament_pep257 (pydocstyle) with pydocstyle's pep257 convention, see PEP257_IGNORE."""
    ament_pep257 = _linter("ament_pep257", "python3-ament-pep257")
    result = _run([ament_pep257, "--convention", "pep257",
                   "--add-ignore", ",".join(PEP257_IGNORE),
                   "--exclude", *(str(ROOT / e) for e in EXCLUDES), "--",
                   *(str(ROOT / p) for p in PYTHON_PATHS)], tmp_path)
    output = result.stdout + result.stderr
    found = _findings(output, r"^(?P<path>[^\s:]+):\d+ .*?: (?P<code>D\d+): ")
    _assert_only_known(found, KNOWN_PEP257, output)
    assert result.returncode == (1 if found else 0), output


def test_license_matches_package_metadata():
    """LICENSE is the BSD 3-clause text, the license package.xml and setup.cfg name."""
    text = " ".join((ROOT / "LICENSE").read_text().split())
    assert "Copyright (c)" in text and "geometry_core developers" in text
    for clause in ("Redistributions of source code must retain the above copyright notice",
                   "Redistributions in binary form must reproduce the above copyright notice",
                   "Neither the name of the copyright holder nor the names of its contributors"):
        assert clause in text
    licenses = [e.text for e in ET.parse(ROOT / "package.xml").getroot().iter("license")]
    assert licenses == ["BSD-3-Clause"]
    setup_cfg = (ROOT / "setup.cfg").read_text()
    assert re.search(r"^license = BSD-3-Clause$", setup_cfg, re.MULTILINE)


def test_copyright_license_file():
    """ament_copyright recognises LICENSE as the BSD 3-clause license."""
    ament_copyright = _linter("ament_copyright", "python3-ament-copyright")
    result = _run([ament_copyright, "--verbose", "LICENSE"], ROOT)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert "LICENSE: bsd_3clause" in output


@pytest.mark.xfail(strict=True, reason=(
    "no source file carries a copyright header: the license is stated once, in LICENSE "
    "and package.xml (as in ros2 pkg create's packages); an XPASS means headers were "
    "added, so drop this marker"))
def test_copyright_headers(tmp_path):
    """ament_copyright on every source file."""
    ament_copyright = _linter("ament_copyright", "python3-ament-copyright")
    result = _run([ament_copyright, "--exclude", *(str(ROOT / e) for e in EXCLUDES), "--",
                   *(str(ROOT / p) for p in PYTHON_PATHS)], tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr


def _local_schema(package_xml: Path) -> Path | None:
    """Local copy of package.xml's schema in ament_xmllint's catalog (Debian ships one)."""
    model = re.search(r'<\?xml-model href="(?P<href>[^"]+)"', package_xml.read_text())
    if model is None:
        return None
    local = Path("/usr/share/ament_xmllint/xml-catalog") / model["href"].split("://")[-1]
    return local if local.is_file() else None


def test_xmllint_package_xml():
    """package.xml is valid against the package format 3 schema, as ament_xmllint checks it.

    xmllint runs directly, with ``--nonet``: ament_xmllint downloads the schema
    named in package.xml unless it has a local copy (only Debian's has), and
    tests stay off the network.
    """
    package_xml = ROOT / "package.xml"
    xmllint = _linter("xmllint", "libxml2-utils")
    schema = _local_schema(package_xml)
    if schema is None:
        pytest.skip("no local copy of the package.xml schema (Debian's "
                    "python3-ament-xmllint ships one in /usr/share/ament_xmllint)")
    result = _run([xmllint, "--noout", "--nonet", "--schema", str(schema), "package.xml"], ROOT)
    assert result.returncode == 0, result.stdout + result.stderr

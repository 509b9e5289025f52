"""ROS 2 command-line arguments and parameters, without ROS.

Parses the ``--ros-args`` section of a command line the way rcl does (``-p
[node:]name:=value``, ``--params-file file.yaml``, ``-r [node:]from:=to``
including ``__node`` and ``__ns``, ``--log-level``), reads ROS 2 parameter
YAML files (``node_name: ros__parameters: {...}``, the ``/**`` and ``*``
wildcards, nested namespaces, nested parameter groups joined with ``.``),
and keeps a node's declared parameters with their descriptions.

Precedence follows rcl/rclpy, so that the DDS and rclpy backends agree: the
declared default is overridden by assignments matching the node; among
those, assignments whose node pattern names the node exactly win over
wildcard ones (``/**``, ``*``, and plain ``-p name:=value``, which rcl files
under ``/**``), and within each group the last one on the command line wins.
So ``-p x:=2`` overrides ``x`` of a ``/**`` block in a params file but not of
a block naming the node; ``-p my_node:x:=2`` overrides both.

Types: a parameter's type is that of its default (bool, int, float, str, or
a list of one of them). An integer is accepted for a float parameter; any
other mismatch raises :class:`ParameterError` naming the parameter, the
value and where it came from.

This module must never import cyclonedds, rclpy or ``geometry_core``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import yaml

__all__ = [
    "ParameterAssignment",
    "ParameterError",
    "ParameterStore",
    "RemapRule",
    "RosArgs",
    "at_least",
    "coerce_parameter_value",
    "load_params_file",
    "node_pattern_matches",
    "parse_ros_args",
]

_PARAM_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")
_LOG_LEVELS = ("debug", "info", "warn", "error", "fatal")
# Flags rcl accepts that do not concern this transport.
_IGNORED_FLAGS = frozenset(
    {
        "--enable-rosout-logs",
        "--disable-rosout-logs",
        "--enable-stdout-logs",
        "--disable-stdout-logs",
        "--enable-external-lib-logs",
        "--disable-external-lib-logs",
    }
)
_IGNORED_OPTIONS = frozenset({"-e", "--enclave", "--log-config-file"})


class ParameterError(ValueError):
    """A bad command line, parameter file or parameter value."""


@dataclass(frozen=True)
class ParameterAssignment:
    """One parameter value for the nodes matching ``node_pattern``.

    Attributes
    ----------
    node_pattern : str
        ``"/**"``, ``"/my_node"``, ``"/ns/*"``: rcl's node name patterns.
    name : str
        Parameter name, groups joined with ``.``.
    value : object
        As YAML parsed it.
    source : str
        Where it came from (``"-p x:=1"`` or ``"params.yaml"``), for errors.
    """

    node_pattern: str
    name: str
    value: object
    source: str

    @property
    def is_wildcard(self) -> bool:
        """True when the pattern holds ``*`` or ``**``."""
        return "*" in self.node_pattern


@dataclass(frozen=True)
class RemapRule:
    """A ``-r [node:]from:=to`` rule; ``node`` is None when it applies to every node."""

    node: str | None
    source: str
    target: str


@dataclass(frozen=True)
class RosArgs:
    """The ROS part of a command line.

    Attributes
    ----------
    node_name, namespace : str or None
        From ``-r __node:=...`` and ``-r __ns:=...``.
    remaps : tuple of RemapRule
        Topic remapping rules, in command-line order.
    parameters : tuple of ParameterAssignment
        From ``-p`` and ``--params-file``, in command-line order.
    log_level : str or None
        From ``--log-level``.
    unparsed : tuple of str
        Arguments outside ``--ros-args`` sections, for the program itself.
    """

    node_name: str | None = None
    namespace: str | None = None
    remaps: tuple[RemapRule, ...] = ()
    parameters: tuple[ParameterAssignment, ...] = ()
    log_level: str | None = None
    unparsed: tuple[str, ...] = field(default_factory=tuple)


def parse_ros_args(args: Sequence[str]) -> RosArgs:
    """Parse a command line with ROS 2 ``--ros-args`` sections.

    Parameters
    ----------
    args : sequence of str
        The command line (``sys.argv`` or a launch file's arguments). ROS
        arguments sit between ``--ros-args`` and ``--`` (or the end).

    Returns
    -------
    RosArgs

    Raises
    ------
    ParameterError
        For an unknown ROS argument, a missing value, a malformed ``-p`` or
        ``-r`` rule, an unreadable or malformed parameter file.
    """
    node_name = namespace = log_level = None
    remaps: list[RemapRule] = []
    parameters: list[ParameterAssignment] = []
    unparsed: list[str] = []
    in_ros_args = False
    index = 0
    args = list(args)

    def value_of(flag: str) -> str:
        if index + 1 >= len(args):
            raise ParameterError(f"ROS argument {flag} needs a value")
        return args[index + 1]

    while index < len(args):
        arg = args[index]
        if arg == "--ros-args":
            in_ros_args = True
        elif not in_ros_args:
            unparsed.append(arg)
        elif arg == "--":
            in_ros_args = False
        elif arg in ("-p", "--param"):
            parameters.append(_parse_param_rule(value_of(arg)))
            index += 1
        elif arg == "--params-file":
            parameters.extend(load_params_file(value_of(arg)))
            index += 1
        elif arg in ("-r", "--remap"):
            rule = _parse_remap_rule(value_of(arg))
            index += 1
            if rule.source == "__node":
                node_name = rule.target
            elif rule.source == "__ns":
                namespace = rule.target
            else:
                remaps.append(rule)
        elif arg == "--log-level":
            log_level = _parse_log_level(value_of(arg))
            index += 1
        elif arg in _IGNORED_OPTIONS:
            value_of(arg)
            index += 1
        elif arg in _IGNORED_FLAGS:
            pass
        else:
            raise ParameterError(
                f"unknown ROS argument {arg!r}; this transport understands -p/--param, "
                "--params-file, -r/--remap, --log-level"
            )
        index += 1
    return RosArgs(
        node_name, namespace, tuple(remaps), tuple(parameters), log_level, tuple(unparsed)
    )


def _parse_param_rule(rule: str) -> ParameterAssignment:
    head, sep, value_text = rule.partition(":=")
    if not sep:
        raise ParameterError(f"-p {rule!r}: expected name:=value")
    node, colon, name = head.rpartition(":")
    pattern = _normalize_pattern(node) if colon else "/**"
    if not _PARAM_NAME.match(name):
        raise ParameterError(f"-p {rule!r}: invalid parameter name {name!r}")
    try:
        value = yaml.safe_load(value_text) if value_text.strip() else ""
    except yaml.YAMLError as error:
        raise ParameterError(f"-p {rule!r}: value is not valid YAML: {error}") from None
    return ParameterAssignment(pattern, name, value, f"-p {rule}")


def _parse_remap_rule(rule: str) -> RemapRule:
    head, sep, target = rule.partition(":=")
    if not sep or not target:
        raise ParameterError(f"-r {rule!r}: expected from:=to")
    # A node prefix is separated by one colon; "~" and "/" never contain one.
    node, colon, source = head.rpartition(":")
    if not source:
        raise ParameterError(f"-r {rule!r}: expected from:=to")
    return RemapRule(node if colon else None, source, target)


def _parse_log_level(text: str) -> str:
    level = text.rpartition(":=")[2].lower()
    if level == "warning":
        level = "warn"
    if level not in _LOG_LEVELS:
        raise ParameterError(f"--log-level {text!r}: expected one of {', '.join(_LOG_LEVELS)}")
    return level


def _normalize_pattern(pattern: str) -> str:
    pattern = pattern.strip()
    if not pattern:
        raise ParameterError("empty node name pattern")
    return pattern if pattern.startswith("/") else "/" + pattern


def node_pattern_matches(pattern: str, node_fqn: str) -> bool:
    """Whether rcl's node pattern (``/**``, ``/ns/*``, ``/name``) matches a node.

    ``*`` matches one name token, ``**`` any number of tokens.
    """
    parts = []
    for token in _normalize_pattern(pattern).strip("/").split("/"):
        if token == "**":
            parts.append(r"(?:/[^/]+)*")
        elif token == "*":
            parts.append(r"/[^/]+")
        else:
            parts.append("/" + re.escape(token))
    return re.fullmatch("".join(parts), node_fqn) is not None


def load_params_file(path: str | Path) -> list[ParameterAssignment]:
    """Read a ROS 2 parameter YAML file.

    Parameters
    ----------
    path : str or Path
        A file of the form ``node_name: {ros__parameters: {name: value}}``;
        node names may carry namespaces (``/ns/node`` or nested mappings) and
        wildcards (``/**``); parameters may be nested groups.

    Returns
    -------
    list of ParameterAssignment
        In file order.

    Raises
    ------
    ParameterError
        If the file cannot be read, is not YAML, or does not have that form.
    """
    path = Path(path)
    try:
        document = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise ParameterError(f"cannot read parameter file {str(path)!r}: {error}") from None
    except yaml.YAMLError as error:
        raise ParameterError(f"parameter file {str(path)!r} is not valid YAML: {error}") from None
    if not isinstance(document, dict):
        raise ParameterError(
            f"parameter file {str(path)!r}: expected a mapping of node names to "
            "'ros__parameters' blocks"
        )
    assignments: list[ParameterAssignment] = []
    _collect_nodes(document, "", str(path), assignments)
    return assignments


def _collect_nodes(block: dict, prefix: str, source: str, out: list[ParameterAssignment]) -> None:
    for key, value in block.items():
        if key == "ros__parameters":
            if not prefix:
                raise ParameterError(f"{source}: 'ros__parameters' must sit under a node name")
            if not isinstance(value, dict):
                raise ParameterError(f"{source}: {prefix}: 'ros__parameters' must be a mapping")
            _collect_parameters(value, "", _normalize_pattern(prefix), source, out)
        elif isinstance(value, dict):
            _collect_nodes(value, f"{prefix}/{str(key).strip('/')}", source, out)
        else:
            raise ParameterError(
                f"{source}: {prefix}/{key}: expected a node name mapping with "
                f"'ros__parameters', found a value {value!r}"
            )


def _collect_parameters(
    block: dict, prefix: str, pattern: str, source: str, out: list[ParameterAssignment]
) -> None:
    for key, value in block.items():
        name = f"{prefix}.{key}" if prefix else str(key)
        if isinstance(value, dict):
            _collect_parameters(value, name, pattern, source, out)
            continue
        if not _PARAM_NAME.match(name):
            raise ParameterError(f"{source}: {pattern}: invalid parameter name {name!r}")
        out.append(ParameterAssignment(pattern, name, value, source))


def at_least(name: str, minimum: float, *, inclusive: bool = True) -> Callable[[object], None]:
    """A ``check`` for :meth:`ParameterStore.declare`: a finite number >= (or >) ``minimum``.

    Returns
    -------
    callable
        Raises :class:`ParameterError` naming ``name``, the value and the bound.
    """
    def check(value: object) -> None:
        number = float(value)  # type: ignore[arg-type]  # coerced to float already
        ok = number >= minimum if inclusive else number > minimum
        if not (ok and math.isfinite(number)):
            bound = ">=" if inclusive else ">"
            raise ParameterError(
                f"parameter {name!r} must be a finite number {bound} {minimum:g}, not {value!r}"
            )

    return check


_SCALAR_TYPES = (bool, int, float, str)


def coerce_parameter_value(name: str, value: object, default: object, source: str) -> object:
    """Check ``value`` against the type of ``default``; return it, ints made floats.

    Raises
    ------
    ParameterError
        If the types disagree; the message names parameter, value and source.
    """
    if isinstance(default, list):
        if not isinstance(value, list):
            raise ParameterError(
                f"parameter {name!r}: expected a list but got {value!r} (from {source})"
            )
        element = default[0] if default else None
        if element is None:
            # An empty default list takes any homogeneous scalar list.
            kinds = {_scalar_kind(v) for v in value}
            if None in kinds or (len(kinds) > 1 and not kinds <= {int, float}):
                raise ParameterError(
                    f"parameter {name!r}: expected a list of one scalar type but got "
                    f"{value!r} (from {source})"
                )
            return list(value)
        return [coerce_parameter_value(name, v, element, source) for v in value]
    kind = _scalar_kind(default)
    if kind is None:
        raise ParameterError(
            f"parameter {name!r}: default {default!r} is not a bool, int, float, str or "
            "list of them"
        )
    if kind is float and _scalar_kind(value) is int:
        return float(value)  # type: ignore[arg-type]
    if _scalar_kind(value) is not kind:
        raise ParameterError(
            f"parameter {name!r}: expected {kind.__name__} but got {value!r} "
            f"({type(value).__name__}, from {source})"
        )
    return value


def _scalar_kind(value: object) -> type | None:
    for kind in _SCALAR_TYPES:  # bool first: bool is a subclass of int
        if isinstance(value, kind):
            return kind
    return None


@dataclass
class _Declared:
    value: object
    description: str
    source: str
    default: object = None
    check: Callable[[object], None] | None = None
    on_set: Callable[[object], None] | None = None

    @property
    def read_only(self) -> bool:
        return self.on_set is None


class ParameterStore:
    """A node's parameters: declared names, values, descriptions and origins.

    Parameters
    ----------
    node_fqn : str
        Fully qualified node name (``/ns/name``) matched against patterns.
    assignments : sequence of ParameterAssignment
        Overrides in command-line order (see the module docstring for precedence).
    """

    def __init__(self, node_fqn: str, assignments: Sequence[ParameterAssignment]) -> None:
        matching = [a for a in assignments if node_pattern_matches(a.node_pattern, node_fqn)]
        ordered = [a for a in matching if a.is_wildcard] + [
            a for a in matching if not a.is_wildcard
        ]
        self._overrides: dict[str, ParameterAssignment] = {}
        for assignment in ordered:
            self._overrides[assignment.name] = assignment
        self._declared: dict[str, _Declared] = {}

    def declare(
        self,
        name: str,
        default: object,
        description: str = "",
        *,
        check: Callable[[object], None] | None = None,
        on_set: Callable[[object], None] | None = None,
    ) -> object:
        """Declare a parameter and return its value (override or default).

        Parameters
        ----------
        name, default, description
            As for ``rclpy.node.Node.declare_parameter``.
        check : callable, optional
            ``check(value)`` raises :class:`ParameterError` with the reason
            a value of the right type is still refused (``max_distance``
            below 0); it runs on the declared value and on every later
            :meth:`set`.
        on_set : callable, optional
            ``on_set(value)`` applies a value :meth:`set` accepted. A
            parameter without one is read-only: :meth:`set` refuses it.

        Raises
        ------
        ParameterError
            If the name is invalid or already declared, the default has an
            unsupported type, or an override has the wrong type or fails
            ``check``.
        """
        if not isinstance(name, str) or not _PARAM_NAME.match(name):
            raise ParameterError(f"invalid parameter name {name!r}")
        if name in self._declared:
            raise ParameterError(f"parameter {name!r} is already declared")
        default = coerce_parameter_value(name, default, default, "its default")
        override = self._overrides.get(name)
        if override is None:
            value, source = default, "default"
        else:
            value = coerce_parameter_value(name, override.value, default, override.source)
            source = override.source
        if check is not None:
            check(value)
        self._record(name, value, description, source, default, check, on_set)
        return value

    def _record(
        self,
        name: str,
        value: object,
        description: str,
        source: str,
        default: object = None,
        check: Callable[[object], None] | None = None,
        on_set: Callable[[object], None] | None = None,
    ) -> None:
        """Store a declared parameter (backends that resolve overrides themselves call this)."""
        self._declared[name] = _Declared(value, description, source, default, check, on_set)

    def is_read_only(self, name: str) -> bool:
        """Whether a declared parameter is fixed once the node runs.

        Raises
        ------
        KeyError
            If it was never declared.
        """
        return self._lookup(name).read_only

    def validate(self, name: str, value: object, source: str = "a parameter update") -> object:
        """The value :meth:`set` would store, without storing it.

        Raises
        ------
        ParameterError
            If ``name`` is not declared or read-only, or ``value`` has the
            wrong type or fails the parameter's check; the message says which.
        """
        declared = self._declared.get(name)
        if declared is None:
            raise ParameterError(f"parameter {name!r} is not declared")
        if declared.read_only:
            raise ParameterError(
                f"parameter {name!r} is read-only: it is read once when the node starts"
            )
        value = coerce_parameter_value(name, value, declared.default, source)
        if declared.check is not None:
            declared.check(value)
        return value

    def set(self, name: str, value: object, source: str = "a parameter update") -> object:
        """Change a parameter at run time: validate, store, then apply it.

        Returns
        -------
        object
            The value stored (an int given for a float parameter is a float).

        Raises
        ------
        ParameterError
            As :meth:`validate`; nothing changes then.
        """
        value = self.validate(name, value, source)
        declared = self._declared[name]
        declared.value, declared.source = value, source
        declared.on_set(value)  # type: ignore[misc]  # validate refused read-only ones
        return value

    def _lookup(self, name: str) -> _Declared:
        declared = self._declared.get(name)
        if declared is None:
            raise KeyError(f"parameter {name!r} is not declared")
        return declared

    def get(self, name: str) -> object:
        """Return a declared parameter's value.

        Raises
        ------
        KeyError
            If it was never declared.
        """
        return self._lookup(name).value

    def has(self, name: str) -> bool:
        """Whether ``name`` is declared."""
        return name in self._declared

    def describe(self) -> dict[str, tuple[object, str, str]]:
        """``{name: (value, description, source)}`` of every declared parameter."""
        return {n: (d.value, d.description, d.source) for n, d in self._declared.items()}

    def undeclared_overrides(self) -> list[ParameterAssignment]:
        """Overrides for this node whose name was never declared (likely typos)."""
        return [a for name, a in self._overrides.items() if name not in self._declared]

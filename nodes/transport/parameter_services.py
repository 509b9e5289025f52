"""The parameter services of a ROS 2 node, for the DDS backend.

rclpy gives every node six services under its name: ``~/get_parameters``,
``~/get_parameter_types``, ``~/set_parameters``,
``~/set_parameters_atomically``, ``~/describe_parameters`` and
``~/list_parameters`` (``rcl_interfaces/srv``). ``ros2 param`` calls them;
:func:`create_parameter_services` serves the same on a node of the DDS
backend from its :class:`~.params.ParameterStore`, so ``ros2 param set``
changes a parameter declared with ``on_set`` there too, and is refused
with the store's reason otherwise.

The service definitions (Humble's ``rcl_interfaces/srv``) are data here;
the messages they use (``Parameter``, ``ParameterValue``...) come with
rosbags' Humble store.

This module must never import cyclonedds, rclpy or ``geometry_core``.
"""

from __future__ import annotations

from typing import Any

from .base import Service, TransportNode
from .interfaces import add_definitions
from .params import ParameterError, ParameterStore

__all__ = ["PARAMETER_SERVICES", "RCL_INTERFACES_SERVICES", "create_parameter_services",
           "parameter_type", "parameter_value", "python_value"]

#: ``rcl_interfaces/srv`` definitions of ROS 2 Humble (fields and constants only).
RCL_INTERFACES_SERVICES = {
    "rcl_interfaces/srv/DescribeParameters":
        "string[] names\n---\nParameterDescriptor[] descriptors\n",
    "rcl_interfaces/srv/GetParameterTypes": "string[] names\n---\nuint8[] types\n",
    "rcl_interfaces/srv/GetParameters": "string[] names\n---\nParameterValue[] values\n",
    "rcl_interfaces/srv/ListParameters":
        "uint64 DEPTH_RECURSIVE=0\nstring[] prefixes\nuint64 depth\n---\n"
        "ListParametersResult result\n",
    "rcl_interfaces/srv/SetParameters":
        "Parameter[] parameters\n---\nSetParametersResult[] results\n",
    "rcl_interfaces/srv/SetParametersAtomically":
        "Parameter[] parameters\n---\nSetParametersResult result\n",
}
add_definitions(RCL_INTERFACES_SERVICES)

#: Service name under the node -> service type.
PARAMETER_SERVICES = {
    "describe_parameters": "rcl_interfaces/srv/DescribeParameters",
    "get_parameter_types": "rcl_interfaces/srv/GetParameterTypes",
    "get_parameters": "rcl_interfaces/srv/GetParameters",
    "list_parameters": "rcl_interfaces/srv/ListParameters",
    "set_parameters": "rcl_interfaces/srv/SetParameters",
    "set_parameters_atomically": "rcl_interfaces/srv/SetParametersAtomically",
}

# rcl_interfaces/msg/ParameterType
_NOT_SET, _BOOL, _INTEGER, _DOUBLE, _STRING = 0, 1, 2, 3, 4
_BYTE_ARRAY, _BOOL_ARRAY, _INTEGER_ARRAY, _DOUBLE_ARRAY, _STRING_ARRAY = 5, 6, 7, 8, 9
_SCALAR_FIELDS = {_BOOL: "bool_value", _INTEGER: "integer_value", _DOUBLE: "double_value",
                  _STRING: "string_value", _BYTE_ARRAY: "byte_array_value",
                  _BOOL_ARRAY: "bool_array_value", _INTEGER_ARRAY: "integer_array_value",
                  _DOUBLE_ARRAY: "double_array_value", _STRING_ARRAY: "string_array_value"}
_ARRAY_TYPES = {bool: _BOOL_ARRAY, int: _INTEGER_ARRAY, float: _DOUBLE_ARRAY, str: _STRING_ARRAY}
_SCALAR_TYPES = {bool: _BOOL, int: _INTEGER, float: _DOUBLE, str: _STRING}


def parameter_type(value: object) -> int:
    """The ``ParameterType`` constant of a parameter value of the store."""
    if isinstance(value, list):
        kind = type(value[0]) if value else str
        return _ARRAY_TYPES.get(kind, _NOT_SET)
    return _SCALAR_TYPES.get(type(value), _NOT_SET)


def parameter_value(value: object, value_type: type) -> Any:
    """A ``rcl_interfaces/ParameterValue`` (of class ``value_type``) holding ``value``."""
    kind = parameter_type(value)
    msg = value_type(type=kind)
    if kind != _NOT_SET:
        setattr(msg, _SCALAR_FIELDS[kind], list(value) if isinstance(value, list) else value)
    return msg


def python_value(msg: Any) -> object:
    """The Python value of a ``rcl_interfaces/ParameterValue``.

    Raises
    ------
    ParameterError
        For ``PARAMETER_NOT_SET`` (undeclaring), byte arrays and unknown types,
        which no parameter of these nodes takes.
    """
    kind = int(msg.type)
    if kind == _NOT_SET:
        raise ParameterError("a parameter cannot be undeclared (PARAMETER_NOT_SET)")
    if kind == _BYTE_ARRAY or kind not in _SCALAR_FIELDS:
        raise ParameterError(f"parameter type {kind} is not supported")
    value = getattr(msg, _SCALAR_FIELDS[kind])
    return list(value) if kind >= _BOOL_ARRAY else value


def _listed(name: str, prefixes: list[str], depth: int) -> bool:
    """Whether ``list_parameters`` lists ``name``, as rclpy's ParameterService decides."""
    if not prefixes:
        return depth == 0 or name.count(".") < depth
    for prefix in prefixes:
        if name == prefix:
            return True
        if name.startswith(prefix + "."):
            rest = name[len(prefix) + 1:]
            if depth == 0 or rest.count(".") < depth:
                return True
    return False


class _ParameterServices:
    """The six callbacks, over one node's store."""

    def __init__(self, node: TransportNode) -> None:
        self._node = node
        self._store: ParameterStore = node.parameters
        self._value_type = node.message_type("rcl_interfaces/msg/ParameterValue")
        self._descriptor_type = node.message_type("rcl_interfaces/msg/ParameterDescriptor")
        self._result_type = node.message_type("rcl_interfaces/msg/SetParametersResult")

    def get_parameters(self, request: Any, response: Any) -> Any:
        values = []
        for name in request.names:
            value = self._store.get(name) if self._store.has(name) else None
            values.append(self._value_type(type=_NOT_SET) if value is None
                          else parameter_value(value, self._value_type))
        response.values = values
        return response

    def get_parameter_types(self, request: Any, response: Any) -> Any:
        response.types = [parameter_type(self._store.get(name)) if self._store.has(name)
                          else _NOT_SET for name in request.names]
        return response

    def describe_parameters(self, request: Any, response: Any) -> Any:
        described = self._store.describe()
        descriptors = []
        for name in request.names:
            if name not in described:
                descriptors.append(self._descriptor_type(name=name, type=_NOT_SET))
                continue
            value, description, _ = described[name]
            descriptors.append(self._descriptor_type(
                name=name, type=parameter_type(value), description=description,
                read_only=self._store.is_read_only(name)))
        response.descriptors = descriptors
        return response

    def list_parameters(self, request: Any, response: Any) -> Any:
        prefixes, depth = list(request.prefixes), int(request.depth)
        names = [name for name in self._store.describe() if _listed(name, prefixes, depth)]
        response.result.names = names
        response.result.prefixes = sorted({name.rpartition(".")[0] for name in names
                                           if "." in name})
        return response

    def _set_one(self, parameter: Any) -> Any:
        try:
            self._store.set(parameter.name, python_value(parameter.value), "ros2 param set")
        except ParameterError as error:
            return self._result_type(successful=False, reason=str(error))
        except KeyError as error:
            return self._result_type(successful=False, reason=str(error.args[0]))
        return self._result_type(successful=True, reason="")

    def set_parameters(self, request: Any, response: Any) -> Any:
        response.results = [self._set_one(parameter) for parameter in request.parameters]
        return response

    def set_parameters_atomically(self, request: Any, response: Any) -> Any:
        # All or nothing: every value is checked before any is applied.
        try:
            values = [(p.name, self._store.validate(p.name, python_value(p.value),
                                                    "ros2 param set"))
                      for p in request.parameters]
        except ParameterError as error:
            response.result = self._result_type(successful=False, reason=str(error))
            return response
        for name, value in values:
            self._store.set(name, value, "ros2 param set")
        response.result = self._result_type(successful=True, reason="")
        return response


def create_parameter_services(node: TransportNode) -> list[Service]:
    """Serve ``~/get_parameters`` and the five others for ``node``, as rclpy does."""
    callbacks = _ParameterServices(node)
    return [node.create_service(srv_type, f"~/{name}", getattr(callbacks, name))
            for name, srv_type in PARAMETER_SERVICES.items()]

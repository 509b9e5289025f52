"""What the launch files share: typed launch arguments, and failing when a node fails.

``ros2 launch`` itself neither names a launch argument whose text does not
convert (``could not convert string to float: 'abc'``) nor exits non-zero
when a node exits on bad configuration: :func:`node_parameters` and
:func:`exit_code_on_failure` add both.

Imports ``launch`` only inside the functions that build launch actions, so
the argument conversion is tested without ROS.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["DEMO_SCENE", "LaunchArgumentError", "convert_argument", "exit_code_on_failure",
           "launch_flag", "node_parameters", "parse_flag"]

#: The scene ``demo:=true`` loads.
DEMO_SCENE = "builtin:demo"

#: ``(name, type, help)`` rows of a launch file's argument table.
ArgumentTable = Sequence[tuple[str, Callable[[str], Any], str]]


class LaunchArgumentError(ValueError):
    """A launch argument whose text is not a value of its type."""


def convert_argument(name: str, kind: Callable[[str], Any], text: str) -> Any:
    """``kind(text)``, or an error naming the launch argument.

    Raises
    ------
    LaunchArgumentError
        ``launch argument 'max_distance:=abc': expected a number``.
    """
    try:
        return kind(text)
    except ValueError:
        expected = ("a number" if kind in (float, int) else "true or false" if kind is parse_flag
                    else f"a {getattr(kind, '__name__', kind)}")
        raise LaunchArgumentError(
            f"launch argument '{name}:={text}': expected {expected}") from None


def parse_flag(text: str) -> bool:
    """``true``/``false`` (any case, or ``1``/``0``) as a bool; anything else is a ValueError."""
    value = {"true": True, "1": True, "false": False, "0": False}.get(text.strip().lower())
    if value is None:
        raise ValueError(text)
    return value


def launch_flag(context: Any, name: str) -> bool:
    """The boolean launch argument ``name``, or an error naming it."""
    from launch.substitutions import LaunchConfiguration

    return convert_argument(name, parse_flag, LaunchConfiguration(name).perform(context))


def node_parameters(context: Any, arguments: ArgumentTable, demo: bool = False) -> list[Any]:
    """Parameters of a launch_ros ``Node``: ``params_file``, then the non-empty arguments.

    With ``demo``, ``scene_file`` is :data:`DEMO_SCENE` (an argument naming
    another scene is an error: the demo's /tf poses only the demo arm).

    Raises
    ------
    LaunchArgumentError
        For an argument that does not convert to its type (``ros2 launch``
        then prints the message and exits 1).
    """
    from launch.substitutions import LaunchConfiguration

    parameters: list[Any] = []
    params_file = LaunchConfiguration("params_file").perform(context)
    if params_file:
        parameters.append(params_file)
    overrides = {}
    for name, kind, _ in arguments:
        text = LaunchConfiguration(name).perform(context)
        if text:
            overrides[name] = convert_argument(name, kind, text)
    if demo:
        scene = overrides.setdefault("scene_file", DEMO_SCENE)
        if scene != DEMO_SCENE:
            raise LaunchArgumentError(
                f"launch argument 'scene_file:={scene}': demo:=true moves the demo arm, "
                f"so it needs scene_file {DEMO_SCENE} (or no scene_file)")
    if overrides:
        parameters.append(overrides)
    return parameters


class NodeFailed(RuntimeError):
    """A node launched with :func:`exit_code_on_failure` exited with a non-zero status."""


def exit_code_on_failure(node: Any) -> Any:
    """An event handler that makes ``ros2 launch`` exit 1 when ``node`` fails.

    A node that exits on bad configuration (status 2 and a message) used to
    leave ``ros2 launch`` exiting 0. Raising from the exit handler is how
    launch's ``LaunchService.run`` returns 1; it shuts the other processes
    down. Exits during shutdown (Ctrl-C, the end of the launch) do not count.

    Returns
    -------
    launch.actions.RegisterEventHandler
    """
    from launch.actions import RegisterEventHandler
    from launch.event_handlers import OnProcessExit

    def on_exit(event: Any, context: Any) -> None:
        if event.returncode and not context.is_shutdown:
            raise NodeFailed(
                f"{event.action.name} exited with status {event.returncode} "
                "(its error is above)")

    return RegisterEventHandler(OnProcessExit(target_action=node, on_exit=on_exit))

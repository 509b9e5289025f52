"""DrakeVisualizer's sending rules and the LCM bus helpers, on in-process ``memq://``.

``memq://`` is LCM's in-process transport: messages published on one
``lcm.LCM`` instance are delivered to that instance's own subscribers and
never touch a socket, so these tests need no network.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from geometry_core import (
    Box,
    GeometryFrame,
    GeometryInstance,
    HalfSpace,
    IllustrationProperties,
    PenetrationAsPointPair,
    ProximityProperties,
    Rgba,
    RigidTransform,
    Role,
    SceneGraph,
    Sphere,
)
from geometry_core.viewer import (
    DEFAULT_LCM_URL,
    LCM_URL_MEMQ_NULL,
    DrakeLcm,
    DrakeLcmParams,
    DrakeVisualizer,
    LcmBuses,
    apply_lcm_bus_config,
    make_channel_name,
    resolve_lcm_url,
)
from geometry_core.viewer.lcmtypes.drake import (
    lcmt_contact_results_for_viz,
    lcmt_viewer_draw,
    lcmt_viewer_load_robot,
)

DECODERS = {"LOAD": lcmt_viewer_load_robot, "DRAW": lcmt_viewer_draw,
            "CONTACT_RESULTS": lcmt_contact_results_for_viz}


class Recorder:
    """Subscribes to the given channels of a memq bus and keeps (channel, message, bytes)."""

    def __init__(self, bus: DrakeLcm, channels):
        self.bus = bus
        self.received = []
        for channel in channels:
            kind = "CONTACT_RESULTS" if channel == "CONTACT_RESULTS" else (
                "LOAD" if "LOAD" in channel else "DRAW")
            bus.subscribe(channel, lambda data, c=channel, k=kind: self.received.append(
                (c, DECODERS[k].decode(data), data)))

    def drain(self):
        while self.bus.handle_subscriptions(0):
            pass
        received, self.received = self.received, []
        return received


class FakeClock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def _scene():
    sg = SceneGraph()
    src = sg.register_source("robot")
    f = sg.register_frame(src, GeometryFrame("link", 4))
    g = sg.register_geometry(src, f, GeometryInstance(RigidTransform(), Box(0.1, 0.2, 0.3), "box"))
    sg.assign_role(src, g, IllustrationProperties())
    sg.assign_role(src, g, ProximityProperties())
    floor = sg.register_anchored_geometry(src, GeometryInstance(RigidTransform(), HalfSpace(),
                                                                "floor"))
    sg.assign_role(src, floor, IllustrationProperties())
    sg.set_poses(src, {f: RigidTransform([0.0, 0.0, 1.0])})
    return sg, src, f


@pytest.fixture
def bus():
    return DrakeLcm("memq://")


def _visualizer(sg, bus, **kwargs):
    clock = FakeClock()
    viz = DrakeVisualizer(sg, lcm=bus, clock=clock, **kwargs)
    recorder = Recorder(bus, [viz.load_channel(), viz.draw_channel(), "CONTACT_RESULTS"])
    return viz, recorder, clock


def _kinds(received):
    return ["LOAD" if "LOAD" in channel else "DRAW" for channel, _, _ in received]


# ------------------------------------------------------------------- channels


@pytest.mark.parametrize("role, suffix, expected", [
    (Role.ILLUSTRATION, None, ""),
    (Role.PROXIMITY, None, "_PROXIMITY"),
    (Role.PERCEPTION, None, "_PERCEPTION"),
    (Role.ILLUSTRATION, True, "_ILLUSTRATION"),
    (Role.PROXIMITY, False, ""),
])
def test_channel_names(bus, role, suffix, expected):
    viz = DrakeVisualizer(SceneGraph(), lcm=bus, role=role, use_role_channel_suffix=suffix)
    assert viz.load_channel() == "DRAKE_VIEWER_LOAD_ROBOT" + expected
    assert viz.draw_channel() == "DRAKE_VIEWER_DRAW" + expected


def test_make_channel_name():
    assert make_channel_name("X", Role.PROXIMITY, True) == "X_PROXIMITY"
    assert make_channel_name("X", Role.PROXIMITY, False) == "X"


# -------------------------------------------------------------- load and draw


def test_first_draw_sends_the_load_first(bus):
    sg, _, _ = _scene()
    viz, recorder, _ = _visualizer(sg, bus)
    assert viz.publish_draw(0.5)
    received = recorder.drain()
    assert _kinds(received) == ["LOAD", "DRAW"]
    load, draw = received[0][1], received[1][1]
    assert [(link.name, link.robot_num) for link in load.link] == [("world", 0),
                                                                   ("robot::link", 4)]
    assert list(draw.link_name) == ["robot::link"] and list(draw.robot_num) == [4]
    assert draw.timestamp == 500
    assert list(draw.position[0]) == [0.0, 0.0, 1.0]
    assert list(draw.quaternion[0]) == [1.0, 0.0, 0.0, 0.0]


def test_dispatch_load_message_sends_one_load(bus):
    sg, _, _ = _scene()
    viz, recorder, _ = _visualizer(sg, bus)
    viz.dispatch_load_message()
    assert _kinds(recorder.drain()) == ["LOAD"]
    viz.publish_draw(0.0)
    assert _kinds(recorder.drain()) == ["DRAW"]  # the load is fresh: not repeated


def test_draw_is_throttled_by_publish_period(bus):
    sg, _, _ = _scene()
    viz, recorder, _ = _visualizer(sg, bus, publish_period=0.1)
    assert viz.publish_draw(1.0)
    assert not viz.publish_draw(1.05)
    assert not viz.publish_draw(1.0999)
    assert viz.publish_draw(1.1)
    assert viz.publish_draw(1.15, force=True)
    assert viz.publish_draw(0.0)  # time ran backwards: a new run
    draws = [msg.timestamp for channel, msg, _ in recorder.drain() if "DRAW" in channel]
    assert draws == [1000, 1100, 1150, 0]


def test_default_publish_period_is_drakes(bus):
    viz = DrakeVisualizer(SceneGraph(), lcm=bus)
    assert viz.publish_period() == 1.0 / 64.0
    for k in range(5):  # exact multiples of the period are never refused
        assert viz.publish_draw(k / 64.0)


def test_geometry_change_resends_the_load(bus):
    sg, src, f = _scene()
    viz, recorder, _ = _visualizer(sg, bus)
    viz.publish_draw(0.0)
    recorder.drain()
    g2 = sg.register_frame(src, GeometryFrame("link2", 1))
    ball = sg.register_geometry(src, g2, GeometryInstance(RigidTransform(), Sphere(0.1), "ball"))
    sg.assign_role(src, ball, IllustrationProperties())
    sg.set_poses(src, {g2: RigidTransform([1.0, 0.0, 0.0])})
    viz.publish_draw(1.0)
    received = recorder.drain()
    assert _kinds(received) == ["LOAD", "DRAW"]
    assert [link.name for link in received[0][1].link] == ["world", "robot::link",
                                                           "robot::link2"]
    assert list(received[1][1].link_name) == ["robot::link", "robot::link2"]
    assert list(received[1][1].robot_num) == [4, 1]


def test_load_is_repeated_every_reload_period_byte_identical(bus):
    sg, _, _ = _scene()
    viz, recorder, clock = _visualizer(sg, bus, reload_period=2.0)
    viz.publish_draw(0.0)
    first_load = recorder.drain()[0][2]
    clock.now += 1.9
    viz.publish_draw(1.0)
    assert _kinds(recorder.drain()) == ["DRAW"]
    clock.now += 0.1
    viz.publish_draw(2.0)
    received = recorder.drain()
    assert _kinds(received) == ["LOAD", "DRAW"]
    assert received[0][2] == first_load


def test_infinite_reload_period_never_repeats(bus):
    sg, _, _ = _scene()
    viz, recorder, clock = _visualizer(sg, bus, reload_period=math.inf)
    viz.publish_draw(0.0)
    clock.now += 1e9
    viz.publish_draw(1.0)
    assert _kinds(recorder.drain()) == ["LOAD", "DRAW", "DRAW"]


def test_a_tint_change_reaches_the_viewer_with_the_periodic_load(bus):
    sg, src, f = _scene()
    viz, recorder, clock = _visualizer(sg, bus, reload_period=2.0)
    viz.publish_draw(0.0)
    recorder.drain()
    sg.set_branch_color(src, f, Rgba(1.0, 0.0, 0.0, 1.0))
    clock.now += 2.0
    viz.publish_draw(1.0)
    load = recorder.drain()[0][1]
    assert list(load.link[1].geom[0].color) == pytest.approx([0.9, 0.0, 0.0, 1.0])


def test_proximity_visualizer_draws_proximity_geometry_in_red(bus):
    sg, _, _ = _scene()
    viz, recorder, _ = _visualizer(sg, bus, role=Role.PROXIMITY)
    viz.publish_draw(0.0)
    received = recorder.drain()
    assert [c for c, _, _ in received] == ["DRAKE_VIEWER_LOAD_ROBOT_PROXIMITY",
                                           "DRAKE_VIEWER_DRAW_PROXIMITY"]
    load = received[0][1]
    assert [link.name for link in load.link] == ["robot::link"]
    assert list(load.link[0].geom[0].color) == pytest.approx([0.8, 0.0, 0.0, 1.0])


def test_missing_pose_raises_and_sends_nothing(bus):
    sg, src, _ = _scene()
    sg.register_frame(src, GeometryFrame("unposed"))
    viz, recorder, _ = _visualizer(sg, bus)
    with pytest.raises(ValueError, match="no pose has been set for frame"):
        viz.publish_draw(0.0)
    assert recorder.drain() == []


def test_contacts_go_to_contact_results(bus):
    sg, _, _ = _scene()
    viz, recorder, _ = _visualizer(sg, bus)
    penetrations = sg.query_object().compute_point_pair_penetration()
    box, floor = sg.model_inspector().get_all_geometry_ids()
    fake = PenetrationAsPointPair(box, floor, np.zeros(3), np.array([0.0, 0.0, 0.01]),
                                  np.array([0.0, 0.0, 1.0]), 0.01)
    viz.publish_contacts(penetrations + [fake], 0.25)
    (channel, msg, _), = recorder.drain()
    assert channel == "CONTACT_RESULTS"
    assert msg.timestamp == 250_000
    assert msg.num_point_pair_contacts == len(penetrations) + 1
    assert list(msg.point_pair_contact_info[-1].contact_force) == pytest.approx([0, 0, -1.0])


def test_accepts_a_raw_lcm_instance():
    lcm = pytest.importorskip("lcm")
    raw = lcm.LCM("memq://")
    got = []
    raw.subscribe("DRAKE_VIEWER_DRAW", lambda channel, data: got.append(data))
    sg, _, _ = _scene()
    DrakeVisualizer(sg, lcm=raw).publish_draw(0.0)
    while raw.handle_timeout(0):
        pass
    assert len(got) == 1


@pytest.mark.drake
def test_accepts_a_pydrake_bus():
    pydrake_lcm = pytest.importorskip("pydrake.lcm")
    bus = pydrake_lcm.DrakeLcm("memq://")
    got = []
    bus.Subscribe("DRAKE_VIEWER_LOAD_ROBOT", got.append)
    sg, _, _ = _scene()
    DrakeVisualizer(sg, lcm=bus).dispatch_load_message()
    bus.HandleSubscriptions(0)
    assert len(got) == 1 and lcmt_viewer_load_robot.decode(got[0]).num_links == 2


def test_refuses_a_bus_that_cannot_publish():
    with pytest.raises(TypeError, match="lcm must have publish"):
        DrakeVisualizer(SceneGraph(), lcm=object())


def test_memq_null_publishes_nothing():
    sg, _, _ = _scene()
    viz = DrakeVisualizer(sg, lcm_url=LCM_URL_MEMQ_NULL)
    assert viz.lcm().is_null()
    assert viz.publish_draw(0.0)
    assert not viz.publish_draw(0.001)
    viz.publish_contacts([], 0.0)


@pytest.mark.parametrize("kwargs, error, match", [
    ({"role": Role.UNASSIGNED}, ValueError, "Role.UNASSIGNED"),
    ({"publish_period": 0.0}, ValueError, "publish_period must be positive and finite"),
    ({"publish_period": math.inf}, ValueError, "publish_period must be positive and finite"),
    ({"reload_period": -1.0}, ValueError, "reload_period must be positive"),
    ({"contact_force_per_depth": math.nan}, ValueError, "contact_force_per_depth must be"),
    ({"lcm_url": "memq://null", "lcm": DrakeLcm("memq://null")}, ValueError, "not both"),
    ({"default_color": (1, 0, 0, 1)}, TypeError, "default_color must be an Rgba"),
    ({"publish_period": "fast"}, TypeError, "publish_period must be a number"),
])
def test_constructor_checks(kwargs, error, match):
    kwargs.setdefault("lcm_url", None if "lcm" in kwargs else "memq://null")
    with pytest.raises(error, match=match):
        DrakeVisualizer(SceneGraph(), **kwargs)


def test_non_finite_time_is_refused(bus):
    viz = DrakeVisualizer(SceneGraph(), lcm=bus)
    with pytest.raises(ValueError, match="time_s must be finite"):
        viz.publish_draw(math.nan)
    with pytest.raises(ValueError, match="time_s must be finite"):
        viz.publish_contacts([], math.inf)


# ------------------------------------------------------------------ LCM buses


def test_default_url_is_lcms(monkeypatch):
    monkeypatch.delenv("LCM_DEFAULT_URL", raising=False)
    assert DEFAULT_LCM_URL == "udpm://239.255.76.67:7667?ttl=0"
    assert resolve_lcm_url(None) == DEFAULT_LCM_URL
    assert resolve_lcm_url("") == DEFAULT_LCM_URL
    monkeypatch.setenv("LCM_DEFAULT_URL", "memq://")
    assert resolve_lcm_url(None) == "memq://"
    assert resolve_lcm_url("memq://null") == "memq://null"
    with pytest.raises(TypeError, match="lcm_url must be a str or None"):
        resolve_lcm_url(7)


def test_deferred_bus_opens_nothing_until_used(monkeypatch):
    monkeypatch.delenv("LCM_DEFAULT_URL", raising=False)
    bus = DrakeLcm(DrakeLcmParams(defer_initialization=True))
    assert bus.get_lcm_url() == DEFAULT_LCM_URL
    assert bus._instance is None


def test_bad_url_raises():
    with pytest.raises(ValueError, match="cannot open LCM at 'bogus://x'"):
        DrakeLcm("bogus://x")


def test_apply_lcm_bus_config():
    buses = apply_lcm_bus_config({
        "default": None,
        "viz": DrakeLcmParams(lcm_url="memq://"),
        "alt": DrakeLcmParams(lcm_url="memq://", channel_suffix="_ALT"),
    })
    assert isinstance(buses, LcmBuses)
    assert buses.get_all_bus_names() == ["default", "viz", "alt"] and buses.size() == 3
    assert buses.find("The visualizer", "default").is_null()
    assert buses.find("The visualizer", "viz").get_lcm_url() == "memq://"
    with pytest.raises(KeyError, match="The visualizer requested an LCM bus named 'nope'"):
        buses.find("The visualizer", "nope")
    with pytest.raises(ValueError, match="already exists"):
        buses.add("viz", DrakeLcm("memq://null"))
    with pytest.raises(TypeError, match="expected DrakeLcmParams or None"):
        apply_lcm_bus_config({"x": "memq://"})
    assert LcmBuses.kLcmUrlMemqNull == "memq://null"


def test_channel_suffix_applies_to_publish_and_subscribe():
    alt = apply_lcm_bus_config({"alt": DrakeLcmParams("memq://", "_ALT")}).find("test", "alt")
    got = []
    alt.subscribe("DRAKE_VIEWER_DRAW", got.append)
    sg, _, _ = _scene()
    DrakeVisualizer(sg, lcm=alt).publish_draw(0.0)
    while alt.handle_subscriptions(0):
        pass
    assert len(got) == 1 and lcmt_viewer_draw.decode(got[0]).num_links == 1


def test_connect_and_dispatch_free_functions_send_the_load_message():
    """connect_drake_visualizer / dispatch_load_message (Drake's free functions)."""
    import geometry_core
    from geometry_core.viewer.lcmtypes.drake import lcmt_viewer_load_robot

    sg = geometry_core.SceneGraph()
    src = sg.register_source("robot")
    frame = sg.register_frame(src, geometry_core.GeometryFrame("link"))
    g = sg.register_geometry(src, frame, geometry_core.GeometryInstance(
        geometry_core.RigidTransform(), geometry_core.Sphere(0.1), "ball"))
    sg.assign_role(src, g, geometry_core.make_phong_illustration_properties([1, 0, 0, 1]))
    bus = geometry_core.DrakeLcm("memq://")
    received = []
    bus.subscribe("DRAKE_VIEWER_LOAD_ROBOT", received.append)
    visualizer = geometry_core.connect_drake_visualizer(sg, lcm=bus)
    geometry_core.dispatch_load_message(sg, bus)
    while bus.handle_subscriptions(0):  # one message per call
        pass
    assert isinstance(visualizer, geometry_core.DrakeVisualizer)
    assert len(received) == 2
    load = lcmt_viewer_load_robot.decode(received[0])
    assert [link.name for link in load.link] == ["robot::link"]

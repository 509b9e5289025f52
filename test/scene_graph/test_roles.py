"""Roles, property groups and colours."""

import pytest

from geometry_core import (
    IllustrationProperties,
    PerceptionProperties,
    ProximityProperties,
    Rgba,
    Role,
    make_phong_illustration_properties,
)
from geometry_core.scene_graph.roles import GeometryProperties


def test_drake_spellings_alias_the_roles():
    assert Role.kProximity is Role.PROXIMITY
    assert Role.kIllustration is Role.ILLUSTRATION
    assert Role.kPerception is Role.PERCEPTION
    assert Role.kUnassigned is Role.UNASSIGNED


def test_properties_groups():
    props = ProximityProperties()
    props.add_property("material", "mu", 0.5)
    assert props.has_group("material")
    assert props.get_property("material", "mu") == 0.5
    assert props.get_property_or_default("material", "e", 7) == 7
    assert props.get_properties_in_group("material") == {"mu": 0.5}
    assert props.get_group_names() == {"__default__", "material"}
    with pytest.raises(ValueError, match=r"\('material', 'mu'\) already exists"):
        props.add_property("material", "mu", 0.6)
    props.update_property("material", "mu", 0.7)
    assert props.get_property("material", "mu") == 0.7
    with pytest.raises(KeyError, match="does not exist"):
        props.get_property("material", "nothing")
    with pytest.raises(KeyError, match="group 'nope' does not exist"):
        props.get_properties_in_group("nope")
    assert props.remove_property("material", "mu")
    assert not props.remove_property("material", "mu")


def test_copy_is_deep_per_group():
    props = PerceptionProperties()
    props.add_property("label", "id", 3)
    copy = props.copy()
    copy.update_property("label", "id", 4)
    assert props.get_property("label", "id") == 3
    assert isinstance(copy, PerceptionProperties)


def test_base_properties_cannot_be_made():
    with pytest.raises(TypeError, match="use ProximityProperties"):
        GeometryProperties()


def test_rgba_validation_and_product():
    with pytest.raises(ValueError, match="channel g must be in"):
        Rgba(0.5, 1.5, 0.0)
    with pytest.raises(ValueError, match="channel a must be in"):
        Rgba(0.5, 0.5, 0.0, float("nan"))
    tint = Rgba(1.0, 0.5, 0.5, 0.5) * Rgba(0.5, 1.0, 0.2, 1.0)
    assert tint.rgba() == pytest.approx((0.5, 0.5, 0.1, 0.5))
    assert Rgba(0.6, 0.6, 0.6).scale_rgb(2.0).rgba() == (1.0, 1.0, 1.0, 1.0)
    color = Rgba(0, 0, 0)
    color.set(0.1, 0.2, 0.3, 0.4)
    assert (color.r(), color.g(), color.b(), color.a()) == (0.1, 0.2, 0.3, 0.4)


def test_phong_properties():
    props = make_phong_illustration_properties([0.1, 0.2, 0.3, 1.0])
    assert isinstance(props, IllustrationProperties)
    assert props.get_property("phong", "diffuse") == Rgba(0.1, 0.2, 0.3, 1.0)

"""The polygon dataset (Gu et al. Fig. 6) and the library's ResNet-18."""

from __future__ import annotations

import numpy as np
import torch

from companion.data import polygons
from companion.models.resnet import ResNet18, ResNet18Config


def test_fig6_labels_are_side_sums():
    c = polygons.combinations()
    assert c.shape == (11 ** 4, 4)
    lab = polygons.labels(c)
    assert sorted(set(lab.tolist())) == [0] + list(range(3, 49))
    i = 1234
    assert lab[i] == sum(polygons.SIDES[j] for j in c[i])


def test_fig6_radius_quirk():
    t = polygons.tiles(112, faithful_quirk=True)
    s = polygons.SIDES.index(4)
    assert np.array_equal(t[1, s], t[2, s]) and np.array_equal(t[1, s], t[3, s])
    assert not np.array_equal(t[0, s], t[1, s])  # radius 46 vs the clipped −56 (larger, rotated)
    t2 = polygons.tiles(112, faithful_quirk=False)
    assert np.array_equal(t2[0, s], t2[3, s])
    assert (t[0, 0] == 255).all()  # blank


def test_fig6_render_places_quadrants():
    t = polygons.tiles(32)
    img = polygons.render(np.array([[1, 0, 0, 5]]), 32)[0]
    assert np.array_equal(img[:16, :16], t[0, 1]) and np.array_equal(img[16:, 16:], t[3, 5])
    assert (img[:16, 16:] == 255).all()


def test_resnet18_matches_torchvision_parameter_count():
    """torchvision's resnet18(num_classes=1000) has 11 689 512 parameters."""
    m = ResNet18(ResNet18Config(width=64, stem="imagenet", n_classes=1000))
    assert sum(p.numel() for p in m.parameters()) == 11_689_512
    small = ResNet18(ResNet18Config(width=4, stem="cifar"), seed=0)
    assert small(torch.zeros(2, 3, 16, 16)).shape == (2, 52)

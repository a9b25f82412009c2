"""The polygon image dataset of Gu et al. §5 / Fig. 6, generated offline.

An image is a 2 × 2 grid of quadrants; each quadrant holds one of 11 "dictionary" entries:
blank (weight 0) or a regular polygon with 3…12 sides (weight = number of sides), drawn filled
white with a black outline and spokes from the centre to every vertex. The label is the plain sum
of the four weights (values 0 and 3…48: 47 classes; the authors' classifier has 52 outputs).
All 11⁴ = 14 641 ordered combinations form the dataset.

As in the authors' ``data_gen.py`` (224 × 224 canvas, quadrant centres (56 + 112·(q mod 2),
56 + 112·⌊q/2⌋)), the radius is ``min(46, cx, cy, 112 − cx, 112 − cy)``, which is −56 for the three
quadrants off the top-left one: those polygons come out larger and rotated by 180°
(``faithful_quirk=True``; ``False`` draws all four at radius 46). The authors save JPEGs and
resize-and-crop them; here each quadrant is rendered at 112 px with PIL and downsampled
(box filter) to ``size/2``, kept in memory as uint8 — no JPEG artefacts, no crop.
"""

from __future__ import annotations

import math

import numpy as np

SIDES = (0, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12)  # the dictionary; weight = sides
N_CLASSES = 52  # the authors' output layer (labels 0…48)


def _tile(sides: int, quadrant: int, faithful_quirk: bool) -> np.ndarray:
    """One 112 × 112 quadrant (grey levels, 255 = white) in the authors' canvas geometry."""
    from PIL import Image, ImageDraw

    cx, cy = 56 + 112 * (quadrant % 2), 56 + 112 * (quadrant // 2)
    r = min(46, cx, cy, 112 - cx, 112 - cy) if faithful_quirk else 46
    img = Image.new("L", (112, 112), 255)
    if sides:
        draw = ImageDraw.Draw(img)
        ox, oy = cx - 112 * (quadrant % 2), cy - 112 * (quadrant // 2)  # centre within the tile
        pts = [(ox + r * math.cos(2 * math.pi * i / sides), oy + r * math.sin(2 * math.pi * i / sides))
               for i in range(sides)]
        draw.polygon(pts, fill=255, outline=0)
        for pt in pts:
            draw.line([(ox, oy), pt], fill=0)
    return np.asarray(img)


def tiles(size: int, faithful_quirk: bool = True) -> np.ndarray:
    """(4 quadrants, 11 shapes, size/2, size/2) uint8 tiles, box-downsampled from 112 px."""
    from PIL import Image

    h = size // 2
    out = np.empty((4, len(SIDES), h, h), dtype=np.uint8)
    for q in range(4):
        for s, n in enumerate(SIDES):
            t = _tile(n, q, faithful_quirk)
            out[q, s] = np.asarray(Image.fromarray(t).resize((h, h), Image.BOX)) if h != 112 else t
    return out


def combinations() -> np.ndarray:
    """All 11⁴ ordered shape indices (n, 4), quadrant order top-left, top-right, bottom-left,
    bottom-right (row-major, like the authors' nested loops)."""
    g = np.stack(np.meshgrid(*[np.arange(len(SIDES))] * 4, indexing="ij"), -1)
    return g.reshape(-1, 4)


def labels(combos: np.ndarray) -> np.ndarray:
    """Label = sum of the four weights (sides)."""
    return np.asarray(SIDES)[combos].sum(1)


def render(combos: np.ndarray, size: int, faithful_quirk: bool = True) -> np.ndarray:
    """Images (n, size, size) uint8 for shape-index rows ``combos`` (n, 4)."""
    t = tiles(size, faithful_quirk)
    h = size // 2
    img = np.empty((len(combos), size, size), dtype=np.uint8)
    for q in range(4):
        r0, c0 = h * (q // 2), h * (q % 2)
        img[:, r0:r0 + h, c0:c0 + h] = t[q][combos[:, q]]
    return img

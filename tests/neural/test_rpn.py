"""The RPN's torch layers have the parameter counts of the shape formulas."""

from __future__ import annotations

import pytest

from neural.rpn import rpn_numel_counts
from theory import anchors as an

pytest.importorskip("torch")


@pytest.mark.parametrize(("channels", "k"), [(512, 9), (256, 9), (512, 3)])
def test_numel_equals_the_shape_formula(channels, k):
    counts = rpn_numel_counts(channels, k)
    assert counts == {
        "rpn_output": an.rpn_output_params(channels, k),
        "rpn_head": an.rpn_head_params(channels, k),
    }


def test_vgg16_counts_of_the_paper():
    assert rpn_numel_counts() == {"rpn_output": 27_648, "rpn_head": 2_386_944}

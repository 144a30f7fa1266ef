"""The Region Proposal Network's layers of Faster R-CNN (Ren, He, Girshick and Sun, NeurIPS 2015)
built in torch, so that their parameter counts come from ``numel`` of real layers rather than
from the shape formulas of :mod:`theory.anchors`. Torch is optional: without it nothing is
measured."""

from __future__ import annotations

from theory import _domain

__all__ = ["rpn_numel_counts"]


def rpn_numel_counts(channels: int = 512, k: int = 9) -> dict[str, int] | None:
    """Weights of the RPN built from bias-free torch convolutions (the paper counts no biases,
    §3.1.1): ``rpn_output``, the 1×1 score (2k) and box (4k) layers on a C-d feature,
    C·(4 + 2)·k = 27,648 for VGG-16 (C = 512, k = 9), and ``rpn_head``, those plus the 3×3
    C → C layer, 2,386,944. None when torch is not installed.

    Parameters
    ----------
    channels : int, optional
        C, the channels of the feature map (default 512, VGG-16's conv5_3).
    k : int, optional
        k, the anchors per position (default 9: 3 scales × 3 aspect ratios).

    Returns
    -------
    dict of str to int, or None
        ``rpn_output``, C·(2k + 4k), and ``rpn_head``, that plus 9·C², each the ``numel`` of
        real torch weights; None without torch.

    Raises
    ------
    ValueError
        Unless ``channels`` and ``k`` are positive integers.

    Examples
    --------
    >>> from neural.rpn import rpn_numel_counts
    >>> rpn_numel_counts()
    {'rpn_output': 27648, 'rpn_head': 2386944}
    >>> rpn_numel_counts(channels=4, k=1)  # 4·6 and 4·6 + 9·16
    {'rpn_output': 24, 'rpn_head': 168}
    """
    channels = _domain.integer("channels", channels, minimum=1)
    k = _domain.integer("k", k, minimum=1)
    try:
        from torch import nn
    except ImportError:
        return None
    conv3 = nn.Conv2d(channels, channels, 3, bias=False)
    cls = nn.Conv2d(channels, 2 * k, 1, bias=False)
    reg = nn.Conv2d(channels, 4 * k, 1, bias=False)
    out = cls.weight.numel() + reg.weight.numel()
    return {"rpn_output": out, "rpn_head": out + conv3.weight.numel()}

"""The data set a training run learns: synthetic, made from a seed, nothing downloaded.

Shaped like the classic 8x8 digits (64 features, 10 classes) without shipping them:
each class is a random prototype image, and a sample is its class's prototype under
noise, so a small MLP learns it in tens of steps and the loss curve reads well on a
slide. The same seed gives the same samples on every rank.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the shape constants are read by the server, which loads no torch
    import torch

FEATURES, CLASSES = 64, 10
TRAIN, TEST = 2048, 512
# against prototypes of unit spread: classes overlap, so accuracy climbs (to about 95 %) rather than jumps
NOISE = 2.0


@dataclass(frozen=True)
class Dataset:
    train_x: torch.Tensor
    train_y: torch.Tensor
    test_x: torch.Tensor
    test_y: torch.Tensor


def make_dataset(seed: int) -> Dataset:
    import torch

    g = torch.Generator().manual_seed(seed)
    prototypes = torch.randn(CLASSES, FEATURES, generator=g)
    labels = torch.randint(0, CLASSES, (TRAIN + TEST,), generator=g)
    samples = prototypes[labels] + NOISE * torch.randn(TRAIN + TEST, FEATURES, generator=g)
    return Dataset(samples[:TRAIN], labels[:TRAIN], samples[TRAIN:], labels[TRAIN:])

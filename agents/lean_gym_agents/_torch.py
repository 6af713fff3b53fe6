"""What the PyTorch agents share (imports torch: only the torch agents import this module)."""

from __future__ import annotations

import torch


def resolve_device(device: str) -> torch.device:
    """``"auto"`` → ``cuda`` when available, else ``cpu``; anything else as given."""
    if device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    return torch.device(device)

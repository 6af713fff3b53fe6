"""The best static config: coordinate ascent over the heads, and the stored action the demo uses."""

from __future__ import annotations

import numpy as np
import pytest

from lean_gym.aesop import best_static_action, best_static_record, layout, search_best_static


def test_coordinate_ascent_finds_the_heads_that_prove_more_goals() -> None:
    lay = layout("satp-v1")
    names = list(lay.head_names)
    lin, nl, simp = names.index("unsafe:linarith"), names.index("unsafe:nlinarith"), names.index("enableSimp")

    def success(a: np.ndarray) -> list[bool]:
        # goal 0 needs linarith; goal 1 needs the norm simp off; goal 2 fails whenever nlinarith is on
        return [a[lin] > 0, a[simp] == 0, a[nl] == 0 and a[lin] > 0]

    action, rate = search_best_static(lay, success)
    assert rate == 1.0
    assert action[lin] > 0 and action[simp] == 0 and action[nl] == 0
    start = lay.default_action()
    start[nl] = 4
    action2, rate2 = search_best_static(lay, success, start=start, sweeps=2)
    assert rate2 == 1.0 and action2[nl] == 0  # never worse than the start, and the harmful head goes


def test_the_stored_action_is_a_valid_action_of_its_layout() -> None:
    lay = layout("satp-v1")
    a = best_static_action("satp-v1")
    assert a.shape == (len(lay.nvec),) and a.dtype == np.int64
    assert ((a >= 0) & (a < lay.nvec)).all()
    assert not np.array_equal(a, lay.default_action())
    rec = best_static_record("satp-v1", "sim")
    assert rec["split"] == "train" and 0 < rec["train_success"] <= 1
    a[0] = 3  # a fresh array each call
    assert best_static_action("satp-v1")[0] == rec["action"][0]
    with pytest.raises(KeyError, match="no stored best static config for 'satp-v2/sim'"):
        best_static_action("satp-v2")

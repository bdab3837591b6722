"""Borrowed views see and change the caller's memory."""

import numpy as np
from numba import njit

from sparring.kit.unowned import unowned


@njit(cache=True)
def _fill_rows(a):
    view = unowned(a)
    for i in range(view.shape[0]):
        row = view[i : i + 1]
        row[0, :] = i
    return view.sum()


def test_writes_through_and_reads_back():
    for dtype in (np.uint8, np.float32, np.int32):
        a = np.zeros((5, 3), dtype)
        total = _fill_rows(a)
        assert a[:, 0].tolist() == [0, 1, 2, 3, 4] and total == 30

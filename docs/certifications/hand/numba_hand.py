# Hand check of the Numba divergences (docs/certifications/numba.md), Numba alone:
#   /usr/bin/python3 docs/certifications/hand/numba_hand.py
import os
os.environ["NUMBA_DISABLE_ERROR_MESSAGE_HIGHLIGHTING"] = "1"
import numpy as np
import numba
from numba import njit
print("numba", numba.__version__, "numpy", np.__version__)

@njit
def where(c, x, y):
    return np.where(c, x, y)

@njit
def broadcast_to(x, shape):
    return np.broadcast_to(x, shape)

def show(f, *args):
    try:
        print(repr(f(*args)))
    except Exception as e:
        print(type(e).__name__ + ":", " ".join(str(e).split())[:260])

# where-no-broadcast: np.where(c, x, y) with shapes that broadcast
c, x, y = np.array([True, False]), np.array([1, 2], np.int32), np.array(7, np.int32)
print("numpy:", repr(np.where(c, x, y)))
show(where, c, x, y)
print("numpy:", repr(np.where(np.ones((2, 2), bool), np.ones((2, 2), np.int32), np.zeros((1, 2), np.int32))))
show(where, np.ones((2, 2), bool), np.ones((2, 2), np.int32), np.zeros((1, 2), np.int32))

# broadcast-to-scalar-shape: np.broadcast_to(x, ())
print("numpy:", repr(np.broadcast_to(np.array(5, np.int32), ())))
show(broadcast_to, np.array(5, np.int32), ())
show(broadcast_to, np.array(5, np.int32), (1,))

# int-div-floors
@njit
def floor_divide(a, b):
    return np.floor_divide(a, b)

print(floor_divide(np.array([-7, 7], np.int32), np.array([2], np.int32)))

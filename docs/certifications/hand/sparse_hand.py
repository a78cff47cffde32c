# Hand check of the pydata/sparse divergences and limits (docs/certifications/sparse.md),
# sparse alone:  /usr/bin/python3 docs/certifications/hand/sparse_hand.py
import warnings
import numpy as np, sparse
warnings.simplefilter("ignore", RuntimeWarning)
print("sparse", sparse.__version__, "numpy", np.__version__)

# broadcast-to-lower-rank: a target of lower rank than the array
x = sparse.COO.from_numpy(np.array([5], np.int32))
print(x.broadcast_to(()).shape, x.broadcast_to(()).todense())
y = sparse.COO.from_numpy(np.arange(6, dtype=np.int32).reshape(3, 2))
print(y.broadcast_to((2,)).shape)
try:
    np.broadcast_to(np.array([5], np.int32), ())
except ValueError as e:
    print("numpy:", e)

# numel-overflow: a shape of more than 2**63 - 1 elements
try:
    sparse.COO(np.zeros((2, 0), np.int64), np.zeros(0, np.int8), shape=(2, 4611686018427387904))
except ValueError as e:
    print("ValueError:", e)
print(sparse.COO(np.zeros((2, 0), np.int64), np.zeros(0, np.int8), shape=(2, 4611686018427387903)).shape)

# int-div-floors
a = sparse.COO.from_numpy(np.array([-7, 7], np.int32))
b = sparse.COO.from_numpy(np.array([2], np.int32))
print(sparse.elemwise(np.floor_divide, a, b).todense())

# limits: rank 32, and n-ary elemwise time
import time
z32 = np.ones((1,) * 32, np.int32)
try:
    sparse.COO.from_numpy(z32) + sparse.COO.from_numpy(z32)
except ValueError as e:
    print("rank 32:", e)
def empty(s):
    return sparse.COO(np.zeros((len(s), 0), np.int64), np.zeros(0, np.int8), shape=s)
for n in (4, 8, 10):
    t = time.time()
    sparse.elemwise(lambda *v: v[0], *[empty((3,)) for _ in range(n)])
    print(n, "operands: %.2f s" % (time.time() - t))

# broadcast_to of an array that stores nothing and keeps no axis
try:
    empty(()).broadcast_to((8122109644,))
except MemoryError as e:
    print("MemoryError:", e)
try:
    empty((0,)).broadcast_to((1152921527592602376, 0))
except ValueError as e:
    print("ValueError:", e)

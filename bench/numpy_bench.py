"""NumPy's side of `broadcheck bench`: the same patterns, timed the same way.

Usage: numpy_bench.py REPEAT NAME;A;B;TRANSPOSED;SMALL ...
Prints "numpy VERSION", then one "NAME VALUE" line per pattern: the median
seconds of one np.add(a, b, out=o) after a cache flush, or for SMALL
patterns the median nanoseconds per call over many calls.  Exits 3 when
numpy is missing (the bench then prints "numpy: not available").
"""
import sys
import time

try:
    import numpy as np
except ImportError:
    sys.exit(3)


def shape(text):
    text = text.strip("[]")
    return tuple(int(d) for d in text.split(",")) if text else ()


def main():
    repeat = int(sys.argv[1])
    print("numpy", np.__version__, flush=True)
    flush = np.zeros(256 << 20, dtype=np.uint8)
    for spec in sys.argv[2:]:
        name, sa, sb, transposed, small = spec.split(";")
        a_shape, b_shape = shape(sa), shape(sb)
        if transposed == "1":
            a = (np.arange(np.prod(a_shape), dtype=np.float32) % 8 + 1).reshape(a_shape[::-1]).T
        else:
            a = (np.arange(np.prod(a_shape), dtype=np.float32) % 8 + 1).reshape(a_shape)
        b = (np.arange(np.prod(b_shape), dtype=np.float32) % 8 + 2).reshape(b_shape)
        out = np.empty(np.broadcast_shapes(a_shape, b_shape), dtype=np.float32)
        np.add(a, b, out=out)
        times = []
        for r in range(repeat):
            if small == "1":
                calls = 200000
                t0 = time.perf_counter()
                for _ in range(calls):
                    np.add(a, b, out=out)
                times.append((time.perf_counter() - t0) / calls * 1e9)
            else:
                flush[:] = r + 1
                t0 = time.perf_counter()
                np.add(a, b, out=out)
                times.append(time.perf_counter() - t0)
        times.sort()
        n = len(times)
        med = times[n // 2] if n % 2 else 0.5 * (times[n // 2 - 1] + times[n // 2])
        print(name, repr(med), flush=True)


main()

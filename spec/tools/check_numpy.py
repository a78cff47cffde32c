#!/usr/bin/python3
"""Cross-check conformance vectors against NumPy.

Usage: check_numpy.py [-v] [FILE_OR_DIR ...]

Reads the vector files (spec/README.md, "The vector format"); with no
arguments, every *.vec in spec/vectors/ next to this script.  Every `numpy`,
`broadcast-to`, `bidirectional` and `matmul` vector is compared with NumPy:

  numpy          np.broadcast_shapes(*shapes)
  broadcast-to   np.broadcast_to(np.empty(input, dtype=[]), target).shape
  bidirectional  np.broadcast_shapes(input, target)
  matmul         np.matmul on zero-strided int8 views of one byte (only
                 vectors whose product is at most MATMUL_MAX_WORK steps;
                 NumPy computes it)

(`dtype=[]` has itemsize 0, so even INT64_MAX dims allocate nothing.)  Only
accept/reject and the result shape are compared: NumPy has no error kinds.
Vectors NumPy cannot judge are skipped, not failed: options (which only our
rules have, so they expect bad-params), operand counts that only our limits
reject, ranks above NumPy 1.x's 32, shapes NumPy refuses as too large, and
partial shapes (spec/README.md, "Partial shapes"), which NumPy has none of.
-v lists every skipped vector with its reason.

Exit status: 0 every checked vector agrees; 1 some disagree (one line each,
`file:line: expected X, numpy gives Y`); 2 usage error or unreadable or
malformed vector file; 77 numpy cannot be imported.
"""
import os
import re
import sys

RULES = {"none", "numpy", "onnx-uni", "pdpd", "broadcast-to", "bidirectional", "explicit",
         "matmul"}
CHECKED_RULES = {"numpy", "broadcast-to", "bidirectional", "matmul"}
MATMUL_MAX_WORK = 1 << 20   # multiply-adds np.matmul may spend on one vector
SHAPE_RE = re.compile(r"^\[(-?[0-9]+(,-?[0-9]+)*)?\]$")
# A partial shape: ?, LO..HI, a symbol or [...] between the brackets.
PARTIAL_RE = re.compile(r"^\[[^\]]*([?.A-Za-z_])[^\]]*\]$")


class Partial:
    """A partial shape word, kept as written: only skipped, never compared."""

    def __init__(self, word):
        self.word = word
EXPECT_RE = re.compile(r"^(\[.*\]|error(:[a-z-]+)?)$")
NUMPY_MAXDIMS = 32          # NPY_MAXDIMS in NumPy 1.x
OUR_MAX_OPERANDS = 128      # BC_MAX_OPERANDS
# numpy's profile that is NumPy's own: broadcast_shapes() of no shape is ()
EMPTY_FOLD = {"profile": "numpy-empty-fold"}
# Substrings of NumPy errors that mean "NumPy cannot represent this", not
# "these shapes do not broadcast".
LIMIT_MESSAGES = ("too big", "too large", "maximum supported dimension",
                  "at most 32", "32 arguments", "npy_maxargs")


class VectorError(Exception):
    pass


def parse_shape(word):
    if PARTIAL_RE.match(word):
        return Partial(word)
    if not SHAPE_RE.match(word):
        raise VectorError("bad shape %r" % word)
    return tuple(int(d) for d in word[1:-1].split(",")) if word != "[]" else ()


def parse_line(text):
    """One vector line -> (rule, options, shapes, expected) or None if blank."""
    words = text.split("#", 1)[0].split()
    if not words:
        return None
    if "->" not in words or words.index("->") != len(words) - 2:
        raise VectorError("expected 'RULE ... -> EXPECTED'")
    rule, body, expected = words[0], words[1:-2], words[-1]
    if rule not in RULES:
        raise VectorError("unknown rule %r" % rule)
    if not EXPECT_RE.match(expected):
        raise VectorError("bad expectation %r" % expected)
    options = dict(w.split("=", 1) for w in body if not w.startswith("["))
    shapes = [parse_shape(w) for w in body if w.startswith("[")]
    if expected.startswith("["):
        expected = parse_shape(expected)
    return rule, options, shapes, expected


def fmt(value):
    if isinstance(value, tuple):
        return "[" + ",".join(str(d) for d in value) + "]"
    return value


def numpy_result(np, rule, shapes):
    """NumPy's answer: ("shape", tuple), ("error", message) or ("limit", message)."""
    try:
        if rule == "numpy":
            out = np.broadcast_shapes(*shapes)
        elif rule == "bidirectional":
            out = np.broadcast_shapes(shapes[0], shapes[1])
        elif rule == "matmul":
            views = [np.lib.stride_tricks.as_strided(np.zeros(1, np.int8), shape=s,
                                                     strides=[0] * len(s)) for s in shapes]
            out = np.matmul(*views).shape
        else:
            out = np.broadcast_to(np.empty(shapes[0], dtype=[]), shapes[1]).shape
        return "shape", tuple(int(d) for d in out)
    except ValueError as e:
        msg = str(e)
        if any(m in msg.lower() for m in LIMIT_MESSAGES):
            return "limit", msg
        return "error", msg
    except (OverflowError, MemoryError) as e:
        return "limit", "%s: %s" % (type(e).__name__, e)


def skip_reason(rule, options, shapes, expected):
    """Why NumPy cannot judge this vector: (category, detail), or None."""
    if any(isinstance(s, Partial) for s in shapes + [expected]):
        return "partial shapes", "numpy has no partial shapes"
    empty_fold = rule == "numpy" and options == EMPTY_FOLD
    if options and not empty_fold:
        return "options", "%s: numpy takes no options" % " ".join(sorted(options))
    if rule != "numpy" and len(shapes) != 2:
        return "operand count", "%d shapes for a binary rule" % len(shapes)
    least = 0 if empty_fold else 1
    if rule == "numpy" and not least <= len(shapes) <= OUR_MAX_OPERANDS:
        return "operand count", "%d operands: our limit is %d..%d, numpy has none" % (
            len(shapes), least, OUR_MAX_OPERANDS)
    ranks = [len(s) for s in shapes] + ([len(expected)] if isinstance(expected, tuple) else [])
    if rule == "matmul":
        work = 1
        for s in shapes:
            for d in s:
                work *= max(d, 1)
        if work > MATMUL_MAX_WORK:
            return "matmul work", "np.matmul would compute up to %d steps" % work
    if max(ranks, default=0) > NUMPY_MAXDIMS:
        return "rank > %d" % NUMPY_MAXDIMS, "rank %d > NPY_MAXDIMS %d" % (max(ranks), NUMPY_MAXDIMS)
    return None


def vector_files(args):
    if not args:
        here = os.path.dirname(os.path.abspath(__file__))
        args = [os.path.join(here, os.pardir, "vectors")]
    files = []
    for a in args:
        if os.path.isdir(a):
            files += sorted(os.path.join(a, f) for f in os.listdir(a) if f.endswith(".vec"))
        elif os.path.isfile(a):
            files.append(a)
        else:
            raise VectorError("%s: no such file or directory" % a)
    if not files:
        raise VectorError("no .vec files in %s" % " ".join(args))
    return files


def main(argv):
    verbose = False
    args = []
    for a in argv:
        if a in ("-h", "--help"):
            print(__doc__.strip())
            return 0
        if a in ("-v", "--verbose"):
            verbose = True
        elif a.startswith("-"):
            print("check_numpy.py: unknown option %s (try --help)" % a, file=sys.stderr)
            return 2
        else:
            args.append(a)
    try:
        import numpy as np
    except ImportError as e:
        print("check_numpy.py: numpy is not importable (%s); skipping" % e, file=sys.stderr)
        return 77

    try:
        files = vector_files(args)
    except VectorError as e:
        print("check_numpy.py: %s" % e, file=sys.stderr)
        return 2

    checked = skipped = disagree = 0
    reasons = {}
    for path in files:
        try:
            with open(path, encoding="utf-8") as f:
                lines = f.readlines()
        except (OSError, UnicodeDecodeError) as e:
            print("check_numpy.py: %s: %s" % (path, e), file=sys.stderr)
            return 2
        for lineno, text in enumerate(lines, 1):
            where = "%s:%d" % (os.path.relpath(path), lineno)
            try:
                vec = parse_line(text)
            except VectorError as e:
                print("%s: malformed vector: %s" % (where, e), file=sys.stderr)
                return 2
            if vec is None or vec[0] not in CHECKED_RULES:
                continue
            rule, options, shapes, expected = vec
            reason = skip_reason(rule, options, shapes, expected)
            if reason is None:
                kind, got = numpy_result(np, rule, shapes)
                if kind == "limit":
                    reason = "numpy refuses the size", got
            if reason is not None:
                skipped += 1
                reasons[reason[0]] = reasons.get(reason[0], 0) + 1
                if verbose:
                    print("%s: skipped: numpy limitation: %s" % (where, reason[1]))
                continue
            checked += 1
            if isinstance(expected, tuple):
                ok = kind == "shape" and got == expected
            else:
                ok = kind == "error"
            if not ok:
                disagree += 1
                said = fmt(got) if kind == "shape" else "error (%s)" % got
                print("%s: expected %s, numpy gives %s" % (where, fmt(expected), said))
    if reasons:
        print("skipped by reason: " + "; ".join(
            "%s: %d" % (k, n) for k, n in sorted(reasons.items())))
    print("numpy cross-check: %d checked, %d skipped (numpy limitation), %d disagree"
          % (checked, skipped, disagree))
    return 1 if disagree else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

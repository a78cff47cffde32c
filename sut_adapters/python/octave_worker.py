#!/usr/bin/env python3
"""A broadcheck worker for GNU Octave's automatic broadcasting.

    broadcheck run --sut octave
    broadcheck run --sut 'exec:/usr/bin/python3 sut_adapters/python/octave_worker.py'

The worker (standard-library Python; NumPy, when installed, only to copy
strided views fast) starts one `octave-cli` child and keeps it for its
life: every question is one line of Octave sent down a pipe, evaluated by a
small read-eval loop in Octave (SERVER below), and answered on one line.
Values travel exactly, as their raw bytes in files of the worker's temporary
directory (fread/fwrite of uint8, then typecast), both ways.  Octave starts
once per worker, not per question.

Options:
  --octave PATH   the octave-cli to run (default: `octave-cli` on PATH)
  --bsxfun        binary operations through bsxfun(@plus, a, b), ... instead
                  of the operators (+ - .* ./ max min == < & |)

The mapping of shapes (docs/certifications/octave.md).  Octave's manual,
section 19.2 "Broadcasting": "For every dimension where A and B differ, one
of them must be 1 ... the dimension of size 1 is expanded", with missing
trailing dimensions taken as 1 (every Octave array has infinitely many
trailing singleton dimensions, and at least 2).  That is numpy's rule with
the order of the dims reversed: numpy aligns shapes at their last dim and
pads leading ones, Octave aligns at the first dim and pads trailing ones.
So a broadcheck shape [d0, ..., dk-1] is sent as the Octave array of size
[dk-1, ..., d0] (at least 2 dims: [] is 1x1, [n] is nx1), and since
Octave's arrays are column-major, the row-major bytes of the broadcheck
tensor are already that array's bytes: no permutation.  An answer's size is
read back reversed.  Octave cannot tell a trailing 1 from a missing dim, so
the rank of an answer is the one thing the worker supplies: Octave's size
with trailing ones removed, padded with ones to the rank of the rule's
result (the largest operand rank); a size with more non-one dims than that
is returned as it is, so that a wrong rank from Octave still shows.

  none      elementwise on operands of equal shape (Octave always
            broadcasts and has no mode that refuses unequal shapes: those
            questions are answered "unsupported"); select is merge()
  numpy     shapes: size(zeros(A,'int8') + zeros(B,'int8') + ...), folded
            left; values: the operator (or bsxfun) folded left for n
            operands; select: merge(mask, tval, fval), which does not
            broadcast: when Octave refuses unequal dimensions the question
            is answered "unsupported" with Octave's message.
  others    not declared: Octave has no one-way (onnx-uni), axis-anchored
            (pdpd, explicit), broadcast_to or sum-to-shape operation.

Declined questions (answered "unsupported"): float16 (Octave has no
half-precision type); add and mul on bool (Octave's arithmetic on logical
gives double: true + true is 2); a negative dim (no Octave array has one);
zero operands; a dim above 2**53 (Octave takes sizes and reports them as
double: size(zeros(0, 2^53+1)) is [0 2^53]); a shape question whose arrays
and partial results would hold more than 2**20 elements in all (the worker
needs the arrays to ask Octave, which has no shape-only broadcast function,
and a question must take milliseconds, not seconds).

Limits (HELLO): rank 64 (Octave's arrays take any number of dims), the
protocol's 136 operands (a left fold of binary operators: a chain of 135
nested + or bsxfun calls parses and runs in Octave 7.3, checked by hand).  The known divergences are declared in
octave.manifest.json (docs/MANIFEST.md), which the harness checks on every run.
"""
import atexit
import itertools
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bcwire as w  # noqa: E402  (standard library only: works without Octave)

channel = w.Channel()
try:  # only to copy strided views fast (gather); the worker runs without it
    import numpy as np
    from numpy.lib.stride_tricks import as_strided
    UINTS = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
except Exception:
    np = None

# The files values go through, both ways (SERVER); removed at exit.
TMP = tempfile.mkdtemp(prefix="bc-octave-")
atexit.register(shutil.rmtree, TMP, True)
OUT_FILE = os.path.join(TMP, "out.bin")

# broadcheck dtype -> (Octave class, struct format of one element)
CLASSES = {w.BOOL: "logical", w.INT8: "int8", w.UINT8: "uint8", w.INT32: "int32",
           w.INT64: "int64", w.FLOAT32: "single", w.FLOAT64: "double"}

# The operators, and the builtin functions bsxfun takes for them.
OPERATORS = {w.ADD: "%s + %s", w.SUB: "%s - %s", w.MUL: "%s .* %s", w.DIV: "%s ./ %s",
             w.MAX: "max(%s, %s)", w.MIN: "min(%s, %s)", w.EQUAL: "%s == %s",
             w.LESS: "%s < %s", w.AND: "%s & %s", w.OR: "%s | %s"}
BSXFUN = {w.ADD: "plus", w.SUB: "minus", w.MUL: "times", w.DIV: "rdivide", w.MAX: "max",
          w.MIN: "min", w.EQUAL: "eq", w.LESS: "lt", w.AND: "and", w.OR: "or"}

# Octave's side: a read-eval loop over stdin.  Each line sets bc_r (and
# bc_vals false for a shape question); the answer is one line on stdout:
#   @@bc ok CLASS D1,D2,...,  NBYTES      or      @@bc error [IDENTIFIER] MESSAGE
# where bc_r's bytes (column-major, a logical as one byte 0/1) are written to
# the file bc_outfile (NBYTES of them; -1 for a shape question).  Inputs come
# the same way, as raw files read with fread: values of up to 2**20 elements
# (the medium value tier) as hex text took Octave more than 20 s to parse.
SERVER = r"""
warning('off', 'all'); more off; page_screen_output(false);
crash_dumps_octave_core(false); sighup_dumps_octave_core(false);
sigterm_dumps_octave_core(false);
printf('@@bc hello %s\n', OCTAVE_VERSION); fflush(stdout);
while true
  try
    bc_cmd = input('', 's');  % one line; fgetl(stdin) waits for more than a line
  catch
    break;                    % end of input: the worker is done
  end
  try
    bc_vals = true;
    eval(bc_cmd);
    bc_n = -1;
    if bc_vals
      if islogical(bc_r)
        bc_b = uint8(bc_r(:));
      else
        bc_b = typecast(bc_r(:), 'uint8');
      end
      bc_f = fopen(bc_outfile, 'w');
      bc_n = fwrite(bc_f, bc_b, 'uint8');
      fclose(bc_f);
    end
    printf('@@bc ok %s %s %d\n', class(bc_r), sprintf('%d,', size(bc_r)), bc_n);
  catch bc_e
    printf('@@bc error [%s] %s\n', bc_e.identifier, strrep(bc_e.message, "\n", ' '));
  end
  fflush(stdout);
end
"""

FLINTMAX = 1 << 53  # the largest dim a double holds exactly (Octave's size() is double)
BOUND = 1 << 20  # elements the worker builds in all to ask one shape question


def start(argv):
    octave, use_bsxfun = None, False
    args = list(argv)
    while args:
        a = args.pop(0)
        if a == "--octave" and args:
            octave = args.pop(0)
        elif a == "--bsxfun":
            use_bsxfun = True
        else:
            channel.fatal("octave_worker.py: unknown argument %r" % a)
    path = octave or shutil.which("octave-cli")
    if not path or not os.access(path, os.X_OK):
        channel.fatal("octave not available: %s not found"
                      % (octave or "octave-cli (Debian package octave)"))
    try:
        child = subprocess.Popen([path, "--norc", "--quiet", "--no-history", "--no-gui",
                                  "--eval", "bc_outfile = '%s';\n%s" % (OUT_FILE, SERVER)],
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                 stderr=sys.stderr.fileno())
    except OSError as e:
        channel.fatal("octave not available: %s" % e)
    hello = child.stdout.readline().decode("utf-8", "replace").split()
    if len(hello) != 3 or hello[:2] != ["@@bc", "hello"]:
        channel.fatal("octave not available: octave-cli did not start (%r)" % hello)
    return child, hello[2], use_bsxfun


class Octave:
    """The child process: one line out, one answer line back."""

    def __init__(self, child):
        self.child = child

    def ask(self, code):
        """Evaluates `code` (which sets bc_r); returns (class, size, bytes)
        or raises OctaveError with Octave's identifier and message."""
        if "\n" in code:
            raise ValueError("one line of Octave per question")
        self.child.stdin.write(code.encode("ascii") + b"\n")
        self.child.stdin.flush()
        while True:
            line = self.child.stdout.readline()
            if not line:
                raise RuntimeError("octave-cli exited (status %s)" % self.child.poll())
            if line.startswith(b"@@bc "):
                break
            sys.stderr.write("octave: %s" % line.decode("utf-8", "replace"))
        parts = line.decode("ascii", "replace").rstrip("\n").split(" ", 4)
        if parts[1] == "error":
            ident, _, message = " ".join(parts[2:]).partition("] ")
            raise OctaveError(ident.lstrip("["), message)
        cls, size, nbytes = parts[2], [int(d) for d in parts[3].split(",") if d], int(parts[4])
        if nbytes < 0:
            return cls, size, b""
        with open(OUT_FILE, "rb") as f:
            raw = f.read()
        if len(raw) != nbytes:
            raise RuntimeError("octave-cli wrote %d bytes, said %d" % (len(raw), nbytes))
        return cls, size, raw


class OctaveError(Exception):
    def __init__(self, ident, message):
        super().__init__("%s%s" % (message, " (%s)" % ident if ident else ""))
        self.ident, self.message = ident, message


def octave_call(code):
    """Octave's answer; its nonconformant-arguments error is a rejection."""
    try:
        return OCTAVE.ask(code)
    except OctaveError as e:
        # the operators' error has an identifier; bsxfun's has none
        if e.ident == "Octave:nonconformant-args" or \
                e.message.startswith("bsxfun: nonconformant dimensions"):
            raise w.Rejected(e.message, w.ERR_DIM_MISMATCH)
        if e.ident == "Octave:bad-alloc":  # dims whose product overflows octave_idx_type
            raise w.Rejected(e.message, w.ERR_OVERFLOW)
        raise


def octave_size(shape):
    """The Octave size vector of a broadcheck shape: reversed, at least 2 dims."""
    dims = list(reversed(shape)) + [1] * max(0, 2 - len(shape))
    return "[%s]" % " ".join(str(d) for d in dims)


def from_octave_size(size, rank):
    """An answer's size as a broadcheck shape of the rule's result rank."""
    dims = list(size)
    while dims and dims[-1] == 1:
        dims.pop()
    dims += [1] * max(0, rank - len(dims))
    return list(reversed(dims))


def check_question(params, shapes):
    if params.has_options():
        raise w.Unsupported("Octave's broadcasting takes no axis, axes or profile")
    if params.rule not in (w.RULE_NONE, w.RULE_NUMPY):
        raise w.Unsupported("Octave has no rule %d" % params.rule)
    if not shapes:
        raise w.Unsupported("Octave's operators take at least one operand")
    if any(d < 0 for s in shapes for d in s):
        raise w.Unsupported("no Octave array has a negative dim")
    if any(d > FLINTMAX for s in shapes for d in s):
        raise w.Unsupported("a dim above 2**53: Octave reads and reports sizes as double "
                            "(size() of a 0 x (2**53+1) array says 2**53)")
    if params.rule == w.RULE_NONE:
        w.require_equal_shapes(shapes, "Octave")


def fold(op, names):
    """((x1 op x2) op x3) ...: Octave evaluates a chain of + left to right."""
    expr = names[0]
    for n in names[1:]:
        if USE_BSXFUN:
            expr = "bsxfun(@%s, %s, %s)" % (BSXFUN[op], expr, n)
        else:
            expr = "(" + OPERATORS[op] % (expr, n) + ")"
    return expr


# ---- shapes -------------------------------------------------------------------

def fold_bound(shapes):
    """An upper bound of the elements of the broadcast of `shapes`, if they
    broadcast (used only to decline questions too large to ask)."""
    bound = 1
    for k in range(1, max(len(s) for s in shapes) + 1):
        dims = [s[-k] for s in shapes if len(s) >= k]
        bound *= 0 if 0 in dims else max(dims)
    return bound


def result_shape(params, shapes):
    check_question(params, shapes)
    rank = max(len(s) for s in shapes)
    # The arrays built and the n - 1 results of the fold, in elements: kept
    # small so that a question takes milliseconds, not seconds.  Each step's
    # result is bounded on its own: an empty last operand does not make the
    # earlier steps small.
    work = sum(w.numel(s) for s in shapes)
    for n in range(2, len(shapes) + 1):
        work += fold_bound(shapes[:n])
    if work > BOUND:
        raise w.Unsupported("the arrays would hold more than %d elements in all: Octave has "
                            "no shape-only broadcast to ask" % BOUND)
    names = ["zeros(%s, 'int8')" % octave_size(s) for s in shapes]
    cls, size, _ = octave_call("bc_vals = false; bc_r = %s;" % fold(w.ADD, names))
    return from_octave_size(size, rank)


# ---- values -------------------------------------------------------------------

def gather(t):
    """The view's elements in row-major order: Octave has no strided arrays,
    so the worker copies the view (offsets, negative and zero strides, gaps)
    into a contiguous array, which Octave receives.  With NumPy (when
    installed) the copy is an as_strided view of unsigned integers of the
    element's width, copied bytes for bytes (rank 32 at most: NumPy's
    arrays go no further); else an element loop."""
    size = w.DTYPE_SIZE[t.dtype]
    n = t.numel()
    if n == 0:
        return b""
    if np is not None and len(t.dims) <= 32:
        buf = np.frombuffer(t.data, UINTS[size])
        view = as_strided(buf[t.offset:], shape=t.dims,
                          strides=[s * size for s in t.strides], writeable=False)
        return np.ascontiguousarray(view).tobytes()
    data = memoryview(t.data)
    out = bytearray()
    for idx in itertools.product(*[range(d) for d in t.dims]):
        e = t.offset + sum(i * s for i, s in zip(idx, t.strides))
        out += data[e * size:(e + 1) * size]
    return bytes(out)


def octave_array(t, i):
    """Octave statements setting bc_I to the tensor: its exact bytes, written
    to a file of the worker's, read back with fread and typecast."""
    path = os.path.join(TMP, "in%d.bin" % i)
    with open(path, "wb") as f:
        f.write(gather(t))
    size = octave_size(t.dims)
    read = "bc_f = fopen('%s', 'r'); bc_b = fread(bc_f, Inf, 'uint8=>uint8'); fclose(bc_f);" % path
    if t.dtype == w.BOOL:
        return "%s bc_%d = reshape(logical(bc_b), %s);" % (read, i, size)
    return "%s bc_%d = reshape(typecast(bc_b, '%s'), %s);" % (read, i, CLASSES[t.dtype], size)


def evaluate(req):
    check_question(req.params, req.shapes)
    dtype = req.inputs[0].dtype
    if dtype not in CLASSES:
        raise w.Unsupported("Octave has no %s" % w.DTYPE_NAMES[dtype])
    names = ["bc_%d" % i for i in range(len(req.inputs))]
    setup = " ".join(octave_array(t, i) for i, t in enumerate(req.inputs))
    if req.kind == w.VALUE_ELEMENTWISE:
        if dtype == w.BOOL and req.op in (w.ADD, w.MUL, w.SUB, w.DIV):
            raise w.Unsupported("Octave's arithmetic on logical gives double")
        expr = fold(req.op, names)
    elif req.kind == w.VALUE_SELECT:
        expr = "merge(%s, %s, %s)" % tuple(names)
    else:
        raise w.Unsupported("Octave has no broadcast_to or sum-to-shape operation")
    try:
        cls, size, raw = octave_call("%s bc_r = %s;" % (setup, expr))
    except OctaveError as e:
        if req.kind == w.VALUE_SELECT and "dimensions must match" in e.message:
            raise w.Unsupported("merge does not broadcast: %s" % e.message)
        raise
    want = CLASSES[req.out_dtype]
    if cls != want:
        raise RuntimeError("Octave computed %s, the question is for %s (%s)"
                           % (cls, want, w.DTYPE_NAMES[req.out_dtype]))
    shape = from_octave_size(size, max(len(s) for s in req.shapes))
    if len(raw) != w.numel(size) * w.DTYPE_SIZE[req.out_dtype]:
        raise RuntimeError("Octave sent %d bytes for a %s of size %s"
                           % (len(raw), cls, size))
    return shape, raw


CHILD, VERSION, USE_BSXFUN = start(sys.argv[1:])
OCTAVE = Octave(CHILD)

CAPS = w.Capabilities(
    "octave", VERSION,
    "GNU Octave %s automatic broadcasting: %s, merge (rule none: equal shapes only)"
    % (VERSION, "bsxfun" if USE_BSXFUN else "+ - .* ./ max min == < & |"),
    features=w.FEATURE_SHAPE | w.FEATURE_ELEMENTWISE | w.FEATURE_SELECT,
    rules=w.bits(w.RULE_NONE, w.RULE_NUMPY),
    ops=w.bits(*range(10)),
    dtypes=w.bits(w.BOOL, w.INT8, w.UINT8, w.INT32, w.INT64, w.FLOAT32, w.FLOAT64),
    max_rank=w.MAX_RANK, max_operands=w.MAX_OPERANDS)

if __name__ == "__main__":
    status = channel.serve(CAPS, result_shape, evaluate)
    CHILD.stdin.close()
    CHILD.wait()
    sys.exit(status)

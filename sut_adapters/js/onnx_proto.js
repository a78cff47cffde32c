'use strict';
/*
 * A minimal protobuf writer for one-node ONNX models, so that ort_worker.js
 * needs no protobuf or onnx package: only the fields of onnx.proto that a
 * model of one node needs are written (field numbers from onnx/onnx.proto).
 *
 *   ModelProto      ir_version 1, opset_import 8, graph 7
 *   OperatorSetId   domain 1, version 2
 *   GraphProto      node 1, name 2, initializer 5, input 11, output 12
 *   NodeProto       input 1, output 2, name 3, op_type 4
 *   ValueInfoProto  name 1, type 2
 *   TypeProto       tensor_type 1 -> elem_type 1, shape 2
 *   TensorShape     dim 1 -> dim_value 1 | dim_param 2
 *   TensorProto     dims 1, data_type 2, name 8, raw_data 9
 *
 * Protobuf wire format: a field is a key varint (number << 3 | wire type),
 * then a varint (type 0) or a length varint and that many bytes (type 2).
 */

// ONNX TensorProto.DataType values for broadcheck's dtypes (adapter.h order).
const ONNX_TYPE = { bool: 9, int8: 3, uint8: 2, int32: 6, int64: 7, float32: 1, float64: 11, float16: 10 };

// Opset 21 has the newest version of every operator used here (Add-14 ...
// Where-16, Expand-13, Equal-19); IR version 10 (ONNX 1.16) carries it.
// Opset 6's Sum, Max and Min do not broadcast (rule none); IR version 3
// is the one of that opset.
const OPSET = 21;
const irVersion = (opset) => (opset <= 6 ? 3 : 10);

function varint(value) {
  let v = BigInt.asUintN(64, BigInt(value)); // negatives: two's complement, 10 bytes
  const bytes = [];
  do {
    let byte = Number(v & 0x7fn);
    v >>= 7n;
    if (v !== 0n) byte |= 0x80;
    bytes.push(byte);
  } while (v !== 0n);
  return Buffer.from(bytes);
}

const key = (field, wireType) => varint((field << 3) | wireType);
const intField = (field, value) => Buffer.concat([key(field, 0), varint(value)]);
function bytesField(field, bytes) {
  const b = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes);
  return Buffer.concat([key(field, 2), varint(b.length), b]);
}
const stringField = (field, s) => bytesField(field, Buffer.from(s, 'utf8'));
const message = (field, parts) => bytesField(field, Buffer.concat(parts));

// dims: numbers (a fixed dim) or strings (a symbolic dim: any size at run
// time); null leaves the shape out (unknown rank: the output's, for ORT to infer).
function valueInfo(field, name, dtype, dims) {
  const tensorType = [intField(1, ONNX_TYPE[dtype])];
  if (dims) {
    tensorType.push(message(2, dims.map((d) =>
      message(1, [typeof d === 'string' ? stringField(2, d) : intField(1, d)]))));
  }
  return message(field, [stringField(1, name), message(2, [message(1, tensorType)])]);
}

/*
 * A model of one node `opType` with graph inputs `inputs` ({name, dtype,
 * dims}; dims null: shape unknown), one output `output` ({name, dtype, dims}), and constant
 * `initializers` ({name, dtype: 'int64', dims, values: BigInt64Array}),
 * which follow the graph inputs as the node's last inputs, in `opset` of
 * the default ONNX domain.
 */
function oneNodeModel({ opType, inputs, output, initializers = [], opset = OPSET }) {
  const node = message(1, [
    ...inputs.map((i) => stringField(1, i.name)),
    ...initializers.map((i) => stringField(1, i.name)),
    stringField(2, output.name),
    stringField(3, 'n'),
    stringField(4, opType),
  ]);
  const inits = initializers.map((i) => message(5, [
    ...Array.from(i.dims, (d) => intField(1, d)),
    intField(2, ONNX_TYPE[i.dtype]),
    stringField(8, i.name),
    bytesField(9, Buffer.from(i.values.buffer, i.values.byteOffset, i.values.byteLength)),
  ]));
  const graph = message(7, [
    node,
    stringField(2, 'broadcheck'),
    ...inits,
    ...inputs.map((i) => valueInfo(11, i.name, i.dtype, i.dims)),
    valueInfo(12, output.name, output.dtype, output.dims),
  ]);
  return Buffer.concat([
    intField(1, irVersion(opset)),
    stringField(2, 'broadcheck'),
    graph,
    message(8, [stringField(1, ''), intField(2, opset)]),
  ]);
}

module.exports = { oneNodeModel, ONNX_TYPE, OPSET };

/**
 * A reader for the safetensors format (what model2vec writes as `model.safetensors`):
 *   u64 little-endian N | N bytes of JSON header | data
 * The header maps each tensor name to { dtype, shape, data_offsets: [begin, end] }, offsets
 * relative to the start of the data; `__metadata__` holds free-form strings.
 *
 * Invariants:
 * - Everything is checked before a byte is read: the header length, its JSON, every dtype,
 *   shape and offset range, and that shape × element size equals the range. A damaged or
 *   truncated file is an Error naming the file and what is wrong, never a wrong number.
 * - Values come back as new, aligned typed arrays (the file's bytes are not kept).
 */

export type SafetensorsDtype = 'F64' | 'F32' | 'F16' | 'BF16' | 'I64' | 'I32' | 'I16' | 'I8' | 'U8' | 'BOOL';

const ELEMENT_BYTES: Record<SafetensorsDtype, number> = { F64: 8, F32: 4, F16: 2, BF16: 2, I64: 8, I32: 4, I16: 2, I8: 1, U8: 1, BOOL: 1 };
/** A header larger than this is no model2vec file (theirs are a few hundred bytes). */
const MAX_HEADER_BYTES = 100 * 1024 * 1024;

export interface TensorInfo {
  name: string;
  dtype: SafetensorsDtype;
  shape: number[];
  /** Absolute byte range in the file. */
  begin: number;
  end: number;
}

export interface Safetensors {
  tensors: Map<string, TensorInfo>;
  metadata: Record<string, string>;
  /** The whole file; tensors are read from it by `readFloat32` / `readInt`. */
  bytes: Uint8Array;
  /** For messages: the file's name or URL. */
  where: string;
}

function fail(where: string, what: string): never {
  throw new Error(`${where}: not a valid safetensors file (${what})`);
}

export function parseSafetensors(bytes: Uint8Array, where = 'model.safetensors'): Safetensors {
  if (bytes.length < 8) fail(where, `${bytes.length} bytes, shorter than the 8-byte header length`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const n = view.getBigUint64(0, true);
  if (n > BigInt(Math.min(MAX_HEADER_BYTES, bytes.length - 8))) fail(where, `header length ${n} exceeds the file`);
  const headerEnd = 8 + Number(n);
  let header: unknown;
  try {
    header = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(8, headerEnd)));
  } catch (e) {
    fail(where, `header is not JSON: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (typeof header !== 'object' || header === null || Array.isArray(header)) fail(where, 'header is not an object');
  const dataLength = bytes.length - headerEnd;
  const tensors = new Map<string, TensorInfo>();
  let metadata: Record<string, string> = {};
  for (const [name, raw] of Object.entries(header as Record<string, unknown>)) {
    if (name === '__metadata__') {
      if (typeof raw === 'object' && raw !== null) metadata = Object.fromEntries(Object.entries(raw).filter(([, v]) => typeof v === 'string')) as Record<string, string>;
      continue;
    }
    const t = raw as { dtype?: unknown; shape?: unknown; data_offsets?: unknown };
    if (typeof t !== 'object' || t === null) fail(where, `tensor "${name}" is not an object`);
    const dtype = t.dtype as SafetensorsDtype;
    if (typeof dtype !== 'string' || !(dtype in ELEMENT_BYTES)) fail(where, `tensor "${name}" has unsupported dtype ${JSON.stringify(t.dtype)}`);
    const shape = t.shape;
    if (!Array.isArray(shape) || !shape.every((d) => Number.isSafeInteger(d) && d >= 0)) fail(where, `tensor "${name}" has a bad shape ${JSON.stringify(shape)}`);
    const off = t.data_offsets;
    if (!Array.isArray(off) || off.length !== 2 || !off.every((d) => Number.isSafeInteger(d) && d >= 0) || off[0] > off[1]) {
      fail(where, `tensor "${name}" has bad data_offsets ${JSON.stringify(off)}`);
    }
    const [b, e] = off as [number, number];
    if (e > dataLength) fail(where, `tensor "${name}" ends at byte ${e} of ${dataLength} data bytes: the file is truncated`);
    const count = (shape as number[]).reduce((a, d) => a * d, 1);
    if (count * ELEMENT_BYTES[dtype] !== e - b) fail(where, `tensor "${name}": shape ${JSON.stringify(shape)} of ${dtype} needs ${count * ELEMENT_BYTES[dtype]} bytes, the offsets give ${e - b}`);
    tensors.set(name, { name, dtype, shape: shape as number[], begin: headerEnd + b, end: headerEnd + e });
  }
  return { tensors, metadata, bytes, where };
}

/** float16 bit pattern → float32 value, for all 65,536 patterns (built once, 256 KB). */
let f16Table: Float32Array | null = null;
function halfTable(): Float32Array {
  if (f16Table) return f16Table;
  const t = new Float32Array(65536);
  for (let h = 0; h < 65536; h++) {
    const sign = h & 0x8000 ? -1 : 1;
    const exp = (h >> 10) & 0x1f;
    const frac = h & 0x3ff;
    if (exp === 0) t[h] = sign * frac * 2 ** -24;
    else if (exp === 31) t[h] = frac ? NaN : sign * Infinity;
    else t[h] = sign * (1 + frac / 1024) * 2 ** (exp - 15);
  }
  return (f16Table = t);
}

/** The tensor's raw bytes in a fresh, aligned buffer. */
function aligned(st: Safetensors, t: TensorInfo): ArrayBuffer {
  return st.bytes.slice(t.begin, t.end).buffer;
}

const littleEndian = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** The tensor `name` and its bytes, aligned for a typed array of its element type. */
function tensorBytes(st: Safetensors, name: string): { t: TensorInfo; buf: ArrayBuffer } {
  const t = st.tensors.get(name);
  if (!t) throw new Error(`${st.where}: no tensor "${name}"`);
  if (!littleEndian && ELEMENT_BYTES[t.dtype] > 1) throw new Error('big-endian platforms are not supported');
  return { t, buf: aligned(st, t) };
}

/** A float or integer tensor as float32 values, row-major (integers are taken as they are, unscaled). */
export function readFloat32(st: Safetensors, name: string): Float32Array {
  const { t, buf } = tensorBytes(st, name);
  switch (t.dtype) {
    case 'F32': return new Float32Array(buf);
    case 'F64': return Float32Array.from(new Float64Array(buf));
    case 'F16': {
      const h = new Uint16Array(buf);
      const table = halfTable();
      const out = new Float32Array(h.length);
      for (let i = 0; i < h.length; i++) out[i] = table[h[i]];
      return out;
    }
    case 'BF16': {
      const h = new Uint16Array(buf);
      const bits = new Uint32Array(h.length);
      for (let i = 0; i < h.length; i++) bits[i] = h[i] << 16;
      return new Float32Array(bits.buffer);
    }
    case 'I8': return Float32Array.from(new Int8Array(buf));
    case 'U8': case 'BOOL': return Float32Array.from(new Uint8Array(buf));
    case 'I16': return Float32Array.from(new Int16Array(buf));
    case 'I32': return Float32Array.from(new Int32Array(buf));
    case 'I64': return Float32Array.from(new BigInt64Array(buf), (v) => Number(v));
  }
}

/** An integer tensor as int32 values; throws on floats or values outside int32. */
export function readInt32(st: Safetensors, name: string): Int32Array {
  const { t, buf } = tensorBytes(st, name);
  switch (t.dtype) {
    case 'I32': return new Int32Array(buf);
    case 'I16': return Int32Array.from(new Int16Array(buf));
    case 'I8': return Int32Array.from(new Int8Array(buf));
    case 'U8': return Int32Array.from(new Uint8Array(buf));
    case 'I64': {
      const v = new BigInt64Array(buf);
      const out = new Int32Array(v.length);
      for (let i = 0; i < v.length; i++) {
        const x = v[i];
        if (x < -2147483648n || x > 2147483647n) throw new Error(`${st.where}: tensor "${name}" holds ${x}, outside int32`);
        out[i] = Number(x);
      }
      return out;
    }
    default: throw new Error(`${st.where}: tensor "${name}" is ${t.dtype}, expected integers`);
  }
}

/** Writes a safetensors file (tests and the model generator): tensors in the order given. */
export function writeSafetensors(tensors: Array<{ name: string; dtype: SafetensorsDtype; shape: number[]; data: ArrayBufferView }>, metadata?: Record<string, string>): Uint8Array {
  const header: Record<string, unknown> = {};
  if (metadata) header.__metadata__ = metadata;
  let offset = 0;
  for (const t of tensors) {
    const size = t.data.byteLength;
    const want = t.shape.reduce((a, d) => a * d, 1) * ELEMENT_BYTES[t.dtype];
    if (size !== want) throw new Error(`writeSafetensors: "${t.name}" has ${size} bytes, its shape needs ${want}`);
    header[t.name] = { dtype: t.dtype, shape: t.shape, data_offsets: [offset, offset + size] };
    offset += size;
  }
  const json = new TextEncoder().encode(JSON.stringify(header));
  // Pad the header with spaces so the data starts 8-byte aligned, as the reference writer does.
  const head = new Uint8Array(Math.ceil((8 + json.length) / 8) * 8 - 8).fill(0x20);
  head.set(json);
  const out = new Uint8Array(8 + head.length + offset);
  new DataView(out.buffer).setBigUint64(0, BigInt(head.length), true);
  out.set(head, 8);
  let at = 8 + head.length;
  for (const t of tensors) {
    out.set(new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength), at);
    at += t.data.byteLength;
  }
  return out;
}

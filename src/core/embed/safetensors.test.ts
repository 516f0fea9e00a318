import { describe, expect, it } from 'vitest';
import { parseSafetensors, readFloat32, readInt32, writeSafetensors } from './safetensors.ts';

/** A file by hand: u64 header length, header JSON, data. */
function file(header: unknown, data: Uint8Array): Uint8Array {
  const h = new TextEncoder().encode(JSON.stringify(header));
  const out = new Uint8Array(8 + h.length + data.length);
  new DataView(out.buffer).setBigUint64(0, BigInt(h.length), true);
  out.set(h, 8);
  out.set(data, 8 + h.length);
  return out;
}

describe('safetensors', () => {
  it('round-trips tensors of every dtype the static models use', () => {
    const emb = Float32Array.from([1, -2, 0.5, 3.25, 0, -0.125]);
    const bytes = writeSafetensors([
      { name: 'embeddings', dtype: 'F32', shape: [3, 2], data: emb },
      { name: 'weights', dtype: 'F32', shape: [3], data: Float32Array.from([0.5, 1, 2]) },
      { name: 'mapping', dtype: 'I64', shape: [3], data: BigInt64Array.from([2n, 0n, 1n]) },
      { name: 'q', dtype: 'I8', shape: [4], data: Int8Array.from([-127, -1, 0, 127]) },
    ], { format: 'pt' });
    // The data starts 8-byte aligned.
    expect(Number(new DataView(bytes.buffer).getBigUint64(0, true)) % 8).toBe(0);
    const st = parseSafetensors(bytes);
    expect(st.metadata).toEqual({ format: 'pt' });
    expect(st.tensors.get('embeddings')!.shape).toEqual([3, 2]);
    expect(readFloat32(st, 'embeddings')).toEqual(emb);
    expect(readFloat32(st, 'weights')).toEqual(Float32Array.from([0.5, 1, 2]));
    expect(readInt32(st, 'mapping')).toEqual(Int32Array.from([2, 0, 1]));
    // int8 values come back as the integers stored (model2vec stores no scale).
    expect(readFloat32(st, 'q')).toEqual(Float32Array.from([-127, -1, 0, 127]));
  });

  it('decodes float16 and bfloat16 bit patterns', () => {
    const half = Uint16Array.from([0x3c00, 0xc000, 0x3800, 0x7bff, 0x0001, 0x8000, 0x7c00, 0x3555]);
    const bf = Uint16Array.from([0x3f80, 0xc040]);
    const st = parseSafetensors(writeSafetensors([
      { name: 'h', dtype: 'F16', shape: [8], data: half },
      { name: 'b', dtype: 'BF16', shape: [2], data: bf },
    ]));
    const h = readFloat32(st, 'h');
    expect([...h.subarray(0, 7)]).toEqual([1, -2, 0.5, 65504, 2 ** -24, -0, Infinity]);
    expect(h[7]).toBeCloseTo(1 / 3, 3);
    expect([...readFloat32(st, 'b')]).toEqual([1, -3]);
  });

  it('reads tensors whose data is not 4-byte aligned in the file', () => {
    const bytes = file(
      { a: { dtype: 'U8', shape: [1], data_offsets: [0, 1] }, b: { dtype: 'F32', shape: [2], data_offsets: [1, 9] } },
      Uint8Array.from([7, ...new Uint8Array(Float32Array.from([1.5, -4]).buffer)]),
    );
    const st = parseSafetensors(bytes);
    expect([...readFloat32(st, 'b')]).toEqual([1.5, -4]);
    expect([...readInt32(st, 'a')]).toEqual([7]);
  });

  it.each([
    { name: 'too short', bytes: new Uint8Array(5), error: /shorter than the 8-byte header length/ },
    { name: 'header length past the end', bytes: (() => { const b = new Uint8Array(16); new DataView(b.buffer).setBigUint64(0, 1000n, true); return b; })(), error: /header length 1000 exceeds the file/ },
    { name: 'header not JSON', bytes: (() => { const b = new Uint8Array(12); new DataView(b.buffer).setBigUint64(0, 4n, true); b.set([0x7b, 0x7b, 0x7b, 0x7b], 8); return b; })(), error: /header is not JSON/ },
    { name: 'unknown dtype', bytes: file({ e: { dtype: 'F8', shape: [1], data_offsets: [0, 1] } }, new Uint8Array(1)), error: /unsupported dtype "F8"/ },
    { name: 'bad shape', bytes: file({ e: { dtype: 'F32', shape: [-1], data_offsets: [0, 4] } }, new Uint8Array(4)), error: /bad shape/ },
    { name: 'offsets reversed', bytes: file({ e: { dtype: 'F32', shape: [1], data_offsets: [4, 0] } }, new Uint8Array(4)), error: /bad data_offsets/ },
    { name: 'truncated data', bytes: file({ e: { dtype: 'F32', shape: [4], data_offsets: [0, 16] } }, new Uint8Array(8)), error: /ends at byte 16 of 8 data bytes: the file is truncated/ },
    { name: 'shape and size disagree', bytes: file({ e: { dtype: 'F32', shape: [3], data_offsets: [0, 8] } }, new Uint8Array(8)), error: /needs 12 bytes, the offsets give 8/ },
  ])('rejects a damaged file: $name', ({ bytes, error }) => {
    expect(() => parseSafetensors(bytes, 'm/model.safetensors')).toThrow(error);
    expect(() => parseSafetensors(bytes, 'm/model.safetensors')).toThrow(/^m\/model\.safetensors: not a valid safetensors file/);
  });

  it('names a missing tensor and refuses floats as integers', () => {
    const st = parseSafetensors(writeSafetensors([{ name: 'w', dtype: 'F32', shape: [1], data: Float32Array.from([1]) }]), 'x.safetensors');
    expect(() => readFloat32(st, 'embeddings')).toThrow('x.safetensors: no tensor "embeddings"');
    expect(() => readInt32(st, 'w')).toThrow(/is F32, expected integers/);
  });
});

// Several ranges per request: the header, the multipart/byteranges parser and the cover rule.
import { describe, expect, it } from 'vitest';
import { byterangesBoundary, coverRanges, parseByteranges, parseContentRange, rangesHeader } from './byteranges.ts';

const enc = new TextEncoder();

function multipart(boundary: string, parts: Array<[number, Uint8Array]>, size: number): Uint8Array {
  const chunks: Uint8Array[] = [];
  for (const [start, bytes] of parts) {
    chunks.push(enc.encode(`\r\n--${boundary}\r\nContent-Type: application/octet-stream\r\nContent-Range: bytes ${start}-${start + bytes.length - 1}/${size}\r\n\r\n`), bytes);
  }
  chunks.push(enc.encode(`\r\n--${boundary}--\r\n`));
  return new Uint8Array(Buffer.concat(chunks));
}

describe('byteranges', () => {
  it('writes inclusive ranges and reads Content-Range back as [start, end)', () => {
    expect(rangesHeader([[0, 4096], [8192, 16384]])).toBe('bytes=0-4095,8192-16383');
    expect(parseContentRange('bytes 8192-16383/65536')).toEqual([8192, 16384]);
    expect(parseContentRange('bytes 5-4/9')).toBeNull();
    expect(parseContentRange('bytes */9')).toBeNull();
    expect(parseContentRange(null)).toBeNull();
  });

  it('finds the boundary of multipart/byteranges only', () => {
    expect(byterangesBoundary('multipart/byteranges; boundary=00000000000000000001')).toBe('00000000000000000001');
    expect(byterangesBoundary('Multipart/ByteRanges;boundary="a b"')).toBe('a b');
    expect(byterangesBoundary('application/octet-stream')).toBeNull();
    expect(byterangesBoundary('multipart/mixed; boundary=x')).toBeNull();
    expect(byterangesBoundary(null)).toBeNull();
  });

  it('cuts each part by its Content-Range, even when its bytes hold the boundary', () => {
    const size = 100_000;
    const a = enc.encode('--XYZ\r\n\r\n--XYZ--'); // the boundary inside the data
    const b = new Uint8Array(300).map((_, i) => i & 0xff);
    const parts = parseByteranges(multipart('XYZ', [[10, a], [5000, b]], size), 'XYZ');
    expect(parts.map((p) => [p.start, p.end])).toEqual([[10, 10 + a.length], [5000, 5300]]);
    expect([...parts[0]!.bytes]).toEqual([...a]);
    expect([...parts[1]!.bytes]).toEqual([...b]);
    const cut = coverRanges(parts, [[5000, 5100], [10, 12], [4000, 5050]]);
    expect([...cut[0]!]).toEqual([...b.subarray(0, 100)]);
    expect([...cut[1]!]).toEqual([...a.subarray(0, 2)]);
    expect(cut[2]).toBeNull(); // no part covers it whole
  });

  it('refuses a body that ends inside a part or has no closing boundary', () => {
    const body = multipart('B', [[0, new Uint8Array(50)]], 100);
    expect(() => parseByteranges(body.subarray(0, body.length - 30), 'B')).toThrow(/ended inside a part/);
    expect(() => parseByteranges(body.subarray(0, body.length - 8), 'B')).toThrow(/closing boundary/);
    expect(() => parseByteranges(enc.encode('no parts here'), 'B')).toThrow(/boundary/);
  });
});

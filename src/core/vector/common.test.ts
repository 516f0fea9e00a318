import { describe, expect, it } from 'vitest';
import { SlotMap, clampK } from './common.ts';

describe('SlotMap', () => {
  it.each([
    // [capacity, ids claimed, id released, expected hole, expected live ids in slot order]
    [4, [10, 20, 30], 10, 0, [30, 20]],
    [4, [10, 20, 30], 20, 1, [10, 30]],
    [4, [10, 20, 30], 30, -1, [10, 20]],
    [4, [10, 20, 30], 99, -1, [10, 20, 30]],
    [1, [7], 7, -1, []],
  ])('capacity %i, claim %j, release %i → hole %i, live %j', (cap, claimed, released, hole, live) => {
    const slots = new SlotMap(cap);
    slots.reserve(claimed.length);
    for (const id of claimed) slots.claim(id);
    expect(slots.release(released)).toBe(hole);
    expect(Array.from(slots.ids.subarray(0, slots.size))).toEqual(live);
    for (const [s, id] of live.entries()) expect(slots.slot(id)).toBe(s);
    expect(slots.has(released)).toBe(false);
  });

  it('claim returns the existing slot for a live id', () => {
    const slots = new SlotMap(2);
    expect([slots.claim(5), slots.claim(6), slots.claim(5)]).toEqual([0, 1, 0]);
    expect(slots.size).toBe(2);
  });

  it('reserve grows geometrically, keeps ids, and reports 0 when there is room', () => {
    const slots = new SlotMap(4);
    for (const id of [1, 2, 3]) slots.claim(id);
    expect(slots.reserve(4)).toBe(0);
    expect(slots.reserve(5)).toBe(6);
    expect(slots.reserve(100)).toBe(100);
    expect(slots.capacity).toBe(100);
    expect(Array.from(slots.ids.subarray(0, slots.size))).toEqual([1, 2, 3]);
  });

  it('stays consistent with a reference set over random claims and releases', () => {
    const slots = new SlotMap(1);
    const model = new Set<number>();
    let seed = 12345;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % 50;
    for (let step = 0; step < 2000; step++) {
      const id = next();
      if (step % 3 === 0) {
        const lastId = slots.ids[slots.size - 1];
        const hole = slots.release(id);
        model.delete(id);
        // The former last id fills the hole, if there was one.
        if (hole >= 0) expect(slots.ids[hole]).toBe(lastId);
      } else {
        slots.reserve(slots.size + 1);
        slots.claim(id);
        model.add(id);
      }
      expect(slots.size).toBe(model.size);
    }
    const live = Array.from(slots.ids.subarray(0, slots.size));
    expect(new Set(live)).toEqual(model);
    for (const [s, id] of live.entries()) expect(slots.slot(id)).toBe(s);
  });

  it('load takes a payload as slots 0..n-1; clear empties it', () => {
    const slots = new SlotMap(3);
    slots.load(Uint32Array.from([9, 4, 7]));
    expect([slots.size, slots.slot(4), slots.has(7)]).toEqual([3, 1, true]);
    expect(slots.memoryBytes()).toBe(3 * 4 + 3 * 40);
    slots.clear();
    expect([slots.size, slots.has(9), slots.capacity]).toEqual([0, false, 0]);
  });
});

describe('clampK', () => {
  it.each([
    [10, 5, 5], [3, 5, 3], [-1, 5, 0], [2.9, 5, 2], [Infinity, 5, 5], [0, 0, 0],
  ])('clampK(%d, %d) = %d', (k, size, want) => {
    expect(clampK(k, size)).toBe(want);
  });
});

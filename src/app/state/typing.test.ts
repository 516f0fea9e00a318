import { describe, expect, it } from 'vitest';
import { isKeystroke } from './typing.ts';

describe('isKeystroke', () => {
  it.each([
    ['', 'k'],
    ['kfre', 'kfree'],
    ['kfree', 'kfre'],
    ['kfXee', 'kfree'], // one character typed over a selection of one
    ['k free', 'kfree'],
    ['kfree', 'kfree'],
    ['naïv', 'naïve'],
    ['🙂', ''],
  ])('%j → %j is a keystroke', (a, b) => {
    expect(isKeystroke(a, b)).toBe(true);
  });
  it.each([
    ['', 'kfree'], // pasted into an empty box
    ['kfree', 'spin_lock_irqsave'], // a query replaced by another
    ['flush the workqueue', 'flush the '], // a word deleted at once
    ['kfree', ''], // cleared
    ['ab', 'ab12'],
  ])('%j → %j arrived whole', (a, b) => {
    expect(isKeystroke(a, b)).toBe(false);
  });
});

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FOCUS_RESCAN_MIN_MS, FolderWatch, OBSERVER_DEBOUNCE_MS, type ObserverCtor } from './folder-watch.ts';

/** A stand-in for the browser's FileSystemObserver (Node has none): records what it observes and lets the test fire changes. */
function fakeObserver(opts: { failObserve?: boolean } = {}) {
  const live: Array<{ fire(): void; disconnected: boolean }> = [];
  const Ctor = class {
    disconnected = false;
    constructor(readonly cb: (records: unknown[]) => void) {
      live.push(this as unknown as { fire(): void; disconnected: boolean });
    }
    fire() {
      this.cb([{ type: 'modified' }]);
    }
    observe() {
      return opts.failObserve ? Promise.reject(new Error('not allowed')) : Promise.resolve();
    }
    disconnect() {
      this.disconnected = true;
    }
  };
  return { Ctor: Ctor as unknown as ObserverCtor, live };
}

const handle = {} as FileSystemDirectoryHandle;

describe('FolderWatch', () => {
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => void vi.useRealTimers());

  it('coalesces a burst of changes into one rescan after the debounce', () => {
    const rescans: string[] = [];
    const { Ctor, live } = fakeObserver();
    const w = new FolderWatch({ rescan: (id) => rescans.push(id), Observer: Ctor });
    w.observe('a', handle);
    w.observe('a', handle); // one observer per codebase
    expect(live).toHaveLength(1);
    for (let i = 0; i < 5; i++) {
      live[0]!.fire();
      vi.advanceTimersByTime(OBSERVER_DEBOUNCE_MS - 1);
    }
    expect(rescans).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(rescans).toEqual(['a']);
  });

  it('focus rescans only unobserved folders not checked within FOCUS_RESCAN_MIN_MS', () => {
    let now = 100_000;
    const rescans: string[] = [];
    const { Ctor } = fakeObserver();
    const w = new FolderWatch({ rescan: (id) => rescans.push(id), Observer: Ctor, now: () => now });
    w.observe('observed', handle);
    w.checked('recent');
    w.focus(['observed', 'recent', 'stale']);
    expect(rescans).toEqual(['stale']);
    now += FOCUS_RESCAN_MIN_MS;
    w.focus(['observed', 'recent']);
    expect(rescans).toEqual(['stale', 'recent']);
  });

  it('without FileSystemObserver, or when observing fails, focus covers the folder', async () => {
    const rescans: string[] = [];
    const none = new FolderWatch({ rescan: (id) => rescans.push(id) });
    none.observe('a', handle);
    expect(none.isObserved('a')).toBe(false);
    const { Ctor } = fakeObserver({ failObserve: true });
    const failing = new FolderWatch({ rescan: (id) => rescans.push(id), Observer: Ctor });
    failing.observe('b', handle);
    await Promise.resolve();
    await Promise.resolve();
    expect(failing.isObserved('b')).toBe(false);
    failing.focus(['b']);
    expect(rescans).toEqual(['b']);
  });

  it('forget disconnects and drops a pending rescan', () => {
    const rescans: string[] = [];
    const { Ctor, live } = fakeObserver();
    const w = new FolderWatch({ rescan: (id) => rescans.push(id), Observer: Ctor });
    w.observe('a', handle);
    live[0]!.fire();
    w.forget('a');
    vi.advanceTimersByTime(OBSERVER_DEBOUNCE_MS * 2);
    expect(rescans).toEqual([]);
    expect(live[0]!.disconnected).toBe(true);
    expect(w.isObserved('a')).toBe(false);
  });
});

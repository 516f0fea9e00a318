/**
 * User-visible messages and the one error path. `handleError` is where every failed action
 * ends: AbortError is silence (the user or a newer request cancelled), known conditions
 * become plain sentences, anything else is shown with its message.
 */
import { isAbortError } from '../../core/cancel.ts';
import { classify } from '../../core/store/errors.ts';

export type NoticeKind = 'error' | 'warning' | 'info';

export interface Notice {
  id: number;
  kind: NoticeKind;
  text: string;
}

/** Info notices disappear after this long; errors stay until dismissed. */
const INFO_TTL_MS = 6000;
const MAX_NOTICES = 5;

class Notices {
  #items = $state.raw<Notice[]>([]);
  #next = 1;

  get items(): Notice[] {
    return this.#items;
  }

  push(kind: NoticeKind, text: string): number {
    // The same message twice in a row is one notice.
    const same = this.#items.find((n) => n.text === text && n.kind === kind);
    if (same) return same.id;
    const id = this.#next++;
    this.#items = [...this.#items, { id, kind, text }].slice(-MAX_NOTICES);
    if (kind === 'info') setTimeout(() => this.dismiss(id), INFO_TTL_MS);
    return id;
  }

  dismiss(id: number): void {
    this.#items = this.#items.filter((n) => n.id !== id);
  }
}

export const notices = new Notices();

/**
 * A sentence for a failure, by its kind (core/store/errors.ts classify — the same
 * classification the CLI uses; names, codes and kinds survive the worker boundary). Only a
 * damaged index is told to rebuild; everything else says the index is kept.
 */
export function describeError(e: unknown): string {
  const { kind, message } = classify(e);
  switch (kind) {
    case 'storage-full':
      return 'Browser storage is full. Remove a codebase or free up disk space; what was indexed so far is kept.';
    case 'permission-lost':
      return 'Permission to read the folder was lost. Use “Restore access” to grant it again; the index stays searchable.';
    case 'not-found':
      return 'The folder or file is gone (moved or deleted). The index stays searchable.';
    case 'busy':
      return 'The database is busy in another tab. Close other Sift tabs or wait for them to finish.';
    case 'corrupt':
      return `The index is damaged (${message}). Remove the codebase and open the folder again to rebuild it.`;
    case 'newer-schema':
      return 'This index was written by a newer version of Sift. Reload to update the app; the index was not changed.';
    default:
      return message || 'Something went wrong.';
  }
}

export function handleError(e: unknown, context?: string): void {
  if (isAbortError(e)) return;
  console.error(context ?? 'sift', e);
  notices.push('error', context ? `${context}: ${describeError(e)}` : describeError(e));
}

/**
 * The file viewer's history entry. Opening the viewer adds one entry (same URL, `siftViewer` in
 * its state), so Back closes the viewer instead of leaving the search (on a phone, Back is how a
 * sheet is dismissed). Closing it another way (✕, Esc) steps back off that entry at once, from
 * the person's own click or key, so one Back later leaves the search as it would had the viewer
 * never opened. That step lands asynchronously: what the person does before it lands (a query
 * typed and run, the viewer opened again) is kept, not reverted by the entry returned to
 * (viewer.svelte.ts `leaving`, App's popstate handler). A second step taken from a popstate
 * handler instead raced the browser's own traversal and was sometimes dropped.
 */
const VIEWER_ENTRY = 'siftViewer';

type State = Record<string, unknown> | null;

const asState = (state: unknown): State => (typeof state === 'object' && state !== null ? (state as Record<string, unknown>) : null);

/** Whether a history entry is one the viewer added. */
export const isViewerEntry = (state: unknown): boolean => asState(state)?.[VIEWER_ENTRY] === true;

/** The state for the viewer's entry: the current entry's, marked. */
export const viewerEntryState = (state: unknown): Record<string, unknown> => ({ ...asState(state), [VIEWER_ENTRY]: true });

/** A state to copy into a new entry that is not the viewer's (a page of the app). */
export function pageEntryState(state: unknown): State {
  const s = asState(state);
  if (!s || !(VIEWER_ENTRY in s)) return s;
  const { [VIEWER_ENTRY]: _, ...rest } = s;
  return rest;
}

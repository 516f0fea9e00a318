/**
 * The file viewer's history entry. Opening the viewer adds one entry (same URL, `siftViewer` in
 * its state), so Back closes the viewer instead of leaving the search (on a phone, Back is how a
 * sheet is dismissed). Closing it another way (✕, Esc) does not touch history: a step back
 * lands asynchronously and raced whatever the person did next (a query typed and run at once was
 * reverted by the entry returned to). The entry then stays, and Back from it would land on the
 * entry it was opened from, which shows the same thing: App steps back once more then.
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

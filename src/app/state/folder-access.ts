/**
 * Read access to a folder handle, as the page sees it: granted, waiting for a user gesture
 * (prompt), refused, or gone (the folder was moved or deleted).
 *
 * Invariant: `granted` means the folder was actually listed, not just that the permission
 * says so (a granted handle to a deleted folder reports `missing`).
 */

export type Access = 'granted' | 'prompt' | 'denied' | 'missing' | 'none';

type PermissionHandle = FileSystemDirectoryHandle & {
  queryPermission?(d: { mode: 'read' }): Promise<PermissionState>;
  requestPermission?(d: { mode: 'read' }): Promise<PermissionState>;
};

export async function queryAccess(handle: FileSystemDirectoryHandle): Promise<Access> {
  const h = handle as PermissionHandle;
  try {
    const state = h.queryPermission ? await h.queryPermission({ mode: 'read' }) : 'granted';
    if (state !== 'granted') return state === 'denied' ? 'denied' : 'prompt';
    // Granted but gone? Reading the first entry tells.
    const it = (handle as unknown as { keys(): AsyncIterableIterator<string> }).keys();
    await it.next();
    await it.return?.();
    return 'granted';
  } catch (e) {
    return (e as { name?: string }).name === 'NotFoundError' ? 'missing' : 'denied';
  }
}

/** Asks the user (needs a user gesture), then checks the folder is really there. */
export async function requestAccess(handle: FileSystemDirectoryHandle): Promise<Access> {
  const h = handle as PermissionHandle;
  const state = h.requestPermission ? await h.requestPermission({ mode: 'read' }) : 'granted';
  return state === 'granted' ? queryAccess(handle) : state === 'denied' ? 'denied' : 'prompt';
}

// Types for the wa-sqlite modules that the package's own index.d.ts does not declare.
// Only the members Sift uses are listed.

declare module '@journeyapps/wa-sqlite/src/FacadeVFS.js' {
  import * as VFS from '@journeyapps/wa-sqlite/src/VFS.js';
  export class FacadeVFS extends VFS.Base {
    constructor(name: string, module: object);
    jOpen(filename: string | null, fileId: number, flags: number, pOutFlags: DataView): number;
    jDelete(filename: string, syncDir: number): number;
    jAccess(filename: string, flags: number, pResOut: DataView): number;
    jFullPathname(filename: string, zOut: Uint8Array): number;
    jClose(fileId: number): number;
    jRead(fileId: number, pData: Uint8Array, iOffset: number): number;
    jWrite(fileId: number, pData: Uint8Array, iOffset: number): number;
    jTruncate(fileId: number, size: number): number;
    jSync(fileId: number, flags: number): number;
    jFileSize(fileId: number, pSize64: DataView): number;
    jLock(fileId: number, lockType: number): number;
    jUnlock(fileId: number, lockType: number): number;
    jCheckReservedLock(fileId: number, pResOut: DataView): number;
    jSectorSize(fileId: number): number;
    jDeviceCharacteristics(fileId: number): number;
  }
}

declare module '@journeyapps/wa-sqlite/src/examples/OPFSCoopSyncVFS.js' {
  import { FacadeVFS } from '@journeyapps/wa-sqlite/src/FacadeVFS.js';
  export class OPFSCoopSyncVFS extends FacadeVFS {
    static create(name: string, module: object): Promise<OPFSCoopSyncVFS>;
    /** The last exception a VFS method caught (e.g. a QuotaExceededError from a write). */
    lastError: unknown;
  }
}

/**
 * Types for the Emscripten factory inside hnswlib-wasm 0.8.2. hnsw.ts imports the factory
 * chunk directly because the package entry's loadHnswlib() also mounts IDBFS, which Sift
 * does not use (it persists vectors itself) and which cannot start in Node.
 */
declare module 'hnswlib-wasm/dist/hnswlib-317962d7.js' {
  export interface HnswSearchResult {
    distances: number[];
    neighbors: number[];
  }
  export interface HierarchicalNSW {
    initIndex(maxElements: number, m: number, efConstruction: number, randomSeed: number): void;
    resizeIndex(newMaxElements: number): void;
    addPoint(point: Float32Array, label: number, replaceDeleted: boolean): void;
    addPoints(points: Float32Array[], labels: number[], replaceDeleted: boolean): void;
    markDelete(label: number): void;
    unmarkDelete(label: number): void;
    searchKnn(query: Float32Array, k: number, filter: ((label: number) => boolean) | undefined): HnswSearchResult;
    getMaxElements(): number;
    getCurrentCount(): number;
    setEfSearch(ef: number): void;
    delete(): void;
  }
  export interface HnswlibModule {
    HierarchicalNSW: new (space: 'l2' | 'ip' | 'cosine', dim: number, autoSaveFilename: string) => HierarchicalNSW;
    getExceptionMessage(e: unknown): [string, string];
    HEAPU8: Uint8Array;
  }
  const factory: (moduleArg?: object) => Promise<HnswlibModule>;
  export default factory;
}

/// <reference types="svelte" />
/// <reference types="vite/client" />

/** Origins besides the app's own that published indexes may be opened from (build-time SIFT_PACK_ORIGINS; vite-plugins/sift-pwa.ts). */
declare const __SIFT_PACK_ORIGINS__: string[];

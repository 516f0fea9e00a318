/**
 * The files of the model a ModelConfig names (the embedder worker and its static helpers read
 * the same ones): the Hub (behind Cache Storage) only for a 'hub' config — consent given.
 */
import type { ModelConfig } from './api.ts';
import type { ModelFiles } from '../../src/core/embed/model-files.ts';
import { appBaseUrl } from '../../src/core/embed/ort-assets.ts';
import { importedModelFiles } from './opfs-models.ts';
import { hubModelFiles, servedModelFiles } from './model-files.ts';

export function modelFilesFor(cfg: ModelConfig): ModelFiles {
  if (cfg.source === 'hub') return hubModelFiles(cfg.modelId);
  if (cfg.source === 'opfs') return importedModelFiles(cfg.modelId);
  return servedModelFiles(new URL('models/', appBaseUrl()).href, cfg.modelId, cfg.files ?? []);
}

/**
 * What kind of file a path is, for the `intent` of the search tool: tests, docs, config, or
 * source. By path and language only (no file is read).
 */
export type FileKind = 'source' | 'test' | 'docs' | 'config';

const DOC_LANGUAGES = new Set(['markdown', 'rst', 'text', 'asciidoc', 'org', 'latex']);
const CONFIG_LANGUAGES = new Set(['json', 'yaml', 'toml', 'ini', 'xml', 'properties', 'hcl', 'dockerfile', 'make', 'cmake', 'nix']);
const TEST_PATH = /(^|\/)(tests?|__tests__|spec|specs|testing|testdata)\/|(^|\/)test_[^/]*$|[._-](test|spec)s?\.[^/.]+$|_test\.go$|Tests?\.(java|kt|cs|swift)$/i;
const DOC_PATH = /(^|\/)(docs?|documentation)\/|(^|\/)(readme|changelog|contributing|license|notice)(\.[^/]*)?$/i;
const CONFIG_NAME = /(^|\/)(\.[^/]*rc|[^/]*\.config\.[cm]?[jt]s|[^/]*\.(conf|cfg|ini|env\.example|toml|ya?ml)|dockerfile|makefile|package\.json|tsconfig[^/]*\.json|setup\.cfg|pyproject\.toml|cargo\.toml|go\.mod)$/i;

export function fileKind(path: string, language: string): FileKind {
  if (TEST_PATH.test(path)) return 'test';
  if (DOC_LANGUAGES.has(language) || DOC_PATH.test(path)) return 'docs';
  if (CONFIG_LANGUAGES.has(language) || CONFIG_NAME.test(path)) return 'config';
  return 'source';
}

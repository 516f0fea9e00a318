/**
 * `s` as a literal inside a regular expression: every syntax character and `/` escaped. Valid
 * with and without the `u` flag (where any other escape, such as `\-`, is an error), and in RE2.
 */
export function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

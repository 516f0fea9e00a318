/**
 * What counts as a line that declares an operator (literal.ts declarationLine): the tiers of a
 * query with no letter or digit. The search end to end is in search.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { declarationLine } from './literal.ts';

describe('declarationLine', () => {
  it.each([
    ['++', '  def ++(other: Chain): Chain = x'],
    [':<|>', 'data a :<|> b = a :<|> b'],
    [':>', 'type a :> b = X'],
    ['==', '  bool operator==(const X&) const;'],
    ['+', '  static func + (l: V, r: V) -> V'],
    ['.:', '(.:) :: FromJSON a => Object -> Key -> Parser a'],
    ['<$>', '(<$>) = fmap'],
    [':<|>', 'infixr 3 :<|>'],
    ['<*>', 'infixl 4 <$>, <*>'],
    ['.:', 'obj .: key = explicitParseField parseJSON obj key'],
    ['|>', '  defmacro left |> right do'],
  ])('%s is declared by %j', (op, line) => {
    expect(declarationLine(op).test(line)).toBe(true);
  });

  it.each([
    ['<>', '    if String.starts_with?(data, [prefix <> "-"]) do'],
    ['<>', '  data <> rest'],
    ['<>', '      {:ok, prefix <> "-" <> data}'],
    ['==', '  if a == b = c'],
    ['.:', '  v <- obj .: "key"'],
    ['+', '  total = total + step'],
    ['++', '  val all = xs ++ ys'],
  ])('%s is only used by %j', (op, line) => {
    expect(declarationLine(op).test(line)).toBe(false);
  });
});

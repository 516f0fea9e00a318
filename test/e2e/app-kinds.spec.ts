/**
 * Search quality in the app (issue 25): a Kotlin and an Elixir library with tests, docs and an
 * example beside the code. A code question finds the implementation first, the test, docs and
 * example below it; a question about tests puts the test first; the File kind
 * filter and the First (intent) choice live in the URL; a qualified Elixir name and a
 * Kotlin member are definitions of their own; explain shows the file-level signals.
 */
import { test, expect } from '@playwright/test';
import { installPicker, type FixtureFolder } from './helpers/opfs-fixture.ts';
import { resetApp, resultPaths, searchFor, waitIndexed } from './helpers/app.ts';

const b64 = (s: string) => Buffer.from(s).toString('base64');
const retryKt = `package net.example.http

/** Retries a failed call with exponential backoff: each attempt waits twice as long. */
class RetryPolicy(private val maxAttempts: Int) {
    /** The delay before attempt [n]: the base delay doubled per attempt, capped. */
    fun backoffDelay(n: Int): Long = minOf(100L shl n, 10_000L)

    /** Runs [call], retrying with backoff until it succeeds or the attempts run out. */
    fun <T> retry(call: () -> T): T {
        var attempt = 0
        while (true) {
            try { return call() } catch (e: Exception) {
                if (++attempt >= maxAttempts) throw e
                Thread.sleep(backoffDelay(attempt))
            }
        }
    }
}
`;
const fixture: FixtureFolder = {
  name: 'kinds',
  files: {
    'src/main/kotlin/net/example/http/RetryPolicy.kt': b64(retryKt),
    'src/main/kotlin/net/example/http/Client.kt': b64('package net.example.http\n\nclass Client(val policy: RetryPolicy) {\n    fun get(url: String): String = policy.retry { fetch(url) }\n    private fun fetch(url: String): String = url\n}\n'),
    'src/test/kotlin/net/example/http/RetryPolicyTest.kt': b64('package net.example.http\n\nclass RetryPolicyTest {\n    // retry with backoff: a failed call is retried, the backoff delay doubles, retries stop after max attempts\n    fun retriesWithBackoff() { RetryPolicy(3).retry { 1 } }\n    fun backoffDelayDoubles() { check(RetryPolicy(3).backoffDelay(2) == 400L) }\n}\n'),
    'docs/retries.md': b64('# Retries\n\nA failed call is retried with exponential backoff. The backoff delay doubles with each retry,\nand retries stop after the maximum number of attempts. Configure retries with RetryPolicy.\n'),
    'examples/retry/Main.kt': b64('fun main() {\n    // retry a failed call with backoff\n    println(RetryPolicy(5).retry { "ok" })\n}\n'),
    'lib/plug/conn.ex': b64('defmodule Plug.Conn do\n  @moduledoc "The connection."\n\n  def send_resp(conn, status, body) do\n    %{conn | status: status, resp_body: body}\n  end\n\n  def put_status(conn, status), do: %{conn | status: status}\nend\n'),
  },
};

test.beforeEach(async ({ page }) => {
  await installPicker(page, { default: fixture });
  await resetApp(page);
});

test('code questions find the implementation, test questions the test; kind filter, intent and explain', async ({ page }) => {
  await page.getByRole('button', { name: 'Open folder…' }).click();
  await waitIndexed(page, 'kinds', 6);
  await page.getByText('Keyword', { exact: true }).click();

  await searchFor(page, 'retry a failed call with backoff');
  const paths = await resultPaths(page);
  expect(paths[0]).toBe('src/main/kotlin/net/example/http/RetryPolicy.kt');
  // Tests, docs and the example rank below the implementation, and diversity keeps them near the top.
  for (const p of ['src/test/kotlin/net/example/http/RetryPolicyTest.kt', 'docs/retries.md', 'examples/retry/Main.kt']) {
    expect(paths.indexOf(p), p).toBeGreaterThan(0);
    expect(paths.indexOf(p), p).toBeLessThan(6);
  }
  await expect(page.getByTestId('result').filter({ hasText: 'RetryPolicyTest.kt' }).first().getByTestId('result-kind')).toHaveText('test');
  await page.getByTestId('result').first().getByRole('button', { name: 'Explain' }).click();
  await expect(page.getByTestId('bm25-signals')).toContainText('path');
  await page.screenshot({ path: 'test-results/screens/kinds-code-question.png', fullPage: true });

  await searchFor(page, 'tests for retry with backoff');
  expect((await resultPaths(page))[0]).toBe('src/test/kotlin/net/example/http/RetryPolicyTest.kt');

  // The File kind filter keeps only docs; the URL holds it.
  await searchFor(page, 'retry a failed call with backoff');
  await page.getByTestId('filter-kind').locator('summary').click();
  await page.getByTestId('filter-kind').getByLabel('docs').check();
  await expect.poll(() => resultPaths(page)).toEqual(['docs/retries.md']);
  expect(page.url()).toContain('kind=docs');
  await page.getByRole('button', { name: 'Clear filters' }).click();

  // First: Docs puts the prose first.
  await page.getByTestId('filter-intent').selectOption('docs');
  await expect.poll(async () => (await resultPaths(page))[0]).toBe('docs/retries.md');
  expect(page.url()).toContain('intent=docs');
  await page.getByRole('button', { name: 'Clear filters' }).click();

  // Members are definitions of their own, with their container; a qualified name finds them.
  await searchFor(page, 'Plug.Conn.send_resp');
  const first = page.getByTestId('result').first();
  await expect(first.getByTestId('result-path')).toHaveText('lib/plug/conn.ex');
  await expect(first.getByTestId('result-symbol')).toHaveText('Plug.Conn.send_resp');
  await searchFor(page, 'backoffDelay');
  await expect(page.getByTestId('result').first().getByTestId('result-symbol')).toHaveText('RetryPolicy.backoffDelay');
  await page.screenshot({ path: 'test-results/screens/kinds-members.png', fullPage: true });
});

/* eslint-disable @typescript-eslint/no-unsafe-return -- functions run in the page: puppeteer types their elements with the DOM lib, which this Node program does not load */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { closeRedis, createRedis, type RedisClient } from '@mesh/config';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { RoutingTableRepository } from '@mesh/routing';
import { RouterHeartbeatRepository } from '@mesh/signals';
import { ndjsonOf, startWorker, submitNdjson } from './support/bulk-jobs';
import { ACME_KEY, GLOBEX_KEY, call, hostPort, startMesh, type Mesh } from './support/router-mesh';
import { ROOT, startApp, uniquePrefix, type StartedApp } from './support/app-process';
import { pollUntil } from './support/poll';

jest.setTimeout(180_000);

// Globals of the page, for the functions run inside it. Declared here, in this module only:
// the DOM lib must not leak into the Node programs the project type-checks together.
interface PageElement {
  textContent: string | null;
  getAttribute(name: string): string | null;
}
declare const document: {
  querySelector(selector: string): PageElement | null;
  documentElement: { scrollWidth: number; clientWidth: number };
};
declare const location: { hash: string };
declare const localStorage: { length: number };
declare const sessionStorage: { length: number };

/** Debian's chromium package; `.ci/run` installs it when absent. */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/lib/chromium/chromium';
const ARTIFACTS = join(ROOT, 'test-artifacts');
const ADMIN = 'dashboard-e2e-admin-key';
const prefix = uniquePrefix(__filename);

let mesh: Mesh;
let coordinator: StartedApp;
let worker: StartedApp | undefined;
let redis: RedisClient;
let browser: Browser;
let page: Page;
/** Console errors and uncaught exceptions of the page: the suite ends by asserting none. */
const pageErrors: string[] = [];

async function open(view: string): Promise<void> {
  await page.evaluate((v) => (location.hash = `#/${v}`), view);
  await page.waitForSelector(`#view[data-view="${view}"][data-updated]`, { timeout: 60_000 });
}

async function screenshot(name: string): Promise<void> {
  await page.screenshot({ path: join(ARTIFACTS, `dashboard-${name}.png`), fullPage: true });
}

/** Polls the page until `fn` (run in the browser) returns a non-null value. */
function waitInPage<T>(fn: () => T | null, what: string, timeoutMs = 60_000): Promise<T> {
  return pollUntil(async () => (await page.evaluate(fn)) ?? undefined, {
    timeoutMs,
    intervalMs: 200,
    what,
  });
}

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install chromium`);
  mkdirSync(ARTIFACTS, { recursive: true });
  redis = createRedis('commands', {
    url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    name: 'dashboard-ui-e2e',
  });
  mesh = await startMesh(prefix, {
    routerEnv: { JOBS_CHUNK_SIZE: '50', ROUTER_ROUTES_REFRESH_MS: '500' },
    // Explicit mode, as production Triton runs: a rollout's drain unloads the old version.
    hostEnv: { MODEL_CONTROL_MODE: 'explicit', LOAD_MODELS: '*' },
  });
  coordinator = await startApp('coordinator', {
    COORDINATOR_PORT: '0',
    REDIS_KEY_PREFIX: prefix,
    ADMIN_API_KEY: ADMIN,
    KSERVE_ENDPOINTS: hostPort(mesh.host.urls.grpc!),
    COORDINATOR_TICK_MS: '250',
  });
  browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    // CI runs as root, where Chromium's sandbox cannot start.
    args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'],
  });
  page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 800 });
  page.on('console', (msg) => {
    if (msg.type() === 'error') pageErrors.push(`console: ${msg.text()}`);
  });
  page.on('pageerror', (err) => pageErrors.push(`page: ${String(err)}`));
  page.on('dialog', (dialog) => void dialog.accept());
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await worker?.stop('SIGKILL');
  await coordinator?.stop('SIGKILL');
  await mesh?.stop();
  if (redis) {
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    await closeRedis(redis);
  }
});

describe('operator dashboard in headless Chromium (mesh up as processes)', () => {
  it('refuses a wrong key, then signs in with the admin key kept in memory only', async () => {
    await page.goto(`${coordinator.urls.http}/ui`, { waitUntil: 'load' });
    await page.type('#admin-key', 'not-the-key');
    await page.click('button[type="submit"]');
    await page.waitForSelector('[role="alert"]');
    expect(await page.$eval('[role="alert"]', (el) => el.textContent)).toContain('refused');
    // Chromium logs the refused request (403) itself; from here on the page must log nothing.
    expect(pageErrors).toEqual([expect.stringContaining('status of 403')]);
    pageErrors.length = 0;
    await page.type('#admin-key', ADMIN);
    await page.click('button[type="submit"]');
    await page.waitForSelector('nav[aria-label="Views"]');
    const stored = await page.evaluate(() => localStorage.length + sessionStorage.length);
    expect(stored).toBe(0);
  });

  it('Routes: shows the seeded table; a confirmed weight edit reaches Redis and the router', async () => {
    await open('routes');
    const route = '[data-route="*/question-type"]';
    await page.waitForSelector(`${route} [data-version="2"]`);
    await waitInPage(
      () =>
        document
          .querySelector('[data-route="*/question-type"] [data-version="2"]')
          ?.textContent?.includes('routable') === true
          ? true
          : null,
      'v2 of question-type to show as routable',
    );
    await screenshot('routes');
    const table = new RoutingTableRepository(redis, { keyPrefix: prefix });
    const before = await table.currentEpoch();

    await page.click(`button[aria-label="Edit weights of */question-type"]`);
    await page.waitForSelector('dialog[open]');
    for (const [version, weight] of [
      [1, '0'],
      [2, '100'],
    ] as const) {
      const input = `input[aria-label="Weight of version ${version}"]`;
      await page.$eval(input, (el) => ((el as unknown as { value: string }).value = ''));
      await page.type(input, weight);
    }
    await page.click('dialog button::-p-text(Review change)');
    await page.click('dialog button::-p-text(Apply change)');
    await page.waitForSelector('dialog[open]', { hidden: true });

    const stored = await table.load();
    expect(stored!.epoch).toBe(before + 1);
    expect(
      stored!.routes.find((r) => r.tenant === '*' && r.task === 'question-type')!.versions,
    ).toEqual([
      { version: 1, weight: 0 },
      { version: 2, weight: 100 },
    ]);
    expect((await table.auditLog(1))[0]).toMatchObject({
      who: 'dashboard',
      action: 'route.upsert',
    });
    // The router applies the new epoch (its heartbeat says so) and answers from version 2.
    const heartbeats = new RouterHeartbeatRepository(redis, { keyPrefix: prefix });
    await pollUntil(
      async () =>
        (await heartbeats.readLive()).some((hb) => hb.epoch >= before + 1) ? true : undefined,
      { timeoutMs: 30_000, what: 'the router to apply the edit' },
    );
    const answer = await call(mesh.http, 'POST', '/v1/predict', {
      key: GLOBEX_KEY,
      body: { task: 'question-type', text: '这是什么问题' },
    });
    expect([answer.status, answer.body.version]).toEqual([200, 2]);
    // The page shows the new weights and epoch through its live stream.
    await waitInPage(
      () =>
        document
          .querySelector('[data-route="*/question-type"] [data-version="2"]')
          ?.textContent?.startsWith('v2: 100')
          ? Number(document.querySelector('[data-epoch]')?.getAttribute('data-epoch'))
          : null,
      'the edited weight on the page',
    ).then((epoch) => expect(epoch).toBeGreaterThanOrEqual(before + 1));
  });

  it('Traffic: requests sent through the router show per version, with a uPlot chart', async () => {
    for (let i = 0; i < 20; i++) {
      const r = await call(mesh.http, 'POST', '/v1/predict', {
        key: GLOBEX_KEY,
        body: { task: 'question-type', text: `第${i}个问题是什么` },
      });
      expect(r.status).toBe(200);
    }
    await open('traffic');
    const requests = await waitInPage(() => {
      const cell = document.querySelector(
        '[data-task="question-type"] [data-version="question-type-zh/2"] [data-requests]',
      );
      const n = Number(cell?.getAttribute('data-requests') ?? 0);
      return n > 0 ? n : null;
    }, 'traffic of question-type v2 to appear');
    expect(requests).toBeGreaterThanOrEqual(1);
    expect(await page.$$eval('[data-task="question-type"] .uplot canvas', (c) => c.length)).toBe(2);
    await screenshot('traffic');
  });

  it('Rollouts: a rollout created through the API appears, advances live and obeys its buttons', async () => {
    const res = await fetch(`${coordinator.urls.http}/v1/rollouts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        task: 'intent',
        model: 'intent-zh',
        toVersion: 2,
        // The last step holds long enough for the buttons to act on a running rollout.
        steps: [
          { weight: 50, holdSeconds: 1 },
          { weight: 100, holdSeconds: 3600 },
        ],
      }),
    });
    expect(res.status).toBe(201);
    const { id } = (await res.json()) as { id: string };
    await open('rollouts');
    await page.waitForSelector(`[data-rollout="${id}"]`);
    await page.click(`button[aria-label="Show rollout ${id}"]`);
    const detail = `[data-rollout-detail="${id}"]`;
    const stateOf = () =>
      page.$eval(`${detail} [data-state]`, (el) => el.getAttribute('data-state'));
    const seen = new Set<string>();
    await pollUntil(
      async () => {
        seen.add((await stateOf()) ?? '');
        const steps = await page.$$eval(`${detail} tr[data-to="canary"]`, (rows) => rows.length);
        return steps >= 2 ? true : undefined;
      },
      { timeoutMs: 90_000, intervalMs: 100, what: `rollout ${id} to reach its second step` },
    ).catch((err: Error) => {
      throw new Error(`${err.message}; states seen: ${[...seen].join(', ')}`);
    });
    // Followed live from its first state, and the timeline lists the transitions in order.
    expect(seen.has('canary')).toBe(true);
    expect(seen.size).toBeGreaterThan(1);
    const transitions = await page.$$eval(`${detail} tr[data-to]`, (rows) =>
      rows.map((r) => r.getAttribute('data-to')),
    );
    expect(transitions.slice(0, 2)).toEqual(['loading', 'waiting_for_window']);
    expect(transitions.slice(-2)).toEqual(['canary', 'canary']);
    expect(await page.$eval(`${detail} tr[data-to]:last-child`, (tr) => tr.textContent)).toContain(
      'step 2: 100%',
    );
    await screenshot('rollouts');

    await page.click(`button[aria-label="pause rollout ${id}"]`);
    await page.waitForSelector(`${detail} [data-state="paused"]`, { timeout: 60_000 });
    await page.click(`button[aria-label="resume rollout ${id}"]`);
    await page.waitForSelector(`${detail} [data-state="canary"]`, { timeout: 60_000 });
    const api = (await (
      await fetch(`${coordinator.urls.http}/v1/rollouts/${id}`, {
        headers: { authorization: `Bearer ${ADMIN}` },
      })
    ).json()) as { timeline: { to: string }[] };
    expect(api.timeline.map((t) => t.to).slice(-2)).toEqual(['paused', 'canary']);

    // Promote to the end, then undo from the same view: the undo is a new rollout, shown at once.
    const undoButton = `button[aria-label="undo rollout ${id}"]`;
    expect(
      await page.$eval(undoButton, (b) => (b as unknown as { disabled: boolean }).disabled),
    ).toBe(true);
    await page.click(`button[aria-label="promote rollout ${id}"]`);
    let lastSeen = '';
    await pollUntil(
      async () => {
        const now = (await (
          await fetch(`${coordinator.urls.http}/v1/rollouts/${id}`, {
            headers: { authorization: `Bearer ${ADMIN}` },
          })
        ).json()) as { state: string; timeline: { reason: string }[] };
        lastSeen = `${now.state}: ${now.timeline.at(-1)?.reason ?? ''}`;
        return now.state === 'completed' ? true : undefined;
      },
      { timeoutMs: 90_000, what: `rollout ${id} to complete after promote` },
    ).catch((err: Error) => {
      const logs = coordinator.logs.slice(-15).join('\n');
      throw new Error(`${err.message}; last seen ${lastSeen}\n${logs}`);
    });
    await page.waitForSelector(`${undoButton}:not([disabled])`, { timeout: 30_000 });
    await page.click(undoButton);
    const undoDetail = await page.waitForSelector(
      `[data-rollout-detail]:not([data-rollout-detail="${id}"])`,
      { timeout: 30_000 },
    );
    const undoId = await undoDetail!.evaluate((el) => el.getAttribute('data-rollout-detail'));
    expect(await undoDetail!.evaluate((el) => el.textContent)).toContain(`undo of ${id} back to`);
    await pollUntil(
      async () => {
        const undo = (await (
          await fetch(`${coordinator.urls.http}/v1/rollouts/${undoId}`, {
            headers: { authorization: `Bearer ${ADMIN}` },
          })
        ).json()) as { state: string; undoOf: string };
        return undo.state === 'completed' ? undo : undefined;
      },
      { timeoutMs: 90_000, what: `undo ${undoId} to complete` },
    );
    expect(
      (
        (await (
          await fetch(`${coordinator.urls.http}/v1/rollouts/${id}`, {
            headers: { authorization: `Bearer ${ADMIN}` },
          })
        ).json()) as { undoneBy?: string }
      ).undoneBy,
    ).toBe(undoId);
  });

  it('Jobs: a bulk job queued before any worker runs moves its progress bar once one starts', async () => {
    const submitted = await submitNdjson(mesh.http, ACME_KEY, 'question-type', ndjsonOf(600));
    expect(submitted.status).toBe(202);
    const id = submitted.body.jobId as string;
    await open('jobs');
    const bar = `progress[aria-label="Progress of job ${id}"]`;
    await page.waitForSelector(bar);
    expect(await page.$eval(bar, (p) => (p as unknown as { value: number }).value)).toBe(0);
    worker = await startWorker({
      REDIS_KEY_PREFIX: prefix,
      KSERVE_ENDPOINTS: hostPort(mesh.host.urls.grpc!),
    });
    const values: number[] = [];
    await pollUntil(
      async () => {
        const value = await page
          .$eval(bar, (p) => (p as unknown as { value: number }).value)
          .catch(() => -1);
        if (value >= 0 && values[values.length - 1] !== value) values.push(value);
        if (value > 0 && value < 600 && !existsSync(join(ARTIFACTS, 'dashboard-jobs.png'))) {
          await screenshot('jobs');
        }
        return value === 600 ? true : undefined;
      },
      { timeoutMs: 120_000, intervalMs: 100, what: `job ${id}'s progress bar to fill` },
    );
    expect(values[0]).toBe(0);
    expect(values).toEqual([...values].sort((a, b) => a - b));
    await page.waitForSelector(`tr[data-job="${id}"][data-state="completed"]`);
    if (!existsSync(join(ARTIFACTS, 'dashboard-jobs.png'))) await screenshot('jobs');
  });

  it('Models: the backend repository index with states and model_sha256', async () => {
    await open('models');
    await page.waitForSelector('[data-model="question-type-zh/2"]');
    const row = await page.$eval('[data-model="question-type-zh/2"]', (tr) =>
      Array.from(tr.querySelectorAll('td') as unknown as ArrayLike<PageElement>).map(
        (td) => td.getAttribute('title') || td.textContent,
      ),
    );
    expect(row.slice(0, 3)).toEqual(['question-type-zh', '2', 'READY']);
    expect(row[4]).toMatch(/^[0-9a-f]{64}$/);
    // The placer's ledger of the backend (no budget here) and its decisions card.
    await page.waitForSelector('[data-resident="question-type-zh/2"]', { timeout: 30_000 });
    const placed = await page.$eval('[data-backend] p', (p) => p.textContent ?? '');
    expect(placed).toMatch(/^\d+ MB placed, no budget$/);
    await page.waitForSelector('[data-placement-decisions]');
    await screenshot('models');
  });

  it('fits a narrow screen and logged no console error', async () => {
    await page.setViewport({ width: 390, height: 844 });
    await open('routes');
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    expect(overflow).toBeLessThanOrEqual(0);
    await screenshot('routes-narrow');
    expect(pageErrors).toEqual([]);
  });
});

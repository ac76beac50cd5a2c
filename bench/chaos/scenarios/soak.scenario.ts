import { execFileSync } from 'node:child_process';
import { CHAOS_KEY, sleep } from '../cluster';
import { after, httpPredict, openLoop, percentile, Recorder } from '../load';
import { Sampler, slopePerMinute } from '../metrics';
import { verdict, type ChaosScenario, type Check } from '../scenario';
import {
  budgetOf,
  measureSaturation,
  QUEUE_GAUGES,
  startOverloadCluster,
} from './overload.scenario';

/**
 * Scenario 7: a long steady load at 80 % of the measured saturation (5 min in full mode, 20 s
 * in --quick). Must show 0 errors, flat RSS and event-loop delay (least-squares slopes over
 * the run after a warm-up fifth) and no growth of Redis keys beyond retention: the number of
 * keys without an expiry stays the same, and no key expires later than the longest retention
 * (traffic-signal buckets: 1 h + one bucket).
 */

/** Traffic-signal retention (1 h) plus one 5 s bucket, in ms. */
const LONGEST_RETENTION_MS = 3_600_000 + 5_000;

const KEY_AUDIT = `
local total, persistent, maxTtl = 0, 0, 0
local cursor = "0"
repeat
  local r = redis.call('SCAN', cursor, 'COUNT', 1000)
  cursor = r[1]
  for _, k in ipairs(r[2]) do
    total = total + 1
    local t = redis.call('PTTL', k)
    if t == -1 then persistent = persistent + 1 elseif t > maxTtl then maxTtl = t end
  end
until cursor == "0"
return {total, persistent, maxTtl}`;

function keyAudit(port: number): { total: number; persistent: number; maxTtlMs: number } {
  const out = execFileSync('redis-cli', ['-p', String(port), '--raw', 'EVAL', KEY_AUDIT, '0'])
    .toString()
    .trim()
    .split('\n')
    .map(Number);
  return { total: out[0] ?? 0, persistent: out[1] ?? 0, maxTtlMs: out[2] ?? 0 };
}

export const soakScenario: ChaosScenario = {
  id: 'soak',
  title: 'Soak at 80 % of saturation',
  budgetMs: { quick: 60_000, full: 480_000 },
  async run(ctx) {
    const durationMs = ctx.quick ? 20_000 : 300_000;
    const cluster = ctx.cluster();
    const url = await startOverloadCluster(cluster);
    let sat = ctx.shared.get('saturationRps') as number | undefined;
    if (sat === undefined) {
      sat = (await measureSaturation(url, 3000, ctx.signal)).rps;
      ctx.log(`measured saturation ≈ ${sat} rps`);
    }
    const rps = Math.max(1, Math.round(sat * 0.8));
    // A short warm-up so the first key audit sees the steady set (heartbeat, signal buckets).
    await openLoop({
      send: httpPredict(() => [url], CHAOS_KEY),
      targets: 1,
      rec: new Recorder(),
      signal: after(2000, ctx.signal),
      rps,
    });
    const keysBefore = keyAudit(cluster.redis!.port);
    const sampler = new Sampler(cluster, QUEUE_GAUGES, ctx.quick ? 500 : 2000).start();
    const rec = new Recorder();
    ctx.log(`holding ${rps} rps for ${durationMs / 1000} s`);
    await openLoop({
      send: httpPredict(() => [url], CHAOS_KEY),
      targets: 1,
      rec,
      signal: after(durationMs, ctx.signal),
      rps,
    });
    await sampler.stop();
    await sleep(200);
    const keysAfter = keyAudit(cluster.redis!.port);

    const failed = rec.outcomes.filter((o) => !o.ok);
    if (failed.length > 0) {
      const secs: Record<number, number> = {};
      for (const o of failed)
        secs[Math.floor(o.t / 1000)] = (secs[Math.floor(o.t / 1000)] ?? 0) + 1;
      ctx.log(`failures by second: ${JSON.stringify(secs)}`);
      ctx.log(
        cluster.routers[0]!.tail()
          .split('\n')
          .filter((l) => l.includes('warn') || l.includes('error'))
          .slice(-3)
          .join('\n'),
      );
    }
    const warm = durationMs / 5;
    const steady = (series: { t: number; v: number }[]) => series.filter((p) => p.t >= warm);
    const procs = cluster.live().filter((p) => p.name !== 'redis');
    const rssSlope: Record<string, number> = {};
    const loopSlope: Record<string, number> = {};
    const loopP99: Record<string, number> = {};
    for (const p of procs) {
      rssSlope[p.name] = slopePerMinute(steady(sampler.series(p.name)));
      const loop = steady(sampler.series(p.name, 'loopP99ms'));
      loopSlope[p.name] = slopePerMinute(loop);
      loopP99[p.name] = percentile(
        loop.map((x) => x.v),
        50,
      );
    }
    const rss = sampler.maxRss();
    const fmt = (o: Record<string, number>, unit: string, digits = 2) =>
      Object.entries(o)
        .map(([k, v]) => `${k} ${v.toFixed(digits)}${unit}`)
        .join(', ');
    // Flat: RSS grows by less than 1 % of the process's budget per minute, event-loop p99 by
    // less than 1 ms per minute. Only judged on the full run; 20 s is too short for a slope.
    const rssFlat = Object.entries(rssSlope).every(([p, s]) => s < budgetOf(p) / 100);
    const loopFlat = Object.values(loopSlope).every((s) => s < 1);
    const checks: Check[] = [
      { name: '0 errors', ok: failed.length === 0, detail: JSON.stringify(rec.counts(failed)) },
      {
        name: 'no new key without an expiry',
        ok: keysAfter.persistent <= keysBefore.persistent,
        detail: `${keysBefore.persistent} → ${keysAfter.persistent}`,
      },
      {
        name: 'no key outlives the longest retention',
        ok: keysAfter.maxTtlMs <= LONGEST_RETENTION_MS,
        detail: `max TTL ${keysAfter.maxTtlMs} ms`,
      },
      {
        name: 'no process over its memory budget',
        ok: Object.entries(rss).every(([p, v]) => v <= budgetOf(p)),
      },
    ];
    if (!ctx.quick) {
      checks.push(
        {
          name: 'RSS flat (< 1 % of budget per minute)',
          ok: rssFlat,
          detail: fmt(rssSlope, ' MiB/min'),
        },
        {
          name: 'event-loop p99 flat (< 1 ms per minute)',
          ok: loopFlat,
          detail: fmt(loopSlope, ' ms/min'),
        },
      );
    }
    const ok = rec.outcomes.filter((o) => o.ok);
    return {
      id: this.id,
      title: this.title,
      load: `open loop ${rps} rps HTTP (80 % of ${sat} rps) for ${durationMs / 1000} s, 1 router, 1 host`,
      faults: 'none (time)',
      requests: {
        sent: rec.outcomes.length,
        failed: failed.length,
        failedDetail: rec.counts(failed),
      },
      dataLost: 0,
      fixes: [],
      figures: {
        durationS: durationMs / 1000,
        heldRps: Math.round((rec.outcomes.length / rec.now()) * 1000),
        p50Ms: Math.round(
          percentile(
            ok.map((o) => o.ms),
            50,
          ),
        ),
        p99Ms: Math.round(
          percentile(
            ok.map((o) => o.ms),
            99,
          ),
        ),
        rssSlope: fmt(rssSlope, ' MiB/min'),
        maxRssMiB: fmt(rss, ' MiB', 0),
        eventLoopP99Median: fmt(loopP99, ' ms', 1),
        eventLoopP99Slope: fmt(loopSlope, ' ms/min'),
        redisKeys: `${keysBefore.total} → ${keysAfter.total} (without expiry ${keysBefore.persistent} → ${keysAfter.persistent}; longest TTL ${Math.round(keysAfter.maxTtlMs / 1000)} s)`,
      },
      ...verdict(
        checks,
        ctx.quick
          ? ['--quick: slopes are reported, not judged (20 s is too short for a trend)']
          : [],
      ),
    };
  },
};

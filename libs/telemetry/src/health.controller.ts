import { Controller, Get, HttpCode, Inject, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { runReadiness, type ReadinessCheck, type ReadinessReport } from './readiness';
import { READINESS_CHECKS } from './telemetry-tokens';

/** `/healthz/live` and `/healthz/ready`, the same on every app. */
@Controller()
export class HealthController {
  constructor(@Inject(READINESS_CHECKS) private readonly checks: ReadinessCheck[]) {}

  @Get('healthz/live')
  @HttpCode(200)
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('healthz/ready')
  async ready(@Res({ passthrough: true }) reply: FastifyReply): Promise<ReadinessReport> {
    const report = await runReadiness(this.checks);
    reply.status(report.status === 'ok' ? 200 : 503);
    return report;
  }
}

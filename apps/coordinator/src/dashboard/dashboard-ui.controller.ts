import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Controller, Get, Inject, NotFoundException, Param, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { DASHBOARD_UI_DIR } from './dashboard-tokens';

/** The built front-end (`npm run build` writes it to dist/ui); nothing else is served. */
const ASSETS: Readonly<Record<string, string>> = {
  'index.html': 'text/html; charset=utf-8',
  'app.js': 'text/javascript; charset=utf-8',
  'app.css': 'text/css; charset=utf-8',
};

/** Same-origin only: the page talks to this coordinator and nothing else. */
const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Where the dashboard lives (its assets are `/ui/<file>`). */
export const DASHBOARD_PATH = '/ui';

/**
 * `/ui`: the operator dashboard's static page. Public like any login page — every datum it
 * shows comes from `/v1/dashboard` and `/v1/rollouts`, which need the admin key. The
 * coordinator's root sends people to it (and `/ui/`, see DashboardModule).
 */
@Controller()
export class DashboardUiController {
  constructor(@Inject(DASHBOARD_UI_DIR) private readonly dir: string) {}

  @Get()
  root(@Res() reply: FastifyReply): Promise<void> {
    return redirectToDashboard(reply);
  }

  @Get('ui')
  index(@Res() reply: FastifyReply): Promise<void> {
    return this.send(reply, 'index.html');
  }

  @Get('ui/:file')
  asset(@Res() reply: FastifyReply, @Param('file') file: string): Promise<void> {
    return this.send(reply, file);
  }

  private async send(reply: FastifyReply, file: string): Promise<void> {
    const type = Object.prototype.hasOwnProperty.call(ASSETS, file) ? ASSETS[file] : undefined;
    if (!type) throw new NotFoundException(`no dashboard asset '${file}'`);
    const body = await readFile(join(this.dir, file)).catch(() => undefined);
    if (!body) {
      throw new NotFoundException(`dashboard asset '${file}' is not built: run \`npm run build\``);
    }
    await reply
      .header('content-type', type)
      .header('content-security-policy', CSP)
      .header('x-content-type-options', 'nosniff')
      .header('cache-control', 'no-cache')
      .send(body);
  }
}

/**
 * 302, not 308: browsers keep a permanent redirect forever, and the root may answer something
 * else one day. A redirect rather than the page itself, so the dashboard has one address.
 */
export async function redirectToDashboard(reply: FastifyReply): Promise<void> {
  await reply.redirect(DASHBOARD_PATH, 302);
}

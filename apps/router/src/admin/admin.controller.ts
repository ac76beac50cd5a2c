import {
  Body,
  Controller,
  Delete,
  Get,
  Headers,
  HttpCode,
  Param,
  Post,
  Put,
  Query,
  UseGuards,
} from '@nestjs/common';
import { parseRoute, parseTenant } from '@mesh/routing';
import { AdminKeyGuard } from '@mesh/telemetry';
import { parseRequest } from '../http/request.schema';
import {
  EPOCH_HEADER,
  auditLimitSchema,
  epochHeaderSchema,
  forceQuerySchema,
} from './admin.schema';
import { AdminService } from './admin.service';

/**
 * `/v1/admin/*`: the routing table, tenants and audit log, guarded by ADMIN_API_KEY
 * (AdminKeyGuard). Bodies are validated here with the routing lib's own schemas
 * (INVALID_ROUTING_CONFIG naming each field). Optional `x-mesh-expected-epoch` makes an edit
 * fail with 409 if the table changed meanwhile.
 */
@UseGuards(AdminKeyGuard)
@Controller('v1/admin')
export class AdminController {
  constructor(private readonly admin: AdminService) {}

  @Get('table')
  table(): object {
    return this.admin.table();
  }

  @Get('routes')
  routes(): object {
    return { epoch: this.admin.table().epoch, routes: this.admin.routes() };
  }

  @Put('routes')
  async upsertRoute(
    @Headers(EPOCH_HEADER) epoch: string | undefined,
    @Query('force') force: string | undefined,
    @Body() body: unknown,
  ): Promise<object> {
    return this.admin.upsertRoute(parseRoute(body), expectedEpoch(epoch), forceFlag(force));
  }

  @Delete('routes/:tenant/:task')
  async deleteRoute(
    @Headers(EPOCH_HEADER) epoch: string | undefined,
    @Param('tenant') tenant: string,
    @Param('task') task: string,
  ): Promise<object> {
    return this.admin.deleteRoute(tenant, task, expectedEpoch(epoch));
  }

  @Get('tenants')
  tenants(): object {
    return { epoch: this.admin.table().epoch, tenants: this.admin.table().tenants };
  }

  @Put('tenants')
  async upsertTenant(
    @Headers(EPOCH_HEADER) epoch: string | undefined,
    @Body() body: unknown,
  ): Promise<object> {
    return this.admin.upsertTenant(parseTenant(body), expectedEpoch(epoch));
  }

  @Delete('tenants/:name')
  async deleteTenant(
    @Headers(EPOCH_HEADER) epoch: string | undefined,
    @Param('name') name: string,
  ): Promise<object> {
    return this.admin.deleteTenant(name, expectedEpoch(epoch));
  }

  @Get('audit')
  async audit(@Query('limit') limit: string | undefined): Promise<object> {
    return {
      entries: await this.admin.audit(parseRequest(auditLimitSchema, limit, 'query.limit')),
    };
  }

  @Post('reseed')
  @HttpCode(200)
  async reseed(): Promise<object> {
    return this.admin.reseed();
  }
}

function expectedEpoch(value: string | undefined): number | undefined {
  return parseRequest(epochHeaderSchema, value, `header.${EPOCH_HEADER}`);
}

/** `?force=true` writes a route the repository cannot serve yet (pre-staging). */
function forceFlag(value: string | undefined): boolean {
  return parseRequest(forceQuerySchema, value, 'query.force') === 'true';
}

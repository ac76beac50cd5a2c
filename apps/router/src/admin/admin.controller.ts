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
} from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiHeader, ApiTags } from '@nestjs/swagger';
import type { AdminAuthenticator, Route, Tenant } from '@mesh/routing';
import { z } from 'zod';
import { parseRequest } from '../http/request.schemas';
import { AdminService } from './admin.service';
import { ADMIN_AUTHENTICATOR } from '../router.tokens';
import { Inject } from '@nestjs/common';

const epochHeader = z.coerce.number().int().nonnegative().optional();
const auditLimit = z.coerce.number().int().min(1).max(10_000).default(100);
/** The routing lib validates route and tenant bodies fully (RoutingValidationError → 400). */
const objectBody = z.record(z.unknown(), { invalid_type_error: 'must be a JSON object' });

/**
 * `/v1/admin/*`: the routing table, tenants and audit log, guarded by ADMIN_API_KEY.
 * Optional `x-mesh-expected-epoch` makes an edit fail with 409 if the table changed meanwhile.
 */
@ApiTags('admin')
@ApiBearerAuth()
@ApiHeader({ name: 'x-mesh-expected-epoch', required: false })
@Controller('v1/admin')
export class AdminController {
  constructor(
    @Inject(ADMIN_AUTHENTICATOR) private readonly auth: AdminAuthenticator,
    private readonly admin: AdminService,
  ) {}

  @Get('table')
  table(@Headers('authorization') authz: string | undefined): object {
    this.auth.verify(authz);
    return this.admin.table();
  }

  @Get('routes')
  routes(@Headers('authorization') authz: string | undefined): object {
    this.auth.verify(authz);
    return { epoch: this.admin.table().epoch, routes: this.admin.routes() };
  }

  @Put('routes')
  @ApiBody({
    description: 'a Route: {tenant, task, model, versions: [{version, weight}], shadow?, cache?}',
  })
  async upsertRoute(
    @Headers('authorization') authz: string | undefined,
    @Headers('x-mesh-expected-epoch') epoch: string | undefined,
    @Body() body: unknown,
  ): Promise<object> {
    this.auth.verify(authz);
    const route = parseRequest(objectBody, body) as unknown as Route;
    return this.admin.upsertRoute(route, 'admin-api', parseRequest(epochHeader, epoch));
  }

  @Delete('routes/:tenant/:task')
  async deleteRoute(
    @Headers('authorization') authz: string | undefined,
    @Headers('x-mesh-expected-epoch') epoch: string | undefined,
    @Param('tenant') tenant: string,
    @Param('task') task: string,
  ): Promise<object> {
    this.auth.verify(authz);
    return this.admin.deleteRoute(tenant, task, 'admin-api', parseRequest(epochHeader, epoch));
  }

  @Get('tenants')
  tenants(@Headers('authorization') authz: string | undefined): object {
    this.auth.verify(authz);
    return { epoch: this.admin.table().epoch, tenants: this.admin.table().tenants };
  }

  @Put('tenants')
  @ApiBody({ description: 'a Tenant: {name, keySha256[], allowedTasks[], rateLimit, maxInFlight}' })
  async upsertTenant(
    @Headers('authorization') authz: string | undefined,
    @Headers('x-mesh-expected-epoch') epoch: string | undefined,
    @Body() body: unknown,
  ): Promise<object> {
    this.auth.verify(authz);
    const tenant = parseRequest(objectBody, body) as unknown as Tenant;
    return this.admin.upsertTenant(tenant, 'admin-api', parseRequest(epochHeader, epoch));
  }

  @Delete('tenants/:name')
  async deleteTenant(
    @Headers('authorization') authz: string | undefined,
    @Headers('x-mesh-expected-epoch') epoch: string | undefined,
    @Param('name') name: string,
  ): Promise<object> {
    this.auth.verify(authz);
    return this.admin.deleteTenant(name, 'admin-api', parseRequest(epochHeader, epoch));
  }

  @Get('audit')
  async audit(
    @Headers('authorization') authz: string | undefined,
    @Query('limit') limit: string | undefined,
  ): Promise<object> {
    this.auth.verify(authz);
    return { entries: await this.admin.audit(parseRequest(auditLimit, limit)) };
  }

  @Post('reseed')
  @HttpCode(200)
  async reseed(@Headers('authorization') authz: string | undefined): Promise<object> {
    this.auth.verify(authz);
    return this.admin.reseed('admin-api');
  }
}

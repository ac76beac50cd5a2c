import {
  Body,
  Controller,
  Get,
  HttpCode,
  Inject,
  Param,
  ParseEnumPipe,
  Post,
  UseGuards,
} from '@nestjs/common';
import { RolloutService, type RolloutView } from '../rollout/rollout.service';
import type { OperatorCommandKind } from '../rollout/rollout.types';
import { AdminKeyGuard } from './admin-key.guard';

const COMMANDS = ['pause', 'resume', 'abort', 'promote'] as const;

/** `/v1/rollouts`: plans in, state and timeline out; operator commands. */
@Controller('v1/rollouts')
@UseGuards(AdminKeyGuard)
export class RolloutsController {
  constructor(@Inject(RolloutService) private readonly rollouts: RolloutService) {}

  @Post()
  @HttpCode(201)
  create(@Body() body: unknown): Promise<RolloutView> {
    return this.rollouts.create(body);
  }

  @Get()
  async list(): Promise<{ rollouts: RolloutView[] }> {
    return { rollouts: await this.rollouts.list() };
  }

  @Get(':id')
  get(@Param('id') id: string): Promise<RolloutView> {
    return this.rollouts.get(id);
  }

  @Post(':id/:command')
  @HttpCode(202)
  command(
    @Param('id') id: string,
    @Param('command', new ParseEnumPipe(COMMANDS, { errorHttpStatusCode: 404 }))
    command: OperatorCommandKind,
  ): Promise<RolloutView> {
    return this.rollouts.command(id, command);
  }
}

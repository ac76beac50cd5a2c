import { Body, Controller, Get, HttpCode, Inject, Param, Post, UseGuards } from '@nestjs/common';
import { AdminKeyGuard, EnumParamPipe } from '@mesh/telemetry';
import {
  OPERATOR_COMMANDS,
  type OperatorCommandKind,
  type RolloutView,
} from '@mesh/rollout-contract';
import { RolloutService } from '../rollout/rollout.service';

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
    @Param('command', new EnumParamPipe(OPERATOR_COMMANDS)) command: OperatorCommandKind,
  ): Promise<RolloutView> {
    return this.rollouts.command(id, command);
  }
}

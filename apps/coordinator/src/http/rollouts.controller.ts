import {
  Body,
  Controller,
  Get,
  HttpCode,
  Inject,
  Param,
  Post,
  Query,
  UseGuards,
} from '@nestjs/common';
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

  /** Declared before `:id/:command`: an undo creates a rollout (201), it is not queued. */
  @Post(':id/undo')
  @HttpCode(201)
  undo(
    @Param('id') id: string,
    @Query('force', new EnumParamPipe(['true', 'false'] as const, { optional: true }))
    force?: 'true' | 'false',
  ): Promise<RolloutView> {
    return this.rollouts.undo(id, { force: force === 'true' });
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

import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { HealthController } from './health.controller.js';

@Module({
  // Terminus would log every failed probe as an error with a stack trace; the controller logs
  // one warning line when the database is down (a draining instance is expected to fail).
  imports: [TerminusModule.forRoot({ logger: false })],
  controllers: [HealthController],
})
export class HealthModule {}

import { Global, Module } from '@nestjs/common';
import { DrainState } from './drain-state.js';

@Global()
@Module({ providers: [DrainState], exports: [DrainState] })
export class LifecycleModule {}

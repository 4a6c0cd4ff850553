import { Global, Module } from '@nestjs/common';
import { CursorCodec } from './cursor-codec.js';
import { Paginator } from './paginator.js';
import { ServiceSecretRepository } from './service-secret.repository.js';

/** Paged lists for every feature: one Paginator, one cursor key shared by all instances. */
@Global()
@Module({
  providers: [ServiceSecretRepository, CursorCodec, Paginator],
  exports: [Paginator],
})
export class PaginationModule {}

import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ApiKeyEntity } from './api-key.entity.js';
import { ApiKeyRepository } from './api-key.repository.js';
import { ApiKeysService } from './api-keys.service.js';
import { RequestAuthenticator } from './request-authenticator.js';

/** API keys and request authentication; AppModule installs the guard (ApiKeyGuard). */
@Module({
  imports: [TypeOrmModule.forFeature([ApiKeyEntity])],
  providers: [ApiKeyRepository, ApiKeysService, RequestAuthenticator],
  exports: [ApiKeysService, RequestAuthenticator],
})
export class AuthModule {}

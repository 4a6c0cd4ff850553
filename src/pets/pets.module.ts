import { MiddlewareConsumer, Module, NestModule } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { PetEntity } from './pet.entity.js';
import { PetRepository } from './pet.repository.js';
import { PetsController } from './pets.controller.js';
import { PetsV2Controller } from './pets-v2.controller.js';
import { PetsDeprecationMiddleware } from './pets-deprecation.middleware.js';
import { PetsService } from './pets.service.js';

/**
 * The pets: v1's deprecated read (PetsController, with its deprecation headers) and v2's list
 * and read (PetsV2Controller), over one service.
 */
@Module({
  imports: [TypeOrmModule.forFeature([PetEntity])],
  controllers: [PetsController, PetsV2Controller],
  providers: [PetRepository, PetsService],
})
export class PetsModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(PetsDeprecationMiddleware).forRoutes(PetsController);
  }
}

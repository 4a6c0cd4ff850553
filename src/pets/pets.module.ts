import { MiddlewareConsumer, Module, NestModule } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { PetEntity } from './pet.entity.js';
import { PetRepository } from './pet.repository.js';
import { PetsController } from './pets.controller.js';
import { PetsDeprecationMiddleware } from './pets-deprecation.middleware.js';
import { PetsService } from './pets.service.js';

/** @deprecated The pets area is deprecated; see PetsController. */
@Module({
  imports: [TypeOrmModule.forFeature([PetEntity])],
  controllers: [PetsController],
  providers: [PetRepository, PetsService],
})
export class PetsModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(PetsDeprecationMiddleware).forRoutes(PetsController);
  }
}

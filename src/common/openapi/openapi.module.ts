import { Injectable, Module, type OnModuleInit } from '@nestjs/common';

/**
 * Registers the documentation's routes (setupOpenApi) where Nest's initialisation puts them
 * after the API's routes and before its not-found handler: Express tests a request against
 * each route in turn, so the API's requests no longer pass the documentation's 16 routes first
 * (docs/performance.md, "The documentation's routes after the API's").
 */
@Injectable()
export class OpenApiRoutes implements OnModuleInit {
  private register?: () => void;

  /** `register` runs once, during app.init(), when the API's routes are in place. */
  registerAfterApiRoutes(register: () => void): void {
    this.register = register;
  }

  /** Nest calls this after it has registered the controllers' routes. */
  onModuleInit(): void {
    this.register?.();
    this.register = undefined;
  }
}

@Module({ providers: [OpenApiRoutes] })
export class OpenApiModule {}

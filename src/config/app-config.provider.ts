import { Inject } from '@nestjs/common';

/** Injection token of the validated AppConfig. */
export const APP_CONFIG = Symbol('APP_CONFIG');

/** `@InjectConfig() private readonly config: AppConfig` */
export const InjectConfig = (): ParameterDecorator => Inject(APP_CONFIG);

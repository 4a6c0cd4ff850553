import { SetMetadata } from '@nestjs/common';

export const IS_PUBLIC = 'petstore:isPublic';

/** Exempts a route from the API key guard (health checks). Everything else needs a key. */
export const Public = (): MethodDecorator & ClassDecorator => SetMetadata(IS_PUBLIC, true);

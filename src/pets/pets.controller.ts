import { Controller, Get, Param } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrorResponses } from '../common/errors/api-error-responses.decorator.js';
import { ErrorCode } from '../common/errors/error-code.js';
import { ApiInt64IdParam } from '../common/http/api-decorators.js';
import { Int64IdPipe } from '../common/http/int64-id.pipe.js';
import { PetDto } from './dto/pet.dto.js';
import { PET_EXAMPLE } from './pet-examples.js';
import { PetsService } from './pets.service.js';

/** As deprecationHeaders() writes them; the configured dates have four-digit years. */
const DEPRECATION_HEADERS = {
  Deprecation: {
    description: 'RFC 9745: when this operation was deprecated (@ + Unix seconds)',
    schema: { type: 'string', maxLength: 14, pattern: '^@-?[0-9]{1,12}$', example: '@1793491200' },
  },
  Sunset: {
    description: 'RFC 8594: when this operation goes away (an HTTP-date)',
    schema: {
      type: 'string',
      minLength: 29,
      maxLength: 29,
      pattern:
        '^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), [0-9]{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [0-9]{4} [0-9]{2}:[0-9]{2}:[0-9]{2} GMT$',
      example: 'Sat, 01 May 2027 00:00:00 GMT',
    },
  },
  Link: {
    description:
      'The changelog (CHANGELOG_URL), rel="deprecation"; then, when the path names a pet id, its successor in v2 (GET /v2/pets/{petId}), rel="successor-version" (RFC 5829)',
    schema: {
      type: 'string',
      maxLength: 4200,
      // Absolute URLs, or the service's own paths relative to where it is reached.
      pattern:
        '^<(https?://|/)[^>]+>; rel="deprecation"; type="text/html"(, <(https?://[^>]+)?/v2/pets/[1-9][0-9]{0,18}>; rel="successor-version")?$',
      example:
        '<https://petstore.example/changelog>; rel="deprecation"; type="text/html", <https://petstore.example/v2/pets/7>; rel="successor-version"',
    },
  },
};

/**
 * @deprecated GET /pets/{petId} is kept only for existing clients. Every response carries
 * Deprecation, Sunset and Link headers (PetsDeprecationMiddleware); it is removed at the
 * sunset date. Its successor is v2's getPet (PetsV2Controller); new pet operations go there.
 */
@ApiTags('pets')
@ApiBearerAuth()
@Controller('pets')
export class PetsController {
  constructor(private readonly pets: PetsService) {}

  @Get(':petId')
  @ApiOperation({
    operationId: 'getPetById',
    summary: 'Read one pet (deprecated)',
    description:
      'Deprecated: see the Deprecation, Sunset and Link headers of every response. Its successor is v2 getPet, GET /v2/pets/{petId}.',
    deprecated: true,
  })
  @ApiInt64IdParam('petId', 'Identifier of the pet')
  @ApiOkResponse({
    type: PetDto,
    description: 'The pet',
    headers: DEPRECATION_HEADERS,
    example: PET_EXAMPLE,
  })
  @ApiErrorResponses(ErrorCode.VALIDATION_FAILED, ErrorCode.PET_NOT_FOUND)
  async getById(@Param('petId', Int64IdPipe) petId: string): Promise<PetDto> {
    return PetDto.from(await this.pets.getById(petId));
  }
}

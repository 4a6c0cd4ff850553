import { Controller, Get, Param } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrorResponses } from '../common/errors/api-error-responses.decorator.js';
import { ErrorCode } from '../common/errors/error-code.js';
import { ApiInt64IdParam } from '../common/http/api-decorators.js';
import { Int64IdPipe } from '../common/http/int64-id.pipe.js';
import { PetDto } from './dto/pet.dto.js';
import { PetsService } from './pets.service.js';

const DEPRECATION_HEADERS = {
  Deprecation: {
    description: 'RFC 9745: when this operation was deprecated (@ + Unix seconds)',
    schema: { type: 'string', example: '@1793491200' },
  },
  Sunset: {
    description: 'RFC 8594: when this operation goes away',
    schema: { type: 'string', example: 'Sat, 01 May 2027 00:00:00 GMT' },
  },
  Link: { description: 'The changelog, rel="deprecation"', schema: { type: 'string' } },
};

/**
 * @deprecated GET /pets/{petId} is kept only for existing clients. Every response carries
 * Deprecation, Sunset and Link headers (PetsDeprecationMiddleware); it is removed at the
 * sunset date. New pet operations will not be added here.
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
    description: 'Deprecated: see the Deprecation, Sunset and Link headers of every response.',
    deprecated: true,
  })
  @ApiInt64IdParam('petId', 'Identifier of the pet')
  @ApiOkResponse({ type: PetDto, headers: DEPRECATION_HEADERS })
  @ApiErrorResponses(ErrorCode.VALIDATION_FAILED, ErrorCode.PET_NOT_FOUND)
  async getById(@Param('petId', Int64IdPipe) petId: string): Promise<PetDto> {
    return PetDto.from(await this.pets.getById(petId));
  }
}

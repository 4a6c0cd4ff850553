import { Controller, Get, Param, Query, Req, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { ApiErrorResponses } from '../common/errors/api-error-responses.decorator.js';
import { ErrorCode } from '../common/errors/error-code.js';
import { ApiInt64IdParam, Beta } from '../common/http/api-decorators.js';
import { Int64IdPipe } from '../common/http/int64-id.pipe.js';
import { NEXT_PAGE_LINK_HEADER, PageDto, pageExample } from '../common/pagination/page.dto.js';
import { Paginator, type Page } from '../common/pagination/paginator.js';
import { PetDto } from './dto/pet.dto.js';
import { PET_LIST_QUERY, type PetListQuery } from './dto/pet-list.query.js';
import { PET_EXAMPLE, PET_LIST_EXAMPLE } from './pet-examples.js';
import { PetsService } from './pets.service.js';

const PetPageDto = PageDto(PetDto, 'PetPage', 'A page of pets, by id');

/**
 * The pet operations of v2 (docs/api.md): a paged, filtered list, so a client can find a pet
 * to order, and getPet, the successor of v1's deprecated getPetById (same pet, no deprecation
 * headers). Every operation is beta until v2 is declared stable.
 */
@ApiTags('pets')
@ApiBearerAuth()
@Controller({ path: 'pets', version: '2' })
export class PetsV2Controller {
  constructor(
    private readonly pets: PetsService,
    private readonly paginator: Paginator,
  ) {}

  @Get()
  @Beta()
  @ApiOperation({
    operationId: 'listPets',
    summary: 'List pets, a page at a time, filtered',
    description:
      'Pages cut on the id (keyset): follow nextCursor, or the Link header, to the end. Filters combine (AND); ' +
      'unknown, repeated or empty parameters are refused, and a cursor only fits the query that issued it.',
  })
  @PET_LIST_QUERY.apiQuery()
  @ApiOkResponse({
    type: PetPageDto,
    description: 'A page of the matching pets',
    headers: NEXT_PAGE_LINK_HEADER,
    example: pageExample(PET_LIST_EXAMPLE),
  })
  @ApiErrorResponses(ErrorCode.VALIDATION_FAILED)
  async list(
    @Query(PET_LIST_QUERY) query: PetListQuery,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<Page<PetDto>> {
    const page = await this.paginator.page(request, response, {
      list: 'pets',
      query: query.page,
      filters: query.canonical,
      fetch: (after, take) => this.pets.listPage(query.filter, query.page.order, after, take),
      idOf: (pet) => String(pet.id),
    });
    return { data: page.data.map((pet) => PetDto.from(pet)), nextCursor: page.nextCursor };
  }

  @Get(':petId')
  @Beta()
  @ApiOperation({
    operationId: 'getPet',
    summary: 'Read one pet',
    description: "The successor of v1's deprecated getPetById: the same pet.",
  })
  @ApiInt64IdParam('petId', 'Identifier of the pet')
  @ApiOkResponse({ type: PetDto, description: 'The pet', example: PET_EXAMPLE })
  @ApiErrorResponses(ErrorCode.VALIDATION_FAILED, ErrorCode.PET_NOT_FOUND)
  async getById(@Param('petId', Int64IdPipe) petId: string): Promise<PetDto> {
    return PetDto.from(await this.pets.getById(petId));
  }
}

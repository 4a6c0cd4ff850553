import { Controller, Get, Header, VERSION_NEUTRAL } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Public } from '../auth/public.decorator.js';
import { CHANGELOG_PATHNAME, changelogPage, readChangelog } from './changelog.js';

/**
 * The changelog the deprecation Link points at by default. Like the health probes it is
 * outside every API version and needs no key; it is not an API operation, so neither OpenAPI
 * document lists it (v1's stays as it was).
 */
@Public()
@ApiExcludeController()
@Controller({ path: CHANGELOG_PATHNAME.slice(1), version: VERSION_NEUTRAL })
export class ChangelogController {
  /** Read and rendered once, at start-up: the file only changes with a deployment. */
  private readonly page = changelogPage(readChangelog());

  @Get()
  @Header('Content-Type', 'text/html; charset=utf-8')
  // An hour: a deployment's new entries reach readers soon enough, and no request reads a file.
  @Header('Cache-Control', 'public, max-age=3600')
  show(): string {
    return this.page;
  }
}

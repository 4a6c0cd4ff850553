import { createHash } from 'node:crypto';
import { Controller, Get, Header, Res, VERSION_NEUTRAL } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
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
  /** A strong validator of the page: after its hour, a cache revalidates for a 304. */
  private readonly etag = `"${createHash('sha256').update(this.page).digest('base64url').slice(0, 27)}"`;

  @Get()
  @Header('Content-Type', 'text/html; charset=utf-8')
  // An hour: a deployment's new entries reach readers soon enough, and no request reads a file.
  @Header('Cache-Control', 'public, max-age=3600')
  show(@Res({ passthrough: true }) response: Response): string {
    // Express answers a matching If-None-Match with 304 and no body (res.send's freshness check).
    response.setHeader('ETag', this.etag);
    return this.page;
  }
}

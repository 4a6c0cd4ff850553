/*
 * Jest on Node 20 cannot require() an ES module, and @nestjs/throttler is CommonJS that
 * requires @nestjs/common and @nestjs/core, which are ES modules since Nest 12. Plain Node
 * (the service) handles that natively; under Jest, this module stands in for
 * '@nestjs/throttler' (see moduleNameMapper in jest.config.js): it evaluates the package's
 * CommonJS files itself, handing them the very @nestjs/common and @nestjs/core instances the
 * app uses, so decorators, HttpException and Reflector are the same classes.
 * Remove it once Jest can require() ESM here (Node 24.9+) or the package ships ESM.
 */
import * as nestCommon from '@nestjs/common';
import * as nestCore from '@nestjs/core';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';

type Throttler = typeof import('@nestjs/throttler');
interface CommonJsModule {
  exports: unknown;
}

const nativeRequire = createRequire(import.meta.url);
const ESM_PEERS: Record<string, unknown> = {
  '@nestjs/common': nestCommon,
  '@nestjs/core': nestCore,
};
const loaded = new Map<string, CommonJsModule>();

function load(file: string): unknown {
  const cached = loaded.get(file);
  if (cached) return cached.exports;
  const module: CommonJsModule = { exports: {} };
  loaded.set(file, module);
  const localRequire = (id: string): unknown => {
    if (id in ESM_PEERS) return ESM_PEERS[id];
    if (id.startsWith('.')) return load(resolveFile(resolve(dirname(file), id)));
    return nativeRequire(id);
  };
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- evaluating a CommonJS file is the point
  const evaluate = new Function(
    'exports',
    'require',
    'module',
    '__filename',
    '__dirname',
    readFileSync(file, 'utf8'),
  ) as (...args: unknown[]) => void;
  evaluate(module.exports, localRequire, module, file, dirname(file));
  return module.exports;
}

function resolveFile(path: string): string {
  return path.endsWith('.js') ? path : `${path}.js`;
}

// Through package.json: Jest's require maps '@nestjs/throttler' itself to this file.
const packageRoot = dirname(nativeRequire.resolve('@nestjs/throttler/package.json'));
const throttler = load(resolve(packageRoot, 'dist', 'index.js')) as Throttler;

export const {
  ThrottlerModule,
  ThrottlerGuard,
  ThrottlerStorageService,
  ThrottlerException,
  InjectThrottlerOptions,
  InjectThrottlerStorage,
  Throttle,
  SkipThrottle,
  seconds,
  minutes,
} = throttler;

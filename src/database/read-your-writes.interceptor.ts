import {
  Injectable,
  type CallHandler,
  type ExecutionContext,
  type NestInterceptor,
} from '@nestjs/common';
import { Observable, catchError, concatMap } from 'rxjs';
import type { AuthenticatedRequest } from '../auth/api-key.guard.js';
import { CommitPositions, recordingCommits } from './commit-positions.js';
import { ReadRouter, servingRequest } from './read-router.js';

/** Methods that never write. */
const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Serves each request with the request known to the ReadRouter (its reads know their key), and
 * records the caller's last write (ReadRouter.recordWrite) after each request that may have
 * written, success or error (an error can follow a commit), before its answer is sent: the key's
 * next read, through any instance, goes to a replica only once that replica has it. The
 * positions of such a request's commits are learned as it commits (CommitPositions).
 */
@Injectable()
export class ReadYourWritesInterceptor implements NestInterceptor {
  constructor(private readonly router: ReadRouter) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const keyId = request.apiKey?.keyId;
    if (!this.router.enabled || keyId === undefined) return next.handle();
    // The handler runs when the answer is subscribed to: inside the request's context.
    if (READ_METHODS.has(request.method)) {
      return new Observable<unknown>((subscriber) =>
        servingRequest(request, () => next.handle().subscribe(subscriber)),
      );
    }
    const commits = new CommitPositions();
    return new Observable<unknown>((subscriber) =>
      servingRequest(request, () =>
        recordingCommits(commits, () => next.handle().subscribe(subscriber)),
      ),
    ).pipe(
      concatMap(async (answer: unknown) => {
        await this.router.recordWrite(keyId, commits);
        return answer;
      }),
      catchError(async (error: unknown) => {
        await this.router.recordWrite(keyId, commits);
        throw error;
      }),
    );
  }
}

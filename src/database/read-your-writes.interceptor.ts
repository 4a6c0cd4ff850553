import {
  Injectable,
  type CallHandler,
  type ExecutionContext,
  type NestInterceptor,
} from '@nestjs/common';
import { Observable, tap } from 'rxjs';
import type { AuthenticatedRequest } from '../auth/api-key.guard.js';
import { ReadRouter } from './read-router.js';
import { ServedRequest, serving } from './served-request.js';

/** Methods that never write. */
const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Serves each request with the request known to the ReadRouter (its reads know their key).
 * After a request that may have written and sent a statement that may commit, success or error
 * (an error can follow a commit), and before its answer is sent, the caller's write is recorded
 * (ReadRouter.recordWrite): the key's next read, through any instance, goes to a replica only
 * once that replica has it.
 */
@Injectable()
export class ReadYourWritesInterceptor implements NestInterceptor {
  constructor(private readonly router: ReadRouter) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const keyId = request.apiKey?.keyId;
    if (!this.router.enabled || keyId === undefined) return next.handle();
    const served = new ServedRequest(request, !READ_METHODS.has(request.method));
    // The handler runs when the answer is subscribed to: inside the request's context.
    const answer = new Observable<unknown>((subscriber) =>
      serving(served, () => next.handle().subscribe(subscriber)),
    );
    if (!served.writes) return answer;
    const settle = (): void => {
      if (served.closed) return;
      served.closed = true;
      if (served.committed) this.router.recordWrite(keyId);
    };
    return answer.pipe(tap({ next: settle, error: settle, complete: settle }));
  }
}

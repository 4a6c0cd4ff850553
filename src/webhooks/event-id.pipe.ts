import { Injectable, type PipeTransform } from '@nestjs/common';
import { ValidationFailedError } from '../common/errors/domain-error.js';
import { EVENT_ID_PATTERN } from './webhook-operations.js';

/** A path's event id as events are written (`evt_` and 32 hex digits), else 400. */
@Injectable()
export class EventIdPipe implements PipeTransform<string, string> {
  transform(value: string): string {
    if (!EVENT_ID_PATTERN.test(value)) {
      throw new ValidationFailedError('eventId must be evt_ followed by 32 lower-case hex digits');
    }
    return value;
  }
}

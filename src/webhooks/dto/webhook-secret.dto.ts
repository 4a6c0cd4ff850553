import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { ValidateIf } from 'class-validator';
import { IntegerField } from '../../common/http/integer-field.validator.js';

/** A week: the longest two secrets sign together. */
export const MAX_PREVIOUS_SECRET_SECONDS = 604_800;
/** A day, unless the request says otherwise. */
export const DEFAULT_PREVIOUS_SECRET_SECONDS = 86_400;

@ApiSchema({ name: 'SecretRotation' })
export class RotateWebhookSecretDto {
  @ApiPropertyOptional({
    type: 'integer',
    format: 'int32',
    minimum: 0,
    maximum: MAX_PREVIOUS_SECRET_SECONDS,
    default: DEFAULT_PREVIOUS_SECRET_SECONDS,
    example: 3600,
    description: 'How long the previous secret keeps signing deliveries, beside the new one',
  })
  @ValidateIf((_, value) => value !== undefined)
  @IntegerField(0, MAX_PREVIOUS_SECRET_SECONDS)
  previousSecretExpiresInSeconds?: number;
}

/** rotateWebhookSecret's answer: the one place the new secret is shown. */
@ApiSchema({ name: 'RotatedSecret' })
export class RotatedWebhookSecretDto {
  @ApiProperty({
    minLength: 50,
    maxLength: 50,
    pattern: '^whsec_[A-Za-z0-9+/]{43}=$',
    example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw5ZZwtZkL6xU=',
    description: 'The new signing secret: shown only in this answer',
  })
  secret: string;

  @ApiProperty({
    type: 'string',
    format: 'date-time',
    maxLength: 24,
    example: '2026-11-26T10:00:00.000Z',
    description: 'Until then every delivery is signed with the previous secret as well',
  })
  previousSecretExpiresAt: string;
}

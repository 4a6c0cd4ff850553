import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { IsString, ValidateIf } from 'class-validator';
import { CodePointLength } from '../../common/http/code-point-length.validator.js';
import {
  SAFE_PROSE_PATTERN,
  SAFE_TEXT_PATTERN,
  SafeText,
} from '../../common/http/safe-text.validator.js';

@ApiSchema({ name: 'NewCategory' })
export class CreateCategoryDto {
  @ApiProperty({
    minLength: 1,
    maxLength: 64,
    pattern: SAFE_TEXT_PATTERN,
    example: 'hamster',
    description:
      'Normalised to Unicode NFC and trimmed of surrounding white space, then unique ignoring case. ' +
      'No control characters, line breaks or bidirectional formatting characters; at least one visible character.',
  })
  @SafeText('name')
  @IsString()
  @CodePointLength(1, 64)
  name: string;

  @ApiPropertyOptional({
    maxLength: 500,
    pattern: SAFE_PROSE_PATTERN,
    example: 'Small rodents kept as pets',
    description:
      'Normalised to Unicode NFC. Tabs and line breaks are fine; other control characters and ' +
      'bidirectional embeddings, overrides and isolates are not; if not empty, at least one visible character.',
  })
  // Optional, but null is a wrong type rather than "absent".
  @ValidateIf((_, value) => value !== undefined)
  @SafeText('prose')
  @IsString()
  @CodePointLength(0, 500)
  description?: string;
}

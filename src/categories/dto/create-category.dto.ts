import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsString, ValidateIf } from 'class-validator';
import { CodePointLength } from '../../common/http/code-point-length.validator.js';
import {
  IsSafeText,
  SAFE_PROSE_PATTERN,
  SAFE_TEXT_PATTERN,
} from '../../common/http/safe-text.validator.js';

@ApiSchema({ name: 'NewCategory' })
export class CreateCategoryDto {
  @ApiProperty({
    minLength: 1,
    maxLength: 64,
    pattern: SAFE_TEXT_PATTERN,
    example: 'hamster',
    description: 'Surrounding white space is trimmed; unique ignoring case; no control characters.',
  })
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value))
  @IsString()
  @CodePointLength(1, 64)
  @IsSafeText()
  name: string;

  @ApiPropertyOptional({
    maxLength: 500,
    pattern: SAFE_PROSE_PATTERN,
    example: 'Small rodents kept as pets',
    description: 'Tabs and line breaks are fine; other control characters are not.',
  })
  // Optional, but null is a wrong type rather than "absent".
  @ValidateIf((_, value) => value !== undefined)
  @IsString()
  @CodePointLength(0, 500)
  @IsSafeText({ allowLineBreaks: true })
  description?: string;
}

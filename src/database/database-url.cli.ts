import { readConfigOrExit } from '../config/read-config.js';
import { databaseUrlOf } from './embedded-database.js';

/**
 * `npm run db:url`: the URL of the service's database, for psql or TypeORM's CLI
 * (`psql "$(npm run --silent db:url)"`). Without DATABASE_URL it is the embedded PostgreSQL's,
 * which runs while `npm start` does.
 */
const config = readConfigOrExit();
const url = await databaseUrlOf(config);
if (url === undefined) {
  process.stderr.write(
    `The embedded PostgreSQL of ${config.dataDir} is not running: start the service (npm start) and ask again.\n`,
  );
  process.exit(1);
}
process.stdout.write(`${url}\n`);

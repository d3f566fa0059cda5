/**
 * Request schemas of cost-monitor's report operations. manifest-processor's /api/v1/cost front validates
 * the same bodies (docs/cost.md), so a request it forwards is never refused here.
 */
import { Type } from 'typebox';

export const ListReportsQuery = Type.Object({
  adhoc: Type.Boolean({ default: false, description: 'List ad-hoc reports instead of scheduled ones' }),
  limit: Type.Integer({
    minimum: 1,
    maximum: 1000,
    default: 50,
    description: 'Most recent reports to return',
  }),
});

/** The ad-hoc report request; each service publishes it under its own title. */
export function reportRequest(title: string) {
  return Type.Object(
    {
      include_rows: Type.Boolean({
        default: false,
        description: 'Include normalized allocation rows in the response',
      }),
      window_hours: Type.Integer({
        minimum: 1,
        maximum: 168,
        default: 24,
        description: 'Trailing window in hours',
      }),
    },
    { title },
  );
}

export const AdhocReportRequest = reportRequest('AdhocReportRequest');

// What `leap slice validate` warns about without refusing: a valid slice that cannot do what its author means.
import type { Slice } from './slice-schema.js';

export interface SliceWarning {
  rule: 'tie-only';
  ball: string;
  message: string;
}

/** No metric, no `red_first`: a proof passing at base ties (and a tie loses) four times, holding the ball. */
export function sliceWarnings(slice: Slice): SliceWarning[] {
  return slice.balls
    .filter((b) => b.proof.metric === undefined && b.red_first !== true)
    .map((b) => ({
      rule: 'tie-only',
      ball: b.id,
      message: `ball ${JSON.stringify(b.id)} has no proof.metric and no "red_first": if its proof already passes at base, every round ties the champion and loses (four times, then a hold); set "red_first": true to have the engine refuse such a proof before round one, or declare a metric to improve`,
    }));
}

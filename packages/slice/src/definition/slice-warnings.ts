// What `leap slice validate` warns about without refusing: a valid slice that cannot do what its author means.
import type { Slice } from './slice-schema.js';

/** One warning, naming the ball. */
export interface SliceWarning {
  rule: 'tie-only';
  ball: string;
  message: string;
}

/**
 * A ball with no metric and no `red_first`: if its proof already passes at base, every round ties the
 * champion and a tie loses, four times, and the ball is held. `red_first` has the engine check it first.
 */
export function sliceWarnings(slice: Slice): SliceWarning[] {
  return slice.balls
    .filter((b) => b.proof.metric === undefined && b.red_first !== true)
    .map((b) => ({
      rule: 'tie-only',
      ball: b.id,
      message: `ball ${JSON.stringify(b.id)} has no proof.metric and no "red_first": if its proof already passes at base, every round ties the champion and loses (four times, then a hold); set "red_first": true to have the engine refuse such a proof before round one, or declare a metric to improve`,
    }));
}

import { AppError, ErrorCode } from "../errors";

export class IllegalTransitionError extends AppError {
  constructor(
    readonly entity: string,
    readonly from: string,
    readonly to: string,
  ) {
    super(ErrorCode.illegalTransition, `${entity} cannot move from "${from}" to "${to}"`, { entity, currentState: from, requestedState: to });
  }
}

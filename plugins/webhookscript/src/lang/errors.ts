// Errors of the language. Every error a user sees names the line and column it happened at.

export interface Position {
  line: number;
  col: number;
}

/** A syntax error found by the lexer or the parser. */
export class WsSyntaxError extends Error {
  constructor(
    readonly detail: string,
    readonly pos: Position,
  ) {
    super(`Syntax error at line ${pos.line}:${pos.col}: ${detail}`);
  }
}

/**
 * A runtime error. Library functions throw it without a position; the interpreter adds the
 * position of the call (or statement) it surfaced at.
 */
export class WsRuntimeError extends Error {
  constructor(
    readonly detail: string,
    readonly pos?: Position,
  ) {
    super(pos ? `Error at line ${pos.line}:${pos.col}: ${detail}` : detail);
  }

  at(pos: Position): WsRuntimeError {
    return this.pos ? this : new WsRuntimeError(this.detail, pos);
  }
}

/** A safety limit was reached (steps, recursion, sizes, time). Never caught by scripts. */
export class WsLimitError extends WsRuntimeError {}

/** stop(), respond() and dd() end the script without an error. */
export class Halt {
  readonly halt = true;
}

export const fail = (message: string): never => {
  throw new WsRuntimeError(message);
};

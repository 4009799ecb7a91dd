// The syntax tree. Every node knows where it starts; expressions know whether they contain a call
// (`sync` false), because only calls can wait (HTTP, global variables) and the rest is evaluated
// without promises.
import type { Position } from './errors.js';

interface Base extends Position {
  /** True when the expression holds no call, so it is evaluated synchronously. */
  sync: boolean;
}

export interface NumNode extends Base {
  kind: 'num';
  value: number;
}
export interface StrNode extends Base {
  kind: 'str';
  value: string;
}
export interface RegexNode extends Base {
  kind: 'regex';
  source: string;
}
export interface ConstNode extends Base {
  kind: 'const';
  value: boolean | null;
}
export interface IdentNode extends Base {
  kind: 'ident';
  name: string;
}
export interface ArrayNode extends Base {
  kind: 'array';
  items: Array<{ key: Expr | null; value: Expr }>;
}
export interface UnaryNode extends Base {
  kind: 'unary';
  op: '!' | '-' | '+';
  arg: Expr;
}
export interface BinaryNode extends Base {
  kind: 'binary';
  op: '+' | '-' | '*' | '/' | '%';
  left: Expr;
  right: Expr;
}
/** `a < b`, and chains such as `5 > n > 0` (each pair must hold). */
export interface CompareNode extends Base {
  kind: 'compare';
  ops: CompareOp[];
  operands: Expr[];
}
export interface LogicalNode extends Base {
  kind: 'logical';
  op: 'and' | 'or';
  left: Expr;
  right: Expr;
}
export interface RangeNode extends Base {
  kind: 'range';
  from: Expr;
  step: Expr | null;
  to: Expr;
}
export interface IndexNode extends Base {
  kind: 'index';
  object: Expr;
  index: Expr;
}
/** `a[] = v` appends. Only valid as an assignment target. */
export interface AppendNode extends Base {
  kind: 'append';
  object: Expr;
}
export interface CallNode extends Base {
  kind: 'call';
  callee: Expr;
  args: Expr[];
}
/** `value.name(args)`: calls `<type>_name(value, args)` or `name(value, args)`. */
export interface MethodNode extends Base {
  kind: 'method';
  object: Expr;
  name: string;
  args: Expr[];
}
export interface FuncNode extends Base {
  kind: 'func';
  name: string | null;
  params: Array<{ name: string; default: Expr | null }>;
  body: Stmt[];
  /** Arrow functions with an expression body return it. */
  expr: Expr | null;
}
export interface AssignNode extends Base {
  kind: 'assign';
  op: '=' | '+=' | '-=' | '*=' | '/=';
  target: IdentNode | IndexNode | AppendNode;
  value: Expr;
}

export type CompareOp = '==' | '!=' | '<' | '>' | '<=' | '>=';

export type Expr =
  NumNode | StrNode | RegexNode | ConstNode | IdentNode | ArrayNode | UnaryNode | BinaryNode | CompareNode | LogicalNode | RangeNode | IndexNode | AppendNode | CallNode | MethodNode | FuncNode | AssignNode;

interface StmtBase extends Position {}

export interface ExprStmt extends StmtBase {
  kind: 'expr';
  expr: Expr;
}
export interface IfStmt extends StmtBase {
  kind: 'if';
  test: Expr;
  then: Stmt[];
  else: Stmt[] | null;
}
export interface WhileStmt extends StmtBase {
  kind: 'while';
  test: Expr;
  body: Stmt[];
}
export interface ForInStmt extends StmtBase {
  kind: 'forin';
  key: string | null;
  value: string;
  iterable: Expr;
  body: Stmt[];
}
export interface ForStmt extends StmtBase {
  kind: 'for';
  init: Expr | null;
  test: Expr | null;
  update: Expr | null;
  body: Stmt[];
}
export interface ReturnStmt extends StmtBase {
  kind: 'return';
  value: Expr | null;
}
export interface BreakStmt extends StmtBase {
  kind: 'break';
}
export interface ContinueStmt extends StmtBase {
  kind: 'continue';
}
export interface FuncStmt extends StmtBase {
  kind: 'function';
  func: FuncNode;
}
export interface BlockStmt extends StmtBase {
  kind: 'block';
  body: Stmt[];
}

export type Stmt = ExprStmt | IfStmt | WhileStmt | ForInStmt | ForStmt | ReturnStmt | BreakStmt | ContinueStmt | FuncStmt | BlockStmt;

export interface Program {
  body: Stmt[];
}

// String.prototype.isWellFormed exists on Node 20 (V8 11.3) but TypeScript only declares it in
// lib.es2024, which would also claim APIs Node 20 lacks. Declare just these two.
interface String {
  isWellFormed(): boolean;
  toWellFormed(): string;
}

/** A `{}` literal or `Object.create(null)`: not an array, a Date, an ObjectId or a class instance. */
export function isPlainObject (v: unknown): v is Record<string, unknown> {
  const proto = typeof v === 'object' && v !== null && !Array.isArray(v) ? Object.getPrototypeOf(v) : undefined
  return proto === Object.prototype || proto === null
}
